from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters
from sqlalchemy import text as sql_text

from mcp_servers.common import worldstate
from mcp_servers.warehouse import access, readonly_sql
from mcp_servers.warehouse.schema import TODAY
from tests.mcp_servers.support import World, as_data, check_contract, serve, text

REPO = Path(__file__).resolve().parents[2]

CALLS = {
    "list_tables": {},
    "describe_table": {"table": "warehouse_sales_orders"},
    "sample_rows": {"table": "warehouse_employees", "limit": 3},
    "run_query": {"sql": "SELECT code, name FROM warehouse_regions ORDER BY code"},
}

REFUSED = [
    ("DELETE FROM warehouse_regions", "only read-only SELECT"),
    ("INSERT INTO warehouse_regions (code, name, country) VALUES ('X', 'X', 'X')", "only read-only SELECT"),
    ("UPDATE warehouse_products SET list_price = 0", "only read-only SELECT"),
    ("DROP TABLE warehouse_budgets", "only read-only SELECT"),
    ("PRAGMA query_only = OFF", "only read-only SELECT"),
    ("ATTACH DATABASE 'x.db' AS x", "only read-only SELECT"),
    ("SELECT 1; DELETE FROM warehouse_regions", "only one statement"),
    (
        "WITH gone AS (DELETE FROM warehouse_regions RETURNING *) SELECT * FROM gone",
        "'DELETE' is not allowed",
    ),
    ("SELECT * INTO copy_of_regions FROM warehouse_regions", "'INTO' is not allowed"),
    ("SELECT * FROM warehouse_products FOR UPDATE", "'UPDATE' is not allowed"),
    ("SELECT set_config('search_path', 'public', false)", "'SET_CONFIG' is not allowed"),
    ("SELECT $$x$$", "dollar quoting"),
    ("SELECT 'unterminated", "unterminated"),
    ("   ", "empty query"),
]


async def test_warehouse_contract(world: World) -> None:
    async with serve("warehouse", world) as client:
        await check_contract(client, world, CALLS)
        tools = (await client.list_tools()).tools
        assert all(t.annotations and t.annotations.read_only_hint for t in tools)
        assert {t.meta["label"] for t in tools if t.meta} == {"enterprise-data-query"}


async def test_schema_listing_matches_the_data(world: World) -> None:
    async with serve("warehouse", world) as client:
        listing = as_data(await client.call_tool("list_tables", {}))
        assert listing["dialect"] == world.engine.dialect.name
        rows = {t["table"]: t["rows"] for t in listing["tables"]}
        assert len(rows) == 12 and sum(rows.values()) > 5000
        assert rows["warehouse_regions"] == 8 and rows["warehouse_sales_lines"] > 2000
        orders = as_data(await client.call_tool("describe_table", {"table": "sales_orders"}))
        columns = {c["name"]: c for c in orders["columns"]}
        assert (
            columns["id"]["primary_key"] and columns["customer_id"]["references"] == "warehouse_customers.id"
        )
        assert "cancelled" in columns["status"]["description"]
        assert orders["rows"] == rows["warehouse_sales_orders"]
        sample = as_data(await client.call_tool("sample_rows", {"table": "warehouse_products", "limit": 2}))
        assert sample["columns"][:2] == ["id", "sku"] and [r[0] for r in sample["rows"]] == [1, 2]
        assert isinstance(sample["rows"][0][sample["columns"].index("list_price")], int | float)


async def test_ledger_reconciles_with_sales_and_payroll(world: World) -> None:
    """The seed's promises, checked through run_query on both backends."""
    revenue_sql = """
        SELECT o.region_id, SUM(l.line_total) AS total
        FROM warehouse_sales_orders o JOIN warehouse_sales_lines l ON l.order_id = o.id
        WHERE o.status = 'closed' AND substr(o.order_date, 1, 7) = '2026-03'
        GROUP BY o.region_id ORDER BY o.region_id"""
    ledger_sql = """
        SELECT e.region_id, SUM(e.amount) FROM warehouse_gl_entries e
        JOIN warehouse_gl_accounts a ON a.id = e.account_id
        WHERE a.account_type = 'revenue' AND e.period = '2026-03'
        GROUP BY e.region_id ORDER BY e.region_id"""
    async with serve("warehouse", world) as client:
        sales = as_data(await client.call_tool("run_query", {"sql": revenue_sql}))
        ledger = as_data(await client.call_tool("run_query", {"sql": ledger_sql}))
        assert sales["columns"] == ["region_id", "total"] and len(sales["rows"]) == 8
        assert [r[0] for r in sales["rows"]] == [r[0] for r in ledger["rows"]]
        for (_, s), (_, g) in zip(sales["rows"], ledger["rows"], strict=True):
            assert s == pytest.approx(g, abs=0.05)
        # nothing after the last closed period is posted
        late = as_data(
            await client.call_tool(
                "run_query", {"sql": "SELECT COUNT(*) FROM warehouse_gl_entries WHERE period > '2026-10'"}
            )
        )
        assert late["rows"] == [[0]]
        budgets = as_data(
            await client.call_tool(
                "run_query",
                {
                    "sql": "SELECT fiscal_year, COUNT(DISTINCT fiscal_quarter) FROM warehouse_budgets GROUP BY fiscal_year ORDER BY 1"
                },
            )
        )
        assert budgets["rows"] == [[2025, 4], [2026, 4]]


async def test_row_limit_truncates_with_a_note(world: World) -> None:
    async with serve("warehouse", world) as client:
        got = as_data(
            await client.call_tool(
                "run_query", {"sql": "SELECT id FROM warehouse_sales_lines ORDER BY id;", "max_rows": 10}
            )
        )
        assert got["rows"] == [[i] for i in range(1, 11)] and got["truncated"] and "LIMIT" in got["note"]
        exact = as_data(
            await client.call_tool("run_query", {"sql": "SELECT id FROM warehouse_regions", "max_rows": 8})
        )
        assert exact["row_count"] == 8 and not exact["truncated"] and "note" not in exact


async def test_writes_and_session_commands_are_refused(world: World) -> None:
    before = world.dump()
    async with serve("warehouse", world) as client:
        for sql, expected in REFUSED:
            result = await client.call_tool("run_query", {"sql": sql})
            assert result.is_error, sql
            assert expected in text(result), (sql, text(result))
    assert world.dump() == before


# Queries that read the host's clock or time zone, in each dialect (audit F10).
CLOCK = ["SELECT CURRENT_DATE", "SELECT CURRENT_TIMESTAMP"]
CLOCK_ON_SQLITE = [
    "SELECT date('now')",
    "SELECT date()",
    "SELECT strftime('%Y-%m')",
    "SELECT datetime('2026-11-20 09:00', 'localtime')",
    "SELECT julianday('2026-11-20', 'UTC')",
    "SELECT count(*) FROM warehouse_salaries WHERE effective_date <= date(lower('NOW'))",
]
CLOCK_ON_POSTGRES = ["SELECT now()", "SELECT 'today'::date", "SELECT age(DATE '2026-01-01')"]


async def test_the_clock_is_the_worlds(world: World) -> None:
    """Regression (audit F10): date('now') and CURRENT_DATE gave the host's date (and 'localtime'
    its time zone), so "up to today" depended on when and where the run happened. They are
    refused, naming the world's date; dates written as literals compute as before."""
    postgres = world.engine.dialect.name == "postgresql"
    async with serve("warehouse", world) as client:
        (tool,) = [t for t in (await client.list_tools()).tools if t.name == "run_query"]
        assert f"Today is {TODAY}" in (tool.description or "")
        for sql in CLOCK + (CLOCK_ON_POSTGRES if postgres else CLOCK_ON_SQLITE):
            result = await client.call_tool("run_query", {"sql": sql})
            assert result.is_error, sql
            assert "reads the computer's clock" in text(result) and f"today is {TODAY}" in text(result), (
                sql,
                text(result),
            )
        literal = (
            "SELECT (DATE '2026-11-20' + 1)::text AS d, count(*) AS n FROM warehouse_salaries "
            "WHERE effective_date <= '2026-11-20'"
            if postgres
            else "SELECT date('2026-11-20', '+1 day') AS d, count(*) AS n FROM warehouse_salaries "
            "WHERE date(effective_date) <= '2026-11-20'"
        )
        found = as_data(await client.call_tool("run_query", {"sql": literal}))
        with world.engine.connect() as conn:
            expected = conn.execute(
                sql_text("SELECT count(*) FROM warehouse_salaries WHERE effective_date <= '2026-11-20'")
            ).scalar_one()
        assert found["rows"] == [["2026-11-21", expected]], found


async def test_database_refuses_writes_even_past_the_lexical_check(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Defence in depth: with the lexical check switched off, the connection itself is read-only,
    and it is writable again for other users of the engine afterwards."""
    monkeypatch.setattr(readonly_sql, "check_select", lambda sql, dialect="sqlite": sql)
    before = world.dump()
    async with serve("warehouse", world) as client:
        result = await client.call_tool("run_query", {"sql": "UPDATE warehouse_products SET list_price = 0"})
        assert result.is_error, text(result)
        # SQLite: the authorizer refuses it; PostgreSQL: "cannot execute UPDATE in a read-only transaction"
        assert "read" in text(result).lower(), text(result)
    assert world.dump() == before
    with world.engine.begin() as conn:
        conn.execute(sql_text("UPDATE warehouse_products SET discontinued = true WHERE id = 1"))
    with world.engine.connect() as conn:
        assert conn.execute(sql_text("SELECT discontinued FROM warehouse_products WHERE id = 1")).scalar()


async def test_statement_timeout_stops_runaway_queries(world: World) -> None:
    endless = "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT COUNT(*) FROM r"
    async with serve("warehouse", world, statement_timeout_s=0.2) as client:
        result = await client.call_tool("run_query", {"sql": endless})
        assert result.is_error and "statement timeout" in text(result), text(result)
        again = as_data(
            await client.call_tool("run_query", {"sql": "SELECT COUNT(*) FROM warehouse_regions"})
        )
        assert again["rows"] == [[8]]


async def test_bad_input_is_a_tool_error(world: World) -> None:
    async with serve("warehouse", world) as client:
        for tool, args, expected in [
            ("run_query", {"sql": "SELECT * FROM no_such_table"}, "SQL error"),
            ("run_query", {"sql": "SELEC 1"}, "only read-only SELECT"),
            ("run_query", {"sql": "SELECT 1", "max_rows": 0}, "max_rows"),
            ("describe_table", {"table": "lms_course"}, "no table"),
            ("sample_rows", {"table": "warehouse_regions", "limit": 500}, "limit"),
        ]:
            result = await client.call_tool(tool, args)
            assert result.is_error and expected in text(result), (tool, text(result))


async def test_stdio_round_trip(tmp_path: Path) -> None:
    """The server as a child process over stdio, seeding an empty SQLite file on start."""
    params = StdioServerParameters(
        command=sys.executable,
        args=[
            "-m",
            "mcp_servers.warehouse",
            "--db",
            f"sqlite:///{tmp_path / 'w.sqlite'}",
            "--workspace",
            str(tmp_path),
        ],
        env={"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(REPO)},
        cwd=str(REPO),
    )
    async with Client(params) as client:
        got = as_data(
            await client.call_tool("run_query", {"sql": "SELECT COUNT(*) AS n FROM warehouse_departments"})
        )
        assert got == {"columns": ["n"], "rows": [[8]], "row_count": 1, "truncated": False}


OUTSIDE_THE_WAREHOUSE = [
    "SELECT * FROM mail_message",
    "SELECT w.id FROM warehouse_regions w JOIN lms_course c ON c.id = w.id",
    "WITH m AS (SELECT * FROM mail_message) SELECT * FROM m",
]
OUTSIDE_ON_SQLITE = [
    "SELECT name, sql FROM sqlite_master",
    'SELECT * FROM "sqlite_master"',
    "SELECT * FROM [sqlite_master]",
    "SELECT * FROM pragma_database_list",
    "SELECT * FROM pragma_table_info('mail_message')",
    "SELECT \"load_extension\"('x')",
    "SELECT [load_extension]('x')",
    "SELECT zeroblob(300000000)",
    "SELECT sqlite_version()",
]
OUTSIDE_ON_POSTGRES = [
    "SELECT * FROM pg_catalog.pg_class",
    "SELECT table_name FROM information_schema.tables",
    "SELECT \"current_setting\"('data_directory')",
    "SELECT query_to_xml('SELECT * FROM mail_message', true, false, '')",
    'SELECT * FROM "pg_catalog"."pg_settings"',
    # functions that read another server's table through a query string or a table name
    "SELECT \"query_to_xml\"('select * from mail_message', true, false, '')",
    "SELECT pg_catalog.query_to_xml('select subject from mail_message', true, false, '')",
    "SELECT U&\"\\0071uery_to_xml\"('select * from mail_message', true, false, '')",
    "SELECT table_to_xml('mail_message', true, false, '')",
    "SELECT * FROM ts_stat('SELECT to_tsvector(body) FROM mail_message')",
    "SELECT w.id, (SELECT cursor_to_xml('c', 1, true, false, '')) FROM warehouse_regions w",
    # settings, the server, files, large objects, another database
    "SELECT current_setting('server_version')",
    "SELECT /* hidden? */ current_setting/**/('port')",
    "SELECT id FROM warehouse_regions WHERE id = current_setting('port')::int",
    "SELECT version(), inet_server_addr()",
    "SELECT pg_ls_dir('.')",
    "SELECT pg_read_file('PG_VERSION')",
    "SELECT w.pg_column_size FROM warehouse_regions w",  # pg_column_size(w), written as a column
    # other schemas and catalogs, however named
    "SELECT rolpassword FROM pg_authid",
    "SELECT rolname FROM pg_roles",
    "SELECT to_regclass('mail_message')",
    "WITH RECURSIVE m(s) AS (SELECT subject FROM mail_message) SELECT * FROM m",
    "SELECT * FROM warehouse_regions w JOIN LATERAL (SELECT subject FROM mail_message LIMIT 1) m ON true",
]


async def test_queries_read_only_the_warehouse_tables(world: World) -> None:
    """Regression: run_query read every server's tables (mail, lms, ...), sqlite_master and
    pragma_database_list (host paths), and quoting a name got past the word filter."""
    postgres = world.engine.dialect.name == "postgresql"
    async with serve("warehouse", world) as client:
        for sql in OUTSIDE_THE_WAREHOUSE + (OUTSIDE_ON_POSTGRES if postgres else OUTSIDE_ON_SQLITE):
            result = await client.call_tool("run_query", {"sql": sql})
            assert result.is_error and "refused" in text(result), (sql, text(result))
        fine = as_data(
            await client.call_tool(
                "run_query",
                {
                    "sql": "WITH r AS (SELECT code FROM warehouse_regions) "
                    "SELECT 1 AS lock, upper(min(code)) LIKE 'A%' AS a, COUNT(*) FROM r"
                },
            )
        )
        assert fine["columns"][0] == "lock" and fine["rows"][0][0] == 1, fine


# The `world` fixture on PostgreSQL alone (skipped, as it is, without a server).
POSTGRES_ONLY = pytest.mark.parametrize("world", ["postgres"], indirect=True)


# Queries an analyst writes, in PostgreSQL's dialect: the allow-lists must let every one through.
LEGITIMATE_ON_POSTGRES = [
    "SELECT code, upper(name), length(country) FROM warehouse_regions ORDER BY code",
    "WITH RECURSIVE months(m) AS (SELECT 1 UNION ALL SELECT m + 1 FROM months WHERE m < 12), "
    "q AS MATERIALIZED (SELECT region_id, COUNT(*) AS n FROM warehouse_sales_orders GROUP BY 1) "
    "SELECT m, COALESCE(SUM(q.n), 0) FROM months, q GROUP BY m ORDER BY m",
    "SELECT o.region_id, date_trunc('month', CAST(o.order_date AS date)) AS month, "
    "round(SUM(l.line_total)::numeric(14, 2), 1), COUNT(*) FILTER (WHERE o.status = 'closed') "
    "FROM warehouse_sales_orders o JOIN warehouse_sales_lines l ON l.order_id = o.id "
    "GROUP BY 1, 2 ORDER BY 1, 2 LIMIT 40",
    "SELECT id, rank() OVER (PARTITION BY region_id ORDER BY id DESC), "
    "lag(id) OVER w, percent_rank() OVER w FROM warehouse_customers WINDOW w AS (ORDER BY id) "
    "ORDER BY id LIMIT 30",
    "SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY list_price), string_agg(DISTINCT sku, ',' "
    "ORDER BY sku), stddev_pop(list_price), EXTRACT(year FROM DATE '2026-03-01') "
    "FROM warehouse_products",
    "SELECT substring(order_date FROM 1 FOR 7), to_char(to_date(order_date, 'YYYY-MM-DD'), 'Mon'), "
    "CASE WHEN status IN ('closed', 'open') THEN 'live' ELSE status END, "
    "order_number SIMILAR TO 'SO-26%', trim(both ' ' from channel) "
    "FROM warehouse_sales_orders ORDER BY id LIMIT 20",
    "SELECT g.n, s.code FROM generate_series(1, 3) g(n) "
    "JOIN (SELECT id, code FROM warehouse_regions) AS s(id, code) ON s.id = g.n ORDER BY 1",
    "SELECT json_build_object('code', code, 'name', name), to_jsonb(r) ->> 'country', "
    "pg_catalog.lower(code) FROM warehouse_regions r WHERE EXISTS "
    "(SELECT 1 FROM warehouse_customers c WHERE c.region_id = r.id) ORDER BY r.id",
]


@POSTGRES_ONLY
async def test_postgres_legitimate_queries_give_the_rows_the_database_gives(world: World) -> None:
    """The reader role and the function allow-lists change nothing for an analyst's queries."""
    async with serve("warehouse", world) as client:
        for sql in LEGITIMATE_ON_POSTGRES:
            got = as_data(await client.call_tool("run_query", {"sql": sql, "max_rows": 1000}))
            with world.engine.connect() as conn:
                rows = conn.execute(sql_text(sql)).all()
            assert got["rows"] == [[readonly_sql.json_cell(v) for v in row] for row in rows], sql
            assert rows and not got["truncated"], sql


@POSTGRES_ONLY
async def test_a_setting_cannot_leak_through_a_planning_error(world: World) -> None:
    """Regression: the planner evaluates stable functions of constants while it plans, so the
    error of `current_setting('port')::int` named the port before any check of the plan."""
    port = str(world.engine.url.port)
    async with serve("warehouse", world) as client:
        for sql in (
            "SELECT id FROM warehouse_regions WHERE id = current_setting('port')::int + 0 * id",
            "SELECT id FROM warehouse_regions WHERE code = \"current_setting\"('port')::int::text",
            "SELECT id FROM warehouse_regions WHERE id = pg_catalog.current_setting('port')::int",
        ):
            result = await client.call_tool("run_query", {"sql": sql})
            assert result.is_error and "refused" in text(result), text(result)
            assert port not in text(result) and "current_setting() is not available" in text(result)


@POSTGRES_ONLY
async def test_postgres_each_guard_refuses_on_its_own(world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    """Defence in depth: without the check of the query's text the plan's check refuses; without
    both, the reader role does (the database: permission denied)."""
    leak = "SELECT query_to_xml('select subject from mail_message', true, false, '')"
    async with serve("warehouse", world) as client:
        monkeypatch.setattr(access, "pg_check_query", lambda *args, **kwargs: None)
        for sql in (leak, "SELECT code FROM warehouse_regions r WHERE r.id = current_setting('port')::int"):
            result = await client.call_tool("run_query", {"sql": sql})
            assert result.is_error and "() is not available" in text(result), text(result)
        monkeypatch.setattr(access, "pg_check_plan", lambda *args, **kwargs: None)
        monkeypatch.setattr(readonly_sql, "check_select", lambda sql, dialect="sqlite": sql)
        for sql, denied in [
            (leak, "permission denied for table mail_message"),
            ("SELECT * FROM ts_stat('SELECT to_tsvector(body) FROM mail_message')", "mail_message"),
            ("SELECT table_to_xml('shop_coupons', true, false, '')", "permission denied for table"),
            ("SELECT subject FROM mail_message", "permission denied for table mail_message"),
            ("WITH m AS (SELECT * FROM lms_course) SELECT * FROM m", "permission denied"),
            ("SELECT pg_ls_dir('.')", "permission denied for function pg_ls_dir"),
            ("SELECT pg_read_file('PG_VERSION')", "permission denied for function"),
            ("SELECT current_setting('data_directory')", "pg_read_all_settings"),
            ("SELECT lo_get(1)", "large object"),
            ("SELECT * FROM dblink('dbname=mseval', 'select 1') AS t(a int)", "dblink"),
        ]:
            result = await client.call_tool("run_query", {"sql": sql})
            assert result.is_error and denied in text(result), (sql, text(result))
        fine = as_data(await client.call_tool("run_query", {"sql": "SELECT COUNT(*) FROM warehouse_regions"}))
        assert fine["rows"] == [[8]]


@POSTGRES_ONLY
async def test_postgres_other_schemas_are_refused(world: World) -> None:
    with world.engine.connect() as conn:
        schema = conn.execute(sql_text("SELECT current_schema()")).scalar()
    template = worldstate.pg_template_schema()
    async with serve("warehouse", world) as client:
        own = as_data(
            await client.call_tool("run_query", {"sql": f'SELECT COUNT(*) FROM "{schema}".warehouse_regions'})
        )
        assert own["rows"] == [[8]]
        for sql in (
            f'SELECT COUNT(*) FROM "{template}".warehouse_regions',
            f"SELECT COUNT(*) FROM {template}.mail_message",
            f'SELECT * FROM "{schema}".mail_message',
        ):
            result = await client.call_tool("run_query", {"sql": sql})
            assert result.is_error and "refused" in text(result), (sql, text(result))


def test_square_brackets_are_not_quotes_on_postgres() -> None:
    with pytest.raises(readonly_sql.ToolError, match="SET_CONFIG"):
        readonly_sql.check_select("SELECT (ARRAY[set_config('role', 'x', true)])[1]", "postgresql")
    assert readonly_sql.check_select("SELECT [set_config] FROM t", "sqlite")  # an identifier there


async def test_results_stop_at_a_size_budget_with_the_rows_left_out(world: World) -> None:
    """Regression: a result was limited only by max_rows, so wide rows or one huge value could
    exceed any budget (SELECT zeroblob(300000000) allocated 300 MB)."""
    async with serve("warehouse", world) as client:
        got = as_data(
            await client.call_tool(
                "run_query",
                {
                    "sql": "SELECT id, repeat_me FROM (SELECT id, printf('%.500c', 'x') AS repeat_me "
                    "FROM warehouse_sales_lines) ORDER BY id"
                    if world.engine.dialect.name == "sqlite"
                    else "SELECT id, repeat('x', 500) FROM warehouse_sales_lines ORDER BY id",
                    "max_rows": 1000,
                },
            )
        )
        total = as_data(
            await client.call_tool("run_query", {"sql": "SELECT COUNT(*) FROM warehouse_sales_lines"})
        )
        n = total["rows"][0][0]
        assert got["truncated"] and 0 < got["row_count"] < 100, got["row_count"]
        assert len(json.dumps(got)) < 32_000
        assert f"{n - got['row_count']} more rows" in got["note"] and "LIMIT" in got["note"], got["note"]
        long_value = as_data(
            await client.call_tool(
                "run_query",
                {
                    "sql": "SELECT printf('%.5000c', 'y')"
                    if world.engine.dialect.name == "sqlite"
                    else "SELECT repeat('y', 5000)"
                },
            )
        )
        assert long_value["rows"][0][0].endswith("...[3000 more characters]")
        if world.engine.dialect.name == "sqlite":  # no value past 1 MB: an error, or NULL from printf
            huge = await client.call_tool("run_query", {"sql": "SELECT hex(printf('%.600000c', 'x'))"})
            assert huge.is_error and "exceed" in text(huge), text(huge)
