"""The warehouse's PostgreSQL function allow-list, on query text alone (no database needed)."""

from __future__ import annotations

import pytest

from mcp_servers.common.tooling import ToolError
from mcp_servers.warehouse import access, pg_calls

TABLES = frozenset({"warehouse_regions"})


@pytest.mark.parametrize(
    ("sql", "calls"),
    [
        ("SELECT upper(code), COUNT(*) FROM t GROUP BY 1", [(None, "upper"), (None, "count")]),
        ('SELECT "current_setting"(\'a\')', [(None, "current_setting")]),
        ("SELECT pg_catalog.Upper(x), \"S\".f(x)", [("pg_catalog", "upper"), ("S", "f")]),
        ("SELECT current_setting /* gap */ ('a')", [(None, "current_setting")]),
        # the column list of a CTE, of an alias, a type's modifiers: not calls
        ("WITH RECURSIVE r(n) AS (SELECT 1), s(a, b) AS NOT MATERIALIZED (SELECT 1, 2) SELECT 1", []),
        ("SELECT * FROM generate_series(1, 3) g(n), (SELECT 1) s(a), t AS u(b)", [(None, "generate_series")]),
        ("SELECT CAST(x AS numeric(10, 2)), x::character varying(5), x::pg_catalog.numeric(3)", []),
        # SQL keywords before '(' are not calls; what they enclose is read
        ("SELECT x IN (f(1)), EXISTS (SELECT g()), sum(x) FILTER (WHERE h(x)) OVER (PARTITION BY y)",
         [(None, "f"), (None, "g"), (None, "sum"), (None, "h")]),
        # a record function's column definitions look like a CTE's, but not after WITH
        ("SELECT * FROM t, dblink(c) AS (a text)", [(None, "dblink")]),
        ("SELECT (r).f(x)", [("(expression)", "f")]),
    ],
)  # fmt: skip
def test_calls_are_found_where_postgresql_would_make_them(
    sql: str, calls: list[tuple[str | None, str]]
) -> None:
    assert pg_calls.called_functions(sql) == calls


@pytest.mark.parametrize(
    ("sql", "calls"),
    [
        # x_e'...' is a name and a plain string: the backslash escapes nothing (a skeleton that
        # took it for E'...' read `current_setting('a')` as part of the string)
        ("SELECT x_e'\\' , current_setting('a') --'", [(None, "current_setting")]),
        # E'...' does take backslash escapes: all of it is one string
        ("SELECT e'\\' , current_setting(''a'') --'", []),
        # comments nest: all of it is a comment
        ("SELECT /* /* */ current_setting('x') */ 1", []),
        ("SELECT 'it''s', f() -- g()\n, h()", [(None, "f"), (None, "h")]),
        ('SELECT "a""(" , f()', [(None, "f")]),
    ],
)
def test_strings_and_comments_end_where_postgresql_ends_them(
    sql: str, calls: list[tuple[str | None, str]]
) -> None:
    assert pg_calls.called_functions(sql) == calls


def test_without_standard_conforming_strings_a_backslash_escapes_a_quote() -> None:
    sql = "SELECT '\\'' , f() --'"
    assert pg_calls.called_functions(sql) == []
    assert pg_calls.called_functions(sql, backslash_escapes=True) == [(None, "f")]


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT current_setting('port')",
        "SELECT \"current_setting\"('port')",
        "SELECT pg_catalog.current_setting('port')",
        "SELECT public.upper(code) FROM warehouse_regions",  # an allowed name, in another schema
        'SELECT "UPPER"(code) FROM warehouse_regions',  # quoted: another name than upper
        "SELECT U&\"\\0071uery_to_xml\"('select 1', true, false, '')",
        "SELECT * FROM ts_stat('select 1')",
        "SELECT version()",
        "SELECT * FROM dblink('dbname=x', 'select 1') AS t(a int)",
        "SELECT to_regclass('mail_message')",
    ],
)
def test_functions_outside_the_allow_list_are_refused(sql: str) -> None:
    with pytest.raises(
        ToolError, match=r"^refused: .*\(\) is not available; a warehouse query may read only"
    ):
        access.pg_check_query(sql, TABLES)


def test_common_functions_and_syntax_are_allowed() -> None:
    access.pg_check_query(
        "WITH m(month) AS (SELECT date_trunc('month', DATE '2026-11-20')) "
        "SELECT COALESCE(NULLIF(trim(both ' ' from code), ''), 'x'), greatest(1, 2), "
        "pg_catalog.round(1.25, 1), EXTRACT(year FROM DATE '2026-11-20'), age(DATE '2026-11-20', m.month), "
        "string_agg(code, ',' ORDER BY code), jsonb_build_object('a', 1) ->> 'a', "
        "percentile_cont(0.5) WITHIN GROUP (ORDER BY id), row_number() OVER (ORDER BY id) "
        "FROM warehouse_regions, m GROUP BY code, id",
        TABLES,
    )


def test_the_refusal_names_what_is_allowed() -> None:
    with pytest.raises(ToolError) as refused:
        access.pg_check_query("SELECT pg_ls_dir('.')", TABLES)
    assert str(refused.value) == (
        "refused: pg_ls_dir() is not available; a warehouse query may read only the warehouse "
        "tables (warehouse_regions) and call common aggregate, window, text, number, date and JSON functions"
    )


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT now()",
        "SELECT pg_catalog.clock_timestamp()",
        "SELECT CURRENT_DATE",
        "SELECT CURRENT_TIMESTAMP(0)",
        "SELECT localtimestamp",
        "SELECT 'today'::date",
        "SELECT DATE 'tomorrow'",
        "SELECT CAST(' Now ' AS timestamp)",
        "SELECT age(hire_date::date) FROM warehouse_employees",
        "SELECT age((SELECT min(hire_date) FROM warehouse_employees)::date)",
    ],
)
def test_the_clock_is_refused_with_the_worlds_date(sql: str) -> None:
    """Regression (audit F10): now(), CURRENT_DATE and 'today' read the host's clock, so an answer
    'up to today' changed with the day the run happened."""
    with pytest.raises(ToolError, match=r"^refused: .* reads the computer's clock.* today is 2026-11-20"):
        access.pg_check_query(sql, TABLES)


def test_age_of_two_dates_is_not_the_clock() -> None:
    access.pg_check_query(
        "SELECT age(DATE '2026-11-20', min(hire_date)::date) FROM warehouse_employees", TABLES
    )
