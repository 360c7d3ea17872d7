"""Formulas in the `sheets` server: computed when read, shown as written on request.

Every expected value below is worked out by hand from the cells written in the test."""

from __future__ import annotations

from typing import Any

import pytest

from mcp_servers.common.formula import Book, FormulaError
from tests.mcp_servers.support import World, as_data, serve


def book_of(cells: dict[tuple[str, int, int], Any]) -> Book:
    sheets = {s for s, _, _ in cells}

    def get(sheet: str | None, row: int, col: int) -> Any:
        if sheet not in sheets:
            raise FormulaError("#REF!")
        return cells.get((sheet or "", row, col))

    return Book(get)


@pytest.mark.parametrize(
    ("formula", "expected"),
    [
        ("=1+2*3", 7),  # precedence
        ("=(1+2)*3", 9),
        ("=2^3^2", 64),  # left to right, as Sheets: (2^3)^2
        ("=-A1+10", 8),  # A1 = 2
        ("=50%", 0.5),
        ("=A1/B1", 0.5),  # B1 = 4
        ("=A1/0", "#DIV/0!"),
        ("=SUM(A1:B2)", 16),  # 2 + 4 + 10 + (A2 is text: skipped) ; B2 = 10
        ("=AVERAGE(A1:B1)", 3),
        ("=MIN(A1:B2, -1)", -1),
        ("=MAX(A1:B2)", 10),
        ("=COUNT(A1:C2)", 3),  # 2, 4, 10 (text and empty cells do not count)
        ("=COUNTA(A1:C2)", 4),  # 2, 4, "apples", 10
        ("=ROUND(2.345, 2)", 2.35),
        ("=ROUND(-2.5)", -3),  # half away from zero
        # Regressions: ROUND used binary floats (0.285 -> 0.28) and overflowed, failing the whole read.
        ("=ROUND(0.285, 2)", 0.29),
        ("=ROUND(-0.285, 2)", -0.29),
        ("=ROUND(1234.5, -2)", 1200),
        ("=ROUND(1, 400)", 1),
        ("=ROUND(1, -400)", 0),
        ('=ROUND(1, "nan")', "#VALUE!"),  # text that is not a number
        ("=ROUND(1E300, 300)", 1e300),
        ("=ROUND(1E308*10, 2)", "#NUM!"),
        ("=ABS(-A1)", 2),
        ('=IF(A1>1, "big", "small")', "big"),
        ("=IF(A1>5, 1)", False),
        ("=AND(A1=2, B1<>2)", True),
        ("=OR(A1>5, NOT(TRUE))", False),
        ('=A2&" x"&A1', "apples x2"),
        ("=CONCATENATE(UPPER(A2), LEN(A2))", "APPLES6"),
        ("=A2+1", "#VALUE!"),  # text in arithmetic
        ("=C1+1", 1),  # an empty cell is 0
        ("=IFERROR(A1/0, -1)", -1),
        ("=Other!A1*2", 14),  # another sheet (Other!A1 = 7)
        ("='Other'!A1+B3", 19),  # B3 = =B2+2 = 12, computed in turn
        ("=Missing!A1", "#REF!"),
        ("=FOO(1)", "#NAME?"),
        ("=SUM(", "#ERROR!"),
        ("=ROUND()", "#N/A"),
        ("=D1", "#REF!"),  # D1 = =D2, D2 = =D1: a cycle
    ],
)
def test_a_formula_computes_as_sheets_would(formula: str, expected: Any) -> None:
    cells = {
        ("S", 1, 1): 2, ("S", 1, 2): 4, ("S", 2, 1): "apples", ("S", 2, 2): 10, ("S", 3, 2): "=B2+2",
        ("S", 1, 4): "=D2", ("S", 2, 4): "=D1", ("S", 9, 9): formula, ("Other", 1, 1): 7,
    }  # fmt: skip
    assert book_of(cells).shown("S", 9, 9) == expected


def test_a_long_column_of_running_totals_is_computed() -> None:
    cells: dict[tuple[str, int, int], Any] = {("S", 1, 1): 1}
    for row in range(2, 3001):
        cells[("S", row, 1)] = f"=A{row - 1}+1"
    book = book_of(cells)
    for row in range(1, 3001):  # top to bottom, as read_range does
        book.shown("S", row, 1)
    assert book.shown("S", 3000, 1) == 3000


@pytest.mark.parametrize("grow", ["=A{p}&A{p}", "=CONCATENATE(A{p}, A{p})", "=UPPER(A{p}&A{p})"])
def test_text_doubled_down_a_column_stops_at_the_cell_limit(grow: str) -> None:
    """Regression: `&` and CONCATENATE had no limit; doubling 'x' down 30 rows made a 537 MB
    text. Text past 50,000 characters (Google Sheets' cell limit) is #VALUE!, and so is
    everything built on it."""
    cells: dict[tuple[str, int, int], Any] = {("S", 1, 1): "x"}
    for row in range(2, 31):
        cells[("S", row, 1)] = grow.format(p=row - 1)
    book = book_of(cells)
    assert str(book.shown("S", 16, 1)).lower() == "x" * 2**15  # 32,768 characters: still text
    assert book.shown("S", 17, 1) == "#VALUE!"  # 65,536 would be past the limit
    assert book.shown("S", 30, 1) == "#VALUE!"


async def test_read_range_computes_formulas_unless_asked_for_them(world: World) -> None:
    async with serve("sheets", world) as client:
        made = as_data(
            await client.call_tool("create_spreadsheet", {"title": "Formulas", "sheets": ["Spend", "Rates"]})
        )
        book = made["created"]
        rows = [
            ["Item", "Cost"],
            ["Laptops", 1200],
            ["Desks", 450.5],
            ["Total", "=SUM(B2:B3)"],
            ["With VAT", "=B4*Rates!A1"],
        ]
        for rng, values in (("Spend!A1", rows), ("Rates!A1", [[1.2]])):
            written = await client.call_tool(
                "write_range", {"spreadsheet_id": book, "range": rng, "values": values}
            )
            assert not written.is_error
        computed = as_data(
            await client.call_tool("read_range", {"spreadsheet_id": book, "range": "Spend!B4:B5"})
        )
        # 1200 + 450.5 = 1650.5; × 1.2 = 1980.6
        assert computed["values"][0] == [1650.5] and computed["values"][1][0] == pytest.approx(1980.6)
        as_written = as_data(
            await client.call_tool(
                "read_range", {"spreadsheet_id": book, "range": "Spend!B4:B5", "render": "formula"}
            )
        )
        assert as_written["values"] == [["=SUM(B2:B3)"], ["=B4*Rates!A1"]]

    # A task's check reads the sheet as the agent did: the formulas' values, not their text
    # (a Total row written as =SUM(...) failed a check that compared it with the sum).
    from harness.checks import World as CheckWorld

    (spend,) = CheckWorld(world.engine, world.workspace).query(
        "SELECT id FROM sheets_sheet WHERE title = 'Spend'"
    )
    cells = CheckWorld(world.engine, world.workspace).sheet_cells(spend["id"])
    assert cells[(4, 1)] == "Total" and cells[(4, 2)] == 1650.5 and cells[(5, 2)] == pytest.approx(1980.6)
    assert len(cells) == 10
