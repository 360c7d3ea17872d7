"""Every missing submission of the ungraded CS201 assignment has a 0 with 'no submission'; nothing else graded."""

from typing import Any

from sqlalchemy import create_engine, text

from harness.checks import Criterion, World, nothing_else_changed


def seeded_grades() -> dict[tuple[int, int], tuple[Any, ...]]:
    """The seeded world's grades (the lms seed alone, in memory), by (assignment, student)."""
    from mcp_servers.common import registry
    from mcp_servers.common.worldstate import seed_into

    engine = create_engine("sqlite://")
    try:
        with engine.begin() as conn:
            seed_into(conn, [registry.spec("lms")])
            rows = conn.execute(
                text("SELECT assignment_id, student_id, score, graded_at, comment FROM lms_grade")
            )
            return {(r[0], r[1]): tuple(r[2:]) for r in rows}
    finally:
        engine.dispose()


def others_changed(world: World) -> list[str]:
    """Changes to the LMS other than grades of CS201 Project 4 (whose are checked on their own)."""
    pending = world.query(
        """SELECT a.id FROM lms_assignment a JOIN lms_course c ON c.id = a.course_id
           WHERE c.code = 'CS201' AND a.title = 'Project 4'"""
    )[0]["id"]
    return world.changes(
        "lms",
        allow={
            "lms_grade": lambda seeded, final: (final or seeded or {}).get("assignment_id") == pending,
        },
    )


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
    # every grade outside the task (other assignments, other students) as it was seeded
    before = seeded_grades()
    after = {
        (g["assignment_id"], g["student_id"]): (g["score"], g["graded_at"], g["comment"])
        for g in world.rows("lms_grade")
        if not (g["assignment_id"] == pending and g["student_id"] in missing)
    }
    changed = sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))
    return [
        Criterion.of(
            "missing graded 0",
            missing <= zeros,
            f"{len(missing - zeros)} missing submissions lack a 0 with 'no submission'",
        ),
        Criterion.of(
            "no one else graded",
            not changed,
            f"{len(changed)} grades other than the missing submissions of assignment {pending} were recorded or changed "
            f"(assignment, student): {changed[:5]}",
        ),
        Criterion.of("something graded", bool(missing) and bool(grades), "no grade was recorded"),
        nothing_else_changed(others_changed(world)),
    ]
