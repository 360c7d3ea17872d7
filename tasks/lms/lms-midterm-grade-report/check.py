"""GradeReport.pptx (per-course and summary tables), AtRisk.xlsx, and the mail to the academic office."""

import json
from typing import Any

from harness.checks import SENDING_MAIL, Criterion, World, no_one_else_mailed, nothing_else_changed

COURSES = ["MATH120", "MATH210", "STAT200", "ECON101"]
OFFICE = "academic.office@univ.example"


def near(value: Any, expected: float, tol: float) -> bool:
    """A number from a cell or a slide's text within an absolute tolerance (0 for counts)."""
    try:
        got = float(str(value).replace(",", "").replace("%", "").strip())
    except ValueError:
        return False
    return abs(got - expected) <= tol + 1e-9  # a value rounded to the asked decimals is within half a unit


def course_facts(world: World, code: str) -> dict[str, Any]:
    """Graded assignments with the active students' mean score, and each active student's overall %."""
    course = world.rows("lms_course", code=code)[0]
    active = world.query(
        """SELECT s.id, s.student_number, s.name, s.email FROM lms_enrollment e
           JOIN lms_student s ON s.id = e.student_id
           WHERE e.course_id = :c AND e.role = 'student' AND e.status = 'active' ORDER BY s.student_number""",
        c=course["id"],
    )
    ids = {s["id"] for s in active}
    graded = world.query(
        """SELECT a.id, a.title, a.points_possible FROM lms_assignment a WHERE a.course_id = :c
           AND EXISTS (SELECT 1 FROM lms_grade g WHERE g.assignment_id = a.id) ORDER BY a.due_date""",
        c=course["id"],
    )
    scores: dict[int, dict[int, float]] = {s: {} for s in ids}
    for a in graded:
        for g in world.rows("lms_grade", assignment_id=a["id"]):
            if g["student_id"] in ids:
                scores[g["student_id"]][a["id"]] = g["score"]
    assignments = []
    for a in graded:
        mean = sum(scores[s].get(a["id"], 0.0) for s in ids) / len(ids)
        assignments.append((a["title"], a["points_possible"], mean, 100 * mean / a["points_possible"]))
    points = sum(a["points_possible"] for a in graded)
    overall = {s["student_number"]: 100 * sum(scores[s["id"]].values()) / points for s in active}
    return {
        "title": course["title"],
        "assignments": assignments,
        "overall": overall,
        "people": {s["student_number"]: s for s in active},
    }


def slides(deck: Any) -> list[tuple[str, list[list[str]] | None]]:
    """Each slide's title and its table's cells (None without a table), in deck order."""
    out = []
    for slide in deck.slides:
        title = slide.shapes.title.text.strip() if slide.shapes.title is not None else ""
        table = None
        for shape in slide.shapes:
            if shape.has_table:
                table = [[c.text.strip() for c in row.cells] for row in shape.table.rows]
        out.append((title, table))
    return out


def check_deck(world: World, facts: dict[str, dict[str, Any]]) -> list[Criterion]:
    deck = world.pptx("GradeReport.pptx")
    if deck is None:
        return [Criterion("deck", False, "GradeReport.pptx is missing or unreadable")]
    shown = slides(deck)
    titles = [t for t, _ in shown]
    # the course slides: every slide whose title starts with one of the course codes
    course_slides = [
        (code, table) for title, table in shown for code in COURSES if title.lower().startswith(code.lower())
    ]
    out = [
        Criterion.of(
            "title slide",
            bool(titles) and titles[0].lower() == "fall 2026 midterm grade report",
            f"first slide title is {titles[:1]}",
        ),
        Criterion.of(
            "course slides in order",
            [code for code, _ in course_slides] == COURSES,
            f"the course slides are {[t for t in titles if any(t.lower().startswith(c.lower()) for c in COURSES)]}; "
            f"expected one each for {COURSES}, in that order",
        ),
    ]
    for code in COURSES:
        f = facts[code]
        table = next(
            (
                t
                for title, t in shown
                if t is not None
                and title.lower().startswith(code.lower())
                and f["title"].lower() in title.lower()
            ),
            None,
        )
        if table is None:
            out.append(Criterion(f"{code} slide", False, f"no table slide titled '{code} {f['title']}'"))
            continue
        body = [r for r in table[1:] if r and r[0]]
        expected = f["assignments"]
        good = len(body) == len(expected) and all(
            len(row) >= 4
            and row[0].strip().lower() == title.lower()
            and near(row[1], points, 0)
            and near(row[2], mean, 0.005)
            # the % of the exact mean, or of the mean as the slide gives it (14.01 of 20: 70.0 or 70.1)
            and (near(row[3], pct, 0.05) or near(row[3], 100 * round(mean, 2) / points, 0.05))
            for row, (title, points, mean, pct) in zip(body, expected, strict=False)
        )
        out.append(
            Criterion.of(
                f"{code} slide",
                good
                and [h.lower() for h in table[0]][:4]
                == ["assignment", "points possible", "average score", "average %"],
                f"{code} table {table[:1]} with rows {[r[0] for r in body]} does not give the graded assignments "
                f"{[e[0] for e in expected]} in due-date order with their means over active students",
            )
        )
    last_title, summary = shown[-1] if shown else ("", None)
    if summary is None or last_title.lower() != "summary":
        out.append(
            Criterion("summary slide", False, f"the last slide is {last_title!r}, not a 'Summary' table")
        )
    else:
        rows = {r[0].strip().upper(): r for r in summary[1:] if r and r[0]}
        bad = [f"unexpected rows {sorted(set(rows) - set(COURSES))}"] if set(rows) - set(COURSES) else []
        for code in COURSES:
            overall = facts[code]["overall"]
            mean = sum(overall.values()) / len(overall)
            low = sum(p < 60 for p in overall.values())
            r = rows.get(code)
            if not (
                r
                and len(r) >= 4
                and near(r[1], len(overall), 0)
                and near(r[2], mean, 0.05)
                and near(r[3], low, 0)
            ):
                bad.append(f"{code}: {r} (expected {len(overall)}, {mean:.1f}, {low})")
        out.append(
            Criterion.of(
                "summary slide",
                not bad
                and [h.lower() for h in summary[0]][:4]
                == ["course", "active students", "course average %", "below 60%"],
                "; ".join(bad) or f"the Summary header is {summary[0]}",
            )
        )
    return out


def check_workbook(world: World, facts: dict[str, dict[str, Any]]) -> list[Criterion]:
    wb = world.xlsx("AtRisk.xlsx")
    if wb is None:
        return [Criterion("at-risk workbook", False, "AtRisk.xlsx is missing or unreadable")]
    out = []
    for code in COURSES:
        overall, people = facts[code]["overall"], facts[code]["people"]
        low = sorted(n for n, p in overall.items() if p < 60)
        if code not in wb.sheetnames:
            out.append(Criterion(f"{code} at risk", False, f"no sheet {code}; sheets are {wb.sheetnames}"))
            continue
        rows = [r for r in wb[code].iter_rows(values_only=True) if r and any(v is not None for v in r)]
        header = [str(v).strip().lower() for v in rows[0][:4]] if rows else []
        body = rows[1:]
        good = (
            header == ["student number", "name", "email", "overall %"]
            and [str(r[0]) for r in body] == low
            and all(
                str(r[1]) == people[str(r[0])]["name"]
                and str(r[2]).lower() == people[str(r[0])]["email"]
                and near(r[3], overall[str(r[0])], 0.05)
                for r in body
            )
        )
        out.append(
            Criterion.of(
                f"{code} at risk",
                good,
                f"sheet {code} lists {[r[0] for r in body]}; expected {low} with name, email, overall %",
            )
        )
    return out


def check_mail(world: World) -> Criterion:
    sent = world.sent_mail()
    good = [
        m
        for m in sent
        if OFFICE in m["to_addrs"].split(", ")
        and m["subject"].strip().lower() == "fall 2026 midterm grade report"
        and {"GradeReport.pptx", "AtRisk.xlsx"}
        <= {a.removeprefix("./") for a in json.loads(m["attachments"])}
        and all(world.sent_as_final(m["id"], f) for f in ("GradeReport.pptx", "AtRisk.xlsx"))
    ]
    return Criterion.of(
        "mail to the academic office",
        bool(good),
        f"no mail to {OFFICE} titled 'Fall 2026 midterm grade report' with both files (as they are now) attached",
    )


def others_changed(world: World) -> list[str]:
    """Changes to the world's records: the task only reads them (and sends mail)."""
    return world.changes(
        "lms",
        "mail",
        allow=SENDING_MAIL,
    )


def check(world: World) -> list[Criterion]:
    facts = {code: course_facts(world, code) for code in COURSES}
    return [
        *check_deck(world, facts),
        *check_workbook(world, facts),
        check_mail(world),
        nothing_else_changed(others_changed(world)),
        no_one_else_mailed(world, {OFFICE}),
    ]
