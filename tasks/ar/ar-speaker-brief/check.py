"""Speaker_Brief.docx states Ada Bauer's affiliation, paper count, citations and h-index and
tables her five most cited papers; Bea got it by mail."""

import re

from harness.checks import SENDING_MAIL, Criterion, World, no_one_else_mailed, nothing_else_changed
from mcp_servers.mail.schema import sent_mail

AUTHOR = "Ada Bauer"
DOC = "Speaker_Brief.docx"

MAILED = {"bea.costa@company.example"}  # the only recipients the task has


def profile(world: World) -> dict:
    author = world.rows("scholar_author", name=AUTHOR)[0]
    papers = world.query(
        """SELECT p.title, p.year, p.venue, p.citation_count FROM scholar_paper p
           JOIN scholar_authorship s ON s.paper_id = p.id WHERE s.author_id = :a
           ORDER BY p.citation_count DESC, p.id""",
        a=author["id"],
    )
    counts = [p["citation_count"] for p in papers]
    return {
        "affiliation": author["affiliation"],
        "numbers": {
            "papers": len(papers),
            "citations": sum(counts),
            "h-index": sum(1 for i, c in enumerate(counts, start=1) if c >= i),
        },
        "top": [(p["title"].lower(), p["year"], p["venue"].lower(), p["citation_count"]) for p in papers[:5]],
    }


# The words that give a number its role; a number is stated for a role when a word of the role
# and the number stand together with at most a few words, and no other number, between them.
ROLES = {
    "papers": r"papers?|publications?|articles?",
    "citations": r"citations?|cited|citing",
    "h-index": r"h-?\s?index",
}


def stated(prose: str, role: str, value: int) -> bool:
    key, gap = ROLES[role], r"(?:[^\W\d]+\W+){0,4}?"
    n = rf"(?<![\d.,]){value}(?![\d]|[.,]\d)"
    return bool(
        re.search(rf"(?:{key})\W+{gap}{n}", prose, re.IGNORECASE)
        or re.search(rf"{n}\W+{gap}(?:{key})", prose, re.IGNORECASE)
    )


def whole(text: str) -> int | None:
    try:
        x = float(text.replace(",", ""))
    except ValueError:
        return None
    return int(x) if x == int(x) else None


def table_row(cells: list[str]) -> tuple:
    cells = cells + [""] * 4
    return (cells[0].strip().lower(), whole(cells[1]), cells[2].strip().lower(), whole(cells[3]))


def others_changed(world: World) -> list[str]:
    """Changes to the world's records: the task only reads them (and sends mail)."""
    return world.changes(
        "scholar",
        "mail",
        allow=SENDING_MAIL,
    )


def check(world: World) -> list[Criterion]:
    doc = world.docx(DOC)
    if doc is None:
        return [Criterion("document", False, f"{DOC} is missing or unreadable")]
    want = profile(world)
    texts = [p.text for p in doc.paragraphs]
    prose = " ".join(texts)
    table = [[c.text.strip() for c in row.cells] for row in doc.tables[0].rows] if doc.tables else []
    expected = want["top"]
    rows = [table_row(r) for r in table[1:]]
    unstated = [f"{k} {v}" for k, v in want["numbers"].items() if not stated(prose, k, v)]
    titled = (doc.core_properties.title or "").strip().lower() == "speaker brief: ada bauer" or any(
        t.strip().lower() == "speaker brief: ada bauer" for t in texts[:2]
    )
    mails = [
        m
        for m in sent_mail(world.engine, to="bea.costa@company.example", subject_contains="keynote candidate")
        if world.sent_as_final(m.id, DOC)
    ]
    return [
        Criterion.of("title", titled, "the document is not titled 'Speaker brief: Ada Bauer'"),
        Criterion.of(
            "affiliation", want["affiliation"].lower() in prose.lower(), f"{want['affiliation']} is not named"
        ),
        Criterion.of(
            "papers, citations, h-index",
            not unstated,
            f"the text does not state {unstated}",
        ),
        Criterion.of(
            "table header",
            bool(table) and [h.lower() for h in table[0]] == ["title", "year", "venue", "citations"],
            f"first table header is {table[:1]}",
        ),
        Criterion.of("five most cited", rows == expected, f"table rows are {table[1:]}, expected {expected}"),
        Criterion.of("mailed to Bea", bool(mails), f"no mail to Bea with {DOC} attached (as it is now)"),
        nothing_else_changed(others_changed(world)),
        no_one_else_mailed(world, MAILED),
    ]
