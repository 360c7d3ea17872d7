"""Landmark_Citations.xlsx lists every citing paper of each landmark with its title, year, venue and
citation count, most cited first and ties by id, and a correct Summary; the workbook was mailed to
Emeka with each landmark's number of citing papers and of citing papers from 2026."""

import re

from harness.checks import SENDING_MAIL, Criterion, World, no_one_else_mailed, nothing_else_changed
from mcp_servers.mail.schema import sent_mail

LANDMARKS = ["Cite-then-Generate", "PageRAG", "ChartSight", "QuantLens"]
HEADER = ["paper id", "title", "year", "venue", "citations"]
SUMMARY = ["landmark", "year", "citing papers", "citing papers 2026", "most cited citer"]
WORKBOOK = "Landmark_Citations.xlsx"

TOTAL = ("total", "totals", "all", "all landmarks")

MAILED = {"emeka.kaur@company.example"}  # the only recipients the task has


def ident(cell: object) -> int | None:
    """A whole number as written in a cell (287, 287.0 or '287'); None otherwise."""
    try:
        x = float(str(cell).strip())
    except ValueError:
        return None
    return int(x) if x == int(x) else None


def landmark(world: World, name: str) -> dict:
    paper = world.query("SELECT id, year FROM scholar_paper WHERE title LIKE :t", t=f"{name}:%")[0]
    citers = world.query(
        """SELECT p.id, p.title, p.year, p.venue, p.citation_count FROM scholar_citation c
           JOIN scholar_paper p ON p.id = c.citing_id WHERE c.cited_id = :id
           ORDER BY p.citation_count DESC, p.id""",
        id=paper["id"],
    )
    top = max(c["citation_count"] for c in citers)
    return {
        "year": paper["year"],
        "rows": [
            (c["id"], c["title"].lower(), c["year"], c["venue"].lower(), c["citation_count"]) for c in citers
        ],
        "in_2026": sum(c["year"] == 2026 for c in citers),
        "top_titles": {c["title"].lower() for c in citers if c["citation_count"] == top},
    }


def sheet_rows(wb: object, name: str) -> list[list[object]]:
    return [
        list(r) + [None] * 5 for r in wb[name].iter_rows(values_only=True) if any(v is not None for v in r)
    ]


def as_row(r: list[object]) -> tuple:
    return (
        ident(r[0]),
        str(r[1] or "").strip().lower(),
        ident(r[2]),
        str(r[3] or "").strip().lower(),
        ident(r[4]),
    )


def mentions(body: str, name: str, numbers: tuple[int, ...]) -> bool:
    """Some mention of `name` has each of `numbers`, as a whole number, close by in its paragraph or
    list item (within 250 characters before or after it: '50 papers cite Cite-then-Generate, 11 of
    them from 2026'); a line break inside a paragraph is a wrap, not a new line."""
    for line in re.split(r"\n(?=[^\S\n]*(?:\n|$|[-*•]\s|\d+[.)]\s))", body):
        line = line.replace("\n", " ")
        for m in re.finditer(re.escape(name.lower()), line):
            window = line[max(0, m.start() - 250) : m.start()] + " " + line[m.end() : m.end() + 250]
            found = {int(n) for n in re.findall(r"(?<![\d.])\d+(?![\d]|\.\d)", window)}
            if set(numbers) <= found:
                return True
    return False


def others_changed(world: World) -> list[str]:
    """Changes to the world's records: the task only reads them (and sends mail)."""
    return world.changes(
        "scholar",
        "mail",
        allow=SENDING_MAIL,
    )


def check(world: World) -> list[Criterion]:
    wb = world.xlsx(WORKBOOK)
    if wb is None:
        return [Criterion("workbook", False, f"{WORKBOOK} is missing or unreadable")]
    out = [
        Criterion.of(
            "sheets", set(LANDMARKS + ["Summary"]) <= set(wb.sheetnames), f"sheets are {wb.sheetnames}"
        )
    ]
    expected = {name: landmark(world, name) for name in LANDMARKS}
    for name in LANDMARKS:
        if name not in wb.sheetnames:
            continue
        rows = sheet_rows(wb, name)
        header = [str(h or "").strip().lower() for h in (rows[0][:5] if rows else [])]
        got = [as_row(r) for r in rows[1:]]
        want = expected[name]["rows"]
        by_id = {w[0]: w for w in want}
        wrong = [g[0] for g in got if g[0] in by_id and g != by_id[g[0]]]
        out += [
            Criterion.of(f"{name} header", header == HEADER, f"header is {rows[:1]}"),
            Criterion.of(
                f"{name} citing papers",
                sorted(g[0] or 0 for g in got) == sorted(by_id),
                f"{len(got)} rows; expected the {len(want)} citing papers, each once",
            ),
            Criterion.of(
                f"{name} title, year, venue, citations",
                not wrong,
                f"rows of papers {wrong} differ from the index",
            ),
            Criterion.of(
                f"{name} most cited first, ties by id",
                [g[0] for g in got] == [w[0] for w in want],
                f"rows are {[g[0] for g in got]}, expected {[w[0] for w in want]}",
            ),
        ]
    if "Summary" in wb.sheetnames:
        rows = sheet_rows(wb, "Summary")
        header = [str(h or "").strip().lower() for h in (rows[0][:5] if rows else [])]
        by_name = {str(r[0]).strip().lower(): r for r in rows[1:] if r and r[0]}
        # a total row is not asked for, but harmless when its sums are right
        sums = (sum(len(e["rows"]) for e in expected.values()), sum(e["in_2026"] for e in expected.values()))
        totals = [
            r for r in rows[1:]
            if str(r[0] or "").strip().lower() in TOTAL and (ident(r[2]), ident(r[3])) == sums
        ]  # fmt: skip
        out.append(Criterion.of("Summary header", header == SUMMARY, f"header is {rows[:1]}"))
        out.append(
            Criterion.of(
                "Summary rows",
                len(rows) - 1 - len(totals[:1]) == len(LANDMARKS),
                f"{len(rows) - 1} rows below the header; expected one per landmark"
                f" (and at most a Total row of {sums[0]} citing papers, {sums[1]} in 2026)",
            )
        )
        for name, e in expected.items():
            r = by_name.get(name.lower(), [None] * 5) + [None] * 5
            ok = (
                ident(r[1]) == e["year"]
                and ident(r[2]) == len(e["rows"])
                and ident(r[3]) == e["in_2026"]
                and str(r[4] or "").strip().lower() in e["top_titles"]
            )
            out.append(
                Criterion.of(
                    f"Summary of {name}",
                    ok,
                    f"row is {r[:5]}; expected year {e['year']}, {len(e['rows'])} citing, {e['in_2026']} in 2026",
                )
            )
    else:
        out.append(Criterion("Summary", False, "no Summary sheet"))
    mails = [
        m
        for m in sent_mail(
            world.engine, to="emeka.kaur@company.example", subject_contains="landmark citation profile"
        )
        if world.sent_as_final(m.id, WORKBOOK)
    ]
    out.append(
        Criterion.of("mailed", bool(mails), f"no mail to Emeka with {WORKBOOK} attached (as it is now)")
    )
    body = " ".join(m.body for m in mails).lower()
    unstated = [
        name for name, e in expected.items() if not mentions(body, name, (len(e["rows"]), e["in_2026"]))
    ]
    out.append(
        Criterion.of(
            "headline numbers in the mail",
            bool(mails) and not unstated,
            f"the mail does not give, in a paragraph or list item naming it, the number of citing papers and of 2026 citing"
            f" papers of {unstated}",
        )
    )
    out.append(nothing_else_changed(others_changed(world)))
    out.append(no_one_else_mailed(world, MAILED))
    return out
