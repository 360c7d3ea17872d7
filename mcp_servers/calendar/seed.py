"""Deterministic calendar data for November and December 2026.

The people are `names.people(30, seed=ORG_SEED, domain="company.example")`, the colleagues of
the `mail` seed (same call, same order), so the COO who asks for an offsite slot by mail has a
calendar here. The user (`ME`) has a Work and a Personal calendar; eleven colleagues have one
each; company holidays block everyone.
"""

from __future__ import annotations

import random
from datetime import date, datetime, timedelta

from sqlmodel import Session

from mcp_servers.calendar.schema import HOLIDAYS, ME, CalendarAttendee, CalendarCalendar, CalendarEvent
from mcp_servers.common.names import people

ORG_SEED, ORG_SIZE, DOMAIN = 42, 30, "company.example"
FIRST_DAY, LAST_DAY = date(2026, 11, 2), date(2026, 12, 31)
# Indices into the colleague list: COO, CFO, VP Eng, Head of Product, Sales, HR, Marketing, Legal.
LEADERSHIP = (22, 13, 0, 6, 9, 16, 19, 26)
OPS_TEAM = (22, 23, 24, 25)  # the user's team: COO, office, IT, procurement
WITH_CALENDARS = (*LEADERSHIP, 23, 24, 14)
HOLIDAY_DATES = [
    ("2026-11-26", "Thanksgiving"), ("2026-11-27", "Day after Thanksgiving"),
    ("2026-12-24", "Office closed"), ("2026-12-25", "Christmas Day"), ("2026-12-31", "New Year's Eve"),
]  # fmt: skip
ROOMS = ["Harbor room", "Lighthouse room", "Dock 2", "Video call", "Atrium", "Board room"]
MEETINGS = [
    "Budget check-in", "Hiring sync", "Vendor call", "Customer QBR prep", "Design review", "Pipeline review",
    "Contract review", "Campaign planning", "Incident follow-up", "Roadmap discussion", "Interview",
    "Partner call", "Policy review", "Quarterly planning",
]  # fmt: skip


def _at(day: date, hh: int, mm: int = 0) -> str:
    return datetime(day.year, day.month, day.day, hh, mm).isoformat(timespec="minutes")


def _workdays() -> list[date]:
    days = [FIRST_DAY + timedelta(days=i) for i in range((LAST_DAY - FIRST_DAY).days + 1)]
    holidays = {d for d, _ in HOLIDAY_DATES}
    return [d for d in days if d.weekday() < 5 and d.isoformat() not in holidays]


def seed(session: Session) -> None:
    """Calendars, recurring and one-off meetings, personal events, holidays."""
    rng = random.Random(1120)
    org = people(ORG_SIZE, ORG_SEED, DOMAIN)
    cal = {
        "Work": CalendarCalendar(name="Work", owner=ME, description="Jordan Lee's work calendar"),
        "Personal": CalendarCalendar(name="Personal", owner=ME, description="Jordan Lee's personal events"),
        HOLIDAYS: CalendarCalendar(
            name=HOLIDAYS, owner="people@company.example", description="Office closed"
        ),
    }
    for i in WITH_CALENDARS:
        cal[org[i][0]] = CalendarCalendar(
            name=org[i][0], owner=org[i][1], description=f"{org[i][0]}'s calendar"
        )
    for c in cal.values():
        session.add(c)
    session.flush()
    busy: dict[str, list[tuple[str, str]]] = {}
    planned: list[tuple[CalendarEvent, list[str]]] = []

    def add(
        calendar: str, title: str, start: str, end: str, who: list[str], where: str = "", note: str = ""
    ) -> None:
        owner = cal[calendar].owner
        event = CalendarEvent(
            calendar_id=cal[calendar].id or 0, title=title, start=start, end=end, location=where,
            description=note, organizer=owner,
        )  # fmt: skip
        guests = list(dict.fromkeys([owner, *who]))
        planned.append((event, guests))
        for email in guests:
            busy.setdefault(email, []).append((start, end))

    def free(emails: list[str], start: str, end: str) -> bool:
        return all(not (s < end and start < e) for m in emails for s, e in busy.get(m, []))

    for day, name in HOLIDAY_DATES:
        d = date.fromisoformat(day)
        add(HOLIDAYS, name, _at(d, 0), _at(d + timedelta(days=1), 0), [])
    ops = [org[i][1] for i in OPS_TEAM]
    leaders = [org[i][1] for i in LEADERSHIP]
    for d in _workdays():
        add("Work", "Operations standup", _at(d, 9, 30), _at(d, 9, 45), ops, "Video call")
        if d.weekday() == 0:
            add(org[22][0], "Leadership sync", _at(d, 10), _at(d, 11), leaders, "Board room")
        if d.weekday() == 1:
            add("Work", "1:1 Jordan / Jade", _at(d, 14), _at(d, 14, 30), [org[22][1]], "Jade's office")
        if d.weekday() == 3:
            add("Work", "Ops review", _at(d, 10), _at(d, 11), ops + [org[14][1]], "Harbor room")
        if d.weekday() in (0, 2):
            add("Personal", "Gym", _at(d, 18), _at(d, 19), [], "City gym")
    add("Personal", "Dentist", _at(date(2026, 11, 24), 8), _at(date(2026, 11, 24), 9), [], "Smile Dental")
    add("Personal", "Parents visiting", _at(date(2026, 12, 19), 10), _at(date(2026, 12, 20), 18), [])
    for d in _workdays():
        owners = [("Work", ME)] + [(org[i][0], org[i][1]) for i in WITH_CALENDARS]
        for calendar, owner in owners:
            if rng.random() > (0.55 if owner == ME else 0.45):
                continue
            for _ in range(rng.choice([1, 1, 2])):
                length = rng.choice([30, 30, 45, 60, 60, 90])
                begin = rng.randrange(9 * 60, 17 * 60 - length + 1, 15)
                start = _at(d, begin // 60, begin % 60)
                end = _at(d, (begin + length) // 60, (begin + length) % 60)
                guests = [org[g][1] for g in rng.sample(range(ORG_SIZE), rng.choice([1, 2, 3]))]
                if owner != ME and rng.random() < 0.25:
                    guests.append(ME)
                if free([owner, *guests], start, end):
                    add(calendar, rng.choice(MEETINGS), start, end, [g for g in guests if g != owner],
                        rng.choice(ROOMS))  # fmt: skip
    # One flush for all events (ids), then the attendees: much faster than a flush per event.
    session.add_all([event for event, _ in planned])
    session.flush()
    for event, guests in planned:
        for email in guests:
            response = (
                "accepted"
                if email == event.organizer or rng.random() < 0.8
                else rng.choice(["tentative", "declined"])
            )
            session.add(CalendarAttendee(event_id=event.id or 0, email=email, response=response))
