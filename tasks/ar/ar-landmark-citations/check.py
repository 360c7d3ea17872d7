"""Landmark_Citations.xlsx lists every citing paper of each landmark and a correct Summary; the
workbook was mailed to Emeka."""

from harness.checks import Criterion, World
from mcp_servers.mail.schema import sent_mail

LANDMARKS = ["Cite-then-Generate", "PageRAG", "ChartSight", "QuantLens"]
HEADER = ["paper id", "title", "year", "venue", "citations"]
SUMMARY = ["landmark", "year", "citing papers", "citing papers 2026", "most cited citer"]
WORKBOOK = "Landmark_Citations.xlsx"


def ident(cell: object) -> int | None:
    try:
        return int(float(str(cell)))
    except ValueError:
        return None


def landmark(world: World, name: str) -> dict:
    paper = world.query("SELECT id, year FROM scholar_paper WHERE title LIKE :t", t=f"{name}:%")[0]
    citers = world.query(
        """SELECT p.id, p.title, p.year, p.citation_count FROM scholar_citation c
           JOIN scholar_paper p ON p.id = c.citing_id WHERE c.cited_id = :id""",
        id=paper["id"],
    )
    top = max(c["citation_count"] for c in citers)
    return {
        "year": paper["year"],
        "ids": {c["id"] for c in citers},
        "in_2026": sum(c["year"] == 2026 for c in citers),
        "top_titles": {c["title"].lower() for c in citers if c["citation_count"] == top},
    }


def sheet_rows(wb: object, name: str) -> list[list[object]]:
    return [list(r) for r in wb[name].iter_rows(values_only=True) if any(v is not None for v in r)]


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
        ids = [ident(r[0]) for r in rows[1:]]
        counts = [r[4] if len(r) > 4 else None for r in rows[1:]]
        ordered = all(isinstance(c, (int, float)) for c in counts) and counts == sorted(counts, reverse=True)
        out += [
            Criterion.of(f"{name} header", header == HEADER, f"header is {rows[:1]}"),
            Criterion.of(
                f"{name} citing papers",
                set(ids) == expected[name]["ids"] and len(ids) == len(expected[name]["ids"]),
                f"{len(ids)} rows; expected the {len(expected[name]['ids'])} citing papers, each once",
            ),
            Criterion.of(
                f"{name} most cited first", ordered, "rows are not sorted by citations, highest first"
            ),
        ]
    if "Summary" in wb.sheetnames:
        rows = sheet_rows(wb, "Summary")
        header = [str(h or "").strip().lower() for h in (rows[0][:5] if rows else [])]
        by_name = {str(r[0]).strip().lower(): r for r in rows[1:] if r and r[0]}
        out.append(Criterion.of("Summary header", header == SUMMARY, f"header is {rows[:1]}"))
        for name, e in expected.items():
            r = by_name.get(name.lower(), [None] * 5) + [None] * 5
            ok = (
                ident(r[1]) == e["year"]
                and ident(r[2]) == len(e["ids"])
                and ident(r[3]) == e["in_2026"]
                and str(r[4] or "").strip().lower() in e["top_titles"]
            )
            out.append(
                Criterion.of(
                    f"Summary of {name}",
                    ok,
                    f"row is {r[:5]}; expected year {e['year']}, {len(e['ids'])} citing, {e['in_2026']} in 2026",
                )
            )
    else:
        out.append(Criterion("Summary", False, "no Summary sheet"))
    mails = [
        m
        for m in sent_mail(
            world.engine, to="emeka.kaur@company.example", subject_contains="landmark citation profile"
        )
        if WORKBOOK in m.attachment_list()
    ]
    out.append(Criterion.of("mailed", bool(mails), f"no mail to Emeka with {WORKBOOK} attached"))
    return out
