"""The `calendar` server: list events, read one, find free slots for a group; create, update and
delete events on the user's own calendars (SPEC §5, workflow server).

Times are local ISO datetimes without a zone ("2026-12-03T14:00"). Only events on calendars
the user owns (Work, Personal) can be changed; colleagues' calendars are readable.
"""

from __future__ import annotations

import re
from datetime import date, datetime, time, timedelta
from typing import Any

from mcp.server.mcpserver import MCPServer
from sqlmodel import Session, col, delete, or_, select

from mcp_servers.calendar.schema import (
    HOLIDAYS,
    ME,
    NOW,
    TABLES,
    TODAY,
    CalendarAttendee,
    CalendarCalendar,
    CalendarEvent,
)
from mcp_servers.calendar.seed import seed
from mcp_servers.common.paging import paginate
from mcp_servers.common.spec import ServerContext, ServerSpec
from mcp_servers.common.tooling import ToolError, as_json, fields, reader, writer
from mcp_servers.common.values import LIKE_ESCAPE, iso_date, iso_datetime, like_pattern

READ = "workflow-records-lookup"
WRITE = "calendar-write"
MAX_SLOTS = 60
MAX_SLOT_RANGE_DAYS = 62
_ADDRESS = re.compile(r"^[a-z0-9._%+'-]+@[a-z0-9-]+(\.[a-z0-9-]+)*\.[a-z]{2,}$")


# Dates a calendar takes: far enough for any plan, and a day can always be added to them.
MIN_YEAR, MAX_YEAR = 1900, 9998


def _when(value: str, field: str, *, end_of_day: bool = False, need_time: bool = False) -> datetime:
    """Parse a local date (YYYY-MM-DD) or date-time (YYYY-MM-DDTHH:MM); a bare date is 00:00 (or
    the next midnight with end_of_day). Compact and week forms (20261203, 2026-W49-4) and time
    zones are refused: times are local."""
    raw = value.strip()
    if re.fullmatch(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", raw):
        if need_time:
            raise ToolError(f"{field}: give a date and time like 2026-12-03T14:00, not only {raw!r}")
        day = date.fromisoformat(iso_date(raw, field))
        if not MIN_YEAR <= day.year <= MAX_YEAR:
            raise ToolError(f"{field}: {value!r} is out of range; use a year from {MIN_YEAR} to {MAX_YEAR}")
        return datetime.combine(day + timedelta(days=1 if end_of_day else 0), time())
    else:
        parsed = iso_datetime(raw, field)
    if not MIN_YEAR <= parsed.year <= MAX_YEAR:
        raise ToolError(f"{field}: {value!r} is out of range; use a year from {MIN_YEAR} to {MAX_YEAR}")
    return parsed.replace(second=0, microsecond=0)


def _iso(dt: datetime) -> str:
    return dt.isoformat(timespec="minutes")


def _clock(value: str, field: str) -> time:
    raw = value.strip()
    if not re.fullmatch(r"[0-9]{2}:[0-9]{2}", raw):
        raise ToolError(f"{field}: {value!r} is not a local time like 09:00 (HH:MM, no zone)")
    try:
        return time.fromisoformat(raw)
    except ValueError:
        raise ToolError(f"{field}: {value!r} is not a time like 09:00") from None


def _emails(given: list[str] | None) -> list[str]:
    out: list[str] = []
    for raw in given or []:
        address = raw.strip().lower()
        if not _ADDRESS.match(address):
            raise ToolError(f"attendee {raw!r} is not an e-mail address like 'name@company.example'")
        if address not in out:
            out.append(address)
    return out


def _event(s: Session, event_id: int) -> CalendarEvent:
    found = s.get(CalendarEvent, event_id)
    if found is None:
        raise ToolError(f"no event with id {event_id}; list_events shows the ids")
    return found


def _view(s: Session, e: CalendarEvent, full: bool = False) -> dict[str, Any]:
    calendar = s.get(CalendarCalendar, e.calendar_id)
    people = s.execute(
        select(CalendarAttendee).where(CalendarAttendee.event_id == e.id).order_by(col(CalendarAttendee.id))
    ).scalars()
    out: dict[str, Any] = {
        "id": e.id, "calendar": calendar.name if calendar else None, "title": e.title, "start": e.start,
        "end": e.end, "location": e.location, "organizer": e.organizer,
    }  # fmt: skip
    if full:
        out["description"] = e.description
        out["attendees"] = [{"email": a.email, "response": a.response} for a in people]
    else:
        out["attendees"] = [a.email for a in people]
    return out


def _busy(s: Session, emails: list[str], start: str, end: str, skip_event: int | None = None) -> list[Any]:
    """(event, attendee email) rows keeping any of `emails` busy in [start, end)."""
    stmt = (
        select(CalendarEvent, CalendarAttendee.email)
        .join(CalendarAttendee, col(CalendarAttendee.event_id) == CalendarEvent.id)
        .where(
            col(CalendarAttendee.email).in_(emails),
            CalendarAttendee.response != "declined",
            CalendarEvent.start < end,
            CalendarEvent.end > start,
        )
    )
    if skip_event is not None:
        stmt = stmt.where(CalendarEvent.id != skip_event)
    return list(s.execute(stmt).all())


def _holidays(s: Session, start: str, end: str) -> list[CalendarEvent]:
    return list(
        s.execute(
            select(CalendarEvent)
            .join(CalendarCalendar, col(CalendarCalendar.id) == CalendarEvent.calendar_id)
            .where(CalendarCalendar.name == HOLIDAYS, CalendarEvent.start < end, CalendarEvent.end > start)
        ).scalars()
    )


def _own_calendar(s: Session, name: str) -> CalendarCalendar:
    found = s.execute(select(CalendarCalendar).where(CalendarCalendar.name == name)).scalar()
    mine = s.execute(select(CalendarCalendar.name).where(CalendarCalendar.owner == ME)).scalars().all()
    if found is None or found.owner != ME:
        raise ToolError(f"you can add events only to your own calendars: {', '.join(mine)}")
    return found


def _editable(s: Session, event_id: int) -> CalendarEvent:
    e = _event(s, event_id)
    calendar = s.get(CalendarCalendar, e.calendar_id)
    if calendar is None or calendar.owner != ME:
        owner = calendar.name if calendar else "another"
        raise ToolError(
            f"event {event_id} is on {owner}'s calendar; you can change only events on your own calendars"
        )
    return e


def _conflicts(s: Session, emails: list[str], start: str, end: str, skip: int | None) -> list[dict[str, Any]]:
    rows = _busy(s, emails, start, end, skip)
    out = [{"attendee": who, "event": e.title, "start": e.start, "end": e.end} for e, who in rows]
    out += [
        {"attendee": "everyone", "event": h.title, "start": h.start, "end": h.end}
        for h in _holidays(s, start, end)
    ]
    return out


def _set_attendees(s: Session, e: CalendarEvent, emails: list[str]) -> None:
    s.execute(delete(CalendarAttendee).where(col(CalendarAttendee.event_id) == e.id))
    for email in dict.fromkeys([e.organizer, *emails]):
        s.add(
            CalendarAttendee(
                event_id=e.id or 0,
                email=email,
                response="accepted" if email == e.organizer else "needs-action",
            )
        )


def build(ctx: ServerContext) -> MCPServer:
    app = MCPServer(
        "calendar",
        instructions=f"The calendars of Jordan Lee <{ME}> and colleagues. Today is {TODAY}; times are local "
        "ISO date-times like 2026-12-03T14:00.",
    )

    @reader(app, READ)
    def list_calendars() -> str:
        """The calendars: name, owner, description. Your own (owner me@company.example) can be edited."""
        with Session(ctx.engine) as s:
            rows = s.execute(select(CalendarCalendar).order_by(col(CalendarCalendar.id))).scalars()
            return as_json([fields(c, exclude={"id"}) for c in rows])

    @reader(app, READ)
    def list_events(
        start: str,
        end: str,
        calendar: str | None = None,
        attendee: str | None = None,
        query: str | None = None,
        page: int = 1,
        page_size: int = 50,
    ) -> str:
        """Events overlapping [start, end), in time order, one page at a time. start/end: ISO dates
        or date-times (a bare end date includes that whole day). Filters: calendar name, an
        attendee's e-mail, text in the title or description."""
        lo, hi = _when(start, "start"), _when(end, "end", end_of_day=True)
        if hi <= lo:
            raise ToolError("end must be after start")
        with Session(ctx.engine) as s:
            stmt = (
                select(CalendarEvent)
                .where(CalendarEvent.start < _iso(hi), CalendarEvent.end > _iso(lo))
                .order_by(CalendarEvent.start, col(CalendarEvent.id))
            )
            if calendar:
                found = s.execute(select(CalendarCalendar).where(CalendarCalendar.name == calendar)).scalar()
                if found is None:
                    raise ToolError(f"no calendar {calendar!r}; list_calendars shows them")
                stmt = stmt.where(CalendarEvent.calendar_id == found.id)
            if attendee:
                ids = select(CalendarAttendee.event_id).where(
                    CalendarAttendee.email == attendee.strip().lower()
                )
                stmt = stmt.where(col(CalendarEvent.id).in_(ids))
            if query:
                like = like_pattern(query.strip())
                stmt = stmt.where(
                    or_(
                        col(CalendarEvent.title).ilike(like, escape=LIKE_ESCAPE),
                        col(CalendarEvent.description).ilike(like, escape=LIKE_ESCAPE),
                    )
                )
            return as_json(paginate(s, stmt, page, page_size, lambda row: _view(s, row[0])))

    @reader(app, READ)
    def get_event(event_id: int) -> str:
        """One event with its description and each attendee's response (accepted, tentative,
        declined, needs-action)."""
        with Session(ctx.engine) as s:
            return as_json(_view(s, _event(s, event_id), full=True))

    @reader(app, READ)
    def find_free_slots(
        attendees: list[str],
        start: str,
        end: str,
        duration_minutes: int = 30,
        day_start: str = "09:00",
        day_end: str = "17:00",
        include_weekends: bool = False,
    ) -> str:
        """Time windows in [start, end) when every attendee is free for at least duration_minutes,
        within working hours (day_start..day_end), never before now and never on company
        holidays. Include me@company.example in attendees if you attend. Returns whole free
        windows; book any part of one."""
        people = _emails(attendees)
        if not people:
            raise ToolError("give at least one attendee e-mail")
        if not 5 <= duration_minutes <= 24 * 60:
            raise ToolError("duration_minutes must be between 5 and 1440")
        lo, hi = _when(start, "start"), _when(end, "end", end_of_day=True)
        if hi <= lo:
            raise ToolError("end must be after start")
        if hi - lo > timedelta(days=MAX_SLOT_RANGE_DAYS):
            raise ToolError(f"search at most {MAX_SLOT_RANGE_DAYS} days at a time")
        opens, closes = _clock(day_start, "day_start"), _clock(day_end, "day_end")
        if closes <= opens:
            raise ToolError("day_end must be after day_start")
        lo = max(lo, datetime.fromisoformat(NOW))
        need = timedelta(minutes=duration_minutes)
        with Session(ctx.engine) as s:
            taken = [(e.start, e.end) for e, _who in _busy(s, people, _iso(lo), _iso(hi))]
            taken += [(h.start, h.end) for h in _holidays(s, _iso(lo), _iso(hi))]
        busy = sorted((datetime.fromisoformat(a), datetime.fromisoformat(b)) for a, b in taken)
        slots: list[dict[str, Any]] = []
        day = lo.date()
        while day <= hi.date():  # at most MAX_SLOT_RANGE_DAYS days
            if include_weekends or day.weekday() < 5:
                cursor = max(datetime.combine(day, opens), lo)
                stop = min(datetime.combine(day, closes), hi)
                for b_start, b_end in busy:
                    if b_end <= cursor or b_start >= stop:
                        continue
                    if b_start - cursor >= need:
                        slots.append({"start": _iso(cursor), "end": _iso(b_start)})
                    cursor = max(cursor, b_end)
                if stop - cursor >= need:
                    slots.append({"start": _iso(cursor), "end": _iso(stop)})
            day += timedelta(days=1)
        out: dict[str, Any] = {
            "attendees": people,
            "duration_minutes": duration_minutes,
            "slots": slots[:MAX_SLOTS],
        }
        if len(slots) > MAX_SLOTS:
            out["more"] = (
                f"{len(slots) - MAX_SLOTS} more free windows from {slots[MAX_SLOTS]['start']} on; "
                "search again from there"
            )
        return as_json(out)

    @writer(app, WRITE)
    def create_event(
        title: str,
        start: str,
        end: str,
        calendar: str = "Work",
        location: str = "",
        attendees: list[str] | None = None,
        description: str = "",
    ) -> str:
        """Create an event on one of your calendars (Work or Personal) and invite attendees
        (e-mails). start/end: local date-times like 2026-12-03T14:00; end after start.
        Returns the new event id and any conflicts the attendees have (the event is created anyway)."""
        if not title.strip():
            raise ToolError("title must not be empty")
        lo, hi = _when(start, "start", need_time=True), _when(end, "end", need_time=True)
        if hi <= lo:
            raise ToolError(f"end ({_iso(hi)}) must be after start ({_iso(lo)})")
        guests = _emails(attendees)
        with Session(ctx.engine) as s:
            cal = _own_calendar(s, calendar)
            e = CalendarEvent(
                calendar_id=cal.id or 0, title=title.strip(), start=_iso(lo), end=_iso(hi), location=location,
                description=description, organizer=ME,
            )  # fmt: skip
            clashes = _conflicts(s, [ME, *guests], e.start, e.end, None)
            s.add(e)
            s.flush()
            _set_attendees(s, e, guests)
            s.commit()
            return as_json({"created": e.id, "start": e.start, "end": e.end, "conflicts": clashes})

    @writer(app, WRITE, destructive=True)
    def update_event(
        event_id: int,
        title: str | None = None,
        start: str | None = None,
        end: str | None = None,
        location: str | None = None,
        attendees: list[str] | None = None,
        description: str | None = None,
    ) -> str:
        """Change an event on your own calendars; only the fields given change. attendees, when
        given, replaces the whole guest list. end must stay after start."""
        with Session(ctx.engine) as s:
            e = _editable(s, event_id)
            lo = (
                _when(start, "start", need_time=True)
                if start is not None
                else datetime.fromisoformat(e.start)
            )
            hi = _when(end, "end", need_time=True) if end is not None else datetime.fromisoformat(e.end)
            if hi <= lo:
                raise ToolError(f"end ({_iso(hi)}) must be after start ({_iso(lo)})")
            if title is not None and not title.strip():
                raise ToolError("title must not be empty")
            guests = _emails(attendees) if attendees is not None else None
            e.start, e.end = _iso(lo), _iso(hi)
            e.title = title.strip() if title is not None else e.title
            e.location = location if location is not None else e.location
            e.description = description if description is not None else e.description
            s.add(e)
            if guests is not None:
                _set_attendees(s, e, guests)
            s.flush()
            people = [
                a.email
                for a in s.execute(
                    select(CalendarAttendee).where(CalendarAttendee.event_id == e.id)
                ).scalars()
            ]
            clashes = _conflicts(s, people, e.start, e.end, e.id)
            s.commit()
            return as_json({"updated": e.id, "start": e.start, "end": e.end, "conflicts": clashes})

    @writer(app, WRITE, destructive=True)
    def delete_event(event_id: int) -> str:
        """Delete an event on your own calendars (its invitations go with it)."""
        with Session(ctx.engine) as s:
            e = _editable(s, event_id)
            s.execute(delete(CalendarAttendee).where(col(CalendarAttendee.event_id) == e.id))
            s.delete(e)
            s.commit()
            return f"Deleted event {event_id} ({e.title}, {e.start})."

    return app


SPEC = ServerSpec(
    name="calendar",
    description="Calendars and events: list, find free slots; create, update, delete events",
    build=build,
    tables=TABLES,
    seed=seed,
)
