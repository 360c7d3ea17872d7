"""A wiki page 'RAG papers of 2026' under the Engineering Handbook has one bullet per 2026 RAG paper,
with venue and citations, most cited first."""

import re

from harness.checks import Criterion, World, new_rows, nothing_else_changed


def others_changed(world: World) -> list[str]:
    """Changes other than the new page and its blocks."""
    new = world.ids_named("wiki_page", "rag papers of 2026")
    return world.changes(
        "scholar",
        "wiki",
        allow={
            "wiki_page": new_rows("id", new),
            "wiki_block": new_rows("page_id", new),
        },
    )


def check(world: World) -> list[Criterion]:
    pages = world.query(
        "SELECT id, parent_id FROM wiki_page WHERE lower(trim(title)) = 'rag papers of 2026' AND NOT archived"
    )
    if not pages:
        return [Criterion("wiki page", False, "no page titled 'RAG papers of 2026'")]
    page = pages[-1]
    handbook = world.rows("wiki_page", title="Engineering Handbook")[0]["id"]
    papers = world.query(
        """SELECT title, venue, citation_count FROM scholar_paper
           WHERE topic = 'retrieval-augmented generation' AND year = 2026"""
    )
    by_title = {p["title"].lower(): p for p in papers}
    bullets = [
        b["text"]
        for b in world.query(
            "SELECT text, type FROM wiki_block WHERE page_id = :p ORDER BY position", p=page["id"]
        )
        if b["type"] in ("bulleted_list_item", "numbered_list_item")
    ]
    listed = []
    for text in bullets:
        text = re.sub(r"\*\*|__|(?<!\w)[*_]|[*_](?!\w)", "", text)  # markdown emphasis around a title
        m = re.match(r"\s*(.+?)\s*\(([^,()]+),\s*(\d+) citations?\)\s*$", text)
        p = by_title.get(m.group(1).lower()) if m else None
        if p and m.group(2).strip().lower() == p["venue"].lower() and int(m.group(3)) == p["citation_count"]:
            listed.append(p)
    counts = [p["citation_count"] for p in listed]
    return [
        # one page: a second copy of it is clutter on the wiki
        Criterion.of("one page", len(pages) == 1, f"{len(pages)} pages titled 'RAG papers of 2026'"),
        Criterion.of(
            "under the Engineering Handbook", page["parent_id"] == handbook, "the page has another parent"
        ),
        Criterion.of(
            "every paper once, with venue and citations",
            len(bullets) == len(papers) and len({p["title"] for p in listed}) == len(papers),
            f"{len(bullets)} bullets, {len(listed)} well formed; expected {len(papers)} papers",
        ),
        Criterion.of(
            "most cited first", counts == sorted(counts, reverse=True), "bullets are not by citations"
        ),
        nothing_else_changed(others_changed(world)),
    ]
