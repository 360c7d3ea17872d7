from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters
from sqlmodel import Session, SQLModel, col, select

from mcp_servers.railway.network import TrainRun
from mcp_servers.railway.schema import RailBooking, RailPassenger, RailSeatInventory, RailTicket, RailTrain
from tests.mcp_servers.support import World, as_data, check_contract, check_no_tool_writes, serve, text

REPO = Path(__file__).resolve().parents[2]
FRIDAY = "2026-11-27"  # Friday-evening InterCity trains are sold out in second class
MONDAY = "2026-11-23"


def _seats(world: World, train: str, day: str, seat_class: str) -> int:
    with Session(world.engine) as s:
        t = s.execute(select(RailTrain).where(RailTrain.number == train)).scalar_one()
        inv = s.execute(
            select(RailSeatInventory).where(
                RailSeatInventory.train_id == t.id,
                RailSeatInventory.travel_date == day,
                RailSeatInventory.seat_class == seat_class,
            )
        ).scalar_one()
        return inv.available


def _passenger(world: World, railcard: str) -> str:
    with Session(world.engine) as s:
        p = s.execute(
            select(RailPassenger).where(RailPassenger.railcard == railcard).order_by(col(RailPassenger.id))
        ).scalars().first()  # fmt: skip
        assert p is not None
        return p.passenger_number


def _calls(world: World) -> dict[str, dict[str, Any]]:
    """Valid arguments for every railway tool, writers after readers (they build on each other)."""
    with Session(world.engine) as s:
        future = s.execute(
            select(RailBooking).where(RailBooking.status == "confirmed", RailBooking.travel_date >= "2026-12-05")
            .order_by(col(RailBooking.id))
        ).scalars().all()  # fmt: skip
        owner = s.get(RailPassenger, future[0].passenger_id)
        assert owner is not None
    return {
        "search_stations": {"query": "aldermoor"},
        "station_departures": {"station": "ALC", "travel_date": MONDAY, "after": "12:00"},
        "find_connections": {"origin": "Northam", "destination": "Southport Harbour", "travel_date": MONDAY},
        "get_timetable": {"train": "IC 101"},
        "seat_availability": {"train": "IC 103", "travel_date": MONDAY},
        "search_passengers": {"query": owner.name.split()[0]},
        "get_booking": {"reference": future[0].reference},
        "passenger_bookings": {"passenger": owner.passenger_number},
        "train_bookings": {"train": "IC 103", "travel_date": MONDAY},
        "register_passenger": {"name": "Test Traveller", "email": "test.traveller@mail.example", "railcard": "youth"},
        "book_journey": {"passenger": "P00001", "origin": "NTH", "destination": "SPH", "travel_date": MONDAY, "trains": ["IC 103"]},
        "cancel_booking": {"reference": future[0].reference},
        "change_seat_class": {"reference": future[1].reference, "seat_class": "first" if future[1].seat_class == "second" else "second"},
    }  # fmt: skip


async def test_railway_contract(world: World) -> None:
    calls = _calls(world)
    async with serve("railway", world) as client:
        await check_contract(client, world, calls)
        cancelled = calls["cancel_booking"]["reference"]
        assert (
            as_data(await client.call_tool("get_booking", {"reference": cancelled}))["status"] == "cancelled"
        )
        made = as_data(
            await client.call_tool(
                "register_passenger", {"name": "Second Traveller", "email": "second@mail.example"}
            )
        )
        assert made["railcard"] == "none" and made["passenger_number"].startswith("P00")
        found = as_data(await client.call_tool("search_passengers", {"query": "test.traveller"}))
        [one] = found["items"]
        assert one["railcard"] == "youth" and one["passenger_number"].startswith("P")


async def test_booking_takes_seats_and_applies_the_railcard(world: World) -> None:
    youth = _passenger(world, "youth")
    before = _seats(world, "IC 103", MONDAY, "first")
    async with serve("railway", world) as client:
        b = as_data(await client.call_tool("book_journey", {
            "passenger": youth, "origin": "Northam", "destination": "ALC", "travel_date": MONDAY,
            "trains": ["IC 103"], "seat_class": "first", "seats": 2,
        }))  # fmt: skip
        # InterCity first class: 8.00 + 0.28/km over 171 km = 55.88 a seat, less 25%.
        assert b["total_fare"] == round(round(55.88 * 0.75, 2) * 2, 2)
        assert _seats(world, "IC 103", MONDAY, "first") == before - 2
        mine = as_data(
            await client.call_tool("passenger_bookings", {"passenger": youth, "status": "confirmed"})
        )
        assert b["reference"] in [x["reference"] for x in mine["items"]]

        # Cancelled 3 days ahead: half the fare comes back and the seats return.
        msg = text(await client.call_tool("cancel_booking", {"reference": b["reference"]}))
        assert f"refund {b['total_fare'] / 2:.2f}" in msg, msg
        assert _seats(world, "IC 103", MONDAY, "first") == before
        again = await client.call_tool("cancel_booking", {"reference": b["reference"]})
        assert again.is_error and "only confirmed" in text(again)


async def test_one_change_journey_and_class_change(world: World) -> None:
    async with serve("railway", world) as client:
        found = as_data(await client.call_tool("find_connections", {
            "origin": "Westhaven", "destination": "Brightwater", "travel_date": "2026-12-07"}))  # fmt: skip
        option = found["options"][0]
        assert option["changes"] == 1 and option["legs"][0]["to"] == option["legs"][1]["from"] == "Eastcombe"
        arrivals = [o["arrives"] for o in found["options"]]
        assert arrivals == sorted(arrivals)
        trains = [leg["train"] for leg in option["legs"]]
        b = as_data(await client.call_tool("book_journey", {
            "passenger": "P00003", "origin": "WHV", "destination": "BWT", "travel_date": "2026-12-07", "trains": trains}))  # fmt: skip
        assert [leg["train"] for leg in b["legs"]] == trains and b["legs"][0]["to"] == "Eastcombe"
        second = [_seats(world, t, "2026-12-07", "second") for t in trains]
        first = [_seats(world, t, "2026-12-07", "first") for t in trains]
        msg = text(
            await client.call_tool("change_seat_class", {"reference": b["reference"], "seat_class": "first"})
        )
        assert "is due" in msg, msg
        assert [_seats(world, t, "2026-12-07", "second") for t in trains] == [n + 1 for n in second]
        assert [_seats(world, t, "2026-12-07", "first") for t in trains] == [n - 1 for n in first]
        after = as_data(await client.call_tool("get_booking", {"reference": b["reference"]}))
        assert after["seat_class"] == "first" and after["total_fare"] > b["total_fare"]
        # 17 days ahead: a cancellation refunds everything.
        assert f"refund {after['total_fare']:.2f}" in text(
            await client.call_tool("cancel_booking", {"reference": b["reference"]})
        )


async def test_direct_connections_agree_with_the_timetable(world: World) -> None:
    async with serve("railway", world) as client:
        found = as_data(await client.call_tool("find_connections", {
            "origin": "NTH", "destination": "SPH", "travel_date": "2026-11-28", "max_changes": 0}))  # fmt: skip
        trains = [o["legs"][0]["train"] for o in found["options"]]
        assert "IC 101" not in trains  # the 06:00 runs Monday to Friday; the 28th is a Saturday
        assert set(trains) == {"IC 103", "RE 102", "RE 104", "IC 105", "IC 106", "RE 107", "IC 108"}
        tt = as_data(await client.call_tool("get_timetable", {"train": trains[0]}))
        assert tt["calls"][0]["departs"] == found["options"][0]["departs"]


async def test_bad_input_is_a_tool_error(world: World) -> None:
    with Session(world.engine) as s:
        done = s.execute(select(RailBooking).where(RailBooking.status == "completed")).scalars().first()
        assert done is not None
    book = {
        "passenger": "P00001",
        "origin": "NTH",
        "destination": "SPH",
        "travel_date": MONDAY,
        "trains": ["IC 103"],
    }
    async with serve("railway", world) as client:
        for tool, args, expected in [
            ("book_journey", {**book, "travel_date": "2026-11-01"}, "in the past"),
            ("book_journey", {**book, "travel_date": "2027-03-01"}, "no seats on sale"),
            ("book_journey", {**book, "passenger": "P99999"}, "unknown passenger"),
            ("book_journey", {**book, "travel_date": FRIDAY, "trains": ["IC 108"]}, "sold out"),
            ("book_journey", {**book, "origin": "SPH", "destination": "NTH"}, "does not call at"),
            (
                "book_journey",
                {**book, "trains": ["IC 101"], "travel_date": "2026-11-29"},
                "does not run on Sundays",
            ),
            ("book_journey", {**book, "seats": 0}, "between 1 and 9"),
            ("book_journey", {**book, "origin": "Atlantis"}, "no station"),
            ("book_journey", {**book, "origin": "Aldermoor"}, "several stations"),
            ("book_journey", {**book, "seat_class": "sleeper"}, "seat_class"),
            ("cancel_booking", {"reference": done.reference}, "completed"),
            ("get_booking", {"reference": "ZZZZZZ"}, "no booking"),
            ("get_timetable", {"train": "XX 1"}, "no train"),
            (
                "find_connections",
                {"origin": "NTH", "destination": "NTH", "travel_date": MONDAY},
                "same station",
            ),
            ("station_departures", {"station": "NTH", "travel_date": "tomorrow"}, "YYYY-MM-DD"),
            ("passenger_bookings", {"passenger": "P00001", "page": 0}, "page starts at 1"),
            ("register_passenger", {"name": "X", "email": "nope"}, "valid e-mail"),
        ]:
            result = await client.call_tool(tool, args)
            assert result.is_error, (tool, args, text(result))
            assert expected in text(result), (tool, text(result))


async def test_passenger_booking_pages_cover_all(world: World) -> None:
    with Session(world.engine) as s:
        p = s.get(RailPassenger, 5)
        assert p is not None
        n = len(s.execute(select(RailBooking).where(RailBooking.passenger_id == p.id)).all())
    async with serve("railway", world) as client:
        seen: list[str] = []
        page, pages = 1, 1
        while page <= pages:
            got = as_data(
                await client.call_tool(
                    "passenger_bookings", {"passenger": p.email, "page": page, "page_size": 1}
                )
            )
            pages, page = got["pages"], page + 1
            seen += [x["reference"] for x in got["items"]]
        assert len(seen) == len(set(seen)) == got["total"] == n > 0


async def test_stdio_round_trip(world: World) -> None:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "mcp_servers.railway", "--db", world.url, "--workspace", str(world.workspace)],
        env={"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(REPO)},
        cwd=str(REPO),
    )
    async with Client(params) as client:
        tools = {t.name for t in (await client.list_tools()).tools}
        assert {"find_connections", "book_journey"} <= tools
        result = as_data(await client.call_tool("get_timetable", {"train": "RE 801"}))
        assert [c["code"] for c in result["calls"]] == ["ALC", "ALD", "ALA"]


async def test_a_trains_manifest_lists_every_booking_with_a_leg_on_it(world: World) -> None:
    with Session(world.engine) as s:
        ticket, train, booking = s.execute(
            select(RailTicket, RailTrain, RailBooking)
            .join(RailTrain, col(RailTrain.id) == RailTicket.train_id)
            .join(RailBooking, col(RailBooking.id) == RailTicket.booking_id)
            .where(RailBooking.status == "confirmed")
            .order_by(col(RailTicket.id))
        ).first()  # fmt: skip
        expected = {
            b.reference
            for b in s.execute(
                select(RailBooking)
                .join(RailTicket, col(RailTicket.booking_id) == RailBooking.id)
                .where(RailTicket.train_id == train.id, RailTicket.travel_date == ticket.travel_date)
            ).scalars()
        }
    async with serve("railway", world) as client:
        args = {"train": train.number, "travel_date": ticket.travel_date, "page_size": 5}
        manifest = as_data(await client.call_tool("train_bookings", args))
        assert manifest["train"] == train.number and manifest["total"] == len(expected)
        items = list(manifest["items"])
        for page in range(2, manifest["pages"] + 1):
            items += as_data(await client.call_tool("train_bookings", {**args, "page": page}))["items"]
        assert sorted(b["reference"] for b in items) == sorted(expected)
        mine = next(b for b in items if b["reference"] == booking.reference)
        assert mine["status"] == "confirmed" and mine["seats"] == booking.seats
        confirmed = as_data(await client.call_tool("train_bookings", {**args, "status": "confirmed"}))
        assert {b["status"] for b in confirmed["items"]} == {"confirmed"}
        bad = await client.call_tool("train_bookings", {**args, "status": "booked"})
        assert bad.is_error and "confirmed, cancelled, completed" in text(bad)


async def test_train_kinds_limits_addresses_and_statuses_are_checked(world: World) -> None:
    """Regressions: get_timetable('RE 105') returned IC 105; limit=-5 silently became 1; 'a@' was
    registered as an e-mail; an unknown booking status gave an empty list; search_passengers
    stopped at 50 without saying so."""
    async with serve("railway", world) as client:
        ic = as_data(await client.call_tool("get_timetable", {"train": "105"}))
        other = "RE" if ic["train"].split()[0] != "RE" else "IC"
        wrong = await client.call_tool("get_timetable", {"train": f"{other} 105"})
        assert wrong.is_error and "no train" in text(wrong), text(wrong)
        for tool, args, expected in [
            ("station_departures", {"station": "ALC", "travel_date": MONDAY, "limit": -5}, "between 1 and 50"),
            ("find_connections", {"origin": "NTH", "destination": "ALC", "travel_date": MONDAY, "limit": 0},
             "between 1 and 30"),
            ("register_passenger", {"name": "A", "email": "a@"}, "valid e-mail"),
            ("passenger_bookings", {"passenger": "P00001", "status": "booked"}, "confirmed, cancelled, completed"),
            ("station_departures", {"station": "ALC", "travel_date": "20261130"}, "YYYY-MM-DD"),
        ]:  # fmt: skip
            result = await client.call_tool(tool, args)
            assert result.is_error and expected in text(result), (tool, args, text(result))
        many = as_data(await client.call_tool("search_passengers", {"query": "@", "page_size": 50}))
        assert many["total"] > 50 and many["pages"] >= 2 and len(many["items"]) == 50, many["total"]


async def test_unknown_region_is_a_tool_error_not_no_stations(world: World) -> None:
    """Regression: search_stations(region='Midlands') answered [], as if the region had no stations."""
    async with serve("railway", world) as client:
        result = await client.call_tool("search_stations", {"region": "Midlands"})
        assert result.is_error and "Highlands" in text(result), text(result)
        north = as_data(await client.call_tool("search_stations", {"region": "north"}))
        assert north and {st["region"] for st in north} == {"North"}


# What a railway server keeps (mcp_servers/railway/server.py: ReadOnce(find.timetable)).
TIMETABLE_TABLES = ("railway_train", "railway_stop")


async def test_the_timetable_is_read_once_per_server_not_on_every_call(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`find_connections` and `book_journey` read every train and stop as ORM objects again on
    each call (~26 ms of a ~48 ms search here). A server instance now reads them once; another
    instance (another episode's) reads its own."""
    from mcp_servers.railway import lookup

    loads: list[int] = []
    read = lookup.timetable

    def counted(s: Session) -> tuple[TrainRun, ...]:
        loads.append(1)
        return read(s)

    monkeypatch.setattr(lookup, "timetable", counted)
    calls = _calls(world)
    async with serve("railway", world) as client:
        first = as_data(await client.call_tool("find_connections", calls["find_connections"]))
        assert not (await client.call_tool("book_journey", calls["book_journey"])).is_error
        assert as_data(await client.call_tool("find_connections", calls["find_connections"]))["options"]
        assert first["options"]
    assert len(loads) == 1
    async with serve("railway", world) as client:
        as_data(await client.call_tool("find_connections", calls["find_connections"]))
    assert len(loads) == 2


async def test_no_railway_tool_writes_the_timetable_a_server_keeps(world: World) -> None:
    """A server keeps its timetable for its lifetime: safe only while no tool writes trains or
    stops. A new write tool is run here too (every tool not marked read-only)."""
    await check_no_tool_writes("railway", world, _calls(world), TIMETABLE_TABLES)


def test_a_timetable_holds_plain_values_that_outlive_its_session(world: World) -> None:
    """A kept timetable must not hold ORM objects (they belong to the session they were read
    in), nor anything a caller could change for the next one."""
    from mcp_servers.railway import lookup

    with Session(world.engine) as s:
        runs = lookup.timetable(s)
    assert runs and all(type(r) is TrainRun and type(r.calls) is tuple for r in runs)
    assert not any(isinstance(v, SQLModel) for r in runs for v in (r, *r.calls))
    ic101 = next(r for r in runs if r.number == "IC 101")
    assert [c.seq for c in ic101.calls] == sorted(c.seq for c in ic101.calls) and len(ic101.calls) >= 2


async def test_connections_order_is_the_one_described(world: World) -> None:
    """Regression: the description said "earliest first" while journeys come by arrival time; on
    this route a later departure arrives first, so a model read the list in the wrong order."""
    async with serve("railway", world) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert "earliest arrival first" in (tools["find_connections"].description or "")
        found = as_data(await client.call_tool("find_connections", {
            "origin": "NTH", "destination": "SPH", "travel_date": MONDAY, "limit": 30}))  # fmt: skip
        arrivals = [o["arrives"] for o in found["options"]]
        assert arrivals == sorted(arrivals)
        assert [o["departs"] for o in found["options"]] != sorted(o["departs"] for o in found["options"])
