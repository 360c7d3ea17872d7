"""The `railway` server: read stations, timetables, connections, seats and bookings; book,
cancel and change seat class (SPEC §5, scenario RS).

Seat counts change with atomic `UPDATE ... WHERE available >= n`, so concurrent sub-agents
booking the last seats of one train cannot both succeed.
"""

from __future__ import annotations

import re
import uuid
from datetime import date
from typing import Any

from mcp.server.mcpserver import MCPServer
from sqlalchemy import func, or_
from sqlmodel import Session, col, select

from mcp_servers.common.paging import paginate
from mcp_servers.common.readonce import ReadOnce
from mcp_servers.common.spec import ServerContext, ServerSpec
from mcp_servers.common.tooling import ToolError, as_json, fields, reader, writer
from mcp_servers.common.values import LIKE_ESCAPE, like_pattern, one_of, one_of_any_case
from mcp_servers.railway import lookup as find
from mcp_servers.railway import seats as seating
from mcp_servers.railway.network import (
    connections,
    fare,
    reference_for,
    runs_on,
    to_hhmm,
    to_minutes,
)
from mcp_servers.railway.schema import (
    RAILCARDS,
    TABLES,
    TODAY,
    RailBooking,
    RailPassenger,
    RailSeatInventory,
    RailStation,
    RailStop,
    RailTicket,
    RailTrain,
)
from mcp_servers.railway.seed import seed

BOOKING_STATUSES = ("confirmed", "cancelled", "completed")
_ADDRESS = re.compile(r"[a-z0-9._%+'-]+@[a-z0-9-]+(\.[a-z0-9-]+)*\.[a-z]{2,}")

READ = "railway-schedule-lookup"
WRITE = "record-update"


def build(ctx: ServerContext) -> MCPServer:
    app = MCPServer(
        "railway",
        instructions=f"A national railway: stations, trains, timetables, seats, fares and bookings. Today is {TODAY}.",
    )

    def session() -> Session:
        return Session(ctx.engine)

    timetable = ReadOnce(find.timetable)  # this instance's: its world's trains and stops, read once

    @reader(app, READ)
    def search_stations(query: str = "", region: str | None = None, line: str | None = None) -> str:
        """Stations (code, name, region, lines) whose name or code contains `query` (empty: all 40);
        filter by region (North, Central, South, West, East, Coast, Highlands) or line name."""
        with session() as s:
            stmt = select(RailStation).order_by(RailStation.name)
            if query.strip():
                q = like_pattern(query.strip().lower())
                stmt = stmt.where(
                    or_(
                        func.lower(RailStation.name).like(q, escape=LIKE_ESCAPE),
                        func.lower(RailStation.code).like(q, escape=LIKE_ESCAPE),
                    )
                )
            if region:
                regions = s.execute(select(RailStation.region).distinct()).scalars()
                stmt = stmt.where(
                    func.lower(RailStation.region) == one_of_any_case(region, regions, "region")
                )
            if line:
                stmt = stmt.where(
                    func.lower(RailStation.lines).like(like_pattern(line.strip().lower()), escape=LIKE_ESCAPE)
                )
            return as_json([fields(st, exclude={"id"}) for st in s.execute(stmt).scalars()])

    @reader(app, READ)
    def station_departures(station: str, travel_date: str, after: str = "00:00", limit: int = 20) -> str:
        """Departure board of a station on a date: trains leaving at or after `after` (HH:MM),
        with their number, destination and departure time; `limit` 1 to 50."""
        if not 1 <= limit <= 50:
            raise ToolError(f"limit must be between 1 and 50; got {limit}")
        with session() as s:
            st, day, start = find.station(s, station), find.parse_date(travel_date), find.parse_time(after)
            names = find.station_names(s)
            rows = s.execute(
                select(RailStop, RailTrain)
                .join(RailTrain, col(RailTrain.id) == RailStop.train_id)
                .where(RailStop.station_id == st.id, col(RailStop.departs).is_not(None))
                .order_by(RailStop.departs)
            ).all()
            board = [
                {"train": t.number, "kind": t.kind, "line": t.line, "departs": stop.departs, "to": names[t.destination_id].name}
                for stop, t in rows
                if runs_on(t.runs_on, day) and to_minutes(stop.departs or "") >= start
            ]  # fmt: skip
            return as_json({"station": st.name, "date": day.isoformat(), "departures": board[:limit]})

    @reader(app, READ)
    def find_connections(
        origin: str,
        destination: str,
        travel_date: str,
        depart_after: str = "00:00",
        max_changes: int = 1,
        limit: int = 8,
    ) -> str:
        """Journeys between two stations (code or name) on a date, leaving at or after `depart_after`:
        direct trains and (max_changes=1) journeys with one change. Each gives its legs, duration,
        full fares per seat by class, and the seats left in each class (the lowest over its legs).
        At most `limit` journeys (1-30, default 8), earliest arrival first (then latest departure)."""
        if max_changes not in (0, 1):
            raise ToolError("max_changes must be 0 (direct only) or 1")
        if not 1 <= limit <= 30:
            raise ToolError(f"limit must be between 1 and 30; got {limit}")
        with session() as s:
            a, b = find.station(s, origin), find.station(s, destination)
            if a.id == b.id:
                raise ToolError("origin and destination are the same station")
            day, start = find.parse_date(travel_date), find.parse_time(depart_after)
            names, prices = find.station_names(s), find.fares(s)
            found = connections(timetable.get(s), a.id or 0, b.id or 0, day, start, max_changes)
            options = []
            for journey in found[:limit]:
                left: dict[str, int | None] = {}
                for seat_class in ("first", "second"):
                    invs = [find.inventory(s, lg.train.id, day.isoformat(), seat_class) for lg in journey]
                    left[seat_class] = (
                        None if any(i is None for i in invs) else min(i.available for i in invs if i)
                    )
                options.append({
                    "legs": [{"train": lg.train.number, "from": names[lg.board.station_id].name, "departs": to_hhmm(lg.departs),
                              "to": names[lg.alight.station_id].name, "arrives": to_hhmm(lg.arrives), "km": lg.km} for lg in journey],
                    "departs": to_hhmm(journey[0].departs), "arrives": to_hhmm(journey[-1].arrives),
                    "duration_min": journey[-1].arrives - journey[0].departs, "changes": len(journey) - 1,
                    "fare": {c: round(sum(fare(*prices[(lg.train.kind, c)], lg.km) for lg in journey), 2) for c in ("first", "second")},
                    "seats_left": left,
                })  # fmt: skip
            return as_json({"from": a.name, "to": b.name, "date": day.isoformat(), "options": options})

    @reader(app, READ)
    def get_timetable(train: str) -> str:
        """A train's timetable: line, kind, weekdays it runs (1 = Monday), and every call with times and km."""
        with session() as s:
            t = find.train(s, train)
            names = find.station_names(s)
            stops = s.execute(
                select(RailStop).where(RailStop.train_id == t.id).order_by(col(RailStop.seq))
            ).scalars()
            return as_json({
                "train": t.number, "kind": t.kind, "line": t.line, "runs_on": t.runs_on,
                "calls": [{"station": names[x.station_id].name, "code": names[x.station_id].code, "arrives": x.arrives,
                           "departs": x.departs, "km": x.km} for x in stops],
            })  # fmt: skip

    @reader(app, READ)
    def seat_availability(train: str, travel_date: str) -> str:
        """Seats of a train on a date by class: capacity and seats still available."""
        with session() as s:
            t, day = find.train(s, train), find.parse_date(travel_date)
            if not runs_on(t.runs_on, day):
                raise ToolError(
                    f"{t.number} does not run on {find.WEEKDAYS[day.weekday()]}s; it runs on days {t.runs_on} (1 = Monday)"
                )
            rows = s.execute(
                select(RailSeatInventory)
                .where(RailSeatInventory.train_id == t.id, RailSeatInventory.travel_date == day.isoformat())
                .order_by(RailSeatInventory.seat_class)
            ).scalars().all()  # fmt: skip
            if not rows:
                raise ToolError(
                    f"no seats on sale for {day.isoformat()}: sales run from {TODAY} for five weeks"
                )
            return as_json({"train": t.number, "date": day.isoformat(),
                            "classes": [{"seat_class": r.seat_class, "capacity": r.capacity, "available": r.available} for r in rows]})  # fmt: skip

    @reader(app, READ)
    def search_passengers(query: str, page: int = 1, page_size: int = 20) -> str:
        """Passengers whose name, e-mail or number contains `query`, one page at a time (`total` says
        how many match): number, name, email, railcard."""
        if not query.strip():
            raise ToolError("give part of a name, an e-mail or a passenger number")
        with session() as s:
            q = like_pattern(query.strip().lower())
            stmt = select(RailPassenger).where(or_(
                func.lower(RailPassenger.name).like(q, escape=LIKE_ESCAPE),
                func.lower(RailPassenger.email).like(q, escape=LIKE_ESCAPE),
                func.lower(RailPassenger.passenger_number).like(q, escape=LIKE_ESCAPE),
            )).order_by(RailPassenger.passenger_number)  # fmt: skip
            return as_json(paginate(s, stmt, page, page_size, lambda row: fields(row[0], exclude={"id"})))

    @reader(app, READ)
    def get_booking(reference: str) -> str:
        """A booking by its six-character reference: passenger, status, journey, legs, fares, refund."""
        with session() as s:
            return as_json(find.render_booking(s, find.booking(s, reference)))

    @reader(app, READ)
    def passenger_bookings(
        passenger: str, status: str | None = None, page: int = 1, page_size: int = 20
    ) -> str:
        """A passenger's bookings (number P00012, id or e-mail), newest travel date first, one page at
        a time; status: confirmed | cancelled | completed | None (all)."""
        with session() as s:
            p = find.passenger(s, passenger)
            stmt = (
                select(RailBooking)
                .where(RailBooking.passenger_id == p.id)
                .order_by(col(RailBooking.travel_date).desc(), col(RailBooking.id))
            )
            if status:
                stmt = stmt.where(RailBooking.status == one_of(status, BOOKING_STATUSES, "status"))
            names = find.station_names(s)

            def render(row: Any) -> dict[str, Any]:
                b = row[0]
                return {"reference": b.reference, "status": b.status, "travel_date": b.travel_date, "from": names[b.origin_id].name,
                        "to": names[b.destination_id].name, "seat_class": b.seat_class, "seats": b.seats, "total_fare": b.total_fare}  # fmt: skip

            return as_json(
                {
                    "passenger": p.passenger_number,
                    "name": p.name,
                    "railcard": p.railcard,
                    **paginate(s, stmt, page, page_size, render),
                }
            )

    @reader(app, READ)
    def train_bookings(
        train: str, travel_date: str, status: str | None = None, page: int = 1, page_size: int = 20
    ) -> str:
        """Who is booked on a train on a date (its manifest): every booking with a leg on it, by
        reference, with the passenger, where that leg boards and alights, class and seats, one page
        at a time; status: confirmed | cancelled | completed | None (all)."""
        if status is not None and status not in BOOKING_STATUSES:
            raise ToolError(
                f"unknown status {status!r}: use one of {', '.join(BOOKING_STATUSES)}, or none for all"
            )
        with session() as s:
            t, day = find.train(s, train), find.parse_date(travel_date)
            stmt = (
                select(RailTicket, RailBooking, RailPassenger)
                .join(RailBooking, col(RailBooking.id) == RailTicket.booking_id)
                .join(RailPassenger, col(RailPassenger.id) == RailBooking.passenger_id)
                .where(RailTicket.train_id == t.id, RailTicket.travel_date == day.isoformat())
                .order_by(col(RailBooking.reference))
            )
            if status:
                stmt = stmt.where(RailBooking.status == status)
            names = find.station_names(s)

            def render(row: Any) -> dict[str, Any]:
                tk, b, p = row
                return {"reference": b.reference, "status": b.status, "passenger": p.passenger_number, "name": p.name,
                        "email": p.email, "boards": names[tk.origin_id].name, "departs": tk.departs,
                        "alights": names[tk.destination_id].name, "arrives": tk.arrives, "seat_class": b.seat_class,
                        "seats": b.seats}  # fmt: skip

            return as_json(
                {"train": t.number, "date": day.isoformat(), **paginate(s, stmt, page, page_size, render)}
            )

    @writer(app, WRITE)
    def register_passenger(name: str, email: str, railcard: str = "none") -> str:
        """Register a new passenger; railcard: none | youth (25% off) | senior (30%) | family (20%)."""
        if not name.strip() or not _ADDRESS.fullmatch(email.strip().lower()):
            raise ToolError("give a name and a valid e-mail address, like 'ana.ruiz@mail.example'")
        if railcard not in RAILCARDS:
            raise ToolError(f"railcard must be one of {', '.join(RAILCARDS)}")
        with session() as s:
            if s.execute(select(RailPassenger).where(RailPassenger.email == email.strip().lower())).first():
                raise ToolError(
                    f"a passenger with e-mail {email} exists already; search_passengers finds them"
                )
            p = RailPassenger(
                passenger_number=f"tmp-{uuid.uuid4().hex}",
                name=name.strip(),
                email=email.strip().lower(),
                railcard=railcard,
            )
            s.add(p)
            s.flush()
            p.passenger_number = f"P{p.id:05d}"
            s.commit()
            s.refresh(p)
            return as_json(fields(p, exclude={"id"}))

    @writer(app, WRITE)
    def book_journey(
        passenger: str, origin: str, destination: str, travel_date: str, trains: list[str],
        seat_class: str = "second", seats: int = 1, change_at: str | None = None,
    ) -> str:  # fmt: skip
        """Book seats for a passenger: `trains` is one train number for a direct journey, or two for
        a journey with one change (the change station is found, or give `change_at`). Takes seats
        from the inventory and charges the fare less the passenger's railcard discount. Returns the booking."""
        if not 1 <= len(trains) <= 2:
            raise ToolError("trains must hold one train number (direct) or two (one change)")
        if not 1 <= seats <= 9:
            raise ToolError("seats must be between 1 and 9 per booking")
        cls = find.seat_class_of(seat_class)
        with session() as s:
            p = find.passenger(s, passenger)
            a, b = find.station(s, origin), find.station(s, destination)
            day = find.parse_date(travel_date, future=True)
            legs = seating.journey_legs(s, timetable.get(s), trains, a, b, day, change_at)
            prices, discount = find.fares(s), RAILCARDS[p.railcard]
            leg_fares = [round(fare(*prices[(lg.train.kind, cls)], lg.km, discount, seats), 2) for lg in legs]
            for lg in legs:
                seating.take_seats(
                    s, find.TrainRef(lg.train.id, lg.train.number), day.isoformat(), cls, seats
                )
            bk = RailBooking(
                reference=f"tmp-{uuid.uuid4().hex}", passenger_id=p.id or 0, status="confirmed", booked_on=TODAY,
                travel_date=day.isoformat(), origin_id=a.id or 0, destination_id=b.id or 0, seat_class=cls,
                seats=seats, total_fare=round(sum(leg_fares), 2),
            )  # fmt: skip
            s.add(bk)
            s.flush()
            bk.reference = reference_for(bk.id or 0)
            for i, (lg, price) in enumerate(zip(legs, leg_fares, strict=True), start=1):
                s.add(RailTicket(
                    booking_id=bk.id or 0, leg=i, train_id=lg.train.id, travel_date=day.isoformat(),
                    origin_id=lg.board.station_id, destination_id=lg.alight.station_id, departs=to_hhmm(lg.departs),
                    arrives=to_hhmm(lg.arrives), seat_class=cls, fare=price,
                ))  # fmt: skip
            s.commit()
            return as_json(find.render_booking(s, bk))

    @writer(app, WRITE, destructive=True)
    def cancel_booking(reference: str) -> str:
        """Cancel a confirmed booking and release its seats. Refund: the full fare from 7 days before
        travel, half from 2 days before, nothing later. Travelled or cancelled bookings cannot be cancelled."""
        with session() as s:
            bk = find.booking(s, reference)
            if bk.status != "confirmed":
                raise ToolError(
                    f"booking {bk.reference} is {bk.status}; only confirmed bookings can be cancelled"
                )
            travel = find.parse_date(bk.travel_date)
            if travel < date.fromisoformat(TODAY):
                raise ToolError(f"booking {bk.reference} was for {bk.travel_date}, which has passed")
            for tk in s.execute(select(RailTicket).where(RailTicket.booking_id == bk.id)).scalars():
                seating.release_seats(s, tk.train_id, tk.travel_date, tk.seat_class, bk.seats)
            bk.status, bk.refund = "cancelled", round(bk.total_fare * seating.refund_share(travel), 2)
            s.add(bk)
            s.commit()
            return f"Booking {bk.reference} cancelled; {bk.seats} seat(s) released; refund {bk.refund:.2f} of {bk.total_fare:.2f}."

    @writer(app, WRITE)
    def change_seat_class(reference: str, seat_class: str) -> str:
        """Move every leg of a confirmed, upcoming booking to another class (first | second): seats
        move between classes and the fare is recomputed; the result says what is due or refunded."""
        cls = find.seat_class_of(seat_class)
        with session() as s:
            bk = find.booking(s, reference)
            if bk.status != "confirmed":
                raise ToolError(
                    f"booking {bk.reference} is {bk.status}; only confirmed bookings can change class"
                )
            find.parse_date(bk.travel_date, future=True)
            if bk.seat_class == cls:
                raise ToolError(f"booking {bk.reference} is already in {cls} class")
            p = s.get(RailPassenger, bk.passenger_id)
            prices, discount = find.fares(s), RAILCARDS[p.railcard if p else "none"]
            tickets = (
                s.execute(
                    select(RailTicket).where(RailTicket.booking_id == bk.id).order_by(col(RailTicket.leg))
                )
                .scalars()
                .all()
            )
            old_total = bk.total_fare
            for tk in tickets:
                t = s.get(RailTrain, tk.train_id)
                assert t is not None
                seating.take_seats(s, find.TrainRef(t.id or 0, t.number), tk.travel_date, cls, bk.seats)
                seating.release_seats(s, tk.train_id, tk.travel_date, bk.seat_class, bk.seats)
                a = s.execute(
                    select(RailStop).where(RailStop.train_id == t.id, RailStop.station_id == tk.origin_id)
                ).scalar_one()
                z = s.execute(
                    select(RailStop).where(
                        RailStop.train_id == t.id, RailStop.station_id == tk.destination_id
                    )
                ).scalar_one()
                tk.seat_class, tk.fare = (
                    cls,
                    round(fare(*prices[(t.kind, cls)], round(z.km - a.km, 1), discount, bk.seats), 2),
                )
                s.add(tk)
            bk.seat_class, bk.total_fare = cls, round(sum(tk.fare for tk in tickets), 2)
            s.add(bk)
            s.commit()
            diff = round(bk.total_fare - old_total, 2)
            due = f"{diff:.2f} is due" if diff > 0 else f"{-diff:.2f} is refunded"
            return f"Booking {bk.reference} moved to {cls} class; new fare {bk.total_fare:.2f}; {due}."

    return app


SPEC = ServerSpec(
    name="railway",
    description="Railway system: stations, trains, timetables, seat inventory, fares, passengers, bookings",
    build=build,
    tables=TABLES,
    seed=seed,
    scenario="RS",
)
