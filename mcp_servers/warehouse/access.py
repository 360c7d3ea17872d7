"""What a warehouse query may read: the warehouse's own tables and harmless functions, nothing else.

The episode database holds every server's tables (mail, shop, ...) and the engine's own
catalogs, which name host paths; a word filter cannot keep a query away from them (quoted names
like `"load_extension"(...)` or `[sqlite_master]` slip past it), so the database is asked:

- SQLite: an authorizer (`sqlite3.Connection.set_authorizer`) consulted while the statement is
  prepared allows reading warehouse tables and common table expressions, SELECT, recursive CTEs
  and the functions of `SQLITE_FUNCTIONS`, and denies everything else (PRAGMA and the
  `pragma_*` table functions, ATTACH, sqlite_master, load_extension, zeroblob, ...).
- PostgreSQL: the statement is planned (`EXPLAIN (VERBOSE, FORMAT JSON)`) and every relation
  the plan scans must be a warehouse table in the episode's own schema, which also covers views
  and `information_schema` (they plan as scans of `pg_catalog` tables). Functions that read data
  by a query string or a name (`query_to_xml`, `current_setting`, `pg_*`, ...) are refused by
  name, quoted or not (`PG_DENIED_FUNCTION*`): the plan does not show what they read.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from typing import Any

from mcp_servers.common.tooling import ToolError

# Functions a warehouse query may call on SQLite: aggregates, window functions, text, numbers,
# dates and JSON. Missing on purpose: load_extension, zeroblob/randomblob (memory), sqlite_*
# (engine internals), fts3_tokenizer, and anything else not listed.
SQLITE_FUNCTIONS = frozenset(
    """
    abs avg count sum total min max group_concat string_agg
    row_number rank dense_rank percent_rank cume_dist ntile lag lead first_value last_value nth_value
    round substr substring lower upper length octet_length trim ltrim rtrim replace instr
    coalesce ifnull nullif iif typeof printf format char unicode hex unhex quote concat concat_ws
    like glob likely unlikely likelihood random
    date time datetime julianday strftime unixepoch timediff
    acos acosh asin asinh atan atan2 atanh ceil ceiling cos cosh degrees exp floor ln log log10
    log2 mod pi pow power radians sign sin sinh sqrt tan tanh trunc
    json json_array json_array_length json_extract json_insert json_object json_patch json_quote
    json_remove json_replace json_set json_type json_valid json_group_array json_group_object
    json_each json_tree -> ->>
    """.split()
)

# PostgreSQL functions refused by name (lower case); prefixes cover families.
PG_DENIED_FUNCTIONS = frozenset(
    {"current_setting", "set_config", "dblink", "version", "inet_server_addr", "inet_server_port"}
)
PG_DENIED_FUNCTION_PREFIXES = ("pg_", "lo_", "dblink", "txid_", "query_to", "table_to", "schema_to",
                               "database_to", "cursor_to")  # fmt: skip


def sqlite_authorizer(tables: frozenset[str]) -> Callable[..., int]:
    """The authorizer callback: allow reads of `tables` (and of CTEs), SELECT and safe functions."""

    def authorize(action: int, arg1: str | None, arg2: str | None, db: str | None, _src: str | None) -> int:
        if action in (sqlite3.SQLITE_SELECT, sqlite3.SQLITE_RECURSIVE):
            return sqlite3.SQLITE_OK
        if action == sqlite3.SQLITE_READ:
            # A column of a table has db "main"; a common table expression's has db None.
            if db is None or (db == "main" and (arg1 or "").lower() in tables):
                return sqlite3.SQLITE_OK
            return sqlite3.SQLITE_DENY
        if action == sqlite3.SQLITE_FUNCTION and (arg2 or "").lower() in SQLITE_FUNCTIONS:
            return sqlite3.SQLITE_OK
        return sqlite3.SQLITE_DENY

    return authorize


def sqlite_denial_message(error: str, tables: frozenset[str]) -> str | None:
    """A tool-error message for an authorizer denial (`error` is SQLite's), or None when not one."""
    if "not authorized" not in error and "prohibited" not in error:
        return None
    return (
        "refused: a warehouse query may read only the warehouse tables "
        f"({', '.join(sorted(tables))}) with common SQL functions; PRAGMA, sqlite_master, ATTACH, "
        "extensions and engine functions are not available"
    )


def pg_denied_function(name: str) -> bool:
    low = name.lower()
    return low in PG_DENIED_FUNCTIONS or low.startswith(PG_DENIED_FUNCTION_PREFIXES)


def _plan_nodes(node: Any) -> Iterator[dict[str, Any]]:
    if isinstance(node, dict):
        yield node
        for value in node.values():
            yield from _plan_nodes(value)
    elif isinstance(node, list):
        for item in node:
            yield from _plan_nodes(item)


def pg_check_plan(cur: Any, statement: str, tables: frozenset[str]) -> None:
    """Plan `statement` and refuse it when it scans anything but `tables` in the current schema."""
    cur.execute("SELECT current_schema()")
    schema = cur.fetchone()[0]
    cur.execute(f"EXPLAIN (VERBOSE, FORMAT JSON) {statement}")
    plan = cur.fetchone()[0]
    for node in _plan_nodes(plan):
        relation = node.get("Relation Name")
        if relation is None:
            continue
        if node.get("Schema") != schema or relation.lower() not in tables:
            where = f"{node.get('Schema')}.{relation}"
            raise ToolError(
                f"refused: {where} is not a warehouse table; a warehouse query may read only "
                f"{', '.join(sorted(tables))}"
            )
