"""A mail to the CS305 TA lists exactly the late and missing Homework 3 submissions, each with its status."""

import re

from harness.checks import Criterion, World


def check(world: World) -> list[Criterion]:
    ta = world.query(
        """SELECT s.email FROM lms_enrollment e JOIN lms_student s ON s.id = e.student_id
           JOIN lms_course c ON c.id = e.course_id WHERE c.code = 'CS305' AND e.role = 'ta'"""
    )[0]["email"]
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
        )
    ]
    body = mails[0]["body"] if mails else ""
    lines = body.splitlines()
    listed = set(re.findall(r"S\d{5}", body))
    expected = {r["student_number"] for r in due}
    out.append(
        Criterion.of(
            "the right students",
            listed == expected,
            f"the mail names {sorted(listed)}; expected {sorted(expected)}",
        )
    )
    wrong = [
        r["student_number"]
        for r in due
        if not any(
            r["student_number"] in line and r["name"].lower() in line.lower() and r["status"] in line.lower()
            for line in lines
        )
    ]
    out.append(
        Criterion.of(
            "name and status", bool(mails) and not wrong, f"no line with name and status for {wrong}"
        )
    )
    return out
