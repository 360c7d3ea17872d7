"""One 'Open orders review' at the earliest common free 45 minutes next week, listing the large open orders."""

import re
from datetime import date, datetime, timedelta
from typing import Any

from harness.checks import SENDING_MAIL, Criterion, World, new_rows, no_one_else_mailed, nothing_else_changed

ME = "me@company.example"
MINUTES = 45


def busy(world: World, people: list[str], skip: int) -> list[tuple[datetime, datetime]]:
    """Times when any of `people` is taken (declined invitations do not count), and company holidays."""
    rows = world.query(
        """SELECT DISTINCT e.id, e.start, e."end" AS finish FROM calendar_event e
           JOIN calendar_attendee a ON a.event_id = e.id
           WHERE a.response != 'declined' AND a.email IN (:a, :b, :c) AND e.id != :skip
           UNION SELECT e.id, e.start, e."end" AS finish FROM calendar_event e
           JOIN calendar_calendar k ON k.id = e.calendar_id WHERE k.name = 'Company Holidays'""",
        a=people[0],
        b=people[1],
        c=people[2],
        skip=skip,
    )
    return [(datetime.fromisoformat(r["start"]), datetime.fromisoformat(r["finish"])) for r in rows]


def earliest(taken: list[tuple[datetime, datetime]]) -> datetime | None:
    """The first start in 2026-11-23..27, 09:00-17:00, with 45 free minutes (candidates: 09:00 and busy ends)."""
    need = timedelta(minutes=MINUTES)
    for offset in range(5):
        day = date(2026, 11, 23) + timedelta(days=offset)
        opens, closes = datetime(day.year, day.month, day.day, 9), datetime(day.year, day.month, day.day, 17)
        starts = sorted({opens, *(end for _s, end in taken if opens < end < closes)})
        for start in starts:
            if start + need <= closes and all(not (s < start + need and start < e) for s, e in taken):
                return start
    return None


def listed(order: dict[str, Any], lines: list[str]) -> bool:
    """A line names the order, its customer and its amount ('322,376.50', '322376.5', or rounded to
    whole dollars, '322,377': the prompt asks for no precision)."""
    for line in lines:
        if order["order_number"] in line and order["name"].lower() in line.lower():
            numbers = [float(x.replace(",", "")) for x in re.findall(r"\d[\d,]*(?:\.\d+)?", line)]
            if any(abs(n - float(order["amount"])) <= 0.5 + 1e-9 for n in numbers):
                return True
    return False


def others_changed(world: World) -> list[str]:
    """Changes other than the review meeting and its invitees (who is checked on its own), besides mail (to
    the invitees only: the task sends none, but telling them is no damage). The warehouse is read-only."""
    events = world.ids_named("calendar_event", "open orders review")
    return world.changes(
        "calendar",
        "mail",
        allow={
            "calendar_event": new_rows("id", events),
            "calendar_attendee": new_rows("event_id", events),
            **SENDING_MAIL,
        },
    )


def check(world: World) -> list[Criterion]:
    sales = {c["title"]: c["email"] for c in world.rows("mail_contact", department="Sales")}
    guests = [sales["Sales Director"].lower(), sales["Sales Operations Analyst"].lower()]
    events = world.query(
        """SELECT e.id, e.start, e."end" AS finish, e.description FROM calendar_event e
           JOIN calendar_calendar k ON k.id = e.calendar_id
           WHERE k.name = 'Work' AND lower(trim(e.title)) = 'open orders review'"""
    )
    out = [
        Criterion.of("one meeting", len(events) == 1, f"{len(events)} 'Open orders review' events on Work")
    ]
    if len(events) != 1:
        return out
    event = events[0]
    invited = {a["email"].lower() for a in world.rows("calendar_attendee", event_id=event["id"])} - {ME}
    out.append(
        Criterion.of(
            "attendees", set(guests) == invited, f"invited {sorted(invited)}; expected exactly {guests}"
        )
    )
    start, finish = datetime.fromisoformat(event["start"]), datetime.fromisoformat(event["finish"])
    first = earliest(busy(world, [ME, *guests], event["id"]))
    out.append(
        Criterion.of(
            "earliest free 45 minutes",
            start == first and finish - start == timedelta(minutes=MINUTES),
            f"booked {event['start']}-{event['finish']}; the earliest common 45 free minutes start at {first}",
        )
    )
    orders = world.query(
        """SELECT o.order_number, o.status, c.name, SUM(l.line_total) AS amount FROM warehouse_sales_orders o
           JOIN warehouse_sales_lines l ON l.order_id = o.id JOIN warehouse_customers c ON c.id = o.customer_id
           GROUP BY o.id, o.order_number, o.status, c.name"""
    )
    lines = event["description"].splitlines()
    large = [o for o in orders if o["status"] == "open" and float(o["amount"]) >= 50000]
    missing = [o["order_number"] for o in large if not listed(o, lines)]
    # any other order named: a smaller open one, or a large one that is closed or cancelled
    named = set(re.findall(r"SO-\d+", event["description"]))
    extra = sorted(named & {o["order_number"] for o in orders} - {o["order_number"] for o in large})
    out.append(
        Criterion.of(
            "large open orders listed",
            not missing and not extra,
            f"missing or without customer and amount: {missing}; should not be listed: {extra}",
        )
    )
    out.append(nothing_else_changed(others_changed(world)))
    out.append(no_one_else_mailed(world, guests))
    return out
