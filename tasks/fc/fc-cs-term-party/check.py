"""One quote for the party: guests = distinct active members of CS101/CS201/CS305 + 3 instructors,
on the cheapest menu free of nuts and peanuts; each course announces it with date and reference."""

from sqlmodel import Session

from harness.checks import Criterion, World, new_rows, nothing_else_changed
from mcp_servers.kitchen.nutrition import Catalog, menu_summary
from mcp_servers.kitchen.schema import TODAY

COURSES = ["CS101", "CS201", "CS305"]
DAY = "2026-12-11"


def expected_guests(world: World) -> int:
    rows = world.query(
        """SELECT DISTINCT e.student_id FROM lms_enrollment e JOIN lms_course c ON c.id = e.course_id
           WHERE c.code IN ('CS101', 'CS201', 'CS305') AND e.status = 'active'"""
    )
    return len(rows) + len(COURSES)


def cheapest_nut_free_menu(world: World) -> int:
    with Session(world.engine) as s:
        cat = Catalog.load(s)
        prices = {}
        # the seeded menus (a menu made during the episode is dated today), not one the agent made
        for m in world.query("SELECT id FROM kitchen_menu WHERE created_on < :today", today=TODAY):
            summary = menu_summary(s, cat, m["id"])
            if not {"nuts", "peanuts"} & set(summary["allergens"]):
                prices[m["id"]] = summary["price_per_guest"]
    best = min(prices.values())
    assert list(prices.values()).count(best) == 1, "the cheapest nut-free menu must be unique"
    return min(prices, key=prices.get)


def others_changed(world: World) -> list[str]:
    """Changes other than the party's catering order and the announcements in the three courses."""
    courses = {
        r["id"] for r in world.query("SELECT id FROM lms_course WHERE code IN ('CS101', 'CS201', 'CS305')")
    }
    return world.changes(
        "lms",
        "kitchen",
        allow={
            # the party's order; another new one only cancelled (a wrong first try undone)
            "kitchen_catering_order": lambda seeded, final: (
                seeded is None
                and final is not None
                and final["client"] == "Aldermoor University"
                and (final["event_date"] == DAY or final["status"] == "cancelled")
            ),
            "lms_announcement": new_rows("course_id", courses),
        },
    )


def check(world: World) -> list[Criterion]:
    orders = world.query(
        "SELECT * FROM kitchen_catering_order WHERE client = 'Aldermoor University' AND event_date = :d",
        d=DAY,
    )
    out = [Criterion.of("one order", len(orders) == 1, f"{len(orders)} Aldermoor University orders on {DAY}")]
    if not orders:
        return out
    o, guests, menu = orders[0], expected_guests(world), cheapest_nut_free_menu(world)
    out += [
        Criterion.of("guests", o["guests"] == guests, f"{o['guests']} guests, expected {guests}"),
        Criterion.of("menu", o["menu_id"] == menu, f"menu {o['menu_id']}, expected menu {menu}"),
        Criterion.of(
            "contact and note",
            o["contact_email"] == "events@aldermoor-univ.example"
            and "cs end-of-term party" in (o["notes"] or "").lower(),
            f"contact {o['contact_email']!r}, note {o['notes']!r}",
        ),
    ]
    for course in COURSES:
        posts = world.query(
            """SELECT n.title, n.body FROM lms_announcement n JOIN lms_course c ON c.id = n.course_id
               WHERE c.code = :c AND n.posted_at = '2026-11-20'""",
            c=course,
        )
        good = [
            p
            for p in posts
            if p["title"].strip().lower() == "end-of-term party"
            and DAY in p["body"]
            and o["reference"] in p["body"]
        ]
        out.append(
            Criterion.of(
                f"{course} announcement",
                len(good) == 1 == len(posts),
                f"{course}: no single 'End-of-term party' with date and {o['reference']}"
                f" ({len(posts)} announcements posted)",
            )
        )
    out.append(nothing_else_changed(others_changed(world)))
    return out
