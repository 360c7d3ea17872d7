"""The `scholar` server: search papers, read their metadata, authors, citations and references
(literature-search), read full text one page at a time (paper-reading), and keep reading lists
(record-update) (SPEC §5, scenario AR)."""

from __future__ import annotations

import re
from typing import Any

from mcp.server.mcpserver import MCPServer
from sqlalchemy import func, or_
from sqlmodel import Session, col, select

from mcp_servers.common.paging import MAX_PAGE_SIZE, page_window, paginate
from mcp_servers.common.spec import ServerContext, ServerSpec
from mcp_servers.common.tooling import ToolError, as_json, fields, reader, writer
from mcp_servers.common.values import LIKE_ESCAPE, like_pattern, numeric_id, one_of_any_case
from mcp_servers.scholar.schema import (
    TABLES,
    TODAY,
    ScholarAuthor,
    ScholarAuthorship,
    ScholarCitation,
    ScholarPage,
    ScholarPaper,
    ScholarReadingList,
    ScholarReadingListItem,
)
from mcp_servers.scholar.seed import seed

SEARCH = "literature-search"
READING = "paper-reading"
WRITE = "record-update"
SORTS = ("relevance", "citations", "year")
STOPWORDS = {"a", "an", "the", "of", "for", "and", "or", "in", "on", "with", "to", "via", "by", "at"}


def _terms(query: str) -> list[str]:
    # Words in any script ("naïve" is one word, not "na" and "ve"), with inner '-' and '+'.
    return [t for t in re.findall(r"[^\W_][\w\-+]*", query.lower()) if t not in STOPWORDS]


def _paper(s: Session, paper_id: int) -> ScholarPaper:
    found = s.get(ScholarPaper, paper_id)
    if found is None:
        raise ToolError(f"no paper with id {paper_id}; search_papers gives paper ids")
    return found


def _author(s: Session, author: str) -> ScholarAuthor:
    key = author.strip()
    if (n := numeric_id(key)) is not None:
        found = s.get(ScholarAuthor, n)
        if found:
            return found
        raise ToolError(f"no author with id {key}")
    rows = (
        s.execute(
            select(ScholarAuthor).where(
                func.lower(ScholarAuthor.name).like(like_pattern(key.lower()), escape=LIKE_ESCAPE)
            )
        )
        .scalars()
        .all()
    )
    exact = [a for a in rows if a.name.lower() == key.lower()]
    if len(exact) == 1 or len(rows) == 1:
        return (exact or rows)[0]
    if not rows:
        raise ToolError(f"no author named {author!r}; find_authors searches names and affiliations")
    listed = ", ".join(f"{a.name} (id {a.id}, {a.affiliation})" for a in rows[:10])
    raise ToolError(f"{author!r} matches several authors: {listed}; give the id")


def _list(s: Session, name: str) -> ScholarReadingList:
    found = s.execute(
        select(ScholarReadingList).where(func.lower(ScholarReadingList.name) == name.strip().lower())
    ).scalar_one_or_none()
    if found is None:
        raise ToolError(
            f"no reading list {name!r}; list_reading_lists shows them, create_reading_list makes one"
        )
    return found


def _authors_of(s: Session, paper_ids: list[int]) -> dict[int, list[str]]:
    rows = s.execute(
        select(ScholarAuthorship.paper_id, ScholarAuthor.name)
        .join(ScholarAuthor, col(ScholarAuthor.id) == ScholarAuthorship.author_id)
        .where(col(ScholarAuthorship.paper_id).in_(paper_ids))
        .order_by(col(ScholarAuthorship.paper_id), col(ScholarAuthorship.position))
    ).all()
    out: dict[int, list[str]] = {i: [] for i in paper_ids}
    for pid, name in rows:
        out[pid].append(name)
    return out


def _brief(p: ScholarPaper, authors: list[str]) -> dict[str, Any]:
    return {"id": p.id, "title": p.title, "year": p.year, "venue": p.venue, "topic": p.topic,
            "citations": p.citation_count, "authors": authors}  # fmt: skip


def build(ctx: ServerContext) -> MCPServer:
    app = MCPServer(
        "scholar",
        instructions=f"An academic paper index with full texts and citation graph. Today is {TODAY}.",
    )

    def session() -> Session:
        return Session(ctx.engine)

    @reader(app, SEARCH)
    def search_papers(
        query: str = "", topic: str | None = None, venue: str | None = None, year_from: int | None = None,
        year_to: int | None = None, author: str | None = None, match: str = "all", sort: str = "relevance",
        page: int = 1, page_size: int = 10,
    ) -> str:  # fmt: skip
        """Search papers by words in the title and abstract. match: all (every word) | any. Filters:
        topic (see list_topics), venue (e.g. NeurIPS), year_from/year_to, author (name or id).
        sort: relevance | citations | year (newest first). Paged; each hit has id, title, year,
        venue, topic, citations, authors and a snippet of the abstract."""
        if sort not in SORTS:
            raise ToolError(f"sort must be one of {', '.join(SORTS)}")
        if match not in ("all", "any"):
            raise ToolError("match must be 'all' or 'any'")
        if page < 1 or not 1 <= page_size <= MAX_PAGE_SIZE:
            raise ToolError(f"page starts at 1; page_size is 1..{MAX_PAGE_SIZE}")
        terms = _terms(query)
        with session() as s:
            stmt = select(ScholarPaper)
            if topic:
                topics = s.execute(select(ScholarPaper.topic).distinct()).scalars()
                stmt = stmt.where(func.lower(ScholarPaper.topic) == one_of_any_case(topic, topics, "topic"))
            if venue:
                venues = s.execute(select(ScholarPaper.venue).distinct()).scalars()
                stmt = stmt.where(func.lower(ScholarPaper.venue) == one_of_any_case(venue, venues, "venue"))
            if year_from is not None:
                stmt = stmt.where(ScholarPaper.year >= year_from)
            if year_to is not None:
                stmt = stmt.where(ScholarPaper.year <= year_to)
            if author:
                a = _author(s, author)
                stmt = stmt.where(
                    col(ScholarPaper.id).in_(
                        select(ScholarAuthorship.paper_id).where(ScholarAuthorship.author_id == a.id)
                    )
                )
            text_of = func.lower(col(ScholarPaper.title) + " " + col(ScholarPaper.abstract))
            likes = [text_of.like(like_pattern(t), escape=LIKE_ESCAPE) for t in terms]
            if likes:
                stmt = stmt.where(*likes) if match == "all" else stmt.where(or_(*likes))
            hits = list(s.execute(stmt).scalars())

            def score(p: ScholarPaper) -> float:
                title, body = p.title.lower(), p.abstract.lower()
                return sum((t in title) * 3 + body.count(t) + 2 * (t in title or t in body) for t in terms)

            key = {
                "relevance": lambda p: (-score(p), -p.citation_count, p.id),
                "citations": lambda p: (-p.citation_count, -p.year, p.id),
                "year": lambda p: (-p.year, -p.citation_count, p.id),
            }[sort]
            hits.sort(key=key)
            window, meta = page_window(hits, page, page_size)
            names = _authors_of(s, [p.id or 0 for p in window])
            items = [{**_brief(p, names[p.id or 0]), "snippet": p.abstract[:180]} for p in window]
            return as_json({**meta, "items": items})

    @reader(app, SEARCH)
    def list_topics() -> str:
        """The topics and venues in the index with their paper counts, and the range of years."""
        with session() as s:
            topics = s.execute(
                select(ScholarPaper.topic, func.count())
                .group_by(ScholarPaper.topic)
                .order_by(ScholarPaper.topic)
            ).all()
            venues = s.execute(
                select(ScholarPaper.venue, func.count())
                .group_by(ScholarPaper.venue)
                .order_by(ScholarPaper.venue)
            ).all()
            lo, hi = s.execute(select(func.min(ScholarPaper.year), func.max(ScholarPaper.year))).one()
            return as_json({"topics": dict(topics), "venues": dict(venues), "years": [lo, hi]})  # type: ignore[arg-type]

    @reader(app, SEARCH)
    def get_paper(paper_id: int) -> str:
        """A paper's metadata: title, year, venue, topic, DOI, abstract, authors with affiliations,
        citation and reference counts, and how many full-text pages read_paper_page can show."""
        with session() as s:
            p = _paper(s, paper_id)
            authors = s.execute(
                select(ScholarAuthor)
                .join(ScholarAuthorship, col(ScholarAuthorship.author_id) == ScholarAuthor.id)
                .where(ScholarAuthorship.paper_id == p.id)
                .order_by(col(ScholarAuthorship.position))
            ).scalars()
            n_refs = s.execute(select(func.count()).where(ScholarCitation.citing_id == p.id)).scalar_one()
            return as_json({
                **fields(p), "references": n_refs,
                "authors": [{"id": a.id, "name": a.name, "affiliation": a.affiliation} for a in authors],
            })  # fmt: skip

    @reader(app, SEARCH)
    def find_authors(query: str, page: int = 1, page_size: int = 20) -> str:
        """Authors whose name or affiliation contains `query`, by name, one page at a time (`total`
        says how many match): id, name, affiliation, paper count."""
        if not query.strip():
            raise ToolError("give part of a name or an affiliation")
        with session() as s:
            q = like_pattern(query.strip().lower())
            stmt = (
                select(ScholarAuthor, func.count(col(ScholarAuthorship.id)))
                .join(ScholarAuthorship, col(ScholarAuthorship.author_id) == ScholarAuthor.id, isouter=True)
                .where(
                    or_(
                        func.lower(ScholarAuthor.name).like(q, escape=LIKE_ESCAPE),
                        func.lower(ScholarAuthor.affiliation).like(q, escape=LIKE_ESCAPE),
                    )
                )
                .group_by(col(ScholarAuthor.id))
                .order_by(ScholarAuthor.name, col(ScholarAuthor.id))
            )
            return as_json(
                paginate(
                    s,
                    stmt,
                    page,
                    page_size,
                    lambda row: {
                        "id": row[0].id,
                        "name": row[0].name,
                        "affiliation": row[0].affiliation,
                        "papers": row[1],
                    },
                )
            )

    @reader(app, SEARCH)
    def get_author(author: str) -> str:
        """An author by id or name: affiliation, e-mail, total citations, h-index, and their papers (newest first)."""
        with session() as s:
            a = _author(s, author)
            papers = s.execute(
                select(ScholarPaper)
                .join(ScholarAuthorship, col(ScholarAuthorship.paper_id) == ScholarPaper.id)
                .where(ScholarAuthorship.author_id == a.id)
                .order_by(col(ScholarPaper.year).desc(), col(ScholarPaper.id))
            ).scalars().all()  # fmt: skip
            counts = sorted((p.citation_count for p in papers), reverse=True)
            h = sum(1 for i, c in enumerate(counts, start=1) if c >= i)
            return as_json({
                **fields(a), "total_citations": sum(counts), "h_index": h,
                "papers": [{"id": p.id, "title": p.title, "year": p.year, "venue": p.venue, "citations": p.citation_count} for p in papers],
            })  # fmt: skip

    @reader(app, SEARCH)
    def get_citations(paper_id: int, page: int = 1, page_size: int = 20) -> str:
        """Papers in the index that cite `paper_id`, most cited first, one page at a time."""
        with session() as s:
            _paper(s, paper_id)
            stmt = (
                select(ScholarPaper)
                .join(ScholarCitation, col(ScholarCitation.citing_id) == ScholarPaper.id)
                .where(ScholarCitation.cited_id == paper_id)
                .order_by(col(ScholarPaper.citation_count).desc(), col(ScholarPaper.id))
            )
            got = paginate(s, stmt, page, page_size, lambda row: row[0])
            names = _authors_of(s, [p.id or 0 for p in got["items"]])
            got["items"] = [_brief(p, names[p.id or 0]) for p in got["items"]]
            return as_json({"paper_id": paper_id, **got})

    @reader(app, SEARCH)
    def get_references(paper_id: int) -> str:
        """Papers in the index that `paper_id` cites (its reference list), oldest first."""
        with session() as s:
            _paper(s, paper_id)
            refs = s.execute(
                select(ScholarPaper)
                .join(ScholarCitation, col(ScholarCitation.cited_id) == ScholarPaper.id)
                .where(ScholarCitation.citing_id == paper_id)
                .order_by(col(ScholarPaper.year), col(ScholarPaper.id))
            ).scalars().all()  # fmt: skip
            names = _authors_of(s, [p.id or 0 for p in refs])
            return as_json({"paper_id": paper_id, "references": [_brief(p, names[p.id or 0]) for p in refs]})

    @reader(app, READING)
    def read_paper_page(paper_id: int, page: int = 1) -> str:
        """One page of a paper's full text (page 1 is the abstract and introduction); the reply
        says how many pages there are, so read on with page + 1."""
        with session() as s:
            p = _paper(s, paper_id)
            if not 1 <= page <= p.pages:
                raise ToolError(f"paper {paper_id} has pages 1..{p.pages}; asked for {page}")
            row = s.execute(
                select(ScholarPage).where(ScholarPage.paper_id == paper_id, ScholarPage.page == page)
            ).scalar_one()
            return as_json(
                {
                    "paper_id": p.id,
                    "title": p.title,
                    "page": page,
                    "pages": p.pages,
                    "section": row.section,
                    "text": row.text,
                }
            )

    @reader(app, SEARCH)
    def list_reading_lists() -> str:
        """The reading lists in the library with their descriptions and sizes."""
        with session() as s:
            rows = s.execute(
                select(ScholarReadingList, func.count(col(ScholarReadingListItem.id)))
                .join(
                    ScholarReadingListItem,
                    col(ScholarReadingListItem.list_id) == ScholarReadingList.id,
                    isouter=True,
                )
                .group_by(col(ScholarReadingList.id))
                .order_by(ScholarReadingList.name)
            ).all()
            return as_json(
                [
                    {"name": r.name, "description": r.description, "created_on": r.created_on, "papers": n}
                    for r, n in rows
                ]
            )

    @reader(app, SEARCH)
    def get_reading_list(name: str) -> str:
        """The papers of a reading list (by name) with the note kept for each."""
        with session() as s:
            rl = _list(s, name)
            rows = s.execute(
                select(ScholarReadingListItem, ScholarPaper)
                .join(ScholarPaper, col(ScholarPaper.id) == ScholarReadingListItem.paper_id)
                .where(ScholarReadingListItem.list_id == rl.id)
                .order_by(col(ScholarReadingListItem.id))
            ).all()
            items = [
                {"paper_id": p.id, "title": p.title, "year": p.year, "note": i.note, "added_on": i.added_on}
                for i, p in rows
            ]
            return as_json({"name": rl.name, "description": rl.description, "papers": items})

    @writer(app, WRITE)
    def create_reading_list(name: str, description: str = "") -> str:
        """Create an empty reading list with a unique name."""
        if not name.strip():
            raise ToolError("a reading list needs a name")
        with session() as s:
            if s.execute(
                select(ScholarReadingList).where(func.lower(ScholarReadingList.name) == name.strip().lower())
            ).first():
                raise ToolError(f"a reading list named {name!r} exists already")
            s.add(ScholarReadingList(name=name.strip(), description=description, created_on=TODAY))
            s.commit()
            return f"Reading list {name.strip()!r} created."

    @writer(app, WRITE)
    def add_to_reading_list(name: str, paper_id: int, note: str = "") -> str:
        """Add a paper to a reading list (by list name), with an optional note; a paper is listed once."""
        with session() as s:
            rl, p = _list(s, name), _paper(s, paper_id)
            if s.execute(
                select(ScholarReadingListItem).where(
                    ScholarReadingListItem.list_id == rl.id, ScholarReadingListItem.paper_id == p.id
                )
            ).first():
                raise ToolError(f"paper {paper_id} is already on {rl.name!r}")
            s.add(ScholarReadingListItem(list_id=rl.id or 0, paper_id=p.id or 0, note=note, added_on=TODAY))
            s.commit()
            return f"Added paper {p.id} ({p.title}) to {rl.name!r}."

    @writer(app, WRITE, destructive=True)
    def remove_from_reading_list(name: str, paper_id: int) -> str:
        """Remove a paper from a reading list."""
        with session() as s:
            rl = _list(s, name)
            item = s.execute(
                select(ScholarReadingListItem).where(ScholarReadingListItem.list_id == rl.id, ScholarReadingListItem.paper_id == paper_id)
            ).scalar_one_or_none()  # fmt: skip
            if item is None:
                raise ToolError(f"paper {paper_id} is not on {rl.name!r}")
            s.delete(item)
            s.commit()
            return f"Removed paper {paper_id} from {rl.name!r}."

    return app


SPEC = ServerSpec(
    name="scholar",
    description="Academic research: papers, authors, citations, full text in pages, reading lists",
    build=build,
    tables=TABLES,
    seed=seed,
    scenario="AR",
)
