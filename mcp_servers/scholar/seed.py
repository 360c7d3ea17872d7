"""Deterministic scholar data: 300 papers (2019-2026) on six topics, 240 authors, a citation
graph with preferential attachment (a few papers collect many citations), full text in 5-7
pages per paper, and one reading list. The ten `ANCHORS` have fixed titles that web pages cite."""

from __future__ import annotations

import random
from typing import Any

from sqlalchemy import insert
from sqlmodel import Session

from mcp_servers.common.names import people
from mcp_servers.scholar.fulltext import Facts, Reference, abstract, draw_facts, pages
from mcp_servers.scholar.schema import (
    ScholarAuthor,
    ScholarAuthorship,
    ScholarCitation,
    ScholarPage,
    ScholarPaper,
    ScholarReadingList,
    ScholarReadingListItem,
)
from mcp_servers.scholar.vocab import ADJECTIVES, AFFILIATIONS, NAME_HEADS, NAME_TAILS, TITLE_FORMS, TOPICS

N_PAPERS = 300
N_AUTHORS = 240
YEARS = {2019: 3, 2020: 4, 2021: 6, 2022: 9, 2023: 14, 2024: 20, 2025: 25, 2026: 19}
# (method name, title, year, venue, topic); ANCHOR_FACTS pins (object, mechanism) indexes in vocab.
ANCHORS = [
    ("DelegateBench", "DelegateBench: Measuring When Language Agents Should Hand Off Work", 2025, "NeurIPS", "multi-agent evaluation"),
    ("SwarmScore", "SwarmScore: Process Metrics for Concurrent Sub-Agent Systems", 2026, "ICLR", "multi-agent evaluation"),
    ("PageRAG", "PageRAG: Retrieval over Paged Documents for Long-Context Question Answering", 2024, "ACL", "retrieval-augmented generation"),
    ("CiteGen", "Cite-then-Generate: Grounded Answers with Verifiable Citations", 2023, "EMNLP", "retrieval-augmented generation"),
    ("ToolWeaver", "ToolWeaver: Planning Tool Calls with Learned Dependency Graphs", 2025, "ICML", "llm agents"),
    ("SpecStream", "SpecStream: Speculative Decoding with Streaming Draft Trees", 2024, "MLSys", "efficient inference"),
    ("QuantLens", "QuantLens: 3-bit Weight Quantization Without Calibration Data", 2025, "ICLR", "efficient inference"),
    ("ChartSight", "ChartSight: Reading Charts and Tables with Vision-Language Models", 2024, "CVPR", "vision-language models"),
    ("Patchwise", "Patchwise: Token-Efficient Image Encoding for Multimodal Assistants", 2026, "CVPR", "vision-language models"),
    ("RepoWeave", "RepoWeave: Repository-Level Code Completion with Cross-File Retrieval", 2025, "ICSE", "code generation"),
]  # fmt: skip
ANCHOR_FACTS = {
    "DelegateBench": (1, 1), "SwarmScore": (3, 0), "PageRAG": (7, 2), "CiteGen": (6, 0), "ToolWeaver": (3, 0),
    "SpecStream": (0, 0), "QuantLens": (1, 2), "ChartSight": (3, 1), "Patchwise": (2, 0), "RepoWeave": (1, 0),
}  # fmt: skip


# Citations given after the draw by later 2026 papers (cited title: citing titles), so that the most
# cited 2026 papers include one already on the 'Delegation survey' reading list (SwarmScore) and one
# outside multi-agent evaluation: 'most cited of 2026 on a topic, not on the list yet' leaves rows out.
LATE_CITATIONS = {
    "SwarmScore: Process Metrics for Concurrent Sub-Agent Systems": (
        "Towards Adaptive Multi-Agent Debate with Collaboration Benchmarks",
        "What Makes Self-Correcting Agents Work? A Study on Multi-Step Tool Use",
        "What Makes Sub-Agent Delegation Work? A Study on Delegated Office Work",
    ),
    "PivotMem-Lite: Agent Planning at Scale": (
        "Revisiting Self-Correcting Agents: Lessons from Spreadsheet Automation",
        "TandemRoute: Agent Planning at Scale",
        "What Makes Self-Correcting Agents Work? A Study on Multi-Step Tool Use",
    ),
}


def anchor_facts(name: str) -> Facts:
    """The facts of an anchor paper, from a generator of its own so that other servers' pages
    (the web corpus) can quote them without seeding the whole index."""
    topic = next(a[4] for a in ANCHORS if a[0] == name)
    return draw_facts(random.Random(f"anchor:{name}"), name, topic, *ANCHOR_FACTS[name])


def _title(phrase: str) -> str:
    """Title case that keeps acronyms ("KV-cache" -> "KV-Cache") and small words lower."""
    small = {"a", "an", "and", "for", "in", "of", "on", "or", "the", "to", "with", "without"}
    words = phrase.split()
    return " ".join(
        w if i and w in small else "-".join(part[:1].upper() + part[1:] for part in w.split("-"))
        for i, w in enumerate(words)
    )


def _generated(rng: random.Random) -> list[tuple[str, str, int, str, str]]:
    """(name, title, year, venue, topic) for the papers that are not anchors."""
    out: list[tuple[str, str, int, str, str]] = []
    titles = {a[1] for a in ANCHORS}
    names = {a[0] for a in ANCHORS}
    topics = list(TOPICS)
    years, weights = list(YEARS), list(YEARS.values())
    while len(out) < N_PAPERS - len(ANCHORS):
        topic = topics[len(out) % len(topics)]
        v = TOPICS[topic]
        name = rng.choice(NAME_HEADS) + rng.choice(NAME_TAILS)
        if name in names:
            name += "-" + rng.choice(("X", "2", "Pro", "Lite", "++"))
        title = rng.choice(TITLE_FORMS).format(
            name=name,
            adj=rng.choice(ADJECTIVES),
            obj=_title(rng.choice(v["objects"])),
            task=_title(rng.choice(v["tasks"])),
        )
        if title in titles or name in names:
            continue
        titles.add(title)
        names.add(name)
        out.append((name, title, rng.choices(years, weights)[0], rng.choice(v["venues"]), topic))
    return out


def seed(session: Session) -> None:
    """Fill the scholar tables (deterministic)."""
    rng = random.Random(1905)
    specs = sorted(ANCHORS + _generated(rng), key=lambda p: (p[2], p[1]))
    facts: list[Facts] = [
        anchor_facts(name) if name in ANCHOR_FACTS else draw_facts(rng, name, topic)
        for name, _t, _y, _v, topic in specs
    ]

    authors = [
        ScholarAuthor(name=name, affiliation=rng.choice(AFFILIATIONS), email=email)
        for name, email in people(N_AUTHORS, seed=33, domain="research.example")
    ]
    session.add_all(authors)
    papers = [
        ScholarPaper(title=title, year=year, venue=venue, topic=topic, abstract=abstract(f), doi=f"10.5555/mseval.{i:04d}")
        for i, ((_n, title, year, venue, topic), f) in enumerate(zip(specs, facts, strict=True), start=1)
    ]  # fmt: skip
    session.add_all(papers)
    session.flush()

    # Each topic has its own community of authors (overlapping at the edges).
    topics = list(TOPICS)
    pool = {t: authors[i * 36 : i * 36 + 60] for i, t in enumerate(topics)}
    lead: dict[int, str] = {}
    authorship: list[dict[str, Any]] = []
    for p in papers:
        team = rng.sample(pool[p.topic], rng.randint(2, 6))
        lead[p.id or 0] = team[0].name.split()[-1]
        authorship += [
            {"paper_id": p.id, "author_id": a.id, "position": k} for k, a in enumerate(team, start=1)
        ]
    session.execute(insert(ScholarAuthorship), authorship)

    # Citations: earlier papers only; same topic three times in four; an urn makes well-cited
    # papers likelier to be cited again.
    urn: dict[str, list[ScholarPaper]] = {t: [] for t in topics}
    urn_all: list[ScholarPaper] = []
    refs: dict[int, list[ScholarPaper]] = {}
    citations: list[dict[str, Any]] = []
    cited_by: dict[int, int] = {}
    anchor_titles = {a[1] for a in ANCHORS}
    for p in papers:
        chosen: list[ScholarPaper] = []
        want = min(len(urn_all), rng.randint(4, 14))
        for _ in range(want * 3):
            if len(chosen) >= want:
                break
            box = urn[p.topic] if urn[p.topic] and rng.random() < 0.75 else urn_all
            c = rng.choice(box)
            if c not in chosen and c.year <= p.year:
                chosen.append(c)
        refs[p.id or 0] = chosen
        for c in chosen:
            citations.append({"citing_id": p.id, "cited_id": c.id})
            cited_by[c.id or 0] = cited_by.get(c.id or 0, 0) + 1
            if rng.random() < 0.5:
                urn[c.topic].append(c)
                urn_all.append(c)
        # Anchors are landmark papers: they enter the urn with extra weight.
        weight = 8 if p.title in anchor_titles else 1
        urn[p.topic] += [p] * weight
        urn_all += [p] * weight
    late = _late_citations(papers, refs)
    for row in late:
        cited_by[row["cited_id"]] = cited_by.get(row["cited_id"], 0) + 1
    session.execute(insert(ScholarCitation), citations + late)

    page_rows: list[dict[str, Any]] = []
    for p, f in zip(papers, facts, strict=True):
        rs = [Reference(r.id or 0, r.title, lead[r.id or 0], r.year) for r in refs[p.id or 0]]
        body = pages(f, rs, rng)
        page_rows += [
            {"paper_id": p.id, "page": n, "section": sec, "text": txt}
            for n, (sec, txt) in enumerate(body, start=1)
        ]
        p.pages, p.citation_count = len(body), cited_by.get(p.id or 0, 0)
    session.execute(insert(ScholarPage), page_rows)

    reading = ScholarReadingList(name="Delegation survey", description="Background for the sub-agent delegation survey", created_on="2026-11-02")  # fmt: skip
    session.add(reading)
    session.flush()
    for p in [p for p in papers if p.topic == "multi-agent evaluation"][-4:]:
        session.add(
            ScholarReadingListItem(
                list_id=reading.id or 0, paper_id=p.id or 0, note="", added_on="2026-11-02"
            )
        )


def _late_citations(papers: list[ScholarPaper], refs: dict[int, list[ScholarPaper]]) -> list[dict[str, Any]]:
    """The `LATE_CITATIONS` rows, each also added to the citing paper's references (its full text)."""
    by_title = {p.title: p for p in papers}
    rows = []
    for cited_title, citing_titles in LATE_CITATIONS.items():
        cited = by_title[cited_title]
        for title in citing_titles:
            citing = by_title[title]
            assert citing.year >= cited.year and cited not in refs[citing.id or 0], (title, cited_title)
            refs[citing.id or 0].append(cited)
            rows.append({"citing_id": citing.id, "cited_id": cited.id})
    return rows
