"""The `lms` server: read courses, rosters, assignments, submissions and grades; write grades,
announcements, enrollment changes and new assignments (SPEC §5, scenario LMS)."""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import MCPServer
from sqlmodel import Session, col, select

from mcp_servers.common.paging import paginate
from mcp_servers.common.spec import ServerContext, ServerSpec
from mcp_servers.common.tooling import ToolError, as_json, fields, reader, writer
from mcp_servers.common.values import finite, iso_date, numeric_id, one_of
from mcp_servers.lms.schema import (
    TABLES,
    TODAY,
    LmsAnnouncement,
    LmsAssignment,
    LmsCourse,
    LmsEnrollment,
    LmsGrade,
    LmsStudent,
    LmsSubmission,
)
from mcp_servers.lms.seed import seed

READ = "course-records-lookup"
WRITE = "record-update"
ROLES = ("student", "ta")
ENROLLMENT_STATUSES = ("active", "dropped", "waitlisted")
SUBMISSION_STATUSES = ("submitted", "late", "missing")


def _course(s: Session, course: str) -> LmsCourse:
    stmt = select(LmsCourse).where(LmsCourse.code == course.strip().upper())
    if (n := numeric_id(course)) is not None:
        stmt = select(LmsCourse).where(LmsCourse.id == n)
    found = s.execute(stmt).scalar_one_or_none()
    if found is None:
        raise ToolError(f"no course {course!r}; list_courses shows the codes (e.g. CS101)")
    return found


def _student(s: Session, student: str) -> LmsStudent:
    key = student.strip()
    if (n := numeric_id(key)) is not None:
        stmt = select(LmsStudent).where(LmsStudent.id == n)
    elif "@" in key:
        stmt = select(LmsStudent).where(LmsStudent.email == key.lower())
    else:
        stmt = select(LmsStudent).where(LmsStudent.student_number == key.upper())
    found = s.execute(stmt).scalar_one_or_none()
    if found is None:
        raise ToolError(f"no student {student!r}; give a student number (S00012), an id or an e-mail")
    return found


def _assignment(s: Session, assignment_id: int) -> LmsAssignment:
    found = s.get(LmsAssignment, assignment_id)
    if found is None:
        raise ToolError(f"no assignment with id {assignment_id}; list_assignments shows them")
    return found


def build(ctx: ServerContext) -> MCPServer:
    app = MCPServer("lms", instructions=f"A university learning management system. Today is {TODAY}.")

    def session() -> Session:
        return Session(ctx.engine)

    @reader(app, READ)
    def list_courses(term: str | None = None) -> str:
        """List courses (id, code, title, term, instructor, credits, capacity); filter by term like '2026-fall'."""
        with session() as s:
            stmt = select(LmsCourse).order_by(LmsCourse.code)
            if term:
                terms = s.execute(select(LmsCourse.term).distinct().order_by(LmsCourse.term)).scalars().all()
                stmt = stmt.where(LmsCourse.term == one_of(term.strip().lower(), terms, "term"))
            return as_json([fields(c) for c in s.execute(stmt).scalars()])

    @reader(app, READ)
    def get_course(course: str) -> str:
        """One course by code (CS101) or id, with its counts of active students and assignments."""
        with session() as s:
            c = _course(s, course)
            active = s.execute(
                select(LmsEnrollment).where(
                    LmsEnrollment.course_id == c.id,
                    LmsEnrollment.status == "active",
                    LmsEnrollment.role == "student",
                )
            ).all()
            assignments = s.execute(select(LmsAssignment).where(LmsAssignment.course_id == c.id)).all()
            return as_json({**fields(c), "active_students": len(active), "assignments": len(assignments)})

    @reader(app, READ)
    def list_enrollments(
        course: str,
        role: str | None = "student",
        status: str | None = "active",
        page: int = 1,
        page_size: int = 25,
    ) -> str:
        """The roster of a course, one page at a time: student id, number, name, email, major, role, status.
        role: student|ta|None (all); status: active|dropped|waitlisted|None (all)."""
        with session() as s:
            c = _course(s, course)
            stmt = (
                select(LmsEnrollment, LmsStudent)
                .join(LmsStudent, col(LmsStudent.id) == LmsEnrollment.student_id)
                .where(LmsEnrollment.course_id == c.id)
                .order_by(LmsStudent.student_number)
            )
            if role:
                stmt = stmt.where(LmsEnrollment.role == one_of(role, ROLES, "role"))
            if status:
                stmt = stmt.where(LmsEnrollment.status == one_of(status, ENROLLMENT_STATUSES, "status"))

            def render(row: Any) -> dict[str, Any]:
                e, st = row
                return {
                    "student_id": st.id, "student_number": st.student_number, "name": st.name, "email": st.email,
                    "major": st.major, "role": e.role, "status": e.status, "enrolled_on": e.enrolled_on,
                }  # fmt: skip

            return as_json({"course": c.code, **paginate(s, stmt, page, page_size, render)})

    @reader(app, READ)
    def get_student(student: str) -> str:
        """One student by number (S00012), id or e-mail, with the courses they are enrolled in."""
        with session() as s:
            st = _student(s, student)
            rows = s.execute(
                select(LmsEnrollment, LmsCourse)
                .join(LmsCourse, col(LmsCourse.id) == LmsEnrollment.course_id)
                .where(LmsEnrollment.student_id == st.id)
                .order_by(LmsCourse.code)
            ).all()
            courses = [{"course": c.code, "role": e.role, "status": e.status} for e, c in rows]
            return as_json({**fields(st), "enrollments": courses})

    @reader(app, READ)
    def list_assignments(course: str) -> str:
        """Assignments of a course: id, title, kind, due_date, points_possible."""
        with session() as s:
            c = _course(s, course)
            rows = s.execute(
                select(LmsAssignment).where(LmsAssignment.course_id == c.id).order_by(LmsAssignment.due_date)
            )
            return as_json([fields(a) for a in rows.scalars()])

    @reader(app, READ)
    def list_submissions(
        assignment_id: int, status: str | None = None, page: int = 1, page_size: int = 25
    ) -> str:
        """Submissions to an assignment, one page at a time; status: submitted|late|missing|None (all)."""
        with session() as s:
            _assignment(s, assignment_id)
            stmt = (
                select(LmsSubmission, LmsStudent)
                .join(LmsStudent, col(LmsStudent.id) == LmsSubmission.student_id)
                .where(LmsSubmission.assignment_id == assignment_id)
                .order_by(LmsStudent.student_number)
            )
            if status:
                stmt = stmt.where(LmsSubmission.status == one_of(status, SUBMISSION_STATUSES, "status"))

            def render(row: Any) -> dict[str, Any]:
                sub, st = row
                return {
                    "student_number": st.student_number,
                    "name": st.name,
                    "status": sub.status,
                    "submitted_at": sub.submitted_at,
                }

            return as_json(paginate(s, stmt, page, page_size, render))

    @reader(app, READ)
    def get_grades(
        course: str,
        assignment_id: int | None = None,
        student: str | None = None,
        page: int = 1,
        page_size: int = 50,
    ) -> str:
        """Grades in a course, one page at a time, optionally for one assignment and/or one student."""
        with session() as s:
            c = _course(s, course)
            stmt = (
                select(LmsGrade, LmsAssignment, LmsStudent)
                .join(LmsAssignment, col(LmsAssignment.id) == LmsGrade.assignment_id)
                .join(LmsStudent, col(LmsStudent.id) == LmsGrade.student_id)
                .where(LmsAssignment.course_id == c.id)
                .order_by(LmsAssignment.due_date, LmsStudent.student_number)
            )
            if assignment_id is not None:
                if _assignment(s, assignment_id).course_id != c.id:
                    raise ToolError(
                        f"assignment {assignment_id} is not in {c.code}; list_assignments shows its assignments"
                    )
                stmt = stmt.where(LmsGrade.assignment_id == assignment_id)
            if student:
                stmt = stmt.where(LmsGrade.student_id == _student(s, student).id)

            def render(row: Any) -> dict[str, Any]:
                g, a, st = row
                return {
                    "assignment_id": a.id, "assignment": a.title, "student_number": st.student_number, "name": st.name,
                    "score": g.score, "points_possible": a.points_possible, "comment": g.comment,
                }  # fmt: skip

            return as_json(paginate(s, stmt, page, page_size, render))

    @reader(app, READ)
    def list_announcements(course: str) -> str:
        """Announcements of a course, newest first."""
        with session() as s:
            c = _course(s, course)
            rows = s.execute(
                select(LmsAnnouncement)
                .where(LmsAnnouncement.course_id == c.id)
                .order_by(col(LmsAnnouncement.id).desc())
            )
            return as_json([fields(a) for a in rows.scalars()])

    @writer(app, WRITE)
    def set_grade(assignment_id: int, student: str, score: float, comment: str = "") -> str:
        """Record (or correct) a student's score on an assignment; 0 <= score <= points_possible."""
        with session() as s:
            a = _assignment(s, assignment_id)
            st = _student(s, student)
            if not 0 <= score <= a.points_possible:
                raise ToolError(f"score {score} is outside 0..{a.points_possible} for {a.title!r}")
            enrolled = s.execute(
                select(LmsEnrollment).where(
                    LmsEnrollment.course_id == a.course_id, LmsEnrollment.student_id == st.id
                )
            ).scalar_one_or_none()
            if enrolled is None:
                raise ToolError(
                    f"{st.student_number} is not enrolled in the course of assignment {assignment_id}"
                )
            g = s.execute(
                select(LmsGrade).where(LmsGrade.assignment_id == a.id, LmsGrade.student_id == st.id)
            ).scalar_one_or_none()
            if g is None:
                g = LmsGrade(
                    assignment_id=a.id or 0,
                    student_id=st.id or 0,
                    score=score,
                    graded_at=TODAY,
                    comment=comment,
                )
            else:
                g.score, g.graded_at, g.comment = score, TODAY, comment
            s.add(g)
            s.commit()
            return f"Grade saved: {st.student_number} {score}/{a.points_possible} on {a.title!r}."

    @writer(app, WRITE)
    def post_announcement(course: str, title: str, body: str) -> str:
        """Post an announcement to a course; every enrolled student sees it."""
        if not title.strip() or not body.strip():
            raise ToolError("title and body must not be empty")
        with session() as s:
            c = _course(s, course)
            a = LmsAnnouncement(
                course_id=c.id or 0, title=title, body=body, posted_at=TODAY, author=c.instructor
            )
            s.add(a)
            s.commit()
            return f"Announcement {a.id} posted to {c.code}."

    @writer(app, WRITE)
    def update_enrollment(course: str, student: str, status: str) -> str:
        """Change a student's enrollment status in a course: active | dropped | waitlisted."""
        if status not in ENROLLMENT_STATUSES:
            raise ToolError("status must be active, dropped or waitlisted")
        with session() as s:
            c = _course(s, course)
            st = _student(s, student)
            e = s.execute(
                select(LmsEnrollment).where(
                    LmsEnrollment.course_id == c.id, LmsEnrollment.student_id == st.id
                )
            ).scalar_one_or_none()
            if e is None:
                raise ToolError(f"{st.student_number} is not enrolled in {c.code}")
            e.status = status
            s.add(e)
            s.commit()
            return f"{st.student_number} is now {status} in {c.code}."

    @writer(app, WRITE)
    def create_assignment(course: str, title: str, kind: str, due_date: str, points_possible: float) -> str:
        """Create an assignment (kind: homework|quiz|project|exam; due_date YYYY-MM-DD)."""
        if kind not in {"homework", "quiz", "project", "exam"}:
            raise ToolError("kind must be homework, quiz, project or exam")
        due_date = iso_date(due_date, "due_date")
        if finite(points_possible, "points_possible") <= 0:
            raise ToolError("points_possible must be positive")
        with session() as s:
            c = _course(s, course)
            a = LmsAssignment(
                course_id=c.id or 0,
                title=title,
                kind=kind,
                due_date=due_date,
                points_possible=points_possible,
            )
            s.add(a)
            s.commit()
            return f"Assignment {a.id} created in {c.code}."

    return app


SPEC = ServerSpec(
    name="lms",
    description="Learning management system: courses, students, enrollments, assignments, submissions, grades, announcements",
    build=build,
    tables=TABLES,
    seed=seed,
    scenario="LMS",
)
