"""Finding railway records from what a model types (codes, names, numbers) and rendering them.

Every miss is a ToolError that says which tool lists the valid values.
"""

from __future__ import annotations

import re
from datetime import date
from typing import Any, NamedTuple

from sqlmodel import Session, col, select

from mcp_servers.common.tooling import ToolError
from mcp_servers.common.values import iso_date, numeric_id
from mcp_servers.railway.network import Call, TrainRun, to_minutes
from mcp_servers.railway.schema import (
    SEAT_CLASSES,
    TODAY,
    RailBooking,
    RailFare,
    RailPassenger,
    RailSeatInventory,
    RailStation,
    RailStop,
    RailTicket,
    RailTrain,
)


class TrainRef(NamedTuple):
    id: int
    number: str


WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


def parse_date(value: str, *, future: bool = False) -> date:
    """A date written YYYY-MM-DD; with `future`, today or later."""
    day = date.fromisoformat(iso_date(value, "date"))
    if future and day < date.fromisoformat(TODAY):
        raise ToolError(f"{day.isoformat()} is in the past; today is {TODAY}")
    return day


def parse_time(value: str) -> int:
    try:
        minutes = to_minutes(value.strip())
    except ValueError:
        raise ToolError(f"time {value!r} is not HH:MM") from None
    if not 0 <= minutes < 24 * 60:
        raise ToolError(f"time {value!r} is not HH:MM between 00:00 and 23:59")
    return minutes


def seat_class_of(value: str) -> str:
    v = value.strip().lower()
    if v not in SEAT_CLASSES:
        raise ToolError(f"seat_class must be one of {', '.join(SEAT_CLASSES)}, not {value!r}")
    return v


def station(s: Session, key: str) -> RailStation:
    """A station by code (ALC), exact name, or a name fragment matching exactly one station."""
    k = key.strip()
    found = s.execute(select(RailStation).where(RailStation.code == k.upper())).scalar_one_or_none()
    if found is None:
        matches = [st for st in s.execute(select(RailStation)).scalars() if k.lower() in st.name.lower()]
        exact = [st for st in matches if st.name.lower() == k.lower()]
        if exact or len(matches) == 1:
            return (exact or matches)[0]
        if len(matches) > 1:
            names = ", ".join(f"{m.name} ({m.code})" for m in matches)
            raise ToolError(f"{key!r} matches several stations: {names}; give the code")
        raise ToolError(f"no station {key!r}; search_stations lists names and codes")
    return found


def train(s: Session, number: str) -> RailTrain:
    """A train by number ("IC 105", "ic105") or bare number ("105"); a kind given must match."""
    m = re.fullmatch(r"\s*([A-Za-z]*)\s*([0-9]+)\s*", number)
    if m:
        kind, digits = m.group(1).upper(), m.group(2)
        for t in s.execute(select(RailTrain)).scalars():
            parts = t.number.split()
            if parts[-1] == digits and (not kind or parts[0].upper() == kind):
                return t
    raise ToolError(
        f"no train {number!r}; find_connections or station_departures give train numbers like 'IC 105'"
    )


def passenger(s: Session, key: str) -> RailPassenger:
    """A passenger by number (P00012), id or e-mail."""
    k = key.strip()
    if (n := numeric_id(k)) is not None:
        stmt = select(RailPassenger).where(RailPassenger.id == n)
    elif "@" in k:
        stmt = select(RailPassenger).where(RailPassenger.email == k.lower())
    else:
        stmt = select(RailPassenger).where(RailPassenger.passenger_number == k.upper())
    found = s.execute(stmt).scalar_one_or_none()
    if found is None:
        raise ToolError(
            f"unknown passenger {key!r}; search_passengers finds numbers like P00012, or register_passenger adds one"
        )
    return found


def booking(s: Session, reference: str) -> RailBooking:
    found = s.execute(
        select(RailBooking).where(RailBooking.reference == reference.strip().upper())
    ).scalar_one_or_none()
    if found is None:
        raise ToolError(f"no booking {reference!r}; passenger_bookings lists a passenger's references")
    return found


def inventory(s: Session, train_id: int, day: str, seat_class: str) -> RailSeatInventory | None:
    return s.execute(
        select(RailSeatInventory).where(
            RailSeatInventory.train_id == train_id,
            RailSeatInventory.travel_date == day,
            RailSeatInventory.seat_class == seat_class,
        )
    ).scalar_one_or_none()


def fares(s: Session) -> dict[tuple[str, str], tuple[float, float]]:
    return {(f.kind, f.seat_class): (f.base, f.per_km) for f in s.execute(select(RailFare)).scalars()}


def station_names(s: Session) -> dict[int, RailStation]:
    return {st.id or 0: st for st in s.execute(select(RailStation)).scalars()}


def timetable(s: Session) -> tuple[TrainRun, ...]:
    """Every train with its calls, in memory (a few hundred rows) for the connection search. A
    server reads it once (`ReadOnce(timetable)`): no railway tool writes trains or their stops."""
    calls: dict[int, list[Call]] = {}
    for stop in s.execute(select(RailStop).order_by(col(RailStop.train_id), col(RailStop.seq))).scalars():
        calls.setdefault(stop.train_id, []).append(
            Call(
                stop.station_id,
                stop.seq,
                None if stop.arrives is None else to_minutes(stop.arrives),
                None if stop.departs is None else to_minutes(stop.departs),
                stop.km,
            )
        )
    return tuple(
        TrainRun(t.id or 0, t.number, t.kind, t.runs_on, tuple(calls.get(t.id or 0, ())))
        for t in s.execute(select(RailTrain)).scalars()
    )


def render_booking(s: Session, b: RailBooking) -> dict[str, Any]:
    names = station_names(s)
    p = s.get(RailPassenger, b.passenger_id)
    rows = s.execute(
        select(RailTicket, RailTrain)
        .join(RailTrain, col(RailTrain.id) == RailTicket.train_id)
        .where(RailTicket.booking_id == b.id)
        .order_by(col(RailTicket.leg))
    ).all()
    return {
        "reference": b.reference, "status": b.status, "passenger": p.passenger_number if p else None,
        "passenger_name": p.name if p else None, "travel_date": b.travel_date, "from": names[b.origin_id].name,
        "to": names[b.destination_id].name, "seat_class": b.seat_class, "seats": b.seats, "total_fare": b.total_fare,
        "refund": b.refund, "booked_on": b.booked_on,
        "legs": [
            {"leg": tk.leg, "train": tr.number, "from": names[tk.origin_id].name, "departs": tk.departs,
             "to": names[tk.destination_id].name, "arrives": tk.arrives, "fare": tk.fare}
            for tk, tr in rows
        ],
    }  # fmt: skip
