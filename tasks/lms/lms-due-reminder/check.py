"""A CS101 announcement names the open assignment and its due date; nothing else in the LMS changed."""

from harness.checks import Criterion, World, nothing_else_changed


def check(world: World) -> list[Criterion]:
    open_ = world.query(
        """SELECT a.title, a.due_date FROM lms_assignment a JOIN lms_course c ON c.id = a.course_id
           WHERE c.code = 'CS101' AND a.due_date > '2026-11-20' ORDER BY a.due_date LIMIT 1"""
    )[0]
    posts = world.query(
        """SELECT n.title, n.body FROM lms_announcement n JOIN lms_course c ON c.id = n.course_id
           WHERE c.code = 'CS101' AND n.posted_at = '2026-11-20'"""
    )
    elsewhere = world.query(
        """SELECT c.code FROM lms_announcement n JOIN lms_course c ON c.id = n.course_id
           WHERE c.code != 'CS101' AND n.posted_at = '2026-11-20'"""
    )
    good = [
        p for p in posts
        if p["title"].strip().lower() == f"reminder: {open_['title']}".lower()
        and open_["title"].lower() in p["body"].lower() and open_["due_date"] in p["body"]
    ]  # fmt: skip
    # the new announcement is the only change to the LMS (its course and count are checked below)
    changed = world.changes(
        "lms", allow={"lms_announcement": lambda seeded, final: seeded is None and final is not None}
    )
    return [
        Criterion.of(
            "reminder posted",
            bool(good),
            f"no new CS101 announcement titled 'Reminder: {open_['title']}' naming {open_['due_date']}",
        ),
        Criterion.of("exactly one", len(posts) == 1, f"{len(posts)} announcements were posted"),
        Criterion.of(
            "only in CS101",
            not elsewhere,
            f"announcements were also posted in {sorted({r['code'] for r in elsewhere})}",
        ),
        nothing_else_changed(changed),
    ]
