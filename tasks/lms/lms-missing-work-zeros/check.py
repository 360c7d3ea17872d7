"""Every missing submission of the ungraded CS201 assignment has a 0 with 'no submission'; nothing else graded."""

from typing import Any

from harness.checks import Criterion, World, nothing_else_changed


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

    # every grade other than those of the missing submissions, as it was seeded
    def asked(seeded: dict[str, Any] | None, final: dict[str, Any] | None) -> bool:
        row = final or seeded or {}
        return row.get("assignment_id") == pending and row.get("student_id") in missing

    changed = world.changes("lms", allow={"lms_grade": asked})
    graded = [line for line in changed if line.startswith("lms_grade ")]  # a criterion of their own
    others = [line for line in changed if not line.startswith("lms_grade ")]
    return [
        Criterion.of(
            "missing graded 0",
            missing <= zeros,
            f"{len(missing - zeros)} missing submissions lack a 0 with 'no submission'",
        ),
        Criterion.of(
            "no one else graded",
            not graded,
            f"{len(graded)} grades other than the missing submissions of assignment {pending} were recorded or "
            f"changed: {'; '.join(graded[:5])}",
        ),
        Criterion.of("something graded", bool(missing) and bool(grades), "no grade was recorded"),
        nothing_else_changed(others),
    ]
