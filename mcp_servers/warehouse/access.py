"""What a warehouse query may read: the warehouse's own tables and common functions, nothing else.

The episode database holds every server's tables (mail, shop, ...) and the engine's own
catalogs, which name host paths; a word filter cannot keep a query away from them (quoted names
like `"load_extension"(...)` or `[sqlite_master]` slip past it), so the database is asked:

- SQLite: an authorizer (`sqlite3.Connection.set_authorizer`) consulted while the statement is
  prepared allows reading warehouse tables and common table expressions, SELECT, recursive CTEs
  and the functions of `SQLITE_FUNCTIONS`, and denies everything else (PRAGMA and the
  `pragma_*` table functions, ATTACH, sqlite_master, load_extension, zeroblob, ...).
- PostgreSQL: the query runs as the episode's warehouse reader role (`pg_role.py`), which may
  use the episode schema and SELECT the warehouse tables and nothing else, so the database
  refuses any other table however it is reached (a join, a CTE, another schema, a function
  such as `query_to_xml` that runs a query string); `permission denied` comes back as a refusal.
  What PUBLIC may still do (call most built-in functions, read `pg_catalog`) is closed by two
  allow-lists: every function the query calls must be one of `PG_FUNCTIONS` (or SQL syntax of
  `PG_SYNTAX_CALLS`) in `pg_catalog`, checked on its text before it is planned (the planner
  evaluates stable functions of constants, e.g. `current_setting('port')::int`, whose error
  would show the value) and again on its plan (`EXPLAIN (VERBOSE, FORMAT JSON)`, which shows
  the calls the text hides, e.g. `w.pg_column_size` for `pg_column_size(w)`); and every relation the plan scans must be a
  warehouse table in the episode's own schema, which also covers views and
  `information_schema` (they plan as scans of `pg_catalog` tables). Without a reader role (the
  database role lacks CREATEROLE, or a standalone server) the two checks stand alone.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from typing import Any

from mcp_servers.common.tooling import ToolError
from mcp_servers.warehouse import clock, pg_calls

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

# Functions a warehouse query may call on PostgreSQL: aggregates, window functions, text, numbers,
# dates, arrays and JSON, all in pg_catalog and none SECURITY DEFINER. Missing on purpose: every
# function that reads settings, files, large objects, catalogs or statistics, or runs a query
# given as text (current_setting, pg_*, lo_*, query_to_xml, ts_stat, dblink, ...), and the clock
# (now, clock_timestamp, ...: see clock.py).
PG_FUNCTIONS = frozenset(
    """
    count sum avg min max string_agg array_agg bool_and bool_or every bit_and bit_or
    stddev stddev_pop stddev_samp variance var_pop var_samp corr covar_pop covar_samp
    regr_avgx regr_avgy regr_count regr_intercept regr_r2 regr_slope regr_sxx regr_sxy regr_syy
    percentile_cont percentile_disc mode
    row_number rank dense_rank percent_rank cume_dist ntile lag lead first_value last_value nth_value
    ascii btrim bit_length char_length character_length chr concat concat_ws format initcap left
    length lower lpad ltrim md5 octet_length overlay position regexp_count regexp_instr regexp_like
    regexp_match regexp_matches regexp_replace regexp_split_to_array regexp_split_to_table
    regexp_substr repeat replace reverse right rpad rtrim split_part starts_with strpos substr
    substring to_hex translate upper string_to_array string_to_table array_to_string
    similar_to_escape to_char to_number to_date to_timestamp text varchar bpchar
    abs cbrt ceil ceiling degrees div exp factorial floor gcd lcm ln log log10 min_scale mod pi
    power radians random round scale sign sqrt trim_scale trunc width_bucket
    acos asin atan atan2 cos cot sin tan sinh cosh tanh numeric int2 int4 int8 float4 float8 bool
    age date date_bin date_part date_trunc extract isfinite justify_days
    justify_hours justify_interval make_date make_interval make_time make_timestamp
    make_timestamptz timezone timestamp timestamptz time interval overlaps
    array_append array_cat array_length array_lower array_upper array_ndims array_position
    array_positions array_prepend array_remove array_replace cardinality unnest generate_series
    num_nulls num_nonnulls
    to_json to_jsonb row_to_json array_to_json json_build_array json_build_object
    jsonb_build_array jsonb_build_object json_object jsonb_object json_agg jsonb_agg
    json_object_agg jsonb_object_agg json_array_length jsonb_array_length json_array_elements
    jsonb_array_elements json_array_elements_text jsonb_array_elements_text json_each jsonb_each
    json_each_text jsonb_each_text json_extract_path jsonb_extract_path json_extract_path_text
    jsonb_extract_path_text json_object_keys jsonb_object_keys json_typeof jsonb_typeof
    jsonb_pretty json_strip_nulls jsonb_strip_nulls jsonb_set jsonb_insert jsonb_path_exists
    jsonb_path_match jsonb_path_query jsonb_path_query_array jsonb_path_query_first
    json_to_record json_to_recordset jsonb_to_record jsonb_to_recordset
    """.split()
)
# SQL syntax written like a call, with no function of that name: COALESCE(...), TRIM(BOTH ...).
PG_SYNTAX_CALLS = frozenset("coalesce nullif greatest least grouping trim".split())

# Plan fields that hold a name, not an expression (a quoted alias may contain '(').
_PLAN_NAME_FIELDS = frozenset(
    {"Node Type", "Relation Name", "Schema", "Alias", "CTE Name", "Subplan Name", "Index Name",
     "Parent Relationship", "Strategy", "Join Type", "Scan Direction", "Partial Mode", "Operation",
     "Command", "Function Name", "Table Function Name", "Sampling Method"}
)  # fmt: skip


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


def pg_refusal(what: str, tables: frozenset[str]) -> str:
    """The one-sentence tool error for a PostgreSQL query that reaches beyond the warehouse."""
    return (
        f"refused: {what}; a warehouse query may read only the warehouse tables "
        f"({', '.join(sorted(tables))}) and call common aggregate, window, text, number, date and "
        "JSON functions"
    )


def pg_denial_message(exc: Any, tables: frozenset[str]) -> str | None:
    """A tool-error message for the database's own refusal (insufficient privilege), or None."""
    if getattr(exc, "sqlstate", None) != "42501":
        return None
    detail = getattr(getattr(exc, "diag", None), "message_primary", None) or "permission denied"
    return pg_refusal(detail, tables)


def pg_check_query(statement: str, tables: frozenset[str], backslash_escapes: bool = False) -> None:
    """Refuse `statement` when its text reads the clock or calls a function outside the allow-list
    (or outside pg_catalog): before it is planned, since the planner evaluates stable functions of
    constants."""
    clock.pg_refuse_clock(statement, backslash_escapes)
    _refuse_calls(statement, tables, backslash_escapes)


def _refuse_calls(text: str, tables: frozenset[str], backslash_escapes: bool = False) -> None:
    for schema, name in pg_calls.called_functions(text, backslash_escapes):
        if schema in (None, "pg_catalog") and (name in PG_FUNCTIONS or name in PG_SYNTAX_CALLS):
            continue
        if schema in (None, "pg_catalog") and name in clock.PG_CLOCK_FUNCTIONS:
            raise ToolError(clock.clock_refusal(f"{name}()"))
        shown = f"{schema}.{name}" if schema else name
        raise ToolError(pg_refusal(f"{shown}() is not available", tables))


def _plan_nodes(node: Any) -> Iterator[dict[str, Any]]:
    if isinstance(node, dict):
        yield node
        for value in node.values():
            yield from _plan_nodes(value)
    elif isinstance(node, list):
        for item in node:
            yield from _plan_nodes(item)


def _plan_expressions(node: dict[str, Any]) -> Iterator[str]:
    for key, value in node.items():
        if key in _PLAN_NAME_FIELDS:
            continue
        if isinstance(value, str):
            yield value
        elif isinstance(value, list):
            yield from (item for item in value if isinstance(item, str))


def pg_check_plan(cur: Any, statement: str, tables: frozenset[str]) -> None:
    """Plan `statement` and refuse it when it scans anything but `tables` in the current schema,
    or when the plan calls a function outside the allow-list."""
    cur.execute("SELECT current_schema()")
    schema = cur.fetchone()[0]
    cur.execute(f"EXPLAIN (VERBOSE, FORMAT JSON) {statement}")
    plan = cur.fetchone()[0]
    for node in _plan_nodes(plan):
        relation = node.get("Relation Name")
        if relation is not None and (node.get("Schema") != schema or relation.lower() not in tables):
            raise ToolError(pg_refusal(f"{node.get('Schema')}.{relation} is not a warehouse table", tables))
        for expression in _plan_expressions(node):
            _refuse_calls(expression, tables)
