"""The web corpus: hand-written pages shipped in `pages/*.md` (a header of `key: value` lines,
a blank line, then Markdown) plus the pages of `generated.py`, seeded into `web_*` tables.
Markdown links `[anchor](url)` become "anchor [n]" in the text and row n of `web_link`."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from typing import Any

from sqlalchemy import insert
from sqlmodel import Session

from mcp_servers.web.generated import Page, generated_pages
from mcp_servers.web.schema import WebLink, WebPage

PAGES_DIR = Path(__file__).resolve().parent / "pages"
LINK = re.compile(r"\[([^\]]+)\]\(([^)\s]+)\)")


def parse_page(source: str) -> Page:
    """A hand-written page: header lines `url`, `title`, `kind`, `published`; then the body."""
    head, _, body = source.partition("\n\n")
    meta = dict(line.split(": ", 1) for line in head.strip().splitlines())
    url = meta["url"]
    site = url.split("//", 1)[-1].split("/", 1)[0]
    return Page(url, meta["title"], site, meta["kind"], meta["published"], body.strip())


def render_links(body: str) -> tuple[str, list[tuple[str, str]]]:
    """The body with each link replaced by "anchor [n]", and the (anchor, url) list."""
    links: list[tuple[str, str]] = []

    def number(m: re.Match[str]) -> str:
        links.append((m.group(1), m.group(2)))
        return f"{m.group(1)} [{len(links)}]"

    return LINK.sub(number, body), links


@cache
def corpus() -> tuple[Page, ...]:
    """Every page, hand-written first (sorted by file name), then generated."""
    written = [parse_page(p.read_text(encoding="utf-8")) for p in sorted(PAGES_DIR.glob("*.md"))]
    return tuple(written + generated_pages())


def seed(session: Session) -> None:
    """Fill the web tables (deterministic)."""
    pages = corpus()
    rendered = [render_links(p.body) for p in pages]
    rows = [WebPage(url=p.url, title=p.title, site=p.site, kind=p.kind, published=p.published, text=text)
            for p, (text, _links) in zip(pages, rendered, strict=True)]  # fmt: skip
    session.add_all(rows)
    session.flush()
    links: list[dict[str, Any]] = [
        {"page_id": row.id, "number": n, "anchor": anchor, "target": target}
        for row, (_text, found) in zip(rows, rendered, strict=True)
        for n, (anchor, target) in enumerate(found, start=1)
    ]
    session.execute(insert(WebLink), links)
