"""The `wiki` server: a Notion-like wiki. Search and read pages, query databases; create pages,
append blocks, update pages, create databases, add and update rows (SPEC §5, workflow server).

Page content goes in and out as markdown (stored as typed blocks); database rows are checked
against the database's typed properties.
"""

from __future__ import annotations

import json
from typing import Any

from mcp.server.mcpserver import MCPServer
from sqlmodel import Session, col, delete, func, select

from mcp_servers.common.spec import ServerContext, ServerSpec
from mcp_servers.common.tooling import ToolError, as_json, reader, writer
from mcp_servers.wiki.blocks import Block, parse, render
from mcp_servers.wiki.properties import (
    PropertySpec,
    RowFilter,
    check_filters,
    check_schema,
    check_values,
    matches,
    sort_key,
)
from mcp_servers.wiki.schema import ME, NOW, TABLES, TODAY, WikiBlock, WikiDatabase, WikiPage, WikiRow
from mcp_servers.wiki.seed import seed

READ = "workflow-records-lookup"
WRITE = "wiki-write"
MAX_PAGE_SIZE = 50
MAX_MARKDOWN = 100_000
SNIPPET = 160


def _page(s: Session, page_id: int, *, archived_too: bool = False) -> WikiPage:
    found = s.get(WikiPage, page_id)
    if found is not None and found.archived and not archived_too:
        raise ToolError(f"page {page_id} is archived; update_page with archived=false restores it")
    if found is None:
        raise ToolError(f"no page with id {page_id}; search_pages finds pages by title or text")
    return found


def _database(s: Session, database_id: int) -> WikiDatabase:
    found = s.get(WikiDatabase, database_id)
    if found is None:
        raise ToolError(f"no database with id {database_id}; search_pages lists databases too")
    return found


def _path(s: Session, page: WikiPage) -> str:
    titles, seen, current = [page.title], {page.id}, page
    while current.parent_id is not None and current.parent_id not in seen:
        parent = s.get(WikiPage, current.parent_id)
        if parent is None:
            break
        titles.append(parent.title)
        seen.add(parent.id)
        current = parent
    return " / ".join(reversed(titles))


def _blocks(s: Session, page_id: int) -> list[Block]:
    rows = s.execute(
        select(WikiBlock).where(WikiBlock.page_id == page_id).order_by(col(WikiBlock.position))
    ).scalars()
    return [Block(b.type, b.text, b.checked) for b in rows]


def _markdown(markdown: str) -> list[Block]:
    if len(markdown) > MAX_MARKDOWN:
        raise ToolError(
            f"at most {MAX_MARKDOWN} characters of markdown per call; append the rest in another call"
        )
    return parse(markdown)


def _append(s: Session, page_id: int, blocks: list[Block]) -> None:
    last = s.execute(select(func.max(WikiBlock.position)).where(WikiBlock.page_id == page_id)).scalar()
    start = -1 if last is None else last
    for k, b in enumerate(blocks, start=start + 1):
        s.add(WikiBlock(page_id=page_id, position=k, type=b.type, text=b.text, checked=b.checked))


def _paged(items: list[Any], page: int, page_size: int) -> dict[str, Any]:
    if page < 1:
        raise ToolError("page starts at 1")
    if not 1 <= page_size <= MAX_PAGE_SIZE:
        raise ToolError(f"page_size must be between 1 and {MAX_PAGE_SIZE}")
    pages = max(1, -(-len(items) // page_size))
    return {
        "page": page,
        "pages": pages,
        "total": len(items),
        "items": items[(page - 1) * page_size : page * page_size],
    }


def _row_view(row: WikiRow) -> dict[str, Any]:
    return {"id": row.id, **row.values(), "updated_at": row.updated_at}


def build(ctx: ServerContext) -> MCPServer:
    app = MCPServer(
        "wiki",
        instructions=f"The company wiki (Notion-like): pages with markdown content in a tree, and databases "
        f"with typed properties. Today is {TODAY}. Find ids with search_pages.",
    )

    @reader(app, READ)
    def search_pages(query: str = "", page: int = 1, page_size: int = 20) -> str:
        """Find pages whose title or content contains `query` (case-insensitive; empty lists all),
        and databases whose title does. Each result: kind (page|database), id, title, path, and a
        snippet (pages) or the property schema (databases)."""
        needle = query.strip().lower()
        with Session(ctx.engine) as s:
            results: list[dict[str, Any]] = []
            for db in s.execute(select(WikiDatabase).order_by(col(WikiDatabase.id))).scalars():
                if needle in db.title.lower():
                    parent = s.get(WikiPage, db.parent_page_id) if db.parent_page_id else None
                    results.append({"kind": "database", "id": db.id, "title": db.title,
                                    "path": _path(s, parent) if parent else None, "properties": db.property_specs()})  # fmt: skip
            pages = s.execute(
                select(WikiPage).where(col(WikiPage.archived).is_(False)).order_by(col(WikiPage.id))
            )
            for p in pages.scalars():
                text = "\n".join(b.text for b in _blocks(s, p.id or 0))
                at = text.lower().find(needle) if needle else 0
                if needle and needle not in p.title.lower() and at < 0:
                    continue
                lo = max(0, at - SNIPPET // 4) if at > 0 else 0
                snippet = " ".join(text[lo : lo + SNIPPET].split())
                results.append(
                    {"kind": "page", "id": p.id, "title": p.title, "path": _path(s, p), "snippet": snippet}
                )
            return as_json(_paged(results, page, page_size))

    @reader(app, READ)
    def read_page(page_id: int) -> str:
        """A page: title, path, parent, child pages, databases on it, and its content as markdown."""
        with Session(ctx.engine) as s:
            p = _page(s, page_id)
            children = s.execute(
                select(WikiPage)
                .where(WikiPage.parent_id == p.id, col(WikiPage.archived).is_(False))
                .order_by(col(WikiPage.id))
            ).scalars()
            dbs = s.execute(select(WikiDatabase).where(WikiDatabase.parent_page_id == p.id)).scalars()
            return as_json({
                "id": p.id, "title": p.title, "path": _path(s, p), "parent_id": p.parent_id,
                "updated_at": p.updated_at, "children": [{"id": c.id, "title": c.title} for c in children],
                "databases": [{"id": d.id, "title": d.title} for d in dbs], "markdown": render(_blocks(s, p.id or 0)),
            })  # fmt: skip

    @reader(app, READ)
    def query_rows(
        database_id: int,
        filters: list[RowFilter] | None = None,
        sort_by: str | None = None,
        descending: bool = False,
        page: int = 1,
        page_size: int = 25,
    ) -> str:
        """Rows of a database meeting every filter ({property, op, value}; op: eq, ne, gt, gte, lt,
        lte, contains, is_empty, is_not_empty; text compares ignore case; multi_select: contains),
        optionally sorted by a property. Returns the property schema and one page of rows."""
        with Session(ctx.engine) as s:
            db = _database(s, database_id)
            schema = db.property_specs()
            rows = [_row_view(r) for r in s.execute(
                select(WikiRow).where(WikiRow.database_id == db.id).order_by(col(WikiRow.id))).scalars()]  # fmt: skip
        check_filters(schema, filters or [])
        for f in filters or []:
            rows = [r for r in rows if matches(schema, r, f)]
        if sort_by:
            key = sort_key(schema, sort_by)
            present = sorted((r for r in rows if key(r)[0] == 0), key=key, reverse=descending)
            rows = present + [r for r in rows if key(r)[0] == 1]
        return as_json({"database": db.title, "properties": schema, **_paged(rows, page, page_size)})

    @writer(app, WRITE)
    def create_page(title: str, parent_id: int | None = None, markdown: str = "") -> str:
        """Create a page (under parent_id, or at the top level) with optional markdown content:
        # headings, paragraphs, - bullets, 1. numbered, - [ ] to-dos, > quotes, ``` code, ---."""
        if not title.strip():
            raise ToolError("title must not be empty")
        blocks = _markdown(markdown)
        with Session(ctx.engine) as s:
            if parent_id is not None:
                _page(s, parent_id)
            p = WikiPage(
                title=title.strip(), parent_id=parent_id, created_by=ME, created_at=NOW, updated_at=NOW
            )
            s.add(p)
            s.flush()
            _append(s, p.id or 0, blocks)
            s.commit()
            return as_json({"created": p.id, "title": p.title, "path": _path(s, p), "blocks": len(blocks)})

    @writer(app, WRITE)
    def append_blocks(page_id: int, markdown: str) -> str:
        """Append markdown content to the end of a page (existing content is kept)."""
        blocks = _markdown(markdown)
        if not blocks:
            raise ToolError("markdown has no content to append")
        with Session(ctx.engine) as s:
            p = _page(s, page_id)
            _append(s, page_id, blocks)
            p.updated_at = NOW
            s.add(p)
            s.commit()
            return f"Appended {len(blocks)} blocks to page {page_id} ({p.title})."

    @writer(app, WRITE, destructive=True)
    def update_page(
        page_id: int,
        title: str | None = None,
        markdown: str | None = None,
        parent_id: int | None = None,
        archived: bool | None = None,
    ) -> str:
        """Change a page; only what is given changes: title, markdown (replaces the whole
        content), parent_id (moves it under another page), archived=true (removes it from the wiki),
        archived=false (restores an archived page)."""
        with Session(ctx.engine) as s:
            p = _page(s, page_id, archived_too=archived is False)
            if title is not None:
                if not title.strip():
                    raise ToolError("title must not be empty")
                p.title = title.strip()
            if parent_id is not None:
                ancestor: WikiPage | None = _page(s, parent_id)
                while ancestor is not None:
                    if ancestor.id == p.id:
                        raise ToolError(
                            f"page {parent_id} is inside page {page_id}; a page cannot move under itself"
                        )
                    ancestor = s.get(WikiPage, ancestor.parent_id) if ancestor.parent_id else None
                p.parent_id = parent_id
            if markdown is not None:
                blocks = _markdown(markdown)
                s.execute(delete(WikiBlock).where(col(WikiBlock.page_id) == p.id))
                _append(s, page_id, blocks)
            if archived is not None:
                p.archived = archived
            p.updated_at = NOW
            s.add(p)
            s.commit()
            return f"Updated page {page_id} ({p.title})."

    @writer(app, WRITE)
    def create_database(title: str, properties: list[PropertySpec], parent_page_id: int | None = None) -> str:
        """Create a database with typed properties, e.g. [{"name": "Name", "type": "title"},
        {"name": "Status", "type": "select", "options": ["Open", "Done"]}, {"name": "Due", "type": "date"}].
        Types: title (exactly one), text, number, select, multi_select, date, checkbox, email, url."""
        if not title.strip():
            raise ToolError("title must not be empty")
        schema = check_schema(properties)
        with Session(ctx.engine) as s:
            if parent_page_id is not None:
                _page(s, parent_page_id)
            db = WikiDatabase(
                title=title.strip(),
                parent_page_id=parent_page_id,
                properties=json.dumps(schema),
                created_at=NOW,
            )
            s.add(db)
            s.commit()
            return as_json({"created": db.id, "title": db.title, "properties": [p["name"] for p in schema]})

    @writer(app, WRITE)
    def add_row(database_id: int, values: dict[str, Any]) -> str:
        """Add a row: values maps property names to values of their type (number, true/false,
        'YYYY-MM-DD' dates, one option for select, a list of options for multi_select)."""
        with Session(ctx.engine) as s:
            db = _database(s, database_id)
            clean = check_values(db.property_specs(), values, new=True)
            row = WikiRow(database_id=database_id, data=json.dumps(clean), created_at=NOW, updated_at=NOW)
            s.add(row)
            s.commit()
            return as_json({"created": row.id, **clean})

    @writer(app, WRITE, destructive=True)
    def update_row(row_id: int, values: dict[str, Any]) -> str:
        """Change some properties of a row (others are kept); a null value clears a property."""
        with Session(ctx.engine) as s:
            row = s.get(WikiRow, row_id)
            if row is None:
                raise ToolError(f"no row with id {row_id}; query_rows shows row ids")
            db = _database(s, row.database_id)
            merged = {**row.values(), **check_values(db.property_specs(), values, new=False)}
            row.data, row.updated_at = json.dumps(merged), NOW
            s.add(row)
            s.commit()
            return as_json({"updated": row.id, **merged})

    return app


SPEC = ServerSpec(
    name="wiki",
    description="Notion-like wiki: pages with markdown blocks, databases with typed properties and rows",
    build=build,
    tables=TABLES,
    seed=seed,
)
