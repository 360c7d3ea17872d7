"""Every missing submission of the ungraded CS201 assignment has a 0 with 'no submission'; nothing else graded."""

from harness.checks import Criterion, World


def check(world: World) -> list[Criterion]:
    pending = world.query(
        """SELECT a.id FROM lms_assignment a JOIN lms_course c ON c.id = a.course_id
           WHERE c.code = 'CS201' AND a.title = 'Project 4'"""
    )[0]["id"]
    missing = {r["student_id"] for r in world.rows("lms_submission", assignment_id=pending, status="missing")}
    grades = world.rows("lms_grade", assignment_id=pending)
    zeros = {
        g["student_id"] for g in grades if g["score"] == 0 and g["comment"].strip().lower() == "no submission"
    }
    return [
        Criterion.of(
            "missing graded 0",
            missing <= zeros,
            f"{len(missing - zeros)} missing submissions lack a 0 with 'no submission'",
        ),
        Criterion.of(
            "no one else graded",
            {g["student_id"] for g in grades} <= missing,
            f"{len(grades)} grades recorded, {len(missing)} expected",
        ),
        Criterion.of("something graded", bool(missing) and bool(grades), "no grade was recorded"),
    ]
