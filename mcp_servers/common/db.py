"""Database engines for world state: a SQLite file by default, PostgreSQL by URL.

SQLite: one file per episode, WAL journal (readers never wait for the writer), a busy timeout
so concurrent sub-agents writing to the same episode wait instead of failing. Tools run in
worker threads (the SDK runs sync tools with anyio.to_thread), hence check_same_thread=False.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
from pathlib import Path
from typing import Any

from mcp.server.mcpserver.exceptions import ToolError
from sqlalchemy import create_engine, event, inspect, text
from sqlalchemy.engine import URL, Connection, Engine, make_url

# Long enough for a burst of concurrent writes within one episode, short enough to surface a
# genuinely stuck writer as a tool error rather than a hang.
SQLITE_BUSY_TIMEOUT_S = 30


def is_sqlite(url: str) -> bool:
    return url.startswith("sqlite")


def sqlite_url(path: str | Path) -> str:
    """The URL of the SQLite file at `path`, escaped: written raw, a '?' or '#' in a folder name
    ends the path (`--runs-dir 'runs?2'` put every episode's world in one file named `runs`)."""
    return URL.create("sqlite", database=str(path)).render_as_string(hide_password=False)


def make_engine(url: str) -> Engine:
    """An engine for a world database URL."""
    if is_sqlite(url):
        engine = create_engine(
            url, connect_args={"check_same_thread": False, "timeout": SQLITE_BUSY_TIMEOUT_S}
        )

        @event.listens_for(engine, "connect")
        def _pragmas(dbapi_conn: Any, _record: Any) -> None:
            cur = dbapi_conn.cursor()
            cur.execute("PRAGMA journal_mode=WAL")
            cur.execute("PRAGMA synchronous=NORMAL")
            cur.execute("PRAGMA foreign_keys=ON")
            cur.close()

    else:
        engine = create_engine(url, pool_pre_ping=True)
    event.listen(engine, "before_cursor_execute", _refuse_nul)
    return engine


NUL_REFUSED = (
    "a text holds a NUL character (\\u0000), which the world's database cannot store or match; remove it"
)


def _refuse_nul(
    _conn: Connection, _cursor: Any, statement: str, parameters: Any, _context: Any, _executemany: bool
) -> None:
    """Refuse a statement carrying a NUL character, from an agent's argument (a subject, a
    folder name, a search text, a query), with a tool error saying so, on either backend.
    PostgreSQL cannot hold one and failed the call as a bare "Error executing tool"; SQLite
    stored it, and ended a LIKE pattern at it (a search for "a\\0zzzz" found what "a\\0" finds):
    the same call did one thing on one backend and another on the other. (`run_query`'s raw
    connection passes no hook: it refuses the same itself.)"""
    if "\x00" in statement or _has_nul(parameters):
        raise ToolError(NUL_REFUSED)


def _has_nul(value: Any) -> bool:
    if isinstance(value, str):
        return "\x00" in value
    if isinstance(value, dict):
        return any(_has_nul(v) for v in value.values())
    if isinstance(value, list | tuple):
        return any(_has_nul(v) for v in value)
    return False


def episode_schema(url: str | URL) -> str:
    """The schema a PostgreSQL episode URL searches (its `options=-csearch_path=…`); "" for none."""
    parsed = url if isinstance(url, URL) else make_url(url)
    return str(parsed.query.get("options", "")).removeprefix("-csearch_path=")


def table_names(engine: Engine) -> set[str]:
    return set(inspect(engine).get_table_names())


# SCRAM-SHA-256 as PostgreSQL computes it (RFC 7677; iterations as its scram_iterations default).
_SCRAM_ITERATIONS = 4096


def scram_verifier(password: str) -> str:
    """What PostgreSQL stores for `password` (SCRAM-SHA-256), computed here: given in
    CREATE ROLE ... PASSWORD, the server stores it as it is, so the password itself is never
    in a statement (nor in an error quoting it, a server log or pg_stat_activity)."""
    salt = secrets.token_bytes(16)
    salted = hashlib.pbkdf2_hmac("sha256", password.encode(), salt, _SCRAM_ITERATIONS)
    stored_key = hashlib.sha256(hmac.new(salted, b"Client Key", hashlib.sha256).digest()).digest()
    server_key = hmac.new(salted, b"Server Key", hashlib.sha256).digest()
    return f"SCRAM-SHA-256${_SCRAM_ITERATIONS}:{_b64(salt)}${_b64(stored_key)}:{_b64(server_key)}"


def _b64(raw: bytes) -> str:
    return base64.b64encode(raw).decode()


def create_login_role(conn: Connection, role: str, password: str) -> None:
    """A PostgreSQL role that may log in and do nothing else until granted (no inheritance).
    Its password goes as its SCRAM verifier (`scram_verifier`), never in clear."""
    # DDL takes no bind parameters; callers pass [a-z0-9_] names, and the verifier is base64
    # and ':', escaped as text() would otherwise read ':name' as one.
    verifier = scram_verifier(password).replace(":", "\\:")
    conn.execute(
        text(
            f"CREATE ROLE \"{role}\" LOGIN PASSWORD '{verifier}' "
            "NOSUPERUSER NOCREATEDB NOCREATEROLE NOINHERIT NOREPLICATION"
        )
    )
