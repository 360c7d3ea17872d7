"""Formulas in the `sheets` server: computed when read, shown as written on request.

Every expected value below is worked out by hand from the cells written in the test."""

from __future__ import annotations

from typing import Any

import pytest

from mcp_servers.common.formula import MAX_RANGE_CELLS, Book, FormulaError, used_extent
from tests.mcp_servers.support import World, as_data, serve


def book_of(cells: dict[tuple[str, int, int], Any]) -> Book:
    sheets = {s for s, _, _ in cells}

    def get(sheet: str | None, row: int, col: int) -> Any:
        if sheet not in sheets:
            raise FormulaError("#REF!")
        return cells.get((sheet or "", row, col))

    def extent(sheet: str) -> tuple[int, int]:
        if sheet not in sheets:
            raise FormulaError("#REF!")
        return used_extent({(r, c): v for (s, r, c), v in cells.items() if s == sheet})

    return Book(get, extent)


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


WHOLE = {
    ("S", 1, 1): "Item", ("S", 1, 2): "Cost", ("S", 2, 1): "Laptops", ("S", 2, 2): 1200,
    ("S", 3, 1): "Desks", ("S", 3, 2): 450.5, ("S", 3, 3): 7, ("S", 4, 2): "n/a", ("S", 4, 4): 2,
    ("Sheet2", 2, 3): 3, ("Sheet2", 6, 3): 5, ("Team Budget", 1, 2): 100, ("Team Budget", 8, 2): 20,
}  # fmt: skip


@pytest.mark.parametrize(
    ("formula", "expected"),
    [
        # Regression: `B:B` parsed as the name B, so every whole-column range was #NAME?.
        ("=SUM(B:B)", 1650.5),  # 1200 + 450.5; the texts "Cost" and "n/a" are skipped
        ("=SUM($B:$B)", 1650.5),
        ("=SUM(b:b)*2", 3301),
        ("=AVERAGE(Sheet2!C:C)", 4),  # (3 + 5) / 2
        ("=SUM('Team Budget'!B:B)", 120),  # 100 + 20
        ("=COUNTA(A:A)", 3),  # Item, Laptops, Desks
        ("=MAX(B:D)", 1200),
        ("=COUNT(B:D)", 4),  # 1200, 450.5, 7, 2
        ("=SUM(D:B)", 1659.5),  # the same columns as B:D: 1200 + 450.5 + 7 + 2
        ("=SUM(3:3)", 457.5),  # 450.5 + 7 (the text "Desks" is skipped)
        ("=SUM(2:4)", 1659.5),
        ("=SUM($4:$4, Sheet2!6:6)", 7),  # 2 + 5
        ("=SUM(Z:Z)", 0),  # a column that holds nothing
        ("=AVERAGE(Z:Z)", "#DIV/0!"),
        ("=SUM(B1:B200000)", 1650.5),  # a long range is read as far as the sheet goes
        ("=B:B", "#VALUE!"),  # a range outside a function, as B2:B3
        ("=SUM(Missing!B:B)", "#REF!"),
        ("=SUM(XFE:XFE)", "#REF!"),  # past column 16,384
        ("=SUM(0:1)", "#REF!"),
        ("=SUM(1:1048577)", "#REF!"),
        ('="A:A"&" x"', "A:A x"),  # text is not a range
    ],
)
def test_whole_columns_and_rows_compute_as_sheets_would(formula: str, expected: Any) -> None:
    cells = {**WHOLE, ("S", 9, 9): formula}  # I9: outside B:D and rows 2:4
    assert book_of(cells).shown("S", 9, 9) == expected


@pytest.mark.parametrize(
    ("cell", "whole", "bounded"),
    [
        ((5, 2), "=SUM(B:B)", "=SUM(B1:B9)"),
        ((5, 2), "=SUM(5:5)", "=SUM(A5:I5)"),
        ((5, 3), "=MAX(B:D)", "=MAX(B1:D9)"),
    ],
)
def test_a_whole_column_or_row_holding_its_own_cell_is_circular(
    cell: tuple[int, int], whole: str, bounded: str
) -> None:
    """As a bounded range holding the formula's cell (`=SUM(B1:B9)` in B5): #REF!."""
    for formula in (whole, bounded):
        assert book_of({**WHOLE, ("S", *cell): formula}).shown("S", *cell) == "#REF!", formula


def test_a_whole_column_reads_only_the_rows_the_sheet_holds() -> None:
    """B:B spans 1,048,576 rows (past MAX_RANGE_CELLS); it is read up to the sheet's last used
    row, 3: the formula's own cell and B1..B3, four reads in all."""
    cells: dict[tuple[str, int, int], Any] = {("S", 1, 2): 1, ("S", 3, 2): 2, ("S", 3, 1): "=SUM(B:B)"}
    book = book_of(cells)
    reads: list[tuple[str | None, int, int]] = []
    get = book.get

    def counted(sheet: str | None, row: int, col: int) -> Any:
        reads.append((sheet, row, col))
        return get(sheet, row, col)

    book.get = counted
    assert book.shown("S", 3, 1) == 3
    assert sorted(reads) == [("S", 1, 2), ("S", 2, 2), ("S", 3, 1), ("S", 3, 2)]


@pytest.mark.parametrize(("last_row", "expected"), [(MAX_RANGE_CELLS, 1), (MAX_RANGE_CELLS + 1, "#REF!")])
def test_a_whole_column_stays_within_the_range_bound(last_row: int, expected: Any) -> None:
    """B:B used down to row MAX_RANGE_CELLS is read (its one value, 1); one row more is #REF!."""
    cells: dict[tuple[str, int, int], Any] = {("S", 1, 1): "=SUM(B:B)", ("S", last_row, 2): 1}
    assert book_of(cells).shown("S", 1, 1) == expected


async def test_whole_column_formulas_are_computed_when_a_sheet_is_read(world: World) -> None:
    async with serve("sheets", world) as client:
        tools = {t.name: t.description or "" for t in (await client.list_tools()).tools}
        assert "whole columns B:B" in tools["write_range"]  # the model is told what it may write
        made = as_data(
            await client.call_tool(
                "create_spreadsheet", {"title": "Budget", "sheets": ["Spend", "Team Budget"]}
            )
        )
        book = made["created"]
        spend = [
            ["Item", "Cost", "Total", "=SUM(B:B)"],
            ["Laptops", 1200, "Mean", "=AVERAGE('Team Budget'!B:B)"],
            ["Desks", 450.5, "Rows", "=COUNTA(A:A)"],
            ["A:A", None, "Row 2", "=SUM(2:2)", "=MAX(E:E)"],
        ]
        for rng, values in (("Spend!A1", spend), ("'Team Budget'!B1", [[10], [None], [20]])):
            written = await client.call_tool(
                "write_range", {"spreadsheet_id": book, "range": rng, "values": values}
            )
            assert not written.is_error, written
        read = as_data(await client.call_tool("read_range", {"spreadsheet_id": book, "range": "Spend!A1:E4"}))
    # D1: 1200 + 450.5; D2: (10 + 20) / 2; D3: Item, Laptops, Desks, "A:A" (text, not a range);
    # D4: 1200 + 15 (D2; "Laptops" and "Mean" are text) = 1215; E4 holds itself: #REF!.
    assert read["values"] == [
        ["Item", "Cost", "Total", 1650.5],
        ["Laptops", 1200, "Mean", 15],
        ["Desks", 450.5, "Rows", 4],
        ["A:A", None, "Row 2", 1215, "#REF!"],
    ]
