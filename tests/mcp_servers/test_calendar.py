from __future__ import annotations

from sqlmodel import Session, select

from mcp_servers.calendar.schema import ME, CalendarAttendee, CalendarEvent
from mcp_servers.calendar.seed import LEADERSHIP
from mcp_servers.common.names import people
from tests.mcp_servers.support import World, as_data, check_contract, serve, text

ORG = people(30, 42, "company.example")
LEADERS = [ORG[i][1] for i in LEADERSHIP]
KAI = "kai.kaur@company.example"


async def _first_event(client, **filters) -> dict:
    page = as_data(
        await client.call_tool("list_events", {"start": "2026-11-20", "end": "2026-12-31", **filters})
    )
    assert page["total"] > 0, filters
    return page["items"][0]


async def test_calendar_contract_and_state(world: World) -> None:
    async with serve("calendar", world) as client:
        reviews = as_data(
            await client.call_tool(
                "list_events", {"start": "2026-11-20", "end": "2026-12-31", "query": "Ops review"}
            )
        )["items"]
        mine, second = reviews[0], reviews[1]  # update the first, delete the second
        theirs = await _first_event(client, calendar=ORG[22][0])
        calls = {
            "list_calendars": {},
            "list_events": {"start": "2026-11-23", "end": "2026-11-27", "calendar": "Work"},
            "get_event": {"event_id": theirs["id"]},
            "find_free_slots": {"attendees": [ME, KAI], "start": "2026-12-01", "end": "2026-12-04", "duration_minutes": 60},
            "create_event": {
                "title": "Q4 budget walkthrough", "start": "2026-12-02T13:00", "end": "2026-12-02T14:00",
                "location": "Harbor room", "attendees": [KAI, "Lara.Varga@company.example"], "description": "Numbers",
            },
            "update_event": {"event_id": mine["id"], "location": "Atrium", "start": "2026-12-03T16:00", "end": "2026-12-03T17:00"},
            "delete_event": {"event_id": second["id"]},
        }  # fmt: skip
        await check_contract(client, world, calls)

        with Session(world.engine) as s:
            [made] = s.execute(
                select(CalendarEvent).where(CalendarEvent.title == "Q4 budget walkthrough")
            ).scalars()
            assert (made.start, made.end, made.organizer) == ("2026-12-02T13:00", "2026-12-02T14:00", ME)
            guests = {
                a.email: a.response
                for a in s.execute(
                    select(CalendarAttendee).where(CalendarAttendee.event_id == made.id)
                ).scalars()
            }
            assert guests == {
                ME: "accepted",
                KAI: "needs-action",
                "lara.varga@company.example": "needs-action",
            }
            moved = s.get(CalendarEvent, mine["id"])
            assert moved is not None and (moved.location, moved.start, moved.end) == (
                "Atrium",
                "2026-12-03T16:00",
                "2026-12-03T17:00",
            )
            assert moved.title == "Ops review"
            assert s.get(CalendarEvent, second["id"]) is None
            assert not s.execute(
                select(CalendarAttendee).where(CalendarAttendee.event_id == second["id"])
            ).all()
        full = as_data(await client.call_tool("get_event", {"event_id": made.id}))
        assert full["calendar"] == "Work" and {"email": KAI, "response": "needs-action"} in full["attendees"]
        # The new meeting now keeps Kai busy.
        slots = as_data(
            await client.call_tool(
                "find_free_slots", {"attendees": [KAI], "start": "2026-12-02", "end": "2026-12-02"}
            )
        )
        assert all(
            not (s["start"] < "2026-12-02T14:00" and s["end"] > "2026-12-02T13:00") for s in slots["slots"]
        )


async def test_free_slots_respect_every_calendar(world: World) -> None:
    group = [ME, *LEADERS]
    async with serve("calendar", world) as client:
        found = as_data(
            await client.call_tool(
                "find_free_slots",
                {"attendees": group, "start": "2026-12-01", "end": "2026-12-15", "duration_minutes": 120},
            )
        )
        assert found["slots"], "the seed leaves the leadership group some two-hour windows in early December"
        busy = as_data(
            await client.call_tool(
                "list_events", {"start": "2026-12-01", "end": "2026-12-15", "page_size": 50}
            )
        )
        events = []
        for p in range(1, busy["pages"] + 1):
            events += as_data(
                await client.call_tool("list_events", {"start": "2026-12-01", "end": "2026-12-15", "page": p})
            )["items"]
        for slot in found["slots"]:
            assert slot["start"] >= "2026-12-01T09:00" and slot["end"][11:] <= "17:00"
            assert slot["start"][:10] not in ("2026-12-05", "2026-12-06", "2026-12-12", "2026-12-13")
            for e in events:
                overlaps = e["start"] < slot["end"] and e["end"] > slot["start"]
                if overlaps and set(e["attendees"]) & set(group):
                    full = as_data(await client.call_tool("get_event", {"event_id": e["id"]}))
                    assert all(
                        a["response"] == "declined" for a in full["attendees"] if a["email"] in group
                    ), (slot, e)
        # Holidays and the past are never offered.
        holiday = as_data(
            await client.call_tool(
                "find_free_slots", {"attendees": [ME], "start": "2026-11-26", "end": "2026-11-27"}
            )
        )
        assert holiday["slots"] == []
        today = as_data(
            await client.call_tool(
                "find_free_slots", {"attendees": [ME], "start": "2026-11-01", "end": "2026-11-20"}
            )
        )
        assert all(s["start"] >= "2026-11-20T09:00" for s in today["slots"]) and today["slots"]


async def test_calendar_bad_input_is_a_tool_error(world: World) -> None:
    async with serve("calendar", world) as client:
        theirs = await _first_event(client, calendar=ORG[13][0])
        new = {"title": "T", "start": "2026-12-02T10:00", "end": "2026-12-02T11:00"}
        for tool, args, expected in [
            ("create_event", {**new, "end": "2026-12-02T09:00"}, "must be after start"),
            ("create_event", {**new, "end": "2026-12-02T10:00"}, "must be after start"),
            ("create_event", {**new, "start": "tomorrow"}, "not an ISO date-time"),
            ("create_event", {**new, "start": "2026-12-02"}, "date and time"),
            ("create_event", {**new, "start": "2026-12-02T10:00Z"}, "without a zone"),
            ("create_event", {**new, "calendar": ORG[13][0]}, "your own calendars"),
            ("create_event", {**new, "attendees": ["kai"]}, "not an e-mail address"),
            ("create_event", {**new, "title": " "}, "title"),
            ("update_event", {"event_id": theirs["id"], "title": "Mine now"}, "your own calendars"),
            ("update_event", {"event_id": 10**6, "title": "x"}, "no event"),
            ("delete_event", {"event_id": theirs["id"]}, "your own calendars"),
            ("get_event", {"event_id": 10**6}, "no event"),
            ("list_events", {"start": "2026-12-02", "end": "2026-12-01"}, "after start"),
            ("list_events", {"start": "2026-12-01", "end": "2026-12-02", "calendar": "Nope"}, "no calendar"),
            (
                "find_free_slots",
                {"attendees": [], "start": "2026-12-01", "end": "2026-12-02"},
                "at least one",
            ),
            ("find_free_slots", {"attendees": [ME], "start": "2026-01-01", "end": "2026-12-31"}, "at most"),
            (
                "find_free_slots",
                {"attendees": [ME], "start": "2026-12-01", "end": "2026-12-02", "day_start": "nine"},
                "time like",
            ),
            ("create_event", {"title": "T"}, "validation error"),
        ]:
            result = await client.call_tool(tool, args)
            assert result.is_error and expected in text(result), (tool, args, text(result))
        mine = await _first_event(client, calendar="Work")
        bad = await client.call_tool("update_event", {"event_id": mine["id"], "end": "2026-01-01T00:00"})
        assert bad.is_error and "after start" in text(bad)
        assert as_data(await client.call_tool("get_event", {"event_id": mine["id"]}))["end"] == mine["end"]


async def test_dates_far_ahead_zones_and_compact_forms_are_tool_errors(world: World) -> None:
    """Regressions: 9999-12-31 as an end overflowed and a day_start with a zone compared aware
    and naive times (bare errors); 20261203 was taken as a date."""
    async with serve("calendar", world) as client:
        slots = {"attendees": [ME], "start": "2026-12-01", "end": "2026-12-02"}
        for tool, args, expected in [
            ("list_events", {"start": "2026-12-01", "end": "9999-12-31"}, "out of range"),
            ("list_events", {"start": "20261201", "end": "2026-12-02"}, "not an ISO date-time"),
            ("list_events", {"start": "2026-W49-1", "end": "2026-12-02"}, "not an ISO date-time"),
            ("find_free_slots", {**slots, "day_start": "09:00+02:00"}, "no zone"),
            ("find_free_slots", {**slots, "day_end": "1700"}, "HH:MM"),
            (
                "create_event",
                {"title": "T", "start": "9999-12-31T10:00", "end": "9999-12-31T11:00"},
                "out of range",
            ),
            (
                "create_event",
                {"title": "T", "start": "20261202T1000", "end": "2026-12-02T11:00"},
                "ISO date-time",
            ),
        ]:
            result = await client.call_tool(tool, args)
            assert result.is_error and expected in text(result), (tool, args, text(result))


async def test_free_slots_say_when_more_exist(world: World) -> None:
    """Regression: find_free_slots stopped at 60 windows without saying more existed."""
    async with serve("calendar", world) as client:
        found = as_data(
            await client.call_tool(
                "find_free_slots",
                {"attendees": [ME], "start": "2026-12-01", "end": "2027-01-31", "duration_minutes": 5,
                 "include_weekends": True},
            )
        )  # fmt: skip
        assert len(found["slots"]) == 60 and "more free windows from" in found["more"], found.get("more")
