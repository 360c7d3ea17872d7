"""Deterministic LMS data: 12 courses, 240 students, ~1,000 enrollments, graded work. Every CS course
also holds students a roster must leave out (a TA; dropped or waitlisted students)."""

from __future__ import annotations

import random
from datetime import date, timedelta

from sqlmodel import Session

from mcp_servers.common.names import people
from mcp_servers.lms.schema import (
    TODAY,
    LmsAnnouncement,
    LmsAssignment,
    LmsCourse,
    LmsEnrollment,
    LmsGrade,
    LmsStudent,
    LmsSubmission,
)

COURSES = [
    ("CS101", "Introduction to Programming", "2026-fall", "Dr. Ines Moreau", 4, 60),
    ("CS201", "Data Structures", "2026-fall", "Dr. Kenji Tanaka", 4, 45),
    ("CS305", "Database Systems", "2026-fall", "Dr. Amara Okafor", 3, 40),
    ("MATH120", "Calculus I", "2026-fall", "Prof. Victor Novak", 4, 60),
    ("MATH210", "Linear Algebra", "2026-fall", "Prof. Lina Haddad", 3, 45),
    ("STAT200", "Applied Statistics", "2026-fall", "Dr. Theo Becker", 3, 45),
    ("ECON101", "Principles of Economics", "2026-fall", "Dr. Sofia Costa", 3, 55),
    ("ENG150", "Academic Writing", "2026-fall", "Dr. Grace Olsen", 2, 30),
    ("PHYS101", "Physics I", "2026-spring", "Prof. Omar Singh", 4, 50),
    ("BIO110", "Cell Biology", "2026-spring", "Dr. Hana Ito", 4, 40),
    ("HIST130", "Modern World History", "2026-spring", "Dr. Rafael Silva", 3, 40),
    ("PSY100", "Introduction to Psychology", "2026-spring", "Dr. Nora Jensen", 3, 55),
]
MAJORS = ["Computer Science", "Mathematics", "Economics", "Biology", "Physics", "Psychology", "History"]
KINDS = [
    ("homework", 20.0),
    ("quiz", 10.0),
    ("homework", 20.0),
    ("project", 50.0),
    ("quiz", 10.0),
    ("exam", 100.0),
]


def seed(session: Session) -> None:
    rng = random.Random(20261120)
    rosters: dict[int, set[int]] = {}
    today = date.fromisoformat(TODAY)
    for code, title, term, instructor, credits, capacity in COURSES:
        session.add(
            LmsCourse(
                code=code, title=title, term=term, instructor=instructor, credits=credits, capacity=capacity
            )
        )
    for i, (name, email) in enumerate(people(240, seed=7, domain="students.univ.example"), start=1):
        session.add(
            LmsStudent(
                student_number=f"S{i:05d}",
                name=name,
                email=email,
                major=rng.choice(MAJORS),
                year=rng.randint(1, 4),
            )
        )
    session.flush()

    for course_id, (_code, _t, term, _i, _c, capacity) in enumerate(COURSES, start=1):
        fall = term == "2026-fall"
        size = rng.randint(28, min(capacity, 46)) if fall else rng.randint(20, 34)
        members = rng.sample(range(1, 241), size + 1)
        rosters[course_id] = set(members)
        start = date(2026, 8, 24) if fall else date(2026, 1, 12)
        for j, student_id in enumerate(members):
            role = "ta" if j == 0 else "student"
            status = (
                "active" if role == "ta" or rng.random() > 0.06 else rng.choice(["dropped", "waitlisted"])
            )
            enrolled = start - timedelta(days=rng.randint(1, 30))
            session.add(
                LmsEnrollment(
                    course_id=course_id,
                    student_id=student_id,
                    role=role,
                    status=status,
                    enrolled_on=enrolled.isoformat(),
                )
            )
        active = [s for j, s in enumerate(members) if j > 0]
        n_assign = rng.randint(4, 6)
        for k in range(n_assign):
            kind, points = KINDS[k]
            due = start + timedelta(days=14 * (k + 1))
            if fall and k == n_assign - 1:
                due = today + timedelta(days=10)  # still open
            a = LmsAssignment(
                course_id=course_id,
                title=f"{kind.title()} {k + 1}",
                kind=kind,
                due_date=due.isoformat(),
                points_possible=points,
            )
            session.add(a)
            session.flush()
            if due > today:
                continue
            graded = not (fall and k == n_assign - 2)  # the most recent closed one awaits grading
            for student_id in active:
                r = rng.random()
                status = "submitted" if r < 0.82 else "late" if r < 0.92 else "missing"
                when = (
                    None
                    if status == "missing"
                    else (
                        due - timedelta(hours=rng.randint(1, 72))
                        if status == "submitted"
                        else due + timedelta(days=rng.randint(1, 3))
                    )
                )
                session.add(
                    LmsSubmission(
                        assignment_id=a.id or 0, student_id=student_id, status=status,
                        submitted_at=None if when is None else f"{when.isoformat()}T{rng.randint(8, 23):02d}:00:00",
                    )
                )  # fmt: skip
                if graded:
                    base = 0.0 if status == "missing" else min(1.0, max(0.3, rng.gauss(0.8, 0.12)))
                    if status == "late":
                        base *= 0.9
                    session.add(
                        LmsGrade(
                            assignment_id=a.id or 0, student_id=student_id, score=round(base * points, 1),
                            graded_at=(due + timedelta(days=7)).isoformat(), comment="" if status != "missing" else "no submission",
                        )
                    )  # fmt: skip
        session.add(
            LmsAnnouncement(
                course_id=course_id, title="Welcome", body=f"Welcome to the course. The syllabus is posted; first session on {start.isoformat()}.",
                posted_at=(start - timedelta(days=3)).isoformat(), author=_i,
            )
        )  # fmt: skip
    _waitlist_cs101(session, rosters[1])


def _waitlist_cs101(session: Session, roster: set[int]) -> None:
    """A late applicant waits for a seat in CS101, the one CS course the draw left with only active
    students (added after the draw, so no other row changes); no work is due from them."""
    student_id = min(set(range(1, 241)) - roster)
    session.add(
        LmsEnrollment(
            course_id=1, student_id=student_id, role="student", status="waitlisted", enrolled_on="2026-09-02"
        )
    )
