"""Project 4 grading set-up: queue sheets shared with each TA, a session per TA, a mail per TA."""

import re
from datetime import datetime
from typing import Any

from harness.checks import SENDING_MAIL, Criterion, World, new_rows, no_one_else_mailed, nothing_else_changed

COURSES = {"CS201": "09:00", "CS305": "11:00", "STAT200": "13:00", "ENG150": "15:00"}
TITLE = "Project 4 Grading Queue"
ME = "me@company.example"

MAILED = {
    "arjun.costa@students.univ.example",
    "daniel.garcia@students.univ.example",
    "jonas.olsen@students.univ.example",
    "nora.bauer@students.univ.example",
}  # the only recipients the task has


def expected(world: World, code: str) -> tuple[str, list[list[str]]]:
    """The course's TA address and the rows to grade (active students, submitted or late)."""
    ta = world.query(
        """SELECT s.email FROM lms_enrollment e JOIN lms_student s ON s.id = e.student_id
           JOIN lms_course c ON c.id = e.course_id WHERE c.code = :code AND e.role = 'ta'""",
        code=code,
    )[0]["email"]
    rows = world.query(
        """SELECT s.student_number, s.name, sub.status, sub.submitted_at FROM lms_submission sub
           JOIN lms_assignment a ON a.id = sub.assignment_id JOIN lms_course c ON c.id = a.course_id
           JOIN lms_student s ON s.id = sub.student_id
           JOIN lms_enrollment e ON e.student_id = s.id AND e.course_id = c.id
           WHERE c.code = :code AND a.title = 'Project 4' AND sub.status IN ('submitted', 'late')
             AND e.status = 'active' AND e.role = 'student' ORDER BY s.student_number""",
        code=code,
    )
    return ta, [[r["student_number"], r["name"], r["status"], r["submitted_at"]] for r in rows]


def sheet_rows(world: World, sheet_id: int) -> list[list[Any]]:
    cells = world.sheet_cells(sheet_id)
    if not cells:
        return []
    height = max(r for r, _ in cells)
    width = max(c for _, c in cells)
    grid: list[list[Any]] = [[None] * width for _ in range(height)]
    for (r, c), value in cells.items():
        grid[r - 1][c - 1] = value
    return grid


def same_row(got: list[str], want: list[Any]) -> bool:
    """Student number and name as recorded, the status in any case, the time as the same instant
    ('2026-10-19T09:00:00', '2026-10-19 09:00' or a date-time cell)."""

    def instant(value: Any) -> datetime | None:
        try:
            return datetime.fromisoformat(str(value).strip())
        except ValueError:
            return None

    return (
        len(got) >= 4
        and got[0].strip() == want[0]
        and got[1].strip() == want[1]
        and got[2].strip().lower() == want[2]
        and instant(got[3]) is not None
        and instant(got[3]) == instant(want[3])
    )


def counts_said(body: str) -> set[int]:
    """The numbers the body gives as a count of submissions: '23 submissions', '23 Project 4
    submissions', 'submissions to grade: 23' (not any 23, such as the one in 2026-11-23)."""
    before = re.findall(r"\b(\d+)\s+(?:[\w-]+\s+){0,3}?submissions?\b", body, re.IGNORECASE)
    after = re.findall(r"\bsubmissions?\b[^.\d\n]{0,25}?:?\s*(\d+)\b(?![-/:.]\d)", body, re.IGNORECASE)
    return {int(n) for n in before + after}


def said_time(body: str, hour: int) -> bool:
    """The body gives the session's day (2026-11-23, 23 November, Monday) and, as the first time of
    day it names, its start (13:00, 1 pm or 1:00 pm; not just the 13:00 that ends the session before)."""
    text = body.lower()
    day = re.search(r"2026-11-23|\b11/23\b|\b23(?:rd)? nov|\bnov(?:ember|\.)? 23\b|\bmonday\b", text)
    first = re.search(r"\b(\d{1,2})(?::(\d{2}))?\s*([ap]\.?m\b\.?)|\b(\d{1,2}):(\d{2})\b", text)
    if day is None or first is None:
        return False
    if first.group(3):
        h, m = (
            int(first.group(1)) % 12 + (12 if first.group(3).startswith("p") else 0),
            first.group(2) or "00",
        )
    else:
        h, m = int(first.group(4)), first.group(5)
    return (h, m) == (hour, "00")


def others_changed(world: World) -> list[str]:
    """Changes other than the grading queue spreadsheet, its shares, and a grading session per TA (new events
    with only TAs invited), besides the mail."""
    return world.changes(
        "lms",
        "sheets",
        "calendar",
        "mail",
        allow={
            **world.new_spreadsheet(TITLE, MAILED),
            "calendar_event": lambda seeded, final: seeded is None,
            "calendar_attendee": new_rows("email", {*MAILED, "me@company.example"}),
            **SENDING_MAIL,
        },
    )


def check(world: World) -> list[Criterion]:
    books = [
        b
        for b in world.rows("sheets_spreadsheet", owner="me@company.example")
        if b["title"].strip().lower() == TITLE.lower()
    ]
    out = [Criterion.of("spreadsheet", len(books) == 1, f"{len(books)} spreadsheets titled '{TITLE}'")]
    book = books[0] if books else None
    sheets = (
        {s["title"]: s["id"] for s in world.rows("sheets_sheet", spreadsheet_id=book["id"])} if book else {}
    )
    shares = (
        {
            p["email"].lower(): p["role"]
            for p in world.rows("sheets_permission", spreadsheet_id=book["id"])
            if p["role"] != "owner"
        }
        if book
        else {}
    )
    sent = world.sent_mail()
    tas = set()
    for code, at in COURSES.items():
        ta, rows = expected(world, code)
        ta = ta.lower()
        tas.add(ta)
        got = sheet_rows(world, sheets[code]) if code in sheets else []
        header = [str(v).strip().lower() for v in got[0][:4]] if got else []
        body = [
            [str(v) if v is not None else "" for v in r[:4]]
            for r in got[1:]
            if any(v not in (None, "") for v in r)
        ]
        out.append(
            Criterion.of(
                f"{code} queue",
                header == ["student number", "name", "status", "submitted at"]
                and len(body) == len(rows)
                and all(same_row(g, w) for g, w in zip(body, rows, strict=False)),
                f"sheet {code} has {len(body)} rows after header {header}; expected the {len(rows)} "
                "active submitted/late submissions in student-number order",
            )
        )
        out.append(
            Criterion.of(
                f"{code} shared", shares.get(ta) == "writer", f"{ta} is {shares.get(ta)!r}, not a writer"
            )
        )
        hour = int(at[:2])
        events = world.query(
            """SELECT e.id FROM calendar_event e JOIN calendar_calendar k ON k.id = e.calendar_id
               JOIN calendar_attendee p ON p.event_id = e.id
               WHERE k.name = 'Work' AND lower(trim(e.title)) = :title AND e.start = :start AND e.end = :end
                 AND lower(p.email) = :ta AND lower(trim(e.location)) LIKE '%grading lab%'""",
            title=f"{code} project 4 grading".lower(),
            start=f"2026-11-23T{at}",
            end=f"2026-11-23T{hour + 2:02d}:00",
            ta=ta,
        )
        # the session is this TA's: no other TA (nor anyone else but me) is invited to it
        guests = [
            {a["email"].lower() for a in world.rows("calendar_attendee", event_id=e["id"])} - {ME}
            for e in events
        ]
        out.append(
            Criterion.of(
                f"{code} session",
                len(events) == 1 and guests[0] == {ta},
                f"{len(events)} Work events '{code} Project 4 grading' on 2026-11-23 {at}-{hour + 2:02d}:00 "
                f"in the Grading Lab with {ta} (invited: {[sorted(g) for g in guests]}; expected only {ta})",
            )
        )
        mails = [
            m
            for m in sent
            if ta in m["to_addrs"].split(", ")
            and m["subject"].strip().lower() == f"{code} project 4 grading".lower()
        ]
        told = [
            m
            for m in mails
            if len(rows) in counts_said(m["body"])
            and TITLE.lower() in m["body"].lower()
            and said_time(m["body"], int(at[:2]))
        ]
        out.append(
            Criterion.of(
                f"{code} mail",
                bool(told),
                f"no mail to {ta} titled '{code} Project 4 grading' naming {len(rows)} submissions, 2026-11-23 {at} and "
                f"'{TITLE}' ({len(mails)} mails with that subject)",
            )
        )
    others = sorted(set(shares) - tas)
    out.append(
        Criterion.of("shared with the TAs only", not others, f"the spreadsheet is also shared with {others}")
    )
    out.append(nothing_else_changed(others_changed(world)))
    out.append(no_one_else_mailed(world, MAILED))
    return out
