"""Scholar tables. A paper's full text is stored as numbered pages (`ScholarPage`), read one at a
time; `citation_count` counts the citing papers in this index (the rows of `ScholarCitation`)."""

from __future__ import annotations

from sqlalchemy import UniqueConstraint
from sqlmodel import Field, SQLModel

TODAY = "2026-11-20"


class ScholarPaper(SQLModel, table=True):
    __tablename__ = "scholar_paper"
    id: int | None = Field(default=None, primary_key=True)
    title: str = Field(index=True)
    year: int = Field(index=True)
    venue: str = Field(index=True)
    topic: str = Field(index=True)
    abstract: str
    doi: str = Field(unique=True)
    citation_count: int = 0
    pages: int = 0


class ScholarAuthor(SQLModel, table=True):
    __tablename__ = "scholar_author"
    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(index=True)
    affiliation: str
    email: str


class ScholarAuthorship(SQLModel, table=True):
    __tablename__ = "scholar_authorship"
    __table_args__ = (UniqueConstraint("paper_id", "author_id"),)
    id: int | None = Field(default=None, primary_key=True)
    paper_id: int = Field(foreign_key="scholar_paper.id", index=True)
    author_id: int = Field(foreign_key="scholar_author.id", index=True)
    position: int


class ScholarCitation(SQLModel, table=True):
    __tablename__ = "scholar_citation"
    __table_args__ = (UniqueConstraint("citing_id", "cited_id"),)
    id: int | None = Field(default=None, primary_key=True)
    citing_id: int = Field(foreign_key="scholar_paper.id", index=True)
    cited_id: int = Field(foreign_key="scholar_paper.id", index=True)


class ScholarPage(SQLModel, table=True):
    __tablename__ = "scholar_page"
    __table_args__ = (UniqueConstraint("paper_id", "page"),)
    id: int | None = Field(default=None, primary_key=True)
    paper_id: int = Field(foreign_key="scholar_paper.id", index=True)
    page: int
    section: str
    text: str


class ScholarReadingList(SQLModel, table=True):
    __tablename__ = "scholar_reading_list"
    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(unique=True)
    description: str = ""
    created_on: str


class ScholarReadingListItem(SQLModel, table=True):
    __tablename__ = "scholar_reading_list_item"
    __table_args__ = (UniqueConstraint("list_id", "paper_id"),)
    id: int | None = Field(default=None, primary_key=True)
    list_id: int = Field(foreign_key="scholar_reading_list.id", index=True)
    paper_id: int = Field(foreign_key="scholar_paper.id", index=True)
    note: str = ""
    added_on: str


TABLES = (
    ScholarPaper,
    ScholarAuthor,
    ScholarAuthorship,
    ScholarCitation,
    ScholarPage,
    ScholarReadingList,
    ScholarReadingListItem,
)
