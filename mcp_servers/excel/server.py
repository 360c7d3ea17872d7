"""The `excel` server: create, write and read xlsx workbooks in the workspace (openpyxl).

Writes to one workbook are serialised by a per-file lock (`common.files`): concurrent
sub-agents editing the same file would otherwise lose each other's changes; reads take it too.
Formulas are stored as written; `read_sheet` computes them as a spreadsheet would
(`common/formula.py` says what is supported) unless asked to show them (`render="formula"`).
"""

from __future__ import annotations

from typing import Any, Literal

from mcp.server.mcpserver import MCPServer
from openpyxl import Workbook, load_workbook
from openpyxl.cell.cell import ILLEGAL_CHARACTERS_RE
from openpyxl.utils.cell import get_column_letter, range_boundaries
from openpyxl.utils.exceptions import CellCoordinatesException, InvalidFileException

from mcp_servers.common.files import Cell, OfficeFiles
from mcp_servers.common.formula import compute_grid, rows_within, workbook_cells
from mcp_servers.common.formula_parse import MAX_COLS, MAX_ROWS
from mcp_servers.common.spec import ServerContext, ServerSpec
from mcp_servers.common.tooling import ToolError, as_json, reader, writer

# One read_sheet call returns at most this many rows and columns (the rest is said, not dropped
# silently): the harness caps a tool result at 32 KB anyway.
MAX_READ_ROWS = 500
MAX_READ_COLS = 100
# ... and at most this many characters of cell text: the rows past it are said, as above. A
# sheet's cells may hold megabytes (computed text reaches MAX_COMPUTED_TEXT_CHARS).
MAX_READ_CHARS = 1_000_000
# Excel's rules for a sheet name.
MAX_SHEET_NAME = 31
_SHEET_NAME_FORBIDDEN = set("/\\?*[]:")


def _sheet_name(name: str) -> str:
    """`name` when Excel accepts it as a sheet name, else a ToolError saying why."""
    if not name.strip():
        raise ToolError("a sheet name must not be empty")
    if len(name) > MAX_SHEET_NAME:
        raise ToolError(
            f"sheet name {name!r} is {len(name)} characters; Excel allows at most {MAX_SHEET_NAME}"
        )
    bad = sorted(_SHEET_NAME_FORBIDDEN & set(name))
    if bad or name.startswith("'") or name.endswith("'") or ILLEGAL_CHARACTERS_RE.search(name):
        raise ToolError(
            f"sheet name {name!r} is not allowed: no / \\ ? * [ ] : or control characters, "
            "and no ' at either end"
        )
    return name


def _same_name(wb: Any, sheet: str) -> str | None:
    """The existing sheet whose name equals `sheet` ignoring case (Excel treats them as one)."""
    return next((n for n in wb.sheetnames if n.lower() == sheet.lower()), None)


def _sheet(wb: Any, sheet: str | None) -> Any:
    if sheet is None:
        return wb.active
    if sheet not in wb.sheetnames:
        raise ToolError(f"no sheet {sheet!r}; sheets: {wb.sheetnames}")
    return wb[sheet]


def _outside(ref: str) -> ToolError:
    return ToolError(f"{ref!r} is outside a sheet (columns A to XFD, rows 1 to {MAX_ROWS})")


def _boundaries(ref: str, kind: str) -> tuple[int | None, int | None, int | None, int | None]:
    """openpyxl's (min_col, min_row, max_col, max_row) of `ref`, None on the open side of whole
    columns ("B:D") or rows ("2:5"); a ToolError when `ref` is not `kind` or leaves the sheet:
    openpyxl takes row 0 and rows and columns past Excel's last."""
    try:
        bounds = range_boundaries(ref.strip().upper())
    except (CellCoordinatesException, ValueError):
        raise ToolError(f"{ref!r} is not {kind}") from None
    min_col, min_row, max_col, max_row = bounds
    rows = [r for r in (min_row, max_row) if r is not None]
    cols = [c for c in (min_col, max_col) if c is not None]
    if not all(1 <= r <= MAX_ROWS for r in rows) or not all(1 <= c <= MAX_COLS for c in cols):
        raise _outside(ref)
    return bounds


def _anchor(cell: str) -> tuple[int, int]:
    """(row, column) of a cell like B2."""
    kind = "a cell reference like A1"
    col, row, _, _ = _boundaries(cell, kind)
    if ":" in cell or col is None or row is None:
        raise ToolError(f"{cell!r} is not {kind}")
    return row, col


def _bounds(cell_range: str) -> tuple[int | None, int | None, int | None, int | None]:
    """(min_col, min_row, max_col, max_row) of a range like A1:D20, lowest first; None on the
    open side of whole columns ("B:D") or rows ("2:5")."""
    min_col, min_row, max_col, max_row = _boundaries(cell_range, "a range like A1:D20")
    # "B2:A1" is the range A1:B2, as in Excel.
    if min_row is not None and max_row is not None:
        min_row, max_row = sorted((min_row, max_row))
    if min_col is not None and max_col is not None:
        min_col, max_col = sorted((min_col, max_col))
    return min_col, min_row, max_col, max_row


def _fits(rows: list[list[Cell]], r0: int, c0: int) -> None:
    """Refuse a block of rows that would go past the sheet's last row or column, or that holds
    text an xlsx file cannot (control characters), naming the first offending cell."""
    width = max((len(r) for r in rows), default=0)
    if rows and (r0 + len(rows) - 1 > MAX_ROWS or c0 + width - 1 > MAX_COLS):
        raise ToolError(
            f"the rows would go past the sheet's end (column XFD, row {MAX_ROWS}); start higher or left"
        )
    for i, row in enumerate(rows):
        for j, value in enumerate(row):
            if isinstance(value, str) and ILLEGAL_CHARACTERS_RE.search(value):
                where = f"{get_column_letter(c0 + j)}{r0 + i}"
                raise ToolError(
                    f"cell {where} holds a control character an xlsx file cannot store; "
                    "remove it (tabs and line breaks are fine)"
                )


def build(ctx: ServerContext) -> MCPServer:
    app = MCPServer(
        "excel", instructions="Excel workbooks (.xlsx) in the task workspace; paths are relative to it."
    )
    ws_root = ctx.workspace
    files = OfficeFiles(ws_root, ".xlsx", "a workbook", load_workbook, "Report.xlsx", (InvalidFileException,))

    @reader(app, "workspace-inspection")
    def list_workbooks() -> str:
        """List the .xlsx files in the workspace (relative paths, sizes in bytes)."""
        return as_json(files.listing())

    @reader(app, "workspace-inspection")
    def list_sheets(path: str) -> str:
        """The sheet names of a workbook, with each sheet's used size."""
        wb = files.read(path)
        return as_json(
            [{"sheet": s.title, "rows": s.max_row, "columns": s.max_column} for s in wb.worksheets]
        )

    @reader(app, "workspace-inspection")
    def read_sheet(
        path: str,
        sheet: str | None = None,
        cell_range: str | None = None,
        render: Literal["value", "formula"] = "value",
    ) -> str:
        """Cell values of a sheet (or a range like A1:D20, whole columns B:D or rows 2:5, within
        A1:XFD1048576) as rows; formulas are computed (render="value") or shown as written
        (render="formula"). At most 500 rows, 100 columns and 1,000,000 characters come back;
        when there are more, `more` says so and which range to read next."""
        wb = files.read(path)
        ws = _sheet(wb, sheet)
        bounds = _bounds(cell_range) if cell_range else (None, None, None, None)
        # Whole columns ("B:D") or rows ("2:5") are open on one side: they end where the data does.
        min_col = 1 if bounds[0] is None else bounds[0]
        min_row = 1 if bounds[1] is None else bounds[1]
        max_col = ws.max_column if bounds[2] is None else bounds[2]
        max_row = ws.max_row if bounds[3] is None else bounds[3]
        end_row, end_col = max_row, max_col
        max_row = min(max_row, min_row + MAX_READ_ROWS - 1)
        max_col = min(max_col, min_col + MAX_READ_COLS - 1)
        rows = ws.iter_rows(
            min_row=min_row, max_row=max_row, min_col=min_col, max_col=max_col, values_only=True
        )
        grid = [list(r) for r in rows]
        if render == "value":
            compute_grid(grid, (ws.title, min_row, min_col), wb.sheetnames, lambda t: workbook_cells(wb, t))
        fit = rows_within(grid, MAX_READ_CHARS)
        if grid and fit == 0:
            raise ToolError(
                f"row {min_row} alone holds more than {MAX_READ_CHARS} characters of text; "
                "read fewer columns (e.g. one cell)"
            )
        if fit < len(grid):
            del grid[fit:]
            max_row = min_row + fit - 1
        more: dict[str, Any] = {}
        if end_row > max_row:
            more["rows"] = end_row - max_row
            more["next_rows"] = (
                f"{get_column_letter(min_col)}{max_row + 1}:{get_column_letter(end_col)}{end_row}"
            )
        if end_col > max_col:
            more["columns"] = end_col - max_col
            more["next_columns"] = (
                f"{get_column_letter(max_col + 1)}{min_row}:{get_column_letter(end_col)}{max_row}"
            )
        out: dict[str, Any] = {"sheet": ws.title, "rows": grid}
        if more:
            out["more"] = more
        return as_json(out)

    @writer(app, "spreadsheet-build", destructive=True)
    def create_workbook(path: str, sheets: list[str] | None = None, overwrite: bool = False) -> str:
        """Create a workbook with the named sheets (default one sheet 'Sheet1')."""
        real = files.path(path, False)
        names = [_sheet_name(n) for n in sheets or ["Sheet1"]]
        if len({n.lower() for n in names}) != len(names):
            raise ToolError(
                "sheet names must be distinct, ignoring case (Excel treats 'Data' and 'data' as one)"
            )
        with files.lock(real):
            if real.exists() and not overwrite:
                raise ToolError(f"{path} exists; pass overwrite=true to replace it")
            wb = Workbook()
            wb.active.title = names[0]
            for name in names[1:]:
                wb.create_sheet(name)
            real.parent.mkdir(parents=True, exist_ok=True)
            files.save(wb, real)
        return f"Created {path} with sheets {names}."

    @writer(app, "spreadsheet-build")
    def add_sheet(path: str, sheet: str) -> str:
        """Add a sheet to an existing workbook."""
        real = files.path(path, True)
        with files.lock(real):
            wb = files.open(real)
            existing = _same_name(wb, _sheet_name(sheet))
            if existing is not None:
                raise ToolError(
                    f"sheet {existing!r} exists"
                    + ("" if existing == sheet else " (Excel ignores case in sheet names)")
                )
            wb.create_sheet(sheet)
            files.save(wb, real)
        return f"Added sheet {sheet!r} to {path}."

    @writer(app, "spreadsheet-build", destructive=True)
    def delete_sheet(path: str, sheet: str) -> str:
        """Delete a sheet (a workbook keeps at least one)."""
        real = files.path(path, True)
        with files.lock(real):
            wb = files.open(real)
            ws = _sheet(wb, sheet)
            if len(wb.sheetnames) == 1:
                raise ToolError("a workbook must keep at least one sheet")
            wb.remove(ws)
            files.save(wb, real)
        return f"Deleted sheet {sheet!r} from {path}."

    # Overwrites the cells it covers: what was there is replaced.
    @writer(app, "spreadsheet-build", destructive=True)
    def write_range(path: str, sheet: str, rows: list[list[Cell]], start_cell: str = "A1") -> str:
        """Write rows of values starting at start_cell (strings starting with '=' are formulas,
        computed when read; they may refer to B2, Sheet2!B2, ranges B2:B9, whole columns B:B or
        'Team Budget'!C:D and whole rows 2:5, e.g. =SUM(B:B)). The sheet is created when missing."""
        real = files.path(path, True)
        r0, c0 = _anchor(start_cell)
        _fits(rows, r0, c0)
        with files.lock(real):
            wb = files.open(real)
            if sheet not in wb.sheetnames:
                existing = _same_name(wb, _sheet_name(sheet))
                if existing is not None:
                    raise ToolError(f"no sheet {sheet!r}, but there is {existing!r}: use that name")
            ws = wb[sheet] if sheet in wb.sheetnames else wb.create_sheet(sheet)
            for i, row in enumerate(rows):
                for j, value in enumerate(row):
                    ws.cell(row=r0 + i, column=c0 + j, value=value)
            files.save(wb, real)
        return f"Wrote {len(rows)} rows to {path}!{sheet} at {start_cell.upper()}."

    @writer(app, "spreadsheet-build")
    def append_rows(path: str, sheet: str, rows: list[list[Cell]]) -> str:
        """Append rows below the last used row of a sheet."""
        real = files.path(path, True)
        with files.lock(real):
            wb = files.open(real)
            ws = _sheet(wb, sheet)
            _fits(rows, ws.max_row + 1, 1)
            for row in rows:
                ws.append(row)
            files.save(wb, real)
        return f"Appended {len(rows)} rows to {path}!{sheet}."

    return app


SPEC = ServerSpec(name="excel", description="xlsx workbooks in the workspace (openpyxl)", build=build)
