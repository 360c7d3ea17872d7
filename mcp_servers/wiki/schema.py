"""Wiki tables: pages in a tree, each page's content as ordered blocks, and databases whose rows
hold JSON values checked against the database's typed properties. Times are ISO minutes."""

from __future__ import annotations

import json
from typing import Any

from sqlmodel import Field, SQLModel

TODAY = "2026-11-20"
NOW = "2026-11-20T09:00"
ME = "me@company.example"


class WikiPage(SQLModel, table=True):
    __tablename__ = "wiki_page"
    id: int | None = Field(default=None, primary_key=True)
    title: str = Field(index=True)
    parent_id: int | None = Field(default=None, foreign_key="wiki_page.id", index=True)
    created_by: str
    created_at: str
    updated_at: str
    archived: bool = False


class WikiBlock(SQLModel, table=True):
    """One block of a page: type is a Notion block type (paragraph, heading_1, to_do, ...)."""

    __tablename__ = "wiki_block"
    id: int | None = Field(default=None, primary_key=True)
    page_id: int = Field(foreign_key="wiki_page.id", index=True)
    position: int
    type: str
    text: str = ""
    checked: bool | None = None


class WikiDatabase(SQLModel, table=True):
    __tablename__ = "wiki_database"
    id: int | None = Field(default=None, primary_key=True)
    title: str = Field(index=True)
    parent_page_id: int | None = Field(default=None, foreign_key="wiki_page.id")
    properties: str  # JSON list of {"name", "type", "options"}
    created_at: str

    def property_specs(self) -> list[dict[str, Any]]:
        return list(json.loads(self.properties))


class WikiRow(SQLModel, table=True):
    __tablename__ = "wiki_row"
    id: int | None = Field(default=None, primary_key=True)
    database_id: int = Field(foreign_key="wiki_database.id", index=True)
    data: str  # JSON object: property name -> value
    created_at: str
    updated_at: str

    def values(self) -> dict[str, Any]:
        return dict(json.loads(self.data))


TABLES = (WikiPage, WikiBlock, WikiDatabase, WikiRow)
