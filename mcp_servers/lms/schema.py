"""LMS tables. Dates are ISO strings; the world's clock stands at `TODAY`."""

from __future__ import annotations

from sqlalchemy import UniqueConstraint
from sqlmodel import Field, SQLModel

TODAY = "2026-11-20"


class LmsCourse(SQLModel, table=True):
    __tablename__ = "lms_course"
    id: int | None = Field(default=None, primary_key=True)
    code: str = Field(index=True, unique=True)
    title: str
    term: str
    instructor: str
    credits: int
    capacity: int


class LmsStudent(SQLModel, table=True):
    __tablename__ = "lms_student"
    id: int | None = Field(default=None, primary_key=True)
    student_number: str = Field(index=True, unique=True)
    name: str
    email: str = Field(index=True, unique=True)
    major: str
    year: int


class LmsEnrollment(SQLModel, table=True):
    __tablename__ = "lms_enrollment"
    __table_args__ = (UniqueConstraint("course_id", "student_id"),)
    id: int | None = Field(default=None, primary_key=True)
    course_id: int = Field(foreign_key="lms_course.id", index=True)
    student_id: int = Field(foreign_key="lms_student.id", index=True)
    role: str  # student | ta
    status: str  # active | dropped | waitlisted
    enrolled_on: str


class LmsAssignment(SQLModel, table=True):
    __tablename__ = "lms_assignment"
    id: int | None = Field(default=None, primary_key=True)
    course_id: int = Field(foreign_key="lms_course.id", index=True)
    title: str
    kind: str  # homework | quiz | project | exam
    due_date: str
    points_possible: float
    published: bool = True


class LmsSubmission(SQLModel, table=True):
    __tablename__ = "lms_submission"
    __table_args__ = (UniqueConstraint("assignment_id", "student_id"),)
    id: int | None = Field(default=None, primary_key=True)
    assignment_id: int = Field(foreign_key="lms_assignment.id", index=True)
    student_id: int = Field(foreign_key="lms_student.id", index=True)
    status: str  # submitted | late | missing
    submitted_at: str | None = None


class LmsGrade(SQLModel, table=True):
    __tablename__ = "lms_grade"
    __table_args__ = (UniqueConstraint("assignment_id", "student_id"),)
    id: int | None = Field(default=None, primary_key=True)
    assignment_id: int = Field(foreign_key="lms_assignment.id", index=True)
    student_id: int = Field(foreign_key="lms_student.id", index=True)
    score: float
    graded_at: str
    comment: str = ""


class LmsAnnouncement(SQLModel, table=True):
    __tablename__ = "lms_announcement"
    id: int | None = Field(default=None, primary_key=True)
    course_id: int = Field(foreign_key="lms_course.id", index=True)
    title: str
    body: str
    posted_at: str
    author: str


TABLES = (LmsCourse, LmsStudent, LmsEnrollment, LmsAssignment, LmsSubmission, LmsGrade, LmsAnnouncement)
