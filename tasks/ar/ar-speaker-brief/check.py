"""Speaker_Brief.docx states Ada Bauer's affiliation, paper count, citations and h-index and
tables her five most cited papers; Bea got it by mail."""

import re

from harness.checks import Criterion, World
from mcp_servers.mail.schema import sent_mail

AUTHOR = "Ada Bauer"
DOC = "Speaker_Brief.docx"


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
        "numbers": {len(papers), sum(counts), sum(1 for i, c in enumerate(counts, start=1) if c >= i)},
        "top": [(p["title"], p["year"], p["venue"], p["citation_count"]) for p in papers[:5]],
    }


def check(world: World) -> list[Criterion]:
    doc = world.docx(DOC)
    if doc is None:
        return [Criterion("document", False, f"{DOC} is missing or unreadable")]
    want = profile(world)
    texts = [p.text for p in doc.paragraphs]
    prose = " ".join(texts)
    numbers = {int(n) for n in re.findall(r"\b\d+\b", prose)}
    table = [[c.text.strip() for c in row.cells] for row in doc.tables[0].rows] if doc.tables else []
    expected = [[t, str(y), v, str(c)] for t, y, v, c in want["top"]]
    titled = (doc.core_properties.title or "").strip().lower() == "speaker brief: ada bauer" or any(
        t.strip().lower() == "speaker brief: ada bauer" for t in texts[:2]
    )
    mails = [
        m
        for m in sent_mail(world.engine, to="bea.costa@company.example", subject_contains="keynote candidate")
        if DOC in m.attachment_list()
    ]
    return [
        Criterion.of("title", titled, "the document is not titled 'Speaker brief: Ada Bauer'"),
        Criterion.of(
            "affiliation", want["affiliation"].lower() in prose.lower(), f"{want['affiliation']} is not named"
        ),
        Criterion.of(
            "papers, citations, h-index",
            want["numbers"] <= numbers,
            f"the text should state {sorted(want['numbers'])}",
        ),
        Criterion.of(
            "table header",
            bool(table) and [h.lower() for h in table[0]] == ["title", "year", "venue", "citations"],
            f"first table header is {table[:1]}",
        ),
        Criterion.of(
            "five most cited", table[1:] == expected, f"table rows are {table[1:]}, expected {expected}"
        ),
        Criterion.of("mailed to Bea", bool(mails), f"no mail to Bea with {DOC} attached"),
    ]
