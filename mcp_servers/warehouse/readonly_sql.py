"""Read-only SQL: one SELECT (or WITH ... SELECT) statement, executed so that it cannot write.

Two independent guards. First a lexical check outside strings, quoted identifiers and comments:
exactly one statement, starting with SELECT or WITH, and none of the words that write or change
the session (INSERT/UPDATE/DELETE/MERGE in a data-modifying CTE, SELECT ... INTO, FOR UPDATE,
set_config, ...). Then the database itself refuses writes: on SQLite the connection runs with
`PRAGMA query_only=ON` for the duration; on PostgreSQL the statement runs in a transaction that
is `READ ONLY` and always rolled back (which also undoes any session setting it made).

What a query may read (the warehouse's own tables, common functions) is enforced by the
database (an authorizer on SQLite, a reader role on PostgreSQL) and allow-lists, not by words:
see `access.py`. It may not read the computer's clock: see `clock.py`.

Runaway queries are bounded by a statement timeout (SQLite: a progress handler; PostgreSQL:
`SET LOCAL statement_timeout`); results by a row limit and a size limit (`MAX_RESULT_CHARS`,
under the harness's 32 KB cap on a tool result), both reported as a truncation with the number
of rows left out ("over N" past `MAX_COUNTED_ROWS`); on SQLite no single value may exceed
`SQLITE_MAX_VALUE_BYTES`. A non-finite number is the string "Infinity", "-Infinity" or "NaN"
(`as_json`), so every result is strict JSON.
"""

from __future__ import annotations

import re
import sqlite3
import time
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal
from typing import Any

from sqlalchemy.engine import Engine

from mcp_servers.common.db import NUL_REFUSED
from mcp_servers.common.tooling import ToolError, as_json
from mcp_servers.warehouse import access, clock

# Any sensible query over a few thousand rows takes milliseconds; this only cuts runaway ones
# (a cartesian blow-up, an unbounded recursive CTE) before they hold a worker thread for long.
STATEMENT_TIMEOUT_S = 10.0
# SQLite calls the progress handler every this many virtual-machine steps (~0.1 ms of work).
_PROGRESS_STEPS = 10_000
# A result's rows stop at this much JSON text: the harness cuts a tool result at 32 KB, and a
# model reads rows it was given whole better than a result cut mid-row.
MAX_RESULT_CHARS = 28_000
# A text value longer than this is shown cut, with how much was left out.
MAX_CELL_CHARS = 2_000
# Rows left out are counted (for the note) up to this many; past it the note says "over N".
MAX_COUNTED_ROWS = 100_000
# No SQLite value (a string built by printf, a blob) may be larger: memory stays bounded.
SQLITE_MAX_VALUE_BYTES = 1_000_000

# Words that write or change the session; forbidden anywhere outside strings and comments.
_FORBIDDEN = {
    "insert", "update", "delete", "merge", "upsert", "into", "create", "drop", "alter", "truncate",
    "attach", "detach", "pragma", "vacuum", "reindex", "grant", "revoke", "copy", "call",
    "set", "reset", "begin", "commit", "rollback", "savepoint", "release", "prepare", "execute",
    "deallocate", "listen", "notify", "set_config", "nextval", "setval", "load_extension",
    "pg_notify", "pg_terminate_backend", "pg_cancel_backend", "pg_reload_conf", "pg_rotate_logfile",
}  # fmt: skip
_FORBIDDEN_PREFIXES = ("pg_advisory", "lo_", "dblink")
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@dataclass
class QueryResult:
    columns: list[str]
    rows: list[list[Any]]
    truncated: bool
    more_rows: int = 0  # rows left out (a lower bound when `more_rows_exact` is false)
    more_rows_exact: bool = True
    cut_by_size: bool = False


def _skeleton(sql: str, dialect: str = "sqlite") -> str:
    """`sql` with string literals, quoted identifiers and comments blanked out, position for
    position. `[name]` quotes only on SQLite."""
    out = list(sql)
    quote_chars = "'\"`[" if dialect == "sqlite" else "'\""
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
        elif c in quote_chars:
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


def check_select(sql: str, dialect: str = "sqlite") -> str:
    """The statement to run (without a trailing ';'), or a ToolError saying what is not allowed."""
    skeleton = _skeleton(sql, dialect)
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
    clock.refuse_clock_words(words)
    return sql[:end].strip()


def json_cell(value: Any) -> Any:
    """A result value as JSON can carry it (NUMERIC as a number, dates as ISO text; `as_json`
    writes an infinity or NaN by its name); a long text or blob is cut at `MAX_CELL_CHARS` with a
    marker saying how much was left out."""
    if isinstance(value, Decimal):
        return float(value)
    if isinstance(value, float):  # SQLite sums money as binary floats: 415837.44999999995 -> 415837.45
        return float(f"{value:.12g}")
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, bytes | bytearray | memoryview):
        data = bytes(value)
        if len(data) * 2 > MAX_CELL_CHARS:
            return f"{data[: MAX_CELL_CHARS // 2].hex()}...[{len(data) - MAX_CELL_CHARS // 2} more bytes]"
        return data.hex()
    if isinstance(value, str) and len(value) > MAX_CELL_CHARS:
        return f"{value[:MAX_CELL_CHARS]}...[{len(value) - MAX_CELL_CHARS} more characters]"
    return value


def run_readonly(
    engine: Engine,
    sql: str,
    max_rows: int,
    timeout_s: float,
    tables: frozenset[str],
) -> QueryResult:
    """Run one checked SELECT read-only over `tables` only; at most `max_rows` rows and
    `MAX_RESULT_CHARS` of JSON, `truncated` (with the count of rows left out) when there were more."""
    dialect = engine.dialect.name
    if "\x00" in sql:  # the raw connection below passes no engine hook (make_engine's refusal)
        raise ToolError(NUL_REFUSED)
    statement = check_select(sql, dialect)
    dbapi_error: Any = engine.dialect.loaded_dbapi.Error
    with engine.connect() as conn:
        raw: Any = conn.connection.dbapi_connection
        try:
            if dialect == "sqlite":
                return _run_sqlite(raw, statement, max_rows, timeout_s, tables)
            return _run_postgres(raw, statement, max_rows, timeout_s, tables)
        except dbapi_error as exc:
            if getattr(exc, "sqlstate", None) == "57014" or "interrupted" in str(exc):
                raise ToolError(
                    f"query stopped after the {timeout_s:g} s statement timeout: narrow it "
                    "(filters, LIMIT, fewer joins)"
                ) from None
            denied = (
                access.sqlite_denial_message(str(exc), tables)
                if dialect == "sqlite"
                else access.pg_denial_message(exc, tables)
            )
            if denied:
                raise ToolError(denied) from None
            if "too big" in str(exc):
                raise ToolError(
                    f"SQL error: a value would exceed {SQLITE_MAX_VALUE_BYTES} bytes; build smaller values"
                ) from None
            message = getattr(getattr(exc, "diag", None), "message_primary", None) or str(exc)
            raise ToolError(f"SQL error: {message}") from None


def _collect(cur: Any, max_rows: int, deadline: float) -> QueryResult:
    """Rows from an executed cursor within the row and size limits, counting the rest."""
    columns = [d[0] for d in cur.description or ()]
    rows: list[list[Any]] = []
    size = len(as_json(columns))
    while len(rows) < max_rows:
        raw_row = cur.fetchone()
        if raw_row is None:
            return QueryResult(columns, rows, False)
        row = [json_cell(v) for v in raw_row]
        size += len(as_json(row)) + 1
        if size > MAX_RESULT_CHARS:
            more, exact = _count_rest(cur, deadline)
            return QueryResult(columns, rows, True, more + 1, exact, cut_by_size=True)
        rows.append(row)
    more, exact = _count_rest(cur, deadline)
    return QueryResult(columns, rows, more > 0, more, exact)


def _count_rest(cur: Any, deadline: float) -> tuple[int, bool]:
    """How many rows are left in `cur` (stopping past `MAX_COUNTED_ROWS` or at the deadline):
    (count, exact); not exact, the count is a lower bound (past the cap, more than it)."""
    n = 0
    while time.monotonic() < deadline:
        # One row past the cap tells "exactly MAX_COUNTED_ROWS" from "more".
        chunk = cur.fetchmany(min(1000, MAX_COUNTED_ROWS + 1 - n))
        if not chunk:
            return n, True
        n += len(chunk)
        if n > MAX_COUNTED_ROWS:
            return MAX_COUNTED_ROWS, False
    return n, False


def _run_sqlite(
    raw: Any, statement: str, max_rows: int, timeout_s: float, tables: frozenset[str]
) -> QueryResult:
    deadline = time.monotonic() + timeout_s
    raw.execute("PRAGMA query_only = ON")
    length_limit = raw.getlimit(sqlite3.SQLITE_LIMIT_LENGTH)
    raw.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, SQLITE_MAX_VALUE_BYTES)
    raw.set_progress_handler(lambda: 1 if time.monotonic() > deadline else 0, _PROGRESS_STEPS)
    raw.set_authorizer(access.sqlite_authorizer(tables))
    try:
        with clock.sqlite_world_clock(raw) as refused:
            cur = raw.cursor()
            try:
                cur.execute(statement)
                return _collect(cur, max_rows, deadline)
            except sqlite3.Error:
                if refused:
                    raise ToolError(clock.clock_refusal(refused[0])) from None
                raise
            finally:
                # A result cut at a limit leaves its statement active: end it while this query's
                # settings still hold, whatever way the collection ended.
                cur.close()
    finally:
        raw.set_authorizer(None)
        raw.set_progress_handler(None, 0)
        raw.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, length_limit)
        raw.execute("PRAGMA query_only = OFF")


def _run_postgres(
    raw: Any, statement: str, max_rows: int, timeout_s: float, tables: frozenset[str]
) -> QueryResult:
    # Before anything reaches the planner, which evaluates stable functions of constants.
    scs = raw.info.parameter_status("standard_conforming_strings")
    access.pg_check_query(statement, tables, backslash_escapes=scs != "on")
    deadline = time.monotonic() + timeout_s
    raw.rollback()  # start a fresh transaction, whatever the pool left behind
    try:
        with raw.cursor() as cur:
            if getattr(raw, "autocommit", False):  # SET TRANSACTION is a no-op outside a transaction
                cur.execute("BEGIN")
            cur.execute("SET TRANSACTION READ ONLY")
            cur.execute(f"SET LOCAL statement_timeout = {max(1, round(timeout_s * 1000))}")
            access.pg_check_plan(cur, statement, tables)
            cur.execute(statement)
            return _collect(cur, max_rows, deadline)
    finally:
        raw.rollback()
