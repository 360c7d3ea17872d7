"""Delegation_Survey.xlsx holds each listed paper's figures as its full text states them; a wiki
page of notes names every paper, method and key component; the reading group is in the calendar."""

import re

from harness.checks import Criterion, World, close_enough, new_rows, nothing_else_changed

LIST = "Delegation survey"
HEADER = ["paper id", "title", "method", "benchmark", "score", "baseline score", "second benchmark",
          "second score", "gpus", "training hours", "ablation drop"]  # fmt: skip
GUESTS = {"rafael.eriksen@company.example", "emeka.kaur@company.example", "carla.dubois@company.example"}


def facts(world: World, paper_id: int) -> dict:
    """What the paper's Method, Experiments and Analysis pages state."""
    pages = {r["section"]: r["text"] for r in world.rows("scholar_page", paper_id=paper_id)}
    gpus, hours = re.search(r"using (\d+) GPUs for (\d+) hours", pages["Method"]).groups()
    table = [
        [c.strip() for c in line.strip().strip("|").split("|")]
        for line in pages["Experiments"].splitlines()
        if line.startswith("|")
    ]
    component, drop = re.search(r"Removing (.+?) lowers .+? by ([\d.]+) points", pages["Analysis"]).groups()
    return {
        "method": table[2][0], "bench1": table[0][1], "bench2": table[0][2], "ours1": float(table[2][1]),
        "base1": float(table[1][1]), "ours2": float(table[2][2]), "gpus": int(gpus), "hours": int(hours),
        "component": re.sub(r"^the ", "", component), "drop": float(drop),
    }  # fmt: skip


def ident(cell: object) -> int | None:
    """A paper id as written in a cell (287, 287.0 or '287')."""
    try:
        return int(float(str(cell)))
    except ValueError:
        return None


def same(cell: object, expected: object) -> bool:
    if isinstance(expected, (int, float)):
        return close_enough(cell, float(expected))
    return str(cell or "").strip().lower() == str(expected).lower()


def workbook_criteria(world: World, papers: list[dict], known: dict[int, dict]) -> list[Criterion]:
    wb = world.xlsx("Delegation_Survey.xlsx")
    if wb is None or "Papers" not in wb.sheetnames:
        return [Criterion("workbook", False, "Delegation_Survey.xlsx with a sheet Papers is missing")]
    rows = [list(r) for r in wb["Papers"].iter_rows(values_only=True) if any(v is not None for v in r)]
    header = [str(h or "").strip().lower() for h in (rows[0][:11] if rows else [])]
    body = rows[1:]
    out = [
        Criterion.of("header", header == HEADER, f"header is {rows[:1]}"),
        Criterion.of(
            "one row per paper, by id",
            [ident(r[0]) for r in body] == [p["id"] for p in papers],
            f"paper ids are {[r[0] for r in body]}, expected {[p['id'] for p in papers]}",
        ),
    ]
    keys = ["title", "method", "bench1", "ours1", "base1", "bench2", "ours2", "gpus", "hours", "drop"]
    for row in body:
        f = known.get(ident(row[0]) or 0)
        if f is None:
            continue
        wrong = [HEADER[i + 1] for i, k in enumerate(keys) if len(row) <= i + 1 or not same(row[i + 1], f[k])]
        out.append(
            Criterion.of(f"figures of paper {row[0]}", not wrong, f"wrong or missing: {', '.join(wrong)}")
        )
    return out


def wiki_criteria(world: World, papers: list[dict], known: dict[int, dict]) -> list[Criterion]:
    pages = world.query(
        "SELECT id FROM wiki_page WHERE lower(trim(title)) = 'delegation survey: reading notes' AND NOT archived"
    )
    if not pages:
        return [Criterion("wiki page", False, "no page 'Delegation survey: reading notes'")]
    # one page: a second copy of the notes is clutter the reading group has to sort out
    one = Criterion.of(
        "one notes page", len(pages) == 1, f"{len(pages)} pages 'Delegation survey: reading notes'"
    )
    blocks = world.query(
        "SELECT type, text FROM wiki_block WHERE page_id = :p ORDER BY position", p=pages[-1]["id"]
    )
    sections: dict[str, str] = {}
    heading = None
    for b in blocks:
        if b["type"].startswith("heading_"):
            heading = b["text"].strip().lower()
            sections.setdefault(heading, "")
        elif heading is not None:
            sections[heading] += " " + b["text"].lower()
    missing = []
    for p in papers:
        f = known[p["id"]]
        text = next((t for h, t in sections.items() if p["title"].lower() in h), None)
        if text is None or not (
            f["method"].lower() in text
            and f["component"].lower() in text
            and any(close_enough(x, f["ours1"]) for x in numbers(text))
        ):
            missing.append(p["id"])
    return [
        one,
        Criterion.of(
            "wiki notes",
            not missing,
            f"papers {missing} lack a section under their title naming the method, the headline score "
            "and the component whose removal hurts most",
        ),
    ]


def numbers(text: str) -> list[float]:
    """The numbers written in a text, each whole ('4.3' holds no 3)."""
    return [float(n) for n in re.findall(r"(?<![\d.])\d+(?:\.\d+)?(?![\d]|\.\d)", text)]


def calendar_criteria(world: World, papers: list[dict]) -> list[Criterion]:
    events = world.query(
        """SELECT e.id, e.description, e.location FROM calendar_event e JOIN calendar_calendar c ON c.id = e.calendar_id
           WHERE c.name = 'Work' AND lower(e.title) = 'delegation survey reading group'
             AND e.start = '2026-12-03T14:00' AND e."end" = '2026-12-03T15:00'"""
    )
    if not events:
        return [
            Criterion(
                "calendar", False, "no Work event 'Delegation survey reading group' 2026-12-03 14:00-15:00"
            )
        ]
    e = events[-1]
    guests = {a["email"] for a in world.rows("calendar_attendee", event_id=e["id"])}
    titled = all(p["title"].lower() in (e["description"] or "").lower() for p in papers)
    # one session: a second copy of it (on any calendar) invites everyone twice
    booked = world.ids_named("calendar_event", "delegation survey reading group")
    return [
        Criterion.of(
            "one session", len(booked) == 1, f"{len(booked)} 'Delegation survey reading group' events"
        ),
        Criterion.of("invitees", guests >= GUESTS, f"invited {sorted(guests)}"),
        Criterion.of("room", "lighthouse" in (e["location"] or "").lower(), f"location is {e['location']!r}"),
        Criterion.of(
            "paper titles in description", titled, "the description does not list every paper title"
        ),
    ]


def others_changed(world: World) -> list[str]:
    """Changes other than the notes page with its blocks and the reading-group event with its invitees."""
    pages = world.ids_named("wiki_page", "delegation survey: reading notes")
    events = world.ids_named("calendar_event", "delegation survey reading group")
    return world.changes(
        "scholar",
        "wiki",
        "calendar",
        allow={
            "wiki_page": new_rows("id", pages),
            "wiki_block": new_rows("page_id", pages),
            "calendar_event": new_rows("id", events),
            "calendar_attendee": lambda seeded, final: (
                seeded is None
                and final is not None
                and final["event_id"] in events
                and final["email"].lower() in {*GUESTS, "me@company.example"}
            ),
        },
    )


def check(world: World) -> list[Criterion]:
    papers = world.query(
        """SELECT p.id, p.title FROM scholar_reading_list_item i JOIN scholar_reading_list l ON l.id = i.list_id
           JOIN scholar_paper p ON p.id = i.paper_id WHERE l.name = :name ORDER BY p.id""",
        name=LIST,
    )
    known = {p["id"]: facts(world, p["id"]) | {"title": p["title"]} for p in papers}
    return (
        workbook_criteria(world, papers, known)
        + wiki_criteria(world, papers, known)
        + calendar_criteria(world, papers)
        + [nothing_else_changed(others_changed(world))]
    )
