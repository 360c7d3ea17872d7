"""The `sheets` server: cloud spreadsheets, Google-Sheets-like. List and read (A1 ranges);
create spreadsheets, add sheets, write ranges, append rows, share (SPEC §5, workflow server).

Cell values live in the database (`sheets_cell`), not in files. A formula (text starting
with `=`) is stored as written and computed when read (`common/formula.py` says what is
supported); `read_range(..., render="formula")` shows the formulas instead. Access follows the
permissions: readers read, writers and owners write.
"""

from __future__ import annotations

import json
import re
from typing import Any, Literal

from mcp.server.mcpserver import MCPServer
from sqlmodel import Session, col, func, select

from mcp_servers.common.formula import compute_grid, rows_within
from mcp_servers.common.spec import ServerContext, ServerSpec
from mcp_servers.common.tooling import ToolError, as_json, reader, writer
from mcp_servers.sheets import a1
from mcp_servers.sheets.schema import (
    ME,
    NOW,
    TABLES,
    TODAY,
    SheetsCell,
    SheetsPermission,
    SheetsSheet,
    SheetsSpreadsheet,
)
from mcp_servers.sheets.seed import seed

READ = "workflow-records-lookup"
WRITE = "cloud-sheet-write"
Cell = str | int | float | bool | None
MAX_CELLS = 10_000
# A read returns at most this many characters of cell text (computed text may reach
# MAX_COMPUTED_TEXT_CHARS); `more` says which rows were left and the range that reads them.
MAX_READ_CHARS = 1_000_000
_EMAIL = re.compile(r"^[a-z0-9._%+'-]+@[a-z0-9-]+(\.[a-z0-9-]+)*\.[a-z]{2,}$")


def _role(s: Session, book: SheetsSpreadsheet) -> str | None:
    if book.owner == ME:
        return "owner"
    return s.execute(
        select(SheetsPermission.role).where(
            SheetsPermission.spreadsheet_id == book.id, SheetsPermission.email == ME
        )
    ).scalar()


def _book(s: Session, spreadsheet_id: int, *, write: bool = False) -> SheetsSpreadsheet:
    book = s.get(SheetsSpreadsheet, spreadsheet_id)
    role = _role(s, book) if book else None
    if book is None or role is None:
        raise ToolError(
            f"no spreadsheet with id {spreadsheet_id} that you can open; list_spreadsheets shows them"
        )
    if write and role not in ("writer", "owner"):
        raise ToolError(f"you have {role} access to {book.title!r}; only writers and the owner can change it")
    return book


def _sheets(s: Session, book: SheetsSpreadsheet) -> list[SheetsSheet]:
    stmt = (
        select(SheetsSheet).where(SheetsSheet.spreadsheet_id == book.id).order_by(col(SheetsSheet.position))
    )
    return list(s.execute(stmt).scalars())


def _target(s: Session, book: SheetsSpreadsheet, text: str) -> tuple[SheetsSheet, a1.Range]:
    tabs = _sheets(s, book)
    names = [t.title for t in tabs]
    try:
        rng = a1.parse(text, names)
    except ToolError as exc:
        raise ToolError(f"{exc}; sheets of {book.title!r}: {names}") from None
    name = rng.sheet if rng.sheet is not None else names[0]
    tab = next((t for t in tabs if t.title == name), None)
    if tab is None:
        raise ToolError(f"no sheet {name!r} in {book.title!r}; sheets: {names}")
    return tab, rng


def _compute_formulas(
    s: Session, book: SheetsSpreadsheet, grid: list[list[Any]], at: tuple[str, int, int]
) -> None:
    tabs = {t.title: t for t in _sheets(s, book)}

    def load(title: str) -> dict[tuple[int, int], Any]:
        rows = s.execute(select(SheetsCell).where(SheetsCell.sheet_id == tabs[title].id)).scalars()
        return {(c.row_no, c.col_no): c.python_value() for c in rows}

    compute_grid(grid, at, tabs, load)


def _used(s: Session, sheet_id: int) -> tuple[int, int]:
    rows, cols = s.execute(
        select(func.max(SheetsCell.row_no), func.max(SheetsCell.col_no)).where(
            SheetsCell.sheet_id == sheet_id
        )
    ).one()
    return rows or 0, cols or 0


def _write(
    s: Session, tab: SheetsSheet, row1: int, col1: int, values: list[list[Cell]]
) -> tuple[int, int, int]:
    """Put `values` with its top-left at (row1, col1); None or '' clears. Returns (rows, cols, cells)."""
    height, width = len(values), max((len(r) for r in values), default=0)
    if height == 0 or width == 0:
        raise ToolError("values must be a non-empty list of rows, e.g. [['Team', 'Budget'], ['Ops', 1200]]")
    if height * width > MAX_CELLS:
        raise ToolError(f"write at most {MAX_CELLS} cells per call")
    if row1 + height - 1 > a1.MAX_ROWS or col1 + width - 1 > a1.MAX_COLS:
        raise ToolError(
            f"the values would go past the sheet's limits ({a1.MAX_ROWS} rows, columns up to ZZ); "
            "start higher or further left"
        )
    existing = {
        (c.row_no, c.col_no): c
        for c in s.execute(
            select(SheetsCell).where(
                SheetsCell.sheet_id == tab.id,
                col(SheetsCell.row_no).between(row1, row1 + height - 1),
                col(SheetsCell.col_no).between(col1, col1 + width - 1),
            )
        ).scalars()
    }
    count = 0
    for i, row in enumerate(values):
        for j, value in enumerate(row):
            key = (row1 + i, col1 + j)
            cell = existing.get(key)
            if value is None or value == "":
                if cell is not None:
                    s.delete(cell)
            elif cell is None:
                s.add(SheetsCell(sheet_id=tab.id or 0, row_no=key[0], col_no=key[1], value=json.dumps(value)))
            else:
                cell.value = json.dumps(value)
                s.add(cell)
            count += 1
    return height, width, count


def build(ctx: ServerContext) -> MCPServer:
    app = MCPServer(
        "sheets",
        instructions=f"Cloud spreadsheets shared with Jordan Lee <{ME}>. Today is {TODAY}. Ranges use A1 "
        "notation: 'Sheet1!A1:C10', \"'Team Budget'!B2\", 'Sheet1' (whole sheet), 'Sheet1!A:C'.",
    )

    @reader(app, READ)
    def list_spreadsheets(query: str | None = None) -> str:
        """Spreadsheets you can open: id, title, owner, your role, sheet names, last update.
        query filters by part of the title."""
        with Session(ctx.engine) as s:
            out = []
            for book in s.execute(select(SheetsSpreadsheet).order_by(col(SheetsSpreadsheet.id))).scalars():
                role = _role(s, book)
                if role is None or (query and query.strip().lower() not in book.title.lower()):
                    continue
                out.append({"id": book.id, "title": book.title, "owner": book.owner, "your_role": role,
                            "sheets": [t.title for t in _sheets(s, book)], "updated_at": book.updated_at})  # fmt: skip
            return as_json(out)

    @reader(app, READ)
    def get_spreadsheet(spreadsheet_id: int) -> str:
        """A spreadsheet's sheets (with their used rows and columns) and who it is shared with."""
        with Session(ctx.engine) as s:
            book = _book(s, spreadsheet_id)
            tabs = []
            for t in _sheets(s, book):
                rows, cols = _used(s, t.id or 0)
                tabs.append({"sheet": t.title, "index": t.position, "rows": rows, "columns": cols})
            shares = s.execute(
                select(SheetsPermission)
                .where(SheetsPermission.spreadsheet_id == book.id)
                .order_by(col(SheetsPermission.id))
            ).scalars()
            return as_json({
                "id": book.id, "title": book.title, "owner": book.owner, "your_role": _role(s, book),
                "updated_at": book.updated_at, "sheets": tabs,
                "permissions": [{"email": p.email, "role": p.role} for p in shares],
            })  # fmt: skip

    @reader(app, READ)
    def read_range(spreadsheet_id: int, range: str, render: Literal["value", "formula"] = "value") -> str:
        """Values of a range in A1 notation, as rows (numbers stay numbers; empty cells are null;
        trailing empty rows and cells are left out). A range without a sheet name reads the first
        sheet. Formulas are computed (render="value"), or shown as written (render="formula").
        At most 1,000,000 characters come back; `more` then names the range of the rest."""
        with Session(ctx.engine) as s:
            book = _book(s, spreadsheet_id)
            tab, r = _target(s, book, range)
            used_rows, used_cols = _used(s, tab.id or 0)
            row2 = r.row2 if r.row2 is not None else max(used_rows, r.row1)
            col2 = r.col2 if r.col2 is not None else max(used_cols, r.col1)
            if (row2 - r.row1 + 1) * (col2 - r.col1 + 1) > MAX_CELLS:
                raise ToolError(f"read at most {MAX_CELLS} cells at once; narrow the range (e.g. by rows)")
            cells = s.execute(
                select(SheetsCell).where(
                    SheetsCell.sheet_id == tab.id,
                    col(SheetsCell.row_no).between(r.row1, row2),
                    col(SheetsCell.col_no).between(r.col1, col2),
                )
            ).scalars()
            grid: list[list[Any]] = [[None] * (col2 - r.col1 + 1) for _ in [None] * (row2 - r.row1 + 1)]
            for c in cells:
                grid[c.row_no - r.row1][c.col_no - r.col1] = c.python_value()
            if render == "value":
                _compute_formulas(s, book, grid, (tab.title, r.row1, r.col1))
            while grid and all(v is None for v in grid[-1]):
                grid.pop()
            for row in grid:
                while row and row[-1] is None:
                    row.pop()
            fit = rows_within(grid, MAX_READ_CHARS)
            if grid and fit == 0:
                raise ToolError(
                    f"row {r.row1} alone holds more than {MAX_READ_CHARS} characters of text; "
                    "read fewer columns (e.g. one cell)"
                )
            out: dict[str, Any] = {"range": a1.a1(tab.title, r.row1, r.col1, row2, col2), "values": grid}
            if fit < len(grid):
                last = r.row1 + fit - 1
                del grid[fit:]
                out["range"] = a1.a1(tab.title, r.row1, r.col1, last, col2)
                out["more"] = {
                    "rows": row2 - last,
                    "next_range": a1.a1(tab.title, last + 1, r.col1, row2, col2),
                }
            return as_json(out)

    @writer(app, WRITE)
    def create_spreadsheet(title: str, sheets: list[str] | None = None) -> str:
        """Create a spreadsheet you own, with the named sheets (default one sheet 'Sheet1')."""
        # Stripped and distinct ignoring case, as add_sheet makes them.
        names = [n.strip() for n in sheets or ["Sheet1"]]
        if not title.strip():
            raise ToolError("title must not be empty")
        if len({n.lower() for n in names}) != len(names) or any(
            not n or len(n) > 100 or "!" in n for n in names
        ):
            raise ToolError(
                "sheet names must be distinct ignoring case, non-empty, at most 100 characters, without '!'"
            )
        with Session(ctx.engine) as s:
            book = SheetsSpreadsheet(title=title.strip(), owner=ME, created_at=NOW, updated_at=NOW)
            s.add(book)
            s.flush()
            s.add(SheetsPermission(spreadsheet_id=book.id or 0, email=ME, role="owner"))
            s.add_all(
                SheetsSheet(spreadsheet_id=book.id or 0, title=n, position=i) for i, n in enumerate(names)
            )
            s.commit()
            return as_json({"created": book.id, "title": book.title, "sheets": names})

    @writer(app, WRITE)
    def add_sheet(spreadsheet_id: int, title: str) -> str:
        """Add a sheet (tab) at the end of a spreadsheet."""
        if not title.strip() or len(title) > 100 or "!" in title:
            raise ToolError("a sheet name is 1 to 100 characters without '!'")
        with Session(ctx.engine) as s:
            book = _book(s, spreadsheet_id, write=True)
            tabs = _sheets(s, book)
            if any(t.title.lower() == title.strip().lower() for t in tabs):
                raise ToolError(f"{book.title!r} already has a sheet {title.strip()!r}")
            s.add(SheetsSheet(spreadsheet_id=book.id or 0, title=title.strip(), position=len(tabs)))
            book.updated_at = NOW
            s.add(book)
            s.commit()
            return f"Added sheet {title.strip()!r} to {book.title!r}."

    # Overwrites or clears the cells it covers.
    @writer(app, WRITE, destructive=True)
    def write_range(spreadsheet_id: int, range: str, values: list[list[Cell]]) -> str:
        """Write rows of values into a range; its top-left cell anchors the values ('Sheet1!B2'
        takes any size; a range such as 'Sheet1!A1:C3', even 'Sheet1!A1:A1', must be big
        enough). null or '' clears a cell. Text starting with '=' is a formula, computed when
        read; it may refer to B2, Sheet2!B2, ranges B2:B9, whole columns B:B or 'Team Budget'!C:D
        and whole rows 2:5, e.g. =SUM(B:B)."""
        with Session(ctx.engine) as s:
            book = _book(s, spreadsheet_id, write=True)
            tab, r = _target(s, book, range)
            height, width = len(values), max((len(v) for v in values), default=0)
            # Only a bare cell ('B2') anchors values of any size; a range ('A1:A1', 'A:B', '2:3')
            # bounds them on each side it closes.
            too_tall = r.row2 is not None and height > r.row2 - r.row1 + 1
            too_wide = r.col2 is not None and width > r.col2 - r.col1 + 1
            if not r.anchor and (too_tall or too_wide):
                raise ToolError(
                    f"{height}x{width} values do not fit in {range!r}; give only the top-left cell to anchor them"
                )
            rows, cols, count = _write(s, tab, r.row1, r.col1, values)
            book.updated_at = NOW
            s.add(book)
            s.commit()
            done = a1.a1(tab.title, r.row1, r.col1, r.row1 + rows - 1, r.col1 + cols - 1)
            return as_json({"updated_range": done, "updated_cells": count})

    @writer(app, WRITE)
    def append_rows(spreadsheet_id: int, sheet: str, values: list[list[Cell]]) -> str:
        """Append rows below the last used row of a sheet, starting in column A."""
        with Session(ctx.engine) as s:
            book = _book(s, spreadsheet_id, write=True)
            tab, _ = _target(s, book, "'" + sheet.replace("'", "''") + "'!A1")
            last, _cols = _used(s, tab.id or 0)
            rows, cols, count = _write(s, tab, last + 1, 1, values)
            book.updated_at = NOW
            s.add(book)
            s.commit()
            return as_json(
                {"updated_range": a1.a1(tab.title, last + 1, 1, last + rows, cols), "updated_cells": count}
            )

    # Sharing again replaces a person's role: it can take away write access.
    @writer(app, WRITE, destructive=True)
    def share(spreadsheet_id: int, email: str, role: str = "reader") -> str:
        """Share a spreadsheet with someone (role: reader, commenter or writer); sharing again
        changes their role."""
        address = email.strip().lower()
        if not _EMAIL.match(address):
            raise ToolError(f"{email!r} is not an e-mail address")
        if role not in ("reader", "commenter", "writer"):
            raise ToolError("role must be reader, commenter or writer")
        with Session(ctx.engine) as s:
            book = _book(s, spreadsheet_id, write=True)
            if address == book.owner:
                raise ToolError(f"{address} owns {book.title!r}")
            found = s.execute(
                select(SheetsPermission).where(
                    SheetsPermission.spreadsheet_id == book.id, SheetsPermission.email == address
                )
            ).scalar()
            if found is None:
                found = SheetsPermission(spreadsheet_id=book.id or 0, email=address, role=role)
            found.role = role
            s.add(found)
            s.commit()
            return f"Shared {book.title!r} with {address} as {role}."

    return app


SPEC = ServerSpec(
    name="sheets",
    description="Cloud spreadsheets: list, read A1 ranges; create, add sheets, write ranges, append rows, share",
    build=build,
    tables=TABLES,
    seed=seed,
)
