"""The `web` server: search a local corpus of web pages, read a page in fixed-size chunks like
a text browser, find text in a page, and list its links (SPEC §5; label web-research).

There is no network access of any kind: URLs are names of pages in the `web_page` table, seeded
from the package (`seed.py`). Every tool is read-only.
"""

from __future__ import annotations

import bisect
import itertools
import re
from typing import Any

from mcp.server.mcpserver import MCPServer
from sqlalchemy import func
from sqlmodel import Session, col, select

from mcp_servers.common.spec import ServerContext, ServerSpec
from mcp_servers.common.tooling import ToolError, as_json, reader
from mcp_servers.common.values import one_of_any_case
from mcp_servers.web.ranking import bm25, snippet
from mcp_servers.web.schema import TABLES, WebLink, WebPage
from mcp_servers.web.seed import seed

LABEL = "web-research"
CHUNK_CHARS = 1200  # about a screenful; a chunk ends at the last line break or space before this
MAX_RESULTS = 25


def chunks(text: str, size: int = CHUNK_CHARS) -> list[str]:
    """`text` cut into pieces of at most `size` characters, at a line break or space when one
    falls in the last fifth of the piece."""
    out, start = [], 0
    while start < len(text):
        end = min(len(text), start + size)
        if end < len(text):
            cut = max(text.rfind("\n", start, end), text.rfind(" ", start, end))
            if cut > start + size * 4 // 5:
                end = cut + 1
        out.append(text[start:end])
        start = end
    return out or [""]


def normalize(url: str) -> str:
    u = url.strip()
    if "://" not in u:
        u = "https://" + u
    scheme, rest = u.split("://", 1)
    host, _, path = rest.partition("/")
    return f"{scheme.lower()}://{host.lower()}/{path}".rstrip("/")


def _page(s: Session, url: str) -> WebPage:
    want = normalize(url)
    for page_id, page_url in s.execute(select(WebPage.id, WebPage.url)).all():
        if normalize(page_url) == want:
            found = s.get(WebPage, page_id)
            assert found is not None
            return found
    raise ToolError(
        f"{url!r} is not in the local web corpus (there is no network access); use search to find pages"
    )


def build(ctx: ServerContext) -> MCPServer:
    app = MCPServer(
        "web", instructions="A local web corpus: search, then read pages chunk by chunk. No live internet."
    )

    def session() -> Session:
        return Session(ctx.engine)

    @reader(app, LABEL)
    def search(query: str, site: str | None = None, kind: str | None = None, limit: int = 10) -> str:
        """Search the web corpus; results ranked by BM25 relevance with url, title, site, kind,
        published date and a snippet. Optional filters: site (e.g. meridianrail.example) and kind
        (company, news, docs, methodology, blog, guide, paper-summary). limit: 1..25."""
        if not query.strip():
            raise ToolError("give a search query")
        if not 1 <= limit <= MAX_RESULTS:
            raise ToolError(f"limit must be between 1 and {MAX_RESULTS}")
        with session() as s:
            stmt = select(WebPage)
            # A site or kind the corpus lacks is a mistake, not a search that found nothing.
            if site:
                sites = s.execute(select(WebPage.site).distinct()).scalars()
                stmt = stmt.where(WebPage.site == one_of_any_case(site, sites, "site"))
            if kind:
                kinds = s.execute(select(WebPage.kind).distinct()).scalars()
                stmt = stmt.where(WebPage.kind == one_of_any_case(kind, kinds, "kind"))
            ranked = bm25(list(s.execute(stmt).scalars()), query)
            results = [
                {"rank": i, "url": p.url, "title": p.title, "site": p.site, "kind": p.kind, "published": p.published,
                 "score": score, "snippet": snippet(p.text, query)}
                for i, (score, p) in enumerate(ranked[:limit], start=1)
            ]  # fmt: skip
            return as_json({"query": query, "total": len(ranked), "results": results})

    @reader(app, LABEL)
    def read_page(url: str, chunk: int = 1) -> str:
        """Read a page of the corpus one chunk (about 1,200 characters) at a time: the reply gives
        the chunk count, so go on with chunk + 1. Links show as "anchor [n]"; list_links resolves n."""
        with session() as s:
            p = _page(s, url)
            parts = chunks(p.text)
            if not 1 <= chunk <= len(parts):
                raise ToolError(f"{p.url} has chunks 1..{len(parts)}; asked for {chunk}")
            return as_json({"url": p.url, "title": p.title, "site": p.site, "published": p.published,
                            "chunk": chunk, "chunks": len(parts), "text": parts[chunk - 1]})  # fmt: skip

    @reader(app, LABEL)
    def find_in_page(url: str, text: str) -> str:
        """Find `text` (case-insensitive) in a page, like a browser's find: the chunks it occurs
        in, each with a short context, so read_page can jump there (a match that runs across the
        end of a chunk is found, under the chunk where it starts). At most 20 hits are listed;
        `matches` counts them all."""
        if not text.strip():
            raise ToolError("give the text to find")
        with session() as s:
            p = _page(s, url)
            starts = list(itertools.accumulate(len(part) for part in chunks(p.text)))
            hits: list[dict[str, Any]] = []
            # The whole text, not chunk by chunk: a match may straddle a chunk boundary.
            for m in re.finditer(re.escape(text), p.text, re.IGNORECASE):
                at = m.start()
                n = bisect.bisect_right(starts, at) + 1
                hits.append({"chunk": n, "context": " ".join(p.text[max(0, at - 60) : m.end() + 60].split())})
            return as_json({"url": p.url, "matches": len(hits), "hits": hits[:20]})

    @reader(app, LABEL)
    def list_links(url: str) -> str:
        """The numbered links of a page (number, anchor text, target URL) and whether each target
        is a page of the corpus that read_page can open."""
        with session() as s:
            p = _page(s, url)
            known = {normalize(u) for u in s.execute(select(WebPage.url)).scalars()}
            links = s.execute(
                select(WebLink).where(WebLink.page_id == p.id).order_by(col(WebLink.number))
            ).scalars()
            return as_json({"url": p.url, "links": [
                {"n": link.number, "anchor": link.anchor, "url": link.target, "in_corpus": normalize(link.target) in known}
                for link in links
            ]})  # fmt: skip

    @reader(app, LABEL)
    def list_sites() -> str:
        """The sites in the corpus with their number of pages and the kinds of page they hold."""
        with session() as s:
            rows = s.execute(
                select(WebPage.site, WebPage.kind, func.count()).group_by(WebPage.site, WebPage.kind)
            ).all()
            sites: dict[str, dict[str, int]] = {}
            for site, kind, n in rows:
                sites.setdefault(site, {})[kind] = n
            return as_json(
                [{"site": k, "pages": sum(v.values()), "kinds": v} for k, v in sorted(sites.items())]
            )

    return app


SPEC = ServerSpec(
    name="web",
    description="A local corpus of web pages (company, news, docs, methodology, blog, guides): search, read in chunks, links",
    build=build,
    tables=TABLES,
    seed=seed,
    scenario=None,
)
