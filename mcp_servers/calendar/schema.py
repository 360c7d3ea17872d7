"""Calendar tables. Times are local, ISO "YYYY-MM-DDTHH:MM" strings (they sort as times).

Everyone taking part in an event has a `calendar_attendee` row (the organizer too, accepted),
so "who is busy when" is one query over attendees. Events on the `HOLIDAYS` calendar block
everyone.
"""

from __future__ import annotations

from sqlalchemy import UniqueConstraint
from sqlmodel import Field, SQLModel

TODAY = "2026-11-20"
# The world clock: free slots are never offered before it.
NOW = "2026-11-20T09:00"
ME = "me@company.example"
HOLIDAYS = "Company Holidays"
RESPONSES = ("accepted", "tentative", "declined", "needs-action")


class CalendarCalendar(SQLModel, table=True):
    __tablename__ = "calendar_calendar"
    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(index=True, unique=True)
    owner: str = Field(index=True)
    description: str = ""


class CalendarEvent(SQLModel, table=True):
    __tablename__ = "calendar_event"
    id: int | None = Field(default=None, primary_key=True)
    calendar_id: int = Field(foreign_key="calendar_calendar.id", index=True)
    title: str = Field(index=True)
    start: str = Field(index=True)
    end: str = Field(index=True)
    location: str = ""
    description: str = ""
    organizer: str


class CalendarAttendee(SQLModel, table=True):
    __tablename__ = "calendar_attendee"
    __table_args__ = (UniqueConstraint("event_id", "email"),)
    id: int | None = Field(default=None, primary_key=True)
    event_id: int = Field(foreign_key="calendar_event.id", index=True)
    email: str = Field(index=True)
    response: str = "needs-action"


TABLES = (CalendarCalendar, CalendarEvent, CalendarAttendee)
