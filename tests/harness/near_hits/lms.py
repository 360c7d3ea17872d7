"""Near hits of the lms tasks (see __init__.py)."""

from __future__ import annotations

from tests.harness.near_hits import NearHit

HITS: list[NearHit] = [
    # lms-midterm-grade-report: the percentage of the mean as the slide shows it, rounded
    NearHit(
        "lms-midterm-grade-report",
        "STAT200 Homework 3's Average % from the rounded mean (14.01 of 20: 70.0, exact 70.05..)",
        replace=(('["Homework 3", 20, 14.01, 70.1]', '["Homework 3", 20, 14.01, 70.0]'),),
    ),
    # lms-late-homework-followup: a copy to the user is no mail to anyone else
    NearHit(
        "lms-late-homework-followup",
        "the follow-up to the TA with the user in Cc",
        replace=(
            (
                '"to": ["daniel.garcia@students.univ.example"]',
                '"to": ["daniel.garcia@students.univ.example"], "cc": ["me@company.example"]',
            ),
        ),
    ),
    # lms-project4-grading-setup: a cloud sheet's formula is read as what it computes
    NearHit(
        "lms-project4-grading-setup",
        'a student\'s name written as a formula (=CONCATENATE("Jonas", " ", "Yilmaz"))',
        replace=(
            ('"S00002", "Jonas Yilmaz"', '"S00002", "=CONCATENATE(\\"Jonas\\", \\" \\", \\"Yilmaz\\")"'),
        ),
    ),
]
