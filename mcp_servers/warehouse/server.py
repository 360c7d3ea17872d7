"""The `warehouse` server: an enterprise data warehouse over sales, HR and finance tables, read
with schema listing and read-only SQL (SPEC §5, scenario EDW). Every tool is read-only.

`ctx.options["statement_timeout_s"]` overrides the statement timeout (tests use a short one).
"""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import MCPServer
from sqlalchemy import Table, func, select
from sqlmodel import Session

from mcp_servers.common.spec import ServerContext, ServerSpec
from mcp_servers.common.tooling import ToolError, as_json, reader
from mcp_servers.warehouse import pg_role
from mcp_servers.warehouse.readonly_sql import MAX_RESULT_CHARS, STATEMENT_TIMEOUT_S, json_cell, run_readonly
from mcp_servers.warehouse.schema import TABLE_DOCS, TABLES, TODAY
from mcp_servers.warehouse.seed import seed

LABEL = "enterprise-data-query"
DEFAULT_ROWS = 100
MAX_ROWS = 1000
MAX_SAMPLE = 50

_MODELS = {model.__tablename__: model for model in TABLES}  # type: ignore[attr-defined]
_TABLE_NAMES = frozenset(_MODELS)


def _model(table: str) -> Any:
    name = table.strip().lower()
    found = _MODELS.get(name) or _MODELS.get(f"warehouse_{name}")
    if found is None:
        raise ToolError(f"no table {table!r}; tables: {', '.join(sorted(_MODELS))}")
    return found


def _columns(model: Any, dialect: Any) -> list[dict[str, Any]]:
    table: Table = model.__table__
    out = []
    for column in table.columns:
        field = model.model_fields.get(column.name)
        refs = [f"{fk.column.table.name}.{fk.column.name}" for fk in column.foreign_keys]
        entry: dict[str, Any] = {
            "name": column.name,
            "type": str(column.type.compile(dialect=dialect)),
            "nullable": bool(column.nullable),
        }
        if column.primary_key:
            entry["primary_key"] = True
        if refs:
            entry["references"] = refs[0]
        if field is not None and field.description:
            entry["description"] = field.description
        out.append(entry)
    return out


def build(ctx: ServerContext) -> MCPServer:
    dialect = ctx.engine.dialect
    sql_name = "PostgreSQL" if dialect.name == "postgresql" else "SQLite"
    timeout_s = float(ctx.options.get("statement_timeout_s", STATEMENT_TIMEOUT_S))
    # run_query logs in as the episode's warehouse reader role on PostgreSQL (see pg_role.py).
    query_engine = pg_role.query_engine(ctx.engine) if dialect.name == "postgresql" else ctx.engine
    app = MCPServer(
        "warehouse",
        instructions=(
            f"The company's enterprise data warehouse (sales, HR, finance), on {sql_name}. Today is {TODAY}. "
            "Start with list_tables and describe_table, then run_query with one read-only SELECT. Dates are "
            "ISO text (use substr(order_date, 1, 7) for the month); money is NUMERIC."
        ),
    )

    def count(s: Session, model: Any) -> int:
        return int(s.execute(select(func.count()).select_from(model)).scalar_one())

    @reader(app, LABEL)
    def list_tables() -> str:
        """List the warehouse tables with what each holds and its row count, and the SQL dialect to write
        queries in. Call this first, then describe_table for columns."""
        with Session(ctx.engine) as s:
            tables = [
                {"table": name, "rows": count(s, model), "description": TABLE_DOCS[name]}
                for name, model in _MODELS.items()
            ]
        return as_json({"dialect": dialect.name, "today": TODAY, "tables": tables})

    @reader(app, LABEL)
    def describe_table(table: str) -> str:
        """The columns of one table (name, SQL type, nullable, primary key, foreign-key reference,
        meaning) and its row count. `table` is a name from list_tables, e.g. warehouse_sales_orders."""
        model = _model(table)
        with Session(ctx.engine) as s:
            rows = count(s, model)
        name = model.__tablename__
        return as_json(
            {
                "table": name,
                "description": TABLE_DOCS[name],
                "rows": rows,
                "columns": _columns(model, dialect),
            }
        )

    @reader(app, LABEL)
    def sample_rows(table: str, limit: int = 5) -> str:
        """The first `limit` rows (1-50, by id) of a table, to see what its values look like."""
        model = _model(table)
        if not 1 <= limit <= MAX_SAMPLE:
            raise ToolError(f"limit must be between 1 and {MAX_SAMPLE}")
        t: Table = model.__table__
        with ctx.engine.connect() as conn:
            rows = conn.execute(select(t).order_by(t.c.id).limit(limit)).mappings().all()
        cols = [c.name for c in t.columns]
        return as_json(
            {"table": t.name, "columns": cols, "rows": [[json_cell(r[c]) for c in cols] for r in rows]}
        )

    @reader(app, LABEL)
    def run_query(sql: str, max_rows: int = DEFAULT_ROWS) -> str:
        """Run ONE read-only SQL query (SELECT, or WITH ... SELECT) and return its columns and rows.
        Only the warehouse tables can be read, with common aggregate, window, text, number, date
        and JSON functions; writes, several statements, PRAGMA/ATTACH, catalogs, engine functions
        and session commands are refused. Use the dialect list_tables names (sqlite or postgresql).
        Today is 2026-11-20: write dates as literals ('2026-11-20'); the computer's clock (date('now'),
        'localtime', CURRENT_DATE, now(), ...) is refused, as it is not the warehouse's date.
        At most `max_rows` rows come back (1-1000, default 100) and about 28,000 characters of
        rows (long text values are cut); when the result has more, `truncated` is true and `note`
        says how many rows were left out: aggregate, filter or add LIMIT/OFFSET."""
        if not 1 <= max_rows <= MAX_ROWS:
            raise ToolError(f"max_rows must be between 1 and {MAX_ROWS}")
        result = run_readonly(query_engine, sql, max_rows, timeout_s, _TABLE_NAMES)
        out: dict[str, Any] = {
            "columns": result.columns,
            "rows": result.rows,
            "row_count": len(result.rows),
            "truncated": result.truncated,
        }
        if result.truncated:
            more = f"{result.more_rows}" if result.more_rows_exact else f"over {result.more_rows}"
            limit = (
                f"the result's size limit ({MAX_RESULT_CHARS} characters)"
                if result.cut_by_size
                else f"max_rows={max_rows} (it can go up to {MAX_ROWS})"
            )
            out["note"] = (
                f"{more} more rows not shown, past {limit}; aggregate, filter, select fewer columns, "
                "or page with LIMIT/OFFSET"
            )
        return as_json(out)

    return app


SPEC = ServerSpec(
    name="warehouse",
    description="Enterprise data warehouse: read-only SQL over sales, HR and finance tables; schema listing",
    build=build,
    tables=TABLES,
    seed=seed,
    scenario="EDW",
)
