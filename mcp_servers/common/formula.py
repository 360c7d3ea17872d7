"""Spreadsheet formulas, computed when cells are read (the `sheets` and `excel` servers).

A cell whose text starts with `=` is a formula. Supported, as in Google Sheets: numbers,
"strings", TRUE/FALSE; references `B2`, `$B$2`, `Sheet2!B2`, `'Team Budget'!B2` and, as function
arguments, ranges `B2:B9`, whole columns `B:B`, `$B:$D`, `Sheet2!B:B` and whole rows `2:2`,
`2:5`; operators `+ - * / ^ & = <> < <= > >=`, unary minus and a trailing `%`; functions SUM,
AVERAGE, MIN, MAX, COUNT, COUNTA, ROUND, ABS, IF, IFERROR, AND, OR, NOT, CONCATENATE, LEN,
UPPER, LOWER. A cell that cannot be computed shows an error value as Sheets does: `#DIV/0!`,
`#VALUE!`, `#NAME?`, `#REF!` (a missing sheet, or a formula that depends on itself), `#ERROR!`
(a formula that does not parse).

Aggregates skip text, booleans and empty cells in ranges; in arithmetic an empty cell is 0, a
numeric text is its number and any other text is `#VALUE!`. A range is read up to the sheet's
last used row and column (past them every cell is empty), so `B:B` reads only the rows the sheet
holds; one that still spans more than MAX_RANGE_CELLS cells is `#REF!`, and so is one that holds
the formula's own cell. Text is bounded: one value at MAX_TEXT_CHARS, all the computed cells of
one read at MAX_COMPUTED_TEXT_CHARS (past either, `#VALUE!`); `rows_within` says how many rows
of a read fit in a result.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from decimal import ROUND_HALF_UP, Decimal, localcontext
from typing import Any

from mcp_servers.common.formula_parse import Area, FormulaError, Parser, Ref

# get(sheet or None for the formula's own sheet, row, col) -> the stored value (a formula is text)
Getter = Callable[[str | None, int, int], Any]
# extent(sheet) -> (last row, last column) holding a value, (0, 0) for an empty sheet: where
# a whole column `B:B` or row `2:2` ends
Extent = Callable[[str], tuple[int, int]]
MAX_RANGE_CELLS = 100_000
# The longest text a formula may make, as Google Sheets' cell limit: `=A1&A1` down 30 rows
# would otherwise double a value into a 537 MB string. Longer is #VALUE!.
MAX_TEXT_CHARS = 50_000
# The text all computed cells of one read may hold between them (every result is kept until the
# read is done): 500 rows x 10 columns of `=$A$1&$A$1` at 50,000 characters each would hold
# 250 M characters. A result that would take the total past it is #VALUE!.
MAX_COMPUTED_TEXT_CHARS = 5_000_000


def _number(value: Any) -> float:
    if value is None:
        return 0.0
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    if isinstance(value, int | float):
        return float(value)
    try:
        number = float(str(value).strip())
    except ValueError:
        raise FormulaError("#VALUE!") from None
    if not math.isfinite(number):  # the text "nan" or "inf" is text, not a number
        raise FormulaError("#VALUE!")
    return number


def _round(x: float, places: float) -> float:
    """ROUND as Sheets: half away from zero on the decimal the cell shows (0.285 -> 0.29, though
    the binary float is 0.28499...); `places` is truncated, negative rounds left of the point."""
    if not math.isfinite(x) or not math.isfinite(places):
        raise FormulaError("#NUM!")
    # A double has no digit past the 324th decimal and none above 1e309: clamping changes nothing.
    digits = max(-400, min(400, int(places)))
    d = Decimal(repr(x))
    exponent = d.as_tuple().exponent
    if isinstance(exponent, int) and exponent >= -digits:
        return x  # no digits past the ones kept
    with localcontext() as ctx:
        ctx.prec = len(d.as_tuple().digits) + 5
        rounded = float(d.quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP))
    if not math.isfinite(rounded):
        raise FormulaError("#NUM!")
    return rounded


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _capped(text: str) -> str:
    """`text`, or #VALUE! past MAX_TEXT_CHARS."""
    if len(text) > MAX_TEXT_CHARS:
        raise FormulaError("#VALUE!")
    return text


def _truth(value: Any) -> bool:
    if isinstance(value, str):
        if value.upper() in ("TRUE", "FALSE"):
            return value.upper() == "TRUE"
        raise FormulaError("#VALUE!")
    return bool(_number(value))


def is_formula(value: Any) -> bool:
    return isinstance(value, str) and value.startswith("=")


def workbook_cells(book: Any, title: str) -> dict[tuple[int, int], Any]:
    """An openpyxl sheet's cells that exist, {(row, col): value} (`ws.cell()` would create cells
    as a side effect): what `compute_grid` loads a workbook's sheets with."""
    return {(c.row, c.column): c.value for row in book[title].iter_rows() for c in row}


def compute_grid(
    grid: list[list[Any]],
    at: tuple[str, int, int],
    titles: Iterable[str],
    load: Callable[[str], dict[tuple[int, int], Any]],
) -> None:
    """Replace, in place, each formula of `grid` (a block of sheet `at[0]` whose top-left cell is
    row `at[1]`, column `at[2]`) with what it computes to; `load(title)` gives a sheet's cells,
    {(row, col): value}, and is called at most once per sheet."""
    if not any(is_formula(v) for row in grid for v in row):
        return
    sheet, top, left = at
    loaded: dict[str, dict[tuple[int, int], Any]] = {}

    def cells(title: str) -> dict[tuple[int, int], Any]:
        if title not in loaded:
            loaded[title] = load(title)
        return loaded[title]

    book = Book(*sheets_access(titles, cells))
    bottom = top + len(grid) - 1
    # The sheet's formulas from the top down first: a column of running totals then never
    # recurses deeply.
    for (row, col), value in sorted(cells(sheet).items()):
        if row > bottom:
            break
        if is_formula(value):
            book.shown(sheet, row, col)
    for i, row_values in enumerate(grid):
        for j, value in enumerate(row_values):
            if is_formula(value):
                row_values[j] = book.shown(sheet, top + i, left + j)


def rows_within(grid: list[list[Any]], max_chars: int) -> int:
    """How many of `grid`'s leading rows fit in `max_chars` characters of cell text (a number
    or an empty cell counts as a short text): a read returns those and says where to go on."""
    total = 0
    for i, row in enumerate(grid):
        total += sum(len(v) if isinstance(v, str) else 8 for v in row)
        if total > max_chars:
            return i
    return len(grid)


def sheets_access(
    titles: Iterable[str], load: Callable[[str], dict[tuple[int, int], Any]]
) -> tuple[Getter, Extent]:
    """A `Getter` and an `Extent` over the sheets `titles`, matched case-insensitively as in
    Sheets; a sheet's cells, {(row, col): value}, are loaded with `load(title)` the first time a
    formula names it."""
    by_name = {title.lower(): title for title in titles}
    loaded: dict[str, dict[tuple[int, int], Any]] = {}
    extents: dict[str, tuple[int, int]] = {}

    def cells(sheet: str | None) -> dict[tuple[int, int], Any]:
        name = (sheet or "").lower()
        if name not in loaded:
            title = by_name.get(name)
            if title is None:
                raise FormulaError("#REF!")
            loaded[name] = load(title)
        return loaded[name]

    def get(sheet: str | None, row: int, col: int) -> Any:
        return cells(sheet).get((row, col))

    def extent(sheet: str) -> tuple[int, int]:
        name = sheet.lower()
        if name not in extents:
            extents[name] = used_extent(cells(sheet))
        return extents[name]

    return get, extent


def used_extent(cells: dict[tuple[int, int], Any]) -> tuple[int, int]:
    """The last row and the last column of `cells`, {(row, col): value}, that hold a value."""
    used = [key for key, value in cells.items() if value is not None]
    return max((r for r, _ in used), default=0), max((c for _, c in used), default=0)


class Book:
    """The cells of one spreadsheet as a formula sees them: computed once each, on demand.

    `get(sheet, row, col)` returns a cell's stored value (None when empty) and `extent(sheet)`
    the sheet's last used row and column; both raise `FormulaError("#REF!")` for a sheet that
    does not exist.
    """

    def __init__(self, get: Getter, extent: Extent) -> None:
        self.get, self.extent = get, extent
        self.memo: dict[tuple[str, int, int], Any] = {}
        self.computing: set[tuple[str, int, int]] = set()
        self.text_chars = 0  # held by the text results in `memo`

    def value(self, sheet: str, row: int, col: int) -> Any:
        """The cell's value, a formula computed; an error value is raised as `FormulaError`."""
        key = (sheet, row, col)
        if key in self.memo:
            found = self.memo[key]
        else:
            raw = self.get(sheet, row, col)
            if not (isinstance(raw, str) and raw.startswith("=")):
                return raw
            if key in self.computing:
                raise FormulaError("#REF!")  # the formula depends on itself
            self.computing.add(key)
            try:
                found = _Eval(self, sheet).run(raw)
            finally:
                self.computing.discard(key)
            if isinstance(found, str):
                if self.text_chars + len(found) > MAX_COMPUTED_TEXT_CHARS:
                    found = FormulaError("#VALUE!")
                else:
                    self.text_chars += len(found)
            self.memo[key] = found
        if isinstance(found, FormulaError):
            raise found
        return found

    def shown(self, sheet: str, row: int, col: int) -> Any:
        """What the cell reads as: whole numbers as integers, an error as its code."""
        try:
            value = self.value(sheet, row, col)
        except FormulaError as err:
            return err.code
        if isinstance(value, float):
            if not math.isfinite(value):
                return "#NUM!"
            if value.is_integer() and abs(value) < 1e15:
                return int(value)
        return value


class _Eval:
    def __init__(self, book: Book, sheet: str) -> None:
        self.book, self.sheet = book, sheet

    def cell(self, ref: Ref) -> Any:
        return self.book.value(ref.sheet or self.sheet, ref.row, ref.col)

    def area(self, area: Area) -> list[Any]:
        r1, r2 = sorted((area.start.row, area.end.row))
        c1, c2 = sorted((area.start.col, area.end.col))
        # Past the last used row and column every cell is empty: `B:B` reads the rows there are.
        last_row, last_col = self.book.extent(area.start.sheet or self.sheet)
        r2, c2 = min(r2, last_row), min(c2, last_col)
        if r2 < r1 or c2 < c1:
            return []
        if (r2 - r1 + 1) * (c2 - c1 + 1) > MAX_RANGE_CELLS:
            raise FormulaError("#REF!")
        return [self.cell(Ref(area.start.sheet, r, c)) for r in range(r1, r2 + 1) for c in range(c1, c2 + 1)]

    def run(self, formula: str) -> Any:
        try:
            return self.value(Parser(formula[1:]).parse())
        except FormulaError as err:
            return err
        except RecursionError:
            return FormulaError("#ERROR!")
        except (ArithmeticError, ValueError):  # an overflow nothing above foresaw: this cell only
            return FormulaError("#NUM!")

    def value(self, node: Any) -> Any:
        kind = node[0]
        if kind == "lit":
            return node[1]
        if kind == "ref":
            return self.cell(node[1])
        if kind == "area":
            raise FormulaError("#VALUE!")  # a range outside a function
        if kind == "neg":
            return -_number(self.value(node[1]))
        if kind == "pct":
            return _number(self.value(node[1])) / 100
        if kind == "bin":
            return self.binary(node[1], self.value(node[2]), self.value(node[3]))
        return self.call(node[1], node[2])

    def binary(self, op: str, a: Any, b: Any) -> Any:
        if op == "&":
            return _capped(_text(a) + _text(b))
        if op in ("=", "<>", "<", "<=", ">", ">="):
            if isinstance(a, str) or isinstance(b, str):
                x: Any = _text(a).lower()
                y: Any = _text(b).lower()
            else:
                x, y = _number(a), _number(b)
            return {"=": x == y, "<>": x != y, "<": x < y, "<=": x <= y, ">": x > y, ">=": x >= y}[op]
        x, y = _number(a), _number(b)
        if op == "+":
            return x + y
        if op == "-":
            return x - y
        if op == "*":
            return x * y
        if op == "/":
            if y == 0:
                raise FormulaError("#DIV/0!")
            return x / y
        try:
            result = x**y
        except (OverflowError, ZeroDivisionError):
            raise FormulaError("#NUM!") from None
        if isinstance(result, complex):
            raise FormulaError("#NUM!")
        return result

    def values(self, args: list[Any]) -> list[tuple[Any, bool]]:
        """Each argument's values, flagged True when they came from a range."""
        out: list[tuple[Any, bool]] = []
        for arg in args:
            if arg[0] == "area":
                out += [(v, True) for v in self.area(arg[1])]
            else:
                out.append((self.value(arg), False))
        return out

    def numbers(self, args: list[Any]) -> list[float]:
        # From ranges only numbers count; a direct argument is converted (text → #VALUE!).
        return [
            _number(v)
            for v, from_range in self.values(args)
            if not from_range or (isinstance(v, int | float) and not isinstance(v, bool))
        ]

    def call(self, name: str, args: list[Any]) -> Any:
        n = len(args)
        if name == "SUM":
            return math.fsum(self.numbers(args))
        if name == "AVERAGE":
            nums = self.numbers(args)
            if not nums:
                raise FormulaError("#DIV/0!")
            return math.fsum(nums) / len(nums)
        if name in ("MIN", "MAX"):
            nums = self.numbers(args)
            return (min if name == "MIN" else max)(nums) if nums else 0.0
        if name == "COUNT":
            return float(
                sum(1 for v, _ in self.values(args) if isinstance(v, int | float) and not isinstance(v, bool))
            )
        if name == "COUNTA":
            return float(sum(1 for v, _ in self.values(args) if v is not None and v != ""))
        if name == "IFERROR" and n in (1, 2):
            try:
                return self.value(args[0])
            except FormulaError:
                return self.value(args[1]) if n == 2 else ""
        if name == "IF" and n in (2, 3):
            if _truth(self.value(args[0])):
                return self.value(args[1])
            return self.value(args[2]) if n == 3 else False
        if name in ("AND", "OR") and n:
            truths = [_truth(v) for v, from_range in self.values(args) if not from_range or v is not None]
            return all(truths) if name == "AND" else any(truths)
        if name == "CONCATENATE" and n:
            parts, size = [], 0
            for v, _ in self.values(args):
                parts.append(_text(v))
                size += len(parts[-1])
                if size > MAX_TEXT_CHARS:
                    raise FormulaError("#VALUE!")
            return "".join(parts)
        one = {"ABS", "NOT", "LEN", "UPPER", "LOWER"}
        if name in one and n == 1:
            v = self.value(args[0])
            if name == "ABS":
                return abs(_number(v))
            if name == "NOT":
                return not _truth(v)
            if name == "LEN":
                return float(len(_text(v)))
            return _capped(_text(v).upper() if name == "UPPER" else _text(v).lower())  # 'ß' -> 'SS'
        if name == "ROUND" and n in (1, 2):
            x = _number(self.value(args[0]))
            places = _number(self.value(args[1])) if n == 2 else 0.0
            return _round(x, places)
        known = {"SUM", "AVERAGE", "MIN", "MAX", "COUNT", "COUNTA", "IFERROR", "IF", "AND", "OR"}
        if name in known | one | {"CONCATENATE", "ROUND"}:
            raise FormulaError("#N/A")  # a known function with the wrong number of arguments
        raise FormulaError("#NAME?")
