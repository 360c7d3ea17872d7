"""A mail to the CS305 TA lists exactly the late and missing Homework 3 submissions, each with its status;
nothing went to anyone else and nothing in the LMS changed (no announcement of the list, say)."""

import re

from harness.checks import SENDING_MAIL, Criterion, World, no_one_else_mailed, nothing_else_changed

LATE = re.compile(r"\blate\b", re.IGNORECASE)
# 'missing', or the same said in words ('not submitted', 'no submission', 'not at all', ...)
MISSING = re.compile(
    r"\bmissing\b|\bno submission\b|\bnot at all\b|\bnever (?:submitted|handed in|turned in)\b"
    r"|\b(?:not|didn't|did not|has not|hasn't|have not|haven't)\s+(?:yet\s+)?(?:been\s+)?"
    r"(?:submit(?:ted)?|hand(?:ed)? in|turn(?:ed)? in)\b",
    re.IGNORECASE,
)


def statuses(line: str) -> set[str]:
    """The statuses a line speaks of: {'late'}, {'missing'}, both (ambiguous) or none."""
    return {s for s, pattern in (("late", LATE), ("missing", MISSING)) if pattern.search(line)}


def line_statuses(body: str) -> dict[str, tuple[str, str | None]]:
    """Per student number: its line and the status it is given, by the line itself or, when the line
    names none, by the heading above it ('Late:' / 'Missing:'); None when ambiguous."""
    out: dict[str, tuple[str, str | None]] = {}
    heading: str | None = None
    for line in body.splitlines():
        numbers = re.findall(r"S\d{5}", line)
        said = statuses(line)
        if not numbers:
            if said:
                heading = next(iter(said)) if len(said) == 1 else None
            continue
        status = next(iter(said)) if len(said) == 1 else (heading if not said else None)
        for n in numbers:
            out[n] = (line, status if len(numbers) == 1 else None)
    return out


def check(world: World) -> list[Criterion]:
    ta = world.query(
        """SELECT s.email FROM lms_enrollment e JOIN lms_student s ON s.id = e.student_id
           JOIN lms_course c ON c.id = e.course_id WHERE c.code = 'CS305' AND e.role = 'ta'"""
    )[0]["email"].lower()
    due = world.query(
        """SELECT s.student_number, s.name, sub.status FROM lms_submission sub
           JOIN lms_student s ON s.id = sub.student_id JOIN lms_assignment a ON a.id = sub.assignment_id
           JOIN lms_course c ON c.id = a.course_id
           WHERE c.code = 'CS305' AND a.title = 'Homework 3' AND sub.status IN ('late', 'missing')"""
    )
    sent = world.sent_mail()
    mails = [
        m
        for m in sent
        if ta in m["to_addrs"].split(", ") and m["subject"].strip().lower() == "cs305 homework 3 follow-up"
    ]
    out = [
        Criterion.of(
            "mail to the TA",
            len(mails) == 1,
            f"{len(mails)} mails to {ta} titled 'CS305 Homework 3 follow-up'",
        ),
        no_one_else_mailed(world, {ta}),
        # nothing in the LMS changed, and in the mailbox only the mail sent
        nothing_else_changed(world.changes("lms", "mail", allow=SENDING_MAIL)),
    ]
    body = mails[0]["body"] if mails else ""
    listed = set(re.findall(r"S\d{5}", body))
    expected = {r["student_number"] for r in due}
    out.append(
        Criterion.of(
            "the right students",
            listed == expected,
            f"the mail names {sorted(listed)}; expected {sorted(expected)}",
        )
    )
    given = line_statuses(body)
    wrong = [
        r["student_number"]
        for r in due
        if not (
            r["student_number"] in given
            and r["name"].lower() in given[r["student_number"]][0].lower()
            and given[r["student_number"]][1] == r["status"]
        )
    ]
    out.append(
        Criterion.of(
            "name and status",
            bool(mails) and not wrong,
            f"no line with the name and the one right status (late or missing) for {wrong}",
        )
    )
    return out
