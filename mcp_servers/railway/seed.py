"""Deterministic railway data: 40 stations on 7 lines, 74 trains (72 regular services and two
extras), seats for five weeks from `TODAY`, 200 passengers and 420 bookings (past, upcoming and
cancelled)."""

from __future__ import annotations

import random
from datetime import date, timedelta
from typing import Any

from sqlalchemy import insert
from sqlmodel import Session

from mcp_servers.common.names import people
from mcp_servers.railway.network import fare, reference_for, runs_on, to_hhmm
from mcp_servers.railway.schema import (
    RAILCARDS,
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

SALE_DAYS = 35  # seats are on sale from TODAY for five weeks
# name: (code, region); "*" marks the major stations where InterCity trains call.
STATIONS = {
    "Northam*": ("NTH", "North"), "Brackenfield": ("BRK", "North"), "Wexley": ("WEX", "North"),
    "Eastwick Parkway*": ("EWP", "North"), "Harrowgate Junction*": ("HGJ", "Central"),
    "Aldermoor Central*": ("ALC", "Central"), "Millbrook": ("MIL", "Central"), "Fenwick": ("FEN", "Central"),
    "Stonebridge*": ("STB", "South"), "Dunmore": ("DUN", "South"), "Riverton*": ("RIV", "South"),
    "Southport Harbour*": ("SPH", "South"), "Westhaven*": ("WHV", "West"), "Cliffmoor*": ("CLM", "West"),
    "Oakridge": ("OAK", "West"), "Bramwell": ("BRW", "West"), "Larkspur*": ("LKS", "Central"),
    "Greenmarsh": ("GRM", "East"), "Thornbury*": ("THB", "East"), "Kestrel Bay*": ("KBY", "East"),
    "Eastcombe*": ("ECM", "East"), "Sandmere": ("SDM", "Coast"), "Gullhaven": ("GUL", "Coast"),
    "Port Ellis*": ("PEL", "Coast"), "Marrow Cove": ("MRC", "Coast"), "Saltash Quay": ("SAQ", "Coast"),
    "Elmstead": ("ELM", "Central"), "Copperhill": ("CPH", "Central"), "Orchard Hill": ("ORH", "East"),
    "Redbridge": ("RED", "East"), "Ivybridge Mills": ("IVM", "East"), "Pinecrest": ("PIN", "Highlands"),
    "Glenmoor*": ("GLN", "Highlands"), "Ravenscar": ("RVS", "Highlands"), "Lochary": ("LOC", "Highlands"),
    "Aldermoor Docklands": ("ALD", "Central"), "Aldermoor Airport*": ("ALA", "Central"),
    "Hollins Ferry": ("HOF", "East"), "Ferncastle": ("FCS", "East"), "Brightwater*": ("BWT", "East"),
}  # fmt: skip
# line: (train-number base, [(station, km)], [(kind, first departure, weekday pattern)] per direction
LINES: dict[str, tuple[int, list[tuple[str, float]], list[tuple[str, str, str]]]] = {
    "Meridian Main Line": (100, [
        ("Northam", 0), ("Brackenfield", 38), ("Wexley", 61), ("Eastwick Parkway", 90),
        ("Harrowgate Junction", 124), ("Aldermoor Central", 171), ("Millbrook", 203), ("Fenwick", 236),
        ("Stonebridge", 268), ("Dunmore", 301), ("Riverton", 335), ("Southport Harbour", 372)],
        [("InterCity", "06:00", "12345"), ("Regional", "07:10", "1234567"), ("InterCity", "09:00", "1234567"),
         ("Regional", "11:10", "1234567"), ("InterCity", "12:00", "1234567"), ("InterCity", "15:00", "1234567"),
         ("Regional", "16:10", "1234567"), ("InterCity", "18:00", "1234567")]),
    "Westway Line": (300, [
        ("Westhaven", 0), ("Cliffmoor", 34), ("Oakridge", 70), ("Bramwell", 96), ("Larkspur", 128),
        ("Aldermoor Central", 160), ("Greenmarsh", 189), ("Thornbury", 221), ("Kestrel Bay", 258), ("Eastcombe", 290)],
        [("InterCity", "06:30", "12345"), ("Regional", "08:05", "1234567"), ("InterCity", "10:30", "1234567"),
         ("Regional", "13:05", "1234567"), ("InterCity", "14:30", "1234567"), ("InterCity", "17:30", "1234567"),
         ("Regional", "18:05", "1234567")]),
    "Coastal Line": (500, [
        ("Southport Harbour", 0), ("Sandmere", 27), ("Gullhaven", 55), ("Port Ellis", 88), ("Marrow Cove", 119),
        ("Saltash Quay", 146), ("Westhaven", 178)],
        [("Regional", "07:20", "1234567"), ("InterCity", "09:45", "1234567"), ("Regional", "12:20", "1234567"),
         ("InterCity", "15:45", "1234567"), ("Regional", "17:20", "1234567")]),
    "Valley Line": (600, [
        ("Harrowgate Junction", 0), ("Elmstead", 22), ("Copperhill", 47), ("Orchard Hill", 60), ("Redbridge", 71),
        ("Ivybridge Mills", 93), ("Thornbury", 118)],
        [("Regional", "06:50", "1234567"), ("Regional", "10:50", "1234567"), ("Regional", "14:50", "1234567"),
         ("Regional", "19:50", "67")]),
    "Highland Line": (700, [
        ("Northam", 0), ("Pinecrest", 41), ("Glenmoor", 79), ("Ravenscar", 116), ("Lochary", 140), ("Cliffmoor", 171)],
        [("Regional", "07:40", "1234567"), ("InterCity", "11:40", "567"), ("Regional", "15:40", "1234567")]),
    "Airport Link": (800, [("Aldermoor Central", 0), ("Aldermoor Docklands", 6), ("Aldermoor Airport", 18)],
        [("Regional", f"{h:02d}:15", "1234567") for h in range(6, 22, 3)]),
    "Eastern Branch": (900, [("Eastcombe", 0), ("Hollins Ferry", 30), ("Ferncastle", 58), ("Brightwater", 85)],
        [("Regional", "07:00", "1234567"), ("Regional", "12:00", "1234567"), ("Regional", "17:45", "1234567")]),
}  # fmt: skip
# Trains beyond the lines' regular services, each in one direction only (from `origin`), numbered
# after its line's regular trains. They are seeded last with random numbers of their own, so the
# regular trains' seats and the bookings stay as they were. Their days give the day-of-travel
# conditions of the tasks something to exclude: a weekday-only Highland Line train from Northam
# and a weekend-only InterCity from Southport Harbour.
# (line, number, kind, origin, first departure, weekday pattern)
EXTRA_TRAINS: list[tuple[str, str, str, str, str, str]] = [
    ("Highland Line", "RE 707", "Regional", "Northam", "09:40", "12345"),
    ("Meridian Main Line", "IC 117", "InterCity", "Southport Harbour", "13:30", "67"),
]
SPEED_KMH = {"InterCity": 150, "Regional": 85}
DWELL_MINUTES = 2
PREFIX = {"InterCity": "IC", "Regional": "RE"}
CAPACITY = {("InterCity", "first"): 60, ("InterCity", "second"): 300, ("Regional", "first"): 24, ("Regional", "second"): 180}  # fmt: skip
FARES = {("InterCity", "first"): (8.0, 0.28), ("InterCity", "second"): (4.0, 0.14), ("Regional", "first"): (5.0, 0.20), ("Regional", "second"): (2.5, 0.10)}  # fmt: skip
MAJOR = {n.rstrip("*") for n in STATIONS if n.endswith("*")}


def _stations_by_line() -> dict[str, list[str]]:
    served: dict[str, list[str]] = {}
    for line, (_base, route, _services) in LINES.items():
        for name, _km in route:
            served.setdefault(name, []).append(line)
    return served


def _calls(
    route: list[tuple[str, float]], kind: str, first: str
) -> list[tuple[str, str | None, str | None, float]]:
    """(station, arrives, departs, km from origin) for one train along `route`."""
    stops = [
        (n, km)
        for i, (n, km) in enumerate(route)
        if kind == "Regional" or n in MAJOR or i in (0, len(route) - 1)
    ]
    h, m = first.split(":")
    t = int(h) * 60 + int(m)
    out: list[tuple[str, str | None, str | None, float]] = []
    start_km = stops[0][1]
    for i, (name, km) in enumerate(stops):
        if i > 0:
            t += round(abs(km - stops[i - 1][1]) / SPEED_KMH[kind] * 60)
        arrives = None if i == 0 else to_hhmm(t)
        if 0 < i < len(stops) - 1:
            t += DWELL_MINUTES
        departs = None if i == len(stops) - 1 else to_hhmm(t)
        out.append((name, arrives, departs, round(abs(km - start_km), 1)))
    return out


Calls = list[tuple[str, str | None, str | None, float]]


def _reversed(route: list[tuple[str, float]]) -> list[tuple[str, float]]:
    return [(n, route[-1][1] - km) for n, km in reversed(route)]


def timetable() -> list[tuple[str, str, str, str, Calls]]:
    """Every train as (line, number, kind, weekday pattern, calls), numbered per line from its
    base: first the outbound services, then the return ones; then the `EXTRA_TRAINS`."""
    out: list[tuple[str, str, str, str, Calls]] = []
    for line, (base, route, services) in LINES.items():
        number = base
        for direction in (route, _reversed(route)):
            for kind, first, pattern in services:
                number += 1
                out.append((line, f"{PREFIX[kind]} {number}", kind, pattern, _calls(direction, kind, first)))
    for line, train, kind, origin, first, pattern in EXTRA_TRAINS:
        route = LINES[line][1]
        direction = route if route[0][0] == origin else _reversed(route)
        assert direction[0][0] == origin, f"{train} must start at an end of the {line}"
        out.append((line, train, kind, pattern, _calls(direction, kind, first)))
    return out


def _seats(
    trains: list[tuple[RailTrain, Calls]], rng: random.Random, today: date
) -> dict[tuple[int, str, str], list[int]]:
    """Seats sold to the public at large per (train, date, class): [capacity, available]."""
    seats: dict[tuple[int, str, str], list[int]] = {}
    for t, calls in trains:
        for d in range(SALE_DAYS):
            day = today + timedelta(days=d)
            if not runs_on(t.runs_on, day):
                continue
            busy = 0.25 + 0.5 * rng.random() * (1 - d / (SALE_DAYS * 1.5))
            for seat_class in ("first", "second"):
                cap = CAPACITY[(t.kind, seat_class)]
                left = cap - int(cap * busy)
                # Friday evening InterCity trains are sold out in second class.
                if (
                    day.isoweekday() == 5
                    and t.kind == "InterCity"
                    and (calls[0][2] or "") >= "17:00"
                    and seat_class == "second"
                ):
                    left = 0
                seats[(t.id or 0, day.isoformat(), seat_class)] = [cap, left]
    return seats


def seed(session: Session) -> None:
    """Fill the railway tables (deterministic)."""
    rng = random.Random(4711)
    today = date.fromisoformat(TODAY)
    served = _stations_by_line()
    rows = [
        RailStation(code=code, name=raw.rstrip("*"), region=region, lines=", ".join(served[raw.rstrip("*")]))
        for raw, (code, region) in STATIONS.items()
    ]
    session.add_all(rows)
    session.flush()
    station_ids = {st.name: st.id or 0 for st in rows}
    for (kind, seat_class), (base, per_km) in FARES.items():
        session.add(RailFare(kind=kind, seat_class=seat_class, base=base, per_km=per_km))

    trains: list[tuple[RailTrain, Calls]] = []
    stops: list[dict[str, Any]] = []
    for line, number, kind, pattern, calls in timetable():
        t = RailTrain(
            number=number, kind=kind, line=line, runs_on=pattern,
            origin_id=station_ids[calls[0][0]], destination_id=station_ids[calls[-1][0]],
        )  # fmt: skip
        session.add(t)
        trains.append((t, calls))
    session.flush()
    for t, calls in trains:
        for seq, (name, arrives, departs, km) in enumerate(calls, start=1):
            stops.append({"train_id": t.id, "seq": seq, "station_id": station_ids[name], "arrives": arrives, "departs": departs, "km": km})  # fmt: skip
    session.execute(insert(RailStop), stops)

    # Seats sold to the public at large; the modelled passengers' bookings come off below.
    regular = trains[: len(trains) - len(EXTRA_TRAINS)]
    seats = _seats(regular, rng, today)
    seats |= _seats(trains[len(regular) :], random.Random(4712), today)

    passengers = people(200, seed=88, domain="mail.example")
    cards = list(RAILCARDS)
    pax: list[RailPassenger] = []
    for i, (name, email) in enumerate(passengers, start=1):
        card = cards[0] if rng.random() < 0.6 else rng.choice(cards[1:])
        pax.append(RailPassenger(passenger_number=f"P{i:05d}", name=name, email=email, railcard=card))
    session.add_all(pax)
    session.flush()

    bookings: list[tuple[RailBooking, list[dict[str, Any]]]] = []
    for _ in range(420):
        p = rng.choice(pax)
        t, calls = rng.choice(regular)
        day = today + timedelta(days=rng.randint(-50, SALE_DAYS - 1))
        while not runs_on(t.runs_on, day):
            day += timedelta(days=1)
        if (day - today).days >= SALE_DAYS:
            day -= timedelta(days=7)
        i = rng.randrange(len(calls) - 1)
        j = rng.randrange(i + 1, len(calls))
        seat_class = "first" if rng.random() < 0.18 else "second"
        n = rng.choice((1, 1, 1, 1, 2, 2, 3))
        base, per_km = FARES[(t.kind, seat_class)]
        km = round(calls[j][3] - calls[i][3], 1)
        total = round(fare(base, per_km, km, RAILCARDS[p.railcard], n), 2)
        key = (t.id or 0, day.isoformat(), seat_class)
        future = day >= today
        status = "completed" if not future else "cancelled" if rng.random() < 0.08 else "confirmed"
        if status == "confirmed" and key in seats:
            if seats[key][1] < n:
                status = "cancelled"
            else:
                seats[key][1] -= n
        booked = min(today, day - timedelta(days=rng.randint(1, 40)))
        refund = round(total * 0.5, 2) if status == "cancelled" else 0.0
        b = RailBooking(
            reference=f"tmp{len(bookings)}", passenger_id=p.id or 0, status=status, booked_on=booked.isoformat(),
            travel_date=day.isoformat(), origin_id=station_ids[calls[i][0]], destination_id=station_ids[calls[j][0]],
            seat_class=seat_class, seats=n, total_fare=total, refund=refund,
        )  # fmt: skip
        ticket = {
            "leg": 1, "train_id": t.id, "travel_date": day.isoformat(), "origin_id": b.origin_id, "destination_id": b.destination_id,
            "departs": calls[i][2], "arrives": calls[j][1], "seat_class": seat_class, "fare": total,
        }  # fmt: skip
        session.add(b)
        bookings.append((b, [ticket]))
    session.flush()
    tickets: list[dict[str, Any]] = []
    for b, legs in bookings:
        b.reference = reference_for(b.id or 0)
        tickets.extend({**leg, "booking_id": b.id} for leg in legs)
    session.execute(insert(RailTicket), tickets)
    session.execute(
        insert(RailSeatInventory),
        [
            {"train_id": k[0], "travel_date": k[1], "seat_class": k[2], "capacity": v[0], "available": v[1]}
            for k, v in seats.items()
        ],
    )
