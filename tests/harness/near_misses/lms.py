"""Near misses of the lms tasks (see __init__.py)."""

from __future__ import annotations

from typing import Any

from tests.harness.near_misses import NearMiss, gold_call, mails_someone_else, reorder


def _slide(title: str) -> str:
    return gold_call("lms-midterm-grade-report", "mcp__pptx__add_table_slide", title=title)


COURSE_SLIDES = [
    _slide(t)
    for t in (
        "MATH120 Calculus I",
        "MATH210 Linear Algebra",
        "STAT200 Applied Statistics",
        "ECON101 Principles of Economics",
    )
]
TITLE_SLIDE = gold_call("lms-midterm-grade-report", "mcp__pptx__add_title_slide")
WRONG_MATH120 = COURSE_SLIDES[0].replace('["Homework 1", 20, 13.8, 69.0]', '["Homework 1", 20, 12.8, 64.0]')

MISSES: list[NearMiss] = [
    # lms-late-homework-followup
    NearMiss(
        "lms-late-homework-followup",
        "every line says late/missing",
        replace=(("- missing\\n", "- late/missing\\n"), ("- late\\n", "- late/missing\\n")),
    ),
    NearMiss(
        "lms-late-homework-followup",
        "a late student listed as missing",
        replace=(("S00068 Lucas Bauer - late", "S00068 Lucas Bauer - missing"),),
    ),
    NearMiss(
        "lms-late-homework-followup",
        "an extra mail to a student",
        extra=(
            (
                "mcp__mail__send_message",
                {
                    "to": ["arjun.eriksen@students.univ.example"],
                    "subject": "CS305 Homework 3",
                    "body": "Your Homework 3 is missing.",
                },
            ),
        ),
    ),
    # lms-midterm-grade-report
    NearMiss(
        "lms-midterm-grade-report",
        "course slides in reverse order",
        replace=reorder(COURSE_SLIDES, [3, 2, 1, 0]),
    ),
    NearMiss(
        "lms-midterm-grade-report",
        "MATH120 assignment rows not in due-date order",
        replace=(
            (
                '["Homework 1", 20, 13.8, 69.0], ["Quiz 2", 10, 7.41, 74.1]',
                '["Quiz 2", 10, 7.41, 74.1], ["Homework 1", 20, 13.8, 69.0]',
            ),
        ),
    ),
    NearMiss(
        "lms-midterm-grade-report",
        "a wrong duplicate MATH120 slide before the right one",
        replace=((TITLE_SLIDE, f"{TITLE_SLIDE}, {WRONG_MATH120}"),),
    ),
    NearMiss(
        "lms-midterm-grade-report",
        "mail to a look-alike address",
        replace=(('["academic.office@univ.example"]', '["academic.office@univ.example.org"]'),),
    ),
]


def _zero(assignment_id: int, student: str) -> tuple[str, dict[str, Any]]:
    return (
        "mcp__lms__set_grade",
        {"assignment_id": assignment_id, "student": student, "score": 0, "comment": "no submission"},
    )


MISSES += [
    # lms-missing-work-zeros: "do not grade anyone else"
    NearMiss(
        "lms-missing-work-zeros",
        "also zeroes another student's graded CS201 Homework 3",
        extra=(_zero(9, "S00008"),),
    ),
    NearMiss("lms-missing-work-zeros", "also grades the open CS201 Quiz 5", extra=(_zero(11, "S00001"),)),
    NearMiss(
        "lms-missing-work-zeros",
        "also grades a missing CS101 Project 4 submission",
        extra=(_zero(4, "S00151"),),
    ),
    NearMiss(
        "lms-missing-work-zeros",
        "also grades a CS201 Project 4 submission that was handed in",
        extra=(("mcp__lms__set_grade", {"assignment_id": 10, "student": "S00002", "score": 40}),),
    ),
]

MISSES += [
    # lms-project4-grading-setup
    NearMiss(
        "lms-project4-grading-setup",
        "ENG150 mail says 24 submissions (true 23)",
        replace=(("you have 23 submissions to grade", "you have 24 submissions to grade"),),
    ),
    NearMiss(
        "lms-project4-grading-setup",
        "ENG150 mail gives no count",
        replace=(("you have 23 submissions to grade", "you have your submissions to grade"),),
    ),
    NearMiss(
        "lms-project4-grading-setup",
        "sessions booked without the Grading Lab location",
        replace=(('"location": "Grading Lab", ', ""),),
    ),
    NearMiss(
        "lms-project4-grading-setup",
        "spreadsheet also shared with a student",
        extra=(
            (
                "mcp__sheets__share",
                {"spreadsheet_id": 6, "email": "hana.garcia@students.univ.example", "role": "writer"},
            ),
        ),
    ),
]

MISSES += [
    # lms-due-reminder
    NearMiss(
        "lms-due-reminder",
        "the reminder is also posted in CS201",
        extra=(
            (
                "mcp__lms__post_announcement",
                {"course": "CS201", "title": "Reminder: Exam 6", "body": "Exam 6 is due on 2026-11-30."},
            ),
        ),
    ),
]

MISSES += [
    NearMiss(
        "lms-project4-grading-setup",
        "ENG150 mail gives the wrong day",
        replace=(("Monday 2026-11-23 from 15:00", "Tuesday 2026-11-24 from 15:00"),),
    ),
    NearMiss(
        "lms-project4-grading-setup",
        "CS305 mail gives the CS201 session's time",
        replace=(("from 11:00 to 13:00 in the Grading Lab", "from 09:00 to 11:00 in the Grading Lab"),),
    ),
]

MISSES += [
    # Traps: rows a condition of the prompt leaves out, which the seed holds on purpose.
    NearMiss(
        "lms-enrollment-overview",
        "CS101 lists its waitlisted student (S00002) as active",
        replace=(
            (
                '["S00001", "Hana Garcia", "Biology"], ["S00007"',
                '["S00001", "Hana Garcia", "Biology"], ["S00002", "Jonas Yilmaz", "Economics"], ["S00007"',
            ),
            ('["CS101", 31]', '["CS101", 32]'),
        ),
    ),
    NearMiss(
        "lms-enrollment-overview",
        "CS305 lists its two dropped students",
        replace=(
            (
                '["S00153", "Priya Weber", "Psychology"], ["S00163"',
                '["S00153", "Priya Weber", "Psychology"], ["S00156", "Yusuf Yilmaz", "Biology"], ["S00163"',
            ),
            (
                '["S00195", "Maya Alvarez", "Mathematics"], ["S00223"',
                '["S00195", "Maya Alvarez", "Mathematics"], ["S00219", "Maya Kim", "Mathematics"], ["S00223"',
            ),
            ('["CS305", 31]', '["CS305", 33]'),
        ),
    ),
    NearMiss(
        "lms-due-reminder",
        "the reminder names Quiz 5, the assignment that closed last, not the open one",
        replace=(
            ("Reminder: Exam 6", "Reminder: Quiz 5"),
            ("Exam 6 is due on 2026-11-30", "Quiz 5 is due on 2026-11-02"),
        ),
    ),
    NearMiss(
        "lms-late-homework-followup",
        "a student who handed Homework 3 in on time is listed as late",
        replace=(("S00193 Carla Sato - late\\n", "S00193 Carla Sato - late\\nS00028 Dara Novak - late\\n"),),
    ),
    NearMiss(
        "lms-midterm-grade-report",
        "MATH120 averaged over all its students, the five waitlisted ones included",
        replace=(
            (
                '["Homework 1", 20, 13.8, 69.0], ["Quiz 2", 10, 7.41, 74.1], ["Homework 3", 20, 15.53, 77.6], '
                '["Project 4", 50, 34.01, 68.0]',
                '["Homework 1", 20, 14.21, 71.1], ["Quiz 2", 10, 7.56, 75.6], ["Homework 3", 20, 15.22, 76.1], '
                '["Project 4", 50, 34.54, 69.1]',
            ),
            ('["MATH120", 34, 70.7, 6]', '["MATH120", 39, 71.5, 6]'),
        ),
    ),
    NearMiss(
        "lms-midterm-grade-report",
        "MATH120's closed but ungraded Quiz 5 is listed as a graded assignment",
        replace=(
            ('["Project 4", 50, 34.01, 68.0]', '["Project 4", 50, 34.01, 68.0], ["Quiz 5", 10, 0.0, 0.0]'),
        ),
    ),
    NearMiss(
        "lms-missing-work-zeros",
        "also zeroes a late CS201 Project 4 submission",
        extra=(_zero(10, "S00101"),),
    ),
    NearMiss(
        "lms-project4-grading-setup",
        "the CS201 queue (and count) keeps the dropped S00240's submission",
        replace=(
            (
                '["S00232", "Tariq Yilmaz", "submitted", "2026-10-18T18:00:00"]',
                '["S00232", "Tariq Yilmaz", "submitted", "2026-10-18T18:00:00"], '
                '["S00240", "Tariq Patel", "submitted", "2026-10-19T17:00:00"]',
            ),
            ("you have 36 submissions to grade", "you have 37 submissions to grade"),
        ),
    ),
]

MISSES += [
    NearMiss(
        "lms-project4-grading-setup",
        "the CS201 queue (and count) has S00001's missing submission, which was never handed in",
        replace=(
            (
                '["Student Number", "Name", "Status", "Submitted At"], ["S00002", "Jonas Yilmaz", "submitted"',
                '["Student Number", "Name", "Status", "Submitted At"], ["S00001", "Hana Garcia", "missing", ""], '
                '["S00002", "Jonas Yilmaz", "submitted"',
            ),
            ("you have 36 submissions to grade", "you have 37 submissions to grade"),
        ),
    ),
]

MISSES += [
    # audit F9: nothing else in the LMS changes
    NearMiss(
        "lms-due-reminder",
        "also drops a CS101 student's enrollment",
        extra=(
            ("mcp__lms__update_enrollment", {"course": "CS101", "student": "S00001", "status": "dropped"}),
        ),
    ),
    NearMiss(
        "lms-late-homework-followup",
        "the late/missing list also posted as a CS305 announcement",
        extra=(
            (
                "mcp__lms__post_announcement",
                {"course": "CS305", "title": "Late HW3", "body": "S00045 Arjun Eriksen - missing"},
            ),
        ),
    ),
]

MISSES += [
    # collateral damage: what the task does not ask for is left as it was
    NearMiss(
        "lms-missing-work-zeros",
        "also drops a student from CS201",
        extra=(
            ("mcp__lms__update_enrollment", {"course": "CS201", "student": "S00001", "status": "dropped"}),
        ),
    ),
    NearMiss(
        "lms-project4-grading-setup",
        "also deletes an event of my calendar",
        extra=(("mcp__calendar__delete_event", {"event_id": 6}),),
    ),
    NearMiss(
        "lms-project4-grading-setup",
        "also mails a student about their Project 4",
        extra=(
            (
                "mcp__mail__send_message",
                {
                    "to": ["ada.garcia@students.univ.example"],
                    "subject": "Your Project 4",
                    "body": "Your Project 4 will be graded on Monday.",
                },
            ),
        ),
    ),
]

MISSES += [
    # collateral damage: the task only reads the records
    NearMiss(
        "lms-enrollment-overview",
        "also posts an announcement in CS101",
        extra=(
            (
                "mcp__lms__post_announcement",
                {"course": "CS101", "title": "Overview", "body": "Enrollment is up."},
            ),
        ),
    ),
]

MISSES += [
    # collateral damage: what the task does not ask for is left as it was (the last fifteen guarded tasks)
    NearMiss(
        "lms-midterm-grade-report",
        "also posts an announcement in a course",
        extra=(
            (
                "mcp__lms__post_announcement",
                {"course": "MATH120", "title": "Midterm grades", "body": "The report is with the office."},
            ),
        ),
    ),
    mails_someone_else(
        "lms-midterm-grade-report",
        "also mails the report to someone else",
        to="dean@univ.example",
        body="The midterm report is out.",
    ),
]

MISSES += [
    # mail guards of the tasks whose check had no `changes` over the mailbox (audit: mail guards)
    NearMiss(
        "lms-late-homework-followup",
        "also moves a message of the inbox to the trash",
        extra=(("mcp__mail__move_message", {"message_id": 5, "folder": "trash"}),),
    ),
]

# lms-project4-grading-setup: each session is its own TA's (the check once let this through)
CS201_SESSION = '"location": "Grading Lab", "attendees": ["jonas.olsen@students.univ.example"]'
MISSES += [
    NearMiss(
        "lms-project4-grading-setup",
        "the CS201 session also invites the CS305 TA",
        replace=((CS201_SESSION, CS201_SESSION.replace('"]', '", "daniel.garcia@students.univ.example"]')),),
    ),
]
