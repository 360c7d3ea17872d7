"""Each traveller is registered (name as listed, no railcard) and booked out (latest journey arriving by
10:30) and back (first after 17:30) in second class; each has a calendar event for the outbound journey,
titled with their name, and a mail with the trains and their departure times."""

import re
from datetime import date

from sqlmodel import Session

from harness.checks import SENDING_MAIL, Criterion, World, new_rows, no_one_else_mailed, nothing_else_changed
from mcp_servers.mail.schema import sent_mail
from mcp_servers.railway import lookup as find
from mcp_servers.railway.network import Leg, connections, to_hhmm

DAY = "2026-12-03"
HOMES = {  # as workshop_travel.csv (task setup) lists them: email -> (name, home station)
    "kenji.andersen@company.example": ("Kenji Andersen", "Northam"),
    "maya.wagner@company.example": ("Maya Wagner", "Westhaven"),
    "chen.jensen@company.example": ("Chen Jensen", "Southport Harbour"),
    "omar.kowalski@company.example": ("Omar Kowalski", "Harrowgate Junction"),
}


def _squash(text: str) -> str:
    return " ".join(text.split()).lower()


def _says_time(body: str, hhmm: str) -> bool:
    """The time stands in the text as HH:MM (or H:MM before 10:00)."""
    variants = {hhmm, hhmm.lstrip("0") if not hhmm.startswith("00") else hhmm}
    return any(re.search(rf"(?<![\d:]){re.escape(v)}(?![\d]|:\d)", body) for v in variants)


def _plan(world: World, home: str) -> tuple[list[Leg], list[Leg]]:
    with Session(world.engine) as s:
        runs, a, b = find.timetable(s), find.station(s, home).id or 0, find.station(s, "Thornbury").id or 0
    day = date.fromisoformat(DAY)
    out = [j for j in connections(runs, a, b, day, 0, 1) if j[-1].arrives <= 10 * 60 + 30]
    latest = max(out, key=lambda j: (j[0].departs, -len(j), -j[-1].arrives))
    back = connections(runs, b, a, day, 17 * 60 + 30, 1)[0]
    return latest, back


def _booked(world: World, email: str, origin: str, dest: str) -> list[list[str]]:
    """Train numbers of each confirmed second-class single-seat booking of the passenger on DAY."""
    rows = world.query(
        """SELECT b.id, t.number FROM railway_booking b
           JOIN railway_passenger p ON p.id = b.passenger_id
           JOIN railway_station o ON o.id = b.origin_id JOIN railway_station d ON d.id = b.destination_id
           JOIN railway_ticket k ON k.booking_id = b.id JOIN railway_train t ON t.id = k.train_id
           WHERE p.email = :email AND b.travel_date = :day AND b.status = 'confirmed'
             AND b.seat_class = 'second' AND b.seats = 1 AND o.name = :origin AND d.name = :dest
           ORDER BY b.id, k.leg""",
        email=email,
        day=DAY,
        origin=origin,
        dest=dest,
    )
    by_booking: dict[int, list[str]] = {}
    for r in rows:
        by_booking.setdefault(r["id"], []).append(r["number"])
    return list(by_booking.values())


def others_changed(world: World) -> list[str]:
    """Changes other than the travellers' registrations, their bookings with tickets and seats, and their
    journey events with them invited, besides the mail."""
    theirs = {r["id"] for r in world.rows("railway_passenger") if r["email"] in HOMES}
    booked = {r["id"] for r in world.rows("railway_booking") if r["passenger_id"] in theirs}
    events = {
        r["id"]
        for r in world.query(
            "SELECT id FROM calendar_event WHERE lower(trim(title)) LIKE 'train to thornbury workshop%'"
        )
    }
    return world.changes(
        "railway",
        "calendar",
        "mail",
        allow={
            "railway_passenger": new_rows("id", theirs),
            "railway_booking": new_rows("id", booked),
            "railway_ticket": new_rows("booking_id", booked),
            "railway_seat_inventory": lambda seeded, final: {"available"},
            "calendar_event": new_rows("id", events),
            "calendar_attendee": lambda seeded, final: (
                seeded is None
                and final is not None
                and final["event_id"] in events
                and final["email"].lower() in {*HOMES, "me@company.example"}
            ),
            **SENDING_MAIL,
        },
    )


def check(world: World) -> list[Criterion]:
    out = []
    for email, (full_name, home) in HOMES.items():
        name = full_name.split()[0]
        there, back = _plan(world, home)
        want_out, want_back = [lg.train.number for lg in there], [lg.train.number for lg in back]
        registered = world.rows("railway_passenger", email=email)
        out.append(
            Criterion.of(f"{name} registered", len(registered) == 1, f"{email} is not a railway passenger")
        )
        out.append(
            Criterion.of(
                f"{name} name and railcard",
                [(_squash(r["name"]), r["railcard"]) for r in registered] == [(full_name.lower(), "none")],
                f"{email} is registered as {[(r['name'], r['railcard']) for r in registered]}; "
                f"expected {full_name} without a railcard",
            )
        )
        got_out, got_back = _booked(world, email, home, "Thornbury"), _booked(world, email, "Thornbury", home)
        out.append(
            Criterion.of(
                f"{name} outbound", got_out == [want_out], f"outbound bookings {got_out}; expected {want_out}"
            )
        )
        out.append(
            Criterion.of(
                f"{name} return", got_back == [want_back], f"return bookings {got_back}; expected {want_back}"
            )
        )
        start, end = f"{DAY}T{to_hhmm(there[0].departs)}", f"{DAY}T{to_hhmm(there[-1].arrives)}"
        events = world.query(
            """SELECT e.title FROM calendar_event e JOIN calendar_attendee a ON a.event_id = e.id
               JOIN calendar_calendar c ON c.id = e.calendar_id
               WHERE c.name = 'Work' AND a.email = :email AND e.start = :start AND e."end" = :end""",
            email=email,
            start=start,
            end=end,
        )
        title = f"Train to Thornbury workshop ({full_name})"
        titled = [e for e in events if _squash(e["title"]) == title.lower()]
        out.append(
            Criterion.of(
                f"{name} calendar",
                len(titled) == 1,  # one event: a second copy invites the traveller twice
                f"not exactly one Work event '{title}' for {email} from {start} to {end} "
                f"(found {[e['title'] for e in events]})",
            )
        )
        mails = sent_mail(world.engine, to=email, subject_contains="Your trains for the Thornbury workshop")
        legs = [*there, *back]
        trains = [lg.train.number for lg in legs]
        times = [to_hhmm(lg.departs) for lg in legs]
        told = [
            m
            for m in mails
            if all(t.lower().replace(" ", "") in m.body.lower().replace(" ", "") for t in trains)
            and all(_says_time(m.body, t) for t in times)
        ]
        out.append(
            Criterion.of(
                f"{name} mail",
                bool(told),
                f"no mail 'Your trains for the Thornbury workshop' to {email} naming the trains {trains} and their departures {times}",
            )
        )
    out.append(nothing_else_changed(others_changed(world)))
    out.append(no_one_else_mailed(world, HOMES))
    return out
