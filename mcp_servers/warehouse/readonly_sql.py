"""Read-only SQL: one SELECT (or WITH ... SELECT) statement, executed so that it cannot write.

Two independent guards. First a lexical check outside strings, quoted identifiers and comments:
exactly one statement, starting with SELECT or WITH, and none of the words that write or change
the session (INSERT/UPDATE/DELETE/MERGE in a data-modifying CTE, SELECT ... INTO, FOR UPDATE,
set_config, ...). Then the database itself refuses writes: on SQLite the connection runs with
`PRAGMA query_only=ON` for the duration; on PostgreSQL the statement runs in a transaction that
is `READ ONLY` and always rolled back (which also undoes any session setting it made).

Runaway queries are bounded by a statement timeout (SQLite: a progress handler; PostgreSQL:
`SET LOCAL statement_timeout`), and results by a row limit reported as a truncation.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal
from typing import Any

from sqlalchemy.engine import Engine

from mcp_servers.common.tooling import ToolError

# Any sensible query over a few thousand rows takes milliseconds; this only cuts runaway ones
# (a cartesian blow-up, an unbounded recursive CTE) before they hold a worker thread for long.
STATEMENT_TIMEOUT_S = 10.0
# SQLite calls the progress handler every this many virtual-machine steps (~0.1 ms of work).
_PROGRESS_STEPS = 10_000

# Words that write or change the session; forbidden anywhere outside strings and comments.
_FORBIDDEN = {
    "insert", "update", "delete", "merge", "upsert", "into", "create", "drop", "alter", "truncate",
    "attach", "detach", "pragma", "vacuum", "reindex", "grant", "revoke", "copy", "call", "lock",
    "set", "reset", "begin", "commit", "rollback", "savepoint", "release", "prepare", "execute",
    "deallocate", "listen", "notify", "set_config", "nextval", "setval", "load_extension",
    "pg_notify", "pg_terminate_backend", "pg_cancel_backend", "pg_reload_conf", "pg_rotate_logfile",
}  # fmt: skip
_FORBIDDEN_PREFIXES = ("pg_advisory", "pg_read_", "pg_ls_", "lo_", "dblink")
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass
class QueryResult:
    columns: list[str]
    rows: list[list[Any]]
    truncated: bool


def _skeleton(sql: str) -> str:
    """`sql` with string literals, quoted identifiers and comments blanked out, position for position."""
    out = list(sql)
    i, n = 0, len(sql)

    def blank(start: int, end: int) -> None:
        out[start:end] = " " * (end - start)

    while i < n:
        c = sql[i]
        if sql.startswith("--", i):
            end = sql.find("\n", i)
            end = n if end < 0 else end
            blank(i, end)
            i = end
        elif sql.startswith("/*", i):
            end = sql.find("*/", i + 2)
            if end < 0:
                raise ToolError("unterminated /* comment */ in the query")
            blank(i, end + 2)
            i = end + 2
        elif c in "'\"`[":
            close = "]" if c == "[" else c
            # PostgreSQL E'...' strings take backslash escapes
            escapes = c == "'" and i > 0 and sql[i - 1] in "eE" and (i < 2 or not sql[i - 2].isalnum())
            j = i + 1
            while True:
                if j >= n:
                    raise ToolError(f"unterminated {c}...{close} in the query")
                if escapes and sql[j] == "\\":
                    j += 2
                elif sql[j] == close and close != "]" and sql.startswith(close * 2, j):
                    j += 2  # a doubled quote stands for the quote itself
                elif sql[j] == close:
                    break
                else:
                    j += 1
            blank(i + 1, j)  # keep the quotes: 'x' stays a token boundary
            i = j + 1
        else:
            i += 1
    return "".join(out)


def check_select(sql: str) -> str:
    """The statement to run (without a trailing ';'), or a ToolError saying what is not allowed."""
    skeleton = _skeleton(sql)
    end = len(skeleton.rstrip())
    if skeleton[:end].endswith(";"):
        end -= 1
    body = skeleton[:end]
    if not body.strip():
        raise ToolError("empty query: give one SELECT statement, e.g. SELECT * FROM warehouse_regions")
    if ";" in body:
        raise ToolError("only one statement per call: remove the ';' between statements")
    if "$" in body:
        raise ToolError("'$' (dollar quoting or parameters) is not supported: use '...' string literals")
    words = [w.lower() for w in _WORD.findall(body)]
    if not words or words[0] not in ("select", "with"):
        first = words[0].upper() if words else body.strip()[:20]
        raise ToolError(
            f"only read-only SELECT queries are allowed (or WITH ... SELECT); this one starts with {first!r}"
        )
    for w in words:
        if w in _FORBIDDEN or w.startswith(_FORBIDDEN_PREFIXES):
            raise ToolError(f"the warehouse is read-only: {w.upper()!r} is not allowed in a query")
    return sql[:end].strip()


def json_cell(value: Any) -> Any:
    """A result value as JSON can carry it (NUMERIC as a number, dates as ISO text)."""
    if isinstance(value, Decimal):
        return float(value)
    if isinstance(value, float):  # SQLite sums money as binary floats: 415837.44999999995 -> 415837.45
        return float(f"{value:.12g}")
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, bytes | bytearray | memoryview):
        return bytes(value).hex()
    return value


def run_readonly(
    engine: Engine, sql: str, max_rows: int, timeout_s: float = STATEMENT_TIMEOUT_S
) -> QueryResult:
    """Run one checked SELECT read-only; at most `max_rows` rows, `truncated` when there were more."""
    statement = check_select(sql)
    dbapi_error: Any = engine.dialect.loaded_dbapi.Error
    with engine.connect() as conn:
        raw: Any = conn.connection.dbapi_connection
        try:
            if engine.dialect.name == "sqlite":
                columns, rows = _run_sqlite(raw, statement, max_rows, timeout_s)
            else:
                columns, rows = _run_postgres(raw, statement, max_rows, timeout_s)
        except dbapi_error as exc:
            if getattr(exc, "sqlstate", None) == "57014" or "interrupted" in str(exc):
                raise ToolError(
                    f"query stopped after the {timeout_s:g} s statement timeout: narrow it "
                    "(filters, LIMIT, fewer joins)"
                ) from None
            message = getattr(getattr(exc, "diag", None), "message_primary", None) or str(exc)
            raise ToolError(f"SQL error: {message}") from None
    truncated = len(rows) > max_rows
    return QueryResult(columns, [[json_cell(v) for v in r] for r in rows[:max_rows]], truncated)


def _run_sqlite(raw: Any, statement: str, max_rows: int, timeout_s: float) -> tuple[list[str], list[Any]]:
    deadline = time.monotonic() + timeout_s
    raw.execute("PRAGMA query_only = ON")
    raw.set_progress_handler(lambda: 1 if time.monotonic() > deadline else 0, _PROGRESS_STEPS)
    cur = raw.cursor()
    try:
        cur.execute(statement)
        columns = [d[0] for d in cur.description or ()]
        return columns, cur.fetchmany(max_rows + 1)
    finally:
        cur.close()
        raw.set_progress_handler(None, 0)
        raw.execute("PRAGMA query_only = OFF")


def _run_postgres(raw: Any, statement: str, max_rows: int, timeout_s: float) -> tuple[list[str], list[Any]]:
    raw.rollback()  # start a fresh transaction, whatever the pool left behind
    try:
        with raw.cursor() as cur:
            if getattr(raw, "autocommit", False):  # SET TRANSACTION is a no-op outside a transaction
                cur.execute("BEGIN")
            cur.execute("SET TRANSACTION READ ONLY")
            cur.execute(f"SET LOCAL statement_timeout = {max(1, round(timeout_s * 1000))}")
            cur.execute(statement)
            columns = [d[0] for d in cur.description or ()]
            return columns, cur.fetchmany(max_rows + 1)
    finally:
        raw.rollback()
