"""Cloud spreadsheet tables: spreadsheets, their sheets (tabs), one row per non-empty cell
(value as JSON, so numbers stay numbers), and sharing permissions."""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import UniqueConstraint
from sqlmodel import Field, SQLModel

TODAY = "2026-11-20"
NOW = "2026-11-20T09:00"
ME = "me@company.example"
ROLES = ("reader", "commenter", "writer", "owner")


class SheetsSpreadsheet(SQLModel, table=True):
    __tablename__ = "sheets_spreadsheet"
    id: int | None = Field(default=None, primary_key=True)
    title: str = Field(index=True)
    owner: str
    created_at: str
    updated_at: str


class SheetsSheet(SQLModel, table=True):
    __tablename__ = "sheets_sheet"
    __table_args__ = (UniqueConstraint("spreadsheet_id", "title"),)
    id: int | None = Field(default=None, primary_key=True)
    spreadsheet_id: int = Field(foreign_key="sheets_spreadsheet.id", index=True)
    title: str
    position: int


class SheetsCell(SQLModel, table=True):
    __tablename__ = "sheets_cell"
    __table_args__ = (UniqueConstraint("sheet_id", "row_no", "col_no"),)
    id: int | None = Field(default=None, primary_key=True)
    sheet_id: int = Field(foreign_key="sheets_sheet.id", index=True)
    row_no: int  # 1-based
    col_no: int  # 1-based: A = 1
    value: str  # JSON

    def python_value(self) -> Any:
        return json.loads(self.value)


class SheetsPermission(SQLModel, table=True):
    __tablename__ = "sheets_permission"
    __table_args__ = (UniqueConstraint("spreadsheet_id", "email"),)
    id: int | None = Field(default=None, primary_key=True)
    spreadsheet_id: int = Field(foreign_key="sheets_spreadsheet.id", index=True)
    email: str = Field(index=True)
    role: str  # reader | commenter | writer | owner


TABLES = (SheetsSpreadsheet, SheetsSheet, SheetsCell, SheetsPermission)
