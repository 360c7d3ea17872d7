"""Jordan Lee is registered (no railcard) and booked to Riverton on Friday (first train after 19:00, first class if second
is sold out) and back on Sunday (last train before 17:00); both trains are on the Personal calendar; nothing else is booked."""

from datetime import date

from sqlmodel import Session

from harness.checks import Criterion, World, new_rows, nothing_else_changed
from mcp_servers.railway import lookup as find
from mcp_servers.railway.network import Leg, connections, to_hhmm

ME = "me@company.example"


def _direct(world: World, a: str, b: str, day: str) -> list[Leg]:
    with Session(world.engine) as s:
        runs, x, y = find.timetable(s), find.station(s, a).id or 0, find.station(s, b).id or 0
    return [j[0] for j in connections(runs, x, y, date.fromisoformat(day), 0, 0)]


def _booking(world: World, day: str, origin: str) -> list[dict]:
    return world.query(
        """SELECT b.seat_class, b.seats, t.number FROM railway_booking b
           JOIN railway_passenger p ON p.id = b.passenger_id JOIN railway_station o ON o.id = b.origin_id
           JOIN railway_ticket k ON k.booking_id = b.id JOIN railway_train t ON t.id = k.train_id
           WHERE p.email = :me AND b.travel_date = :day AND o.name = :origin AND b.status = 'confirmed'""",
        me=ME,
        day=day,
        origin=origin,
    )


def _on_calendar(world: World, leg: Leg, day: str) -> bool:
    events = world.query(
        """SELECT e.title FROM calendar_event e JOIN calendar_calendar c ON c.id = e.calendar_id
           WHERE c.name = 'Personal' AND e.start = :s AND e."end" = :e""",
        s=f"{day}T{to_hhmm(leg.departs)}",
        e=f"{day}T{to_hhmm(leg.arrives)}",
    )
    # one event per train: a second copy of it is clutter in my calendar
    return sum(leg.train.number.replace(" ", "") in e["title"].replace(" ", "") for e in events) == 1


def others_changed(world: World) -> list[str]:
    """Changes other than my registration, my bookings with their tickets and seats, and my two Personal events."""
    mine = {r["id"] for r in world.rows("railway_passenger", email=ME)}
    booked = {r["id"] for r in world.rows("railway_booking") if r["passenger_id"] in mine}
    personal = {r["id"] for r in world.rows("calendar_calendar", name="Personal")}
    return world.changes(
        "railway",
        "calendar",
        allow={
            "railway_passenger": new_rows("id", mine),
            "railway_booking": new_rows("id", booked),
            "railway_ticket": new_rows("booking_id", booked),
            "railway_seat_inventory": lambda seeded, final: {"available"},
            "calendar_event": new_rows("calendar_id", personal),
            "calendar_attendee": new_rows("email", {ME}),
        },
    )


def check(world: World) -> list[Criterion]:
    friday = min(
        (lg for lg in _direct(world, "Aldermoor Central", "Riverton", "2026-11-27") if lg.departs >= 19 * 60),
        key=lambda lg: lg.departs,
    )
    second_left = world.query(
        """SELECT i.available FROM railway_seat_inventory i JOIN railway_train t ON t.id = i.train_id
           WHERE t.number = :n AND i.travel_date = '2026-11-27' AND i.seat_class = 'second'""",
        n=friday.train.number,
    )[0]["available"]
    cls = "second" if second_left > 0 else "first"
    sunday = max(
        (lg for lg in _direct(world, "Riverton", "Aldermoor Central", "2026-11-29") if lg.departs < 17 * 60),
        key=lambda lg: lg.departs,
    )
    out_b, back_b = (
        _booking(world, "2026-11-27", "Aldermoor Central"),
        _booking(world, "2026-11-29", "Riverton"),
    )
    want_out = [{"seat_class": cls, "seats": 1, "number": friday.train.number}]
    want_back = [{"seat_class": "second", "seats": 1, "number": sunday.train.number}]
    me = world.rows("railway_passenger", email=ME)
    booked = world.query(
        """SELECT b.reference, b.travel_date FROM railway_booking b JOIN railway_passenger p ON p.id = b.passenger_id
           WHERE p.email = :me AND b.status = 'confirmed'""",
        me=ME,
    )
    return [
        Criterion.of("registered", len(me) == 1, f"{ME} is not a passenger"),
        Criterion.of(
            "name and railcard",
            [(" ".join(r["name"].split()).lower(), r["railcard"]) for r in me] == [("jordan lee", "none")],
            f"registered as {[(r['name'], r['railcard']) for r in me]}; expected Jordan Lee without a railcard",
        ),
        Criterion.of("friday booking", out_b == want_out, f"Friday bookings {out_b}; expected {want_out}"),
        Criterion.of(
            "sunday booking", back_b == want_back, f"Sunday bookings {back_b}; expected {want_back}"
        ),
        Criterion.of(
            "nothing else booked",
            len(booked) == 2,
            f"{len(booked)} confirmed bookings: {[(b['reference'], b['travel_date']) for b in booked]}; expected 2",
        ),
        Criterion.of(
            "friday on calendar",
            _on_calendar(world, friday, "2026-11-27"),
            f"not exactly one Personal event for {friday.train.number}",
        ),
        Criterion.of(
            "sunday on calendar",
            _on_calendar(world, sunday, "2026-11-29"),
            f"not exactly one Personal event for {sunday.train.number}",
        ),
        nothing_else_changed(others_changed(world)),
    ]
