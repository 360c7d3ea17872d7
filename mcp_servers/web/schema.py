"""Web tables: pages (text with links rendered as "anchor [n]") and their numbered links."""

from __future__ import annotations

from sqlalchemy import UniqueConstraint
from sqlmodel import Field, SQLModel


class WebPage(SQLModel, table=True):
    __tablename__ = "web_page"
    id: int | None = Field(default=None, primary_key=True)
    url: str = Field(unique=True, index=True)
    title: str
    site: str = Field(index=True)
    kind: str  # company | news | docs | methodology | blog | guide | paper-summary
    published: str
    text: str


class WebLink(SQLModel, table=True):
    __tablename__ = "web_link"
    __table_args__ = (UniqueConstraint("page_id", "number"),)
    id: int | None = Field(default=None, primary_key=True)
    page_id: int = Field(foreign_key="web_page.id", index=True)
    number: int
    anchor: str
    target: str


TABLES = (WebPage, WebLink)
