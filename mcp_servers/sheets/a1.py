"""A1 notation: 'Sheet1!A1:C10', "'Team Budget'!B2", 'A1:B2' (first sheet), 'Sheet1' (whole
sheet), 'Sheet1!A:C' (whole columns), 'Sheet1!2:5' (whole rows)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from mcp_servers.common.formula_parse import column_number
from mcp_servers.common.tooling import ToolError

MAX_ROWS, MAX_COLS = 100_000, 702  # up to column ZZ
_CELL = re.compile(r"^([A-Za-z]{0,3})(\d*)$")


@dataclass(frozen=True)
class Range:
    sheet: str | None
    row1: int
    col1: int
    row2: int | None  # None: open-ended (to the last used row/column)
    col2: int | None
    # Written as one cell ('B2'), not as a range ('B2:B2'): a write anchors its values there.
    anchor: bool = False


def column_letters(n: int) -> str:
    out = ""
    while n:
        n, rem = divmod(n - 1, 26)
        out = chr(65 + rem) + out
    return out


def _split_sheet(text: str) -> tuple[str | None, str]:
    if "!" not in text:
        return None, text
    sheet, _, cells = text.rpartition("!")
    if sheet.startswith("'") and sheet.endswith("'") and len(sheet) >= 2:
        sheet = sheet[1:-1].replace("''", "'")
    return sheet, cells


def _corner(part: str, original: str) -> tuple[str, str]:
    m = _CELL.match(part.strip())
    if not m or not (m.group(1) or m.group(2)):
        raise ToolError(f"{original!r} is not A1 notation like 'Sheet1!A1:C10', 'Sheet1!B2' or 'Sheet1'")
    return m.group(1), m.group(2)


def parse(text: str, sheet_names: list[str]) -> Range:
    """Parse `text`; a bare name of an existing sheet means the whole sheet."""
    raw = text.strip()
    if not raw:
        raise ToolError("empty range: give A1 notation like 'Sheet1!A1:C10'")
    if raw in sheet_names or (raw.startswith("'") and raw.endswith("'") and raw[1:-1] in sheet_names):
        return Range(raw.strip("'"), 1, 1, None, None)
    sheet, cells = _split_sheet(raw)
    if sheet is not None and cells == "":
        return Range(sheet, 1, 1, None, None)
    first, _, second = cells.partition(":")
    c1, r1 = _corner(first, text)
    c2, r2 = _corner(second, text) if second else (c1, r1)
    if bool(c1) != bool(c2) or bool(r1) != bool(r2):
        raise ToolError(f"{text!r} mixes a cell and a whole row/column; write e.g. 'A1:C10', 'A:C' or '2:5'")
    row1, row2 = (int(r1), int(r2)) if r1 else (1, None)
    col1, col2 = (column_number(c1), column_number(c2)) if c1 else (1, None)
    if row1 < 1 or (row2 is not None and row2 < 1):
        raise ToolError(f"{text!r}: rows start at 1")
    if row2 is not None and row2 < row1:
        row1, row2 = row2, row1
    if col2 is not None and col2 < col1:
        col1, col2 = col2, col1
    if max(row1, row2 or 0) > MAX_ROWS or max(col1, col2 or 0) > MAX_COLS:
        raise ToolError(f"{text!r} is beyond the sheet's limits ({MAX_ROWS} rows, columns up to ZZ)")
    return Range(sheet, row1, col1, row2, col2, anchor=not second and bool(c1 and r1))


def a1(sheet: str, row1: int, col1: int, row2: int, col2: int) -> str:
    """The A1 text of a bounded range, quoting the sheet name when needed."""
    name = sheet if re.fullmatch(r"[A-Za-z0-9_]+", sheet) else "'" + sheet.replace("'", "''") + "'"
    start, end = f"{column_letters(col1)}{row1}", f"{column_letters(col2)}{row2}"
    return f"{name}!{start}" if start == end else f"{name}!{start}:{end}"
