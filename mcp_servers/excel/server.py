"""The `excel` server: create, write and read xlsx workbooks in the workspace (openpyxl).

Writes to one workbook are serialised by a per-file lock (`common.files`): concurrent
sub-agents editing the same file would otherwise lose each other's changes. Formulas are
stored as written; `read_sheet` computes them as a spreadsheet would (`common/formula.py` says
what is supported) unless asked to show them (`render="formula"`).
"""

from __future__ import annotations

from typing import Any, Literal

from mcp.server.mcpserver import MCPServer
from openpyxl import Workbook, load_workbook
from openpyxl.utils.cell import column_index_from_string, coordinate_from_string, range_boundaries
from openpyxl.utils.exceptions import CellCoordinatesException, InvalidFileException

from mcp_servers.common.files import Cell, OfficeFiles
from mcp_servers.common.formula import compute_grid
from mcp_servers.common.spec import ServerContext, ServerSpec
from mcp_servers.common.tooling import ToolError, as_json, reader, writer

MAX_READ_ROWS = 500


def _sheet(wb: Any, sheet: str | None) -> Any:
    if sheet is None:
        return wb.active
    if sheet not in wb.sheetnames:
        raise ToolError(f"no sheet {sheet!r}; sheets: {wb.sheetnames}")
    return wb[sheet]


def _anchor(cell: str) -> tuple[int, int]:
    try:
        col, row = coordinate_from_string(cell.upper())
        return row, column_index_from_string(col)
    except (CellCoordinatesException, ValueError):
        raise ToolError(f"{cell!r} is not a cell reference like A1") from None


def _cells(wb: Any, title: str) -> dict[tuple[int, int], Any]:
    # What exists only: ws.cell() would create cells as a side effect.
    return {(c.row, c.column): c.value for row in wb[title].iter_rows() for c in row}


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
        wb = files.open(files.path(path, True))
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
        """Cell values of a sheet (or a range like A1:D20) as rows; formulas are computed
        (render="value") or shown as written (render="formula")."""
        wb = files.open(files.path(path, True))
        ws = _sheet(wb, sheet)
        if cell_range:
            try:
                min_col, min_row, max_col, max_row = range_boundaries(cell_range.upper())
            except (CellCoordinatesException, ValueError):
                raise ToolError(f"{cell_range!r} is not a range like A1:D20") from None
        else:
            min_col, min_row, max_col, max_row = 1, 1, ws.max_column, ws.max_row
        # Whole columns ("B:D") or rows ("2:5") are open on one side: they end where the data does.
        min_col, min_row = min_col or 1, min_row or 1
        max_col, max_row = max_col or ws.max_column, max_row or ws.max_row
        max_row = min(max_row, min_row + MAX_READ_ROWS - 1)
        rows = ws.iter_rows(
            min_row=min_row, max_row=max_row, min_col=min_col, max_col=max_col, values_only=True
        )
        grid = [list(r) for r in rows]
        if render == "value":
            compute_grid(grid, (ws.title, min_row, min_col), wb.sheetnames, lambda t: _cells(wb, t))
        return as_json({"sheet": ws.title, "rows": grid})

    @writer(app, "spreadsheet-build")
    def create_workbook(path: str, sheets: list[str] | None = None, overwrite: bool = False) -> str:
        """Create a workbook with the named sheets (default one sheet 'Sheet1')."""
        real = files.path(path, False)
        names = sheets or ["Sheet1"]
        if len(set(names)) != len(names) or any(not n.strip() or len(n) > 31 for n in names):
            raise ToolError("sheet names must be distinct, non-empty and at most 31 characters")
        with files.lock(real):
            if real.exists() and not overwrite:
                raise ToolError(f"{path} exists; pass overwrite=true to replace it")
            wb = Workbook()
            wb.active.title = names[0]
            for name in names[1:]:
                wb.create_sheet(name)
            real.parent.mkdir(parents=True, exist_ok=True)
            wb.save(real)
        return f"Created {path} with sheets {names}."

    @writer(app, "spreadsheet-build")
    def add_sheet(path: str, sheet: str) -> str:
        """Add a sheet to an existing workbook."""
        real = files.path(path, True)
        with files.lock(real):
            wb = files.open(real)
            if sheet in wb.sheetnames:
                raise ToolError(f"sheet {sheet!r} exists")
            wb.create_sheet(sheet)
            wb.save(real)
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
            wb.save(real)
        return f"Deleted sheet {sheet!r} from {path}."

    @writer(app, "spreadsheet-build")
    def write_range(path: str, sheet: str, rows: list[list[Cell]], start_cell: str = "A1") -> str:
        """Write rows of values starting at start_cell (strings starting with '=' are formulas).
        The sheet is created when missing."""
        real = files.path(path, True)
        r0, c0 = _anchor(start_cell)
        with files.lock(real):
            wb = files.open(real)
            ws = wb[sheet] if sheet in wb.sheetnames else wb.create_sheet(sheet)
            for i, row in enumerate(rows):
                for j, value in enumerate(row):
                    ws.cell(row=r0 + i, column=c0 + j, value=value)
            wb.save(real)
        return f"Wrote {len(rows)} rows to {path}!{sheet} at {start_cell.upper()}."

    @writer(app, "spreadsheet-build")
    def append_rows(path: str, sheet: str, rows: list[list[Cell]]) -> str:
        """Append rows below the last used row of a sheet."""
        real = files.path(path, True)
        with files.lock(real):
            wb = files.open(real)
            ws = _sheet(wb, sheet)
            for row in rows:
                ws.append(row)
            wb.save(real)
        return f"Appended {len(rows)} rows to {path}!{sheet}."

    return app


SPEC = ServerSpec(name="excel", description="xlsx workbooks in the workspace (openpyxl)", build=build)
