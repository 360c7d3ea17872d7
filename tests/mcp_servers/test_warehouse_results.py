"""Warehouse results past the counted rows, and non-finite numbers, come back as documented."""

from __future__ import annotations

import json
import sqlite3

from mcp_servers.warehouse import clock, readonly_sql
from tests.mcp_servers.support import World, as_data, serve, text


def _numbers(n: int, column: str = "x") -> str:
    """A query of the numbers 1..n, built by the database (no table that large is needed)."""
    return f"WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < {n}) SELECT {column} FROM c"


def _refuse_constant(name: str) -> object:
    raise ValueError(f"not strict JSON: {name}")


def strict_json(raw: str) -> object:
    """`raw` parsed as strict JSON: a bare Infinity, -Infinity or NaN is an error."""
    return json.loads(raw, parse_constant=_refuse_constant)


async def test_rows_past_the_counted_rows_are_a_truncation_not_an_error(world: World) -> None:
    """Regression: a SELECT of more than 100,000 rows failed with "SQL error: Error creating
    function" (the count stopped at MAX_COUNTED_ROWS with its statement active, and SQLite refused
    to restore the date functions), and exactly 100,000 rows left out were reported as "over"."""
    assert readonly_sql.MAX_COUNTED_ROWS == 100_000
    async with serve("warehouse", world) as client:
        exact = as_data(await client.call_tool("run_query", {"sql": _numbers(100_005), "max_rows": 5}))
        assert exact["rows"] == [[1], [2], [3], [4], [5]] and exact["truncated"]
        assert exact["note"].startswith("100000 more rows not shown, past max_rows=5"), exact["note"]

        over = as_data(await client.call_tool("run_query", {"sql": _numbers(150_000), "max_rows": 5}))
        assert over["rows"] == [[1], [2], [3], [4], [5]] and over["truncated"]
        assert over["note"].startswith("over 100000 more rows not shown, past max_rows=5"), over["note"]

        # Cut by size (~28,000 characters of 500-character rows): the row that did not fit plus
        # over 100,000 more.
        wide = "printf('%.500c', 'x')" if world.engine.dialect.name == "sqlite" else "repeat('x', 500)"
        cut = as_data(
            await client.call_tool("run_query", {"sql": _numbers(100_200, f"x, {wide}"), "max_rows": 1000})
        )
        assert cut["truncated"] and [r[0] for r in cut["rows"]] == list(range(1, cut["row_count"] + 1))
        assert cut["row_count"] < 100 and cut["note"].startswith(
            "over 100001 more rows not shown, past the result's size"
        )

        if world.engine.dialect.name == "sqlite":
            # An error while counting is that error (SQLite reads the clock row by row here).
            late_clock = _numbers(150_000, "CASE WHEN x <= 50 THEN x ELSE date('now') END")
            refused = await client.call_tool("run_query", {"sql": late_clock, "max_rows": 5})
            assert refused.is_error and "refused: date('now') reads the computer's clock" in text(refused)
            after = as_data(
                await client.call_tool("run_query", {"sql": "SELECT date('2026-11-20', '+1 day') AS d"})
            )
            assert after["rows"] == [["2026-11-21"]]
        again = as_data(
            await client.call_tool("run_query", {"sql": "SELECT COUNT(*) FROM warehouse_regions"})
        )
        assert again["rows"] == [[8]]  # the server answers the next call


def test_leaving_the_world_clock_with_a_statement_active_keeps_the_result() -> None:
    """Regression: leaving `sqlite_world_clock` re-registered the date functions, which SQLite
    refuses while a statement is active ("Error creating function"), and in Python 3.11 the
    re-registration installed a function that fails instead of the built-in."""
    raw = sqlite3.connect(":memory:")
    with clock.sqlite_world_clock(raw) as refused:
        cur = raw.execute(_numbers(10, "date('2026-11-20', '+' || x || ' days')"))
        assert cur.fetchone() == ("2026-11-21",)
    assert refused == []
    assert cur.fetchone() == ("2026-11-22",)  # the statement still active: leaving did not fail
    cur.close()
    assert raw.execute("SELECT date('2026-11-20', '+1 day')").fetchone() == ("2026-11-21",)
    assert isinstance(raw.execute("SELECT date('now')").fetchone()[0], str)  # disarmed, not refused
    raw.close()


async def test_non_finite_numbers_are_strict_json(world: World) -> None:
    """Regression: an overflowing number came back as a bare Infinity, which is not JSON."""
    async with serve("warehouse", world) as client:
        result = await client.call_tool("run_query", {"sql": "SELECT 1e999 AS big, -1e999 AS small"})
        assert not result.is_error, text(result)
        got = strict_json(text(result))
        assert got == {
            "columns": ["big", "small"],
            "rows": [["Infinity", "-Infinity"]],
            "row_count": 1,
            "truncated": False,
        }
