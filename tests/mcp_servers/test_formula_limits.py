"""What one read of a spreadsheet may hold and return: computed text across all cells is
bounded (MAX_COMPUTED_TEXT_CHARS; past it a cell is #VALUE!) and a read's result too
(MAX_READ_CHARS; the rows left are named in `more`), in both the excel and sheets servers.

Regression: a 17.5 KB xlsx (A1 = 25,000 astral characters; 500 x 10 cells `=$A$1&$A$1`, each
50,000 characters, under the per-value cap) made read_sheet return 250 M characters at 3 GB."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from openpyxl import Workbook
from openpyxl.utils import get_column_letter

from mcp_servers.common.formula import MAX_COMPUTED_TEXT_CHARS, MAX_TEXT_CHARS, compute_grid
from mcp_servers.excel.server import MAX_READ_CHARS
from mcp_servers.sheets.server import MAX_READ_CHARS as SHEETS_READ_CHARS
from tests.mcp_servers.support import World, as_data, make_world, serve

ASTRAL = "\U0001d538"  # four bytes a character in a Python str
ROWS, COLS = 500, 10
LAST = get_column_letter(COLS + 1)


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    made = make_world(tmp_path)
    yield made
    made.engine.dispose()


def _text_chars(grid: list[list[Any]]) -> int:
    return sum(len(v) for row in grid for v in row if isinstance(v, str))


def test_computed_text_across_cells_is_bounded() -> None:
    cells: dict[tuple[int, int], Any] = {(1, 1): ASTRAL * 25_000}
    for r in range(1, ROWS + 1):
        for c in range(2, COLS + 2):
            cells[(r, c)] = "=$A$1&$A$1"
    grid = [[cells.get((r, c)) for c in range(1, COLS + 2)] for r in range(1, ROWS + 1)]
    compute_grid(grid, ("S", 1, 1), ["S"], lambda _: cells)
    assert grid[0][1] == ASTRAL * 50_000  # the first cells compute in full
    values = [v for row in grid for v in row[1:]]
    full = sum(1 for v in values if v == ASTRAL * 50_000)
    assert full == MAX_COMPUTED_TEXT_CHARS // MAX_TEXT_CHARS
    assert values.count("#VALUE!") == len(values) - full
    assert _text_chars(grid) <= MAX_COMPUTED_TEXT_CHARS + 25_000 + 7 * len(values)


async def test_excel_read_of_the_reviewers_workbook_stays_small(world: World) -> None:
    wb = Workbook()
    ws = wb.active
    ws.title = "S"
    ws["A1"] = ASTRAL * 25_000
    for r in range(1, ROWS + 1):
        for c in range(2, COLS + 2):
            ws.cell(r, c, "=$A$1&$A$1")
    wb.save(world.workspace / "f.xlsx")
    async with serve("excel", world) as client:
        out = as_data(await client.call_tool("read_sheet", {"path": "f.xlsx"}))
    assert _text_chars(out["rows"]) <= MAX_READ_CHARS
    assert 0 < len(out["rows"]) < ROWS
    last = len(out["rows"])
    assert out["more"] == {"rows": ROWS - last, "next_rows": f"A{last + 1}:{LAST}{ROWS}"}


async def test_sheets_read_of_a_large_computed_range_stays_small(world: World) -> None:
    async with serve("sheets", world) as client:
        book = as_data(await client.call_tool("create_spreadsheet", {"title": "Big"}))["created"]
        rows: list[list[Any]] = [[ASTRAL * 25_000] + ["=$A$1&$A$1"] * COLS]
        rows += [[None] + ["=$A$1&$A$1"] * COLS for _ in range(ROWS - 1)]
        await client.call_tool("write_range", {"spreadsheet_id": book, "range": "Sheet1!A1", "values": rows})
        result = await client.call_tool("read_range", {"spreadsheet_id": book, "range": "Sheet1"})
    out = as_data(result)
    assert len(json.dumps(out, ensure_ascii=False)) < 2 * SHEETS_READ_CHARS
    last = len(out["values"])
    assert 0 < last < ROWS and _text_chars(out["values"]) <= SHEETS_READ_CHARS
    assert out["range"] == f"Sheet1!A1:{LAST}{last}"
    assert out["more"] == {"rows": ROWS - last, "next_range": f"Sheet1!A{last + 1}:{LAST}{ROWS}"}
