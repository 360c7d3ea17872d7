"""Railway tables. Dates are ISO strings, clock times "HH:MM"; the world's clock stands at `TODAY`.

A train runs the same timetable on every weekday listed in `runs_on` ("1234567", Monday = 1).
Seats are sold per train, date and class (`RailSeatInventory`), whatever the leg travelled.
A booking holds one ticket per leg (a journey with one change has two tickets).
"""

from __future__ import annotations

from sqlalchemy import UniqueConstraint
from sqlmodel import Field, SQLModel

TODAY = "2026-11-20"
SEAT_CLASSES = ("first", "second")
RAILCARDS = {"none": 0.0, "youth": 0.25, "senior": 0.30, "family": 0.20}


class RailStation(SQLModel, table=True):
    __tablename__ = "railway_station"
    id: int | None = Field(default=None, primary_key=True)
    code: str = Field(index=True, unique=True)
    name: str = Field(index=True, unique=True)
    region: str
    lines: str  # comma-separated line names, for display


class RailTrain(SQLModel, table=True):
    __tablename__ = "railway_train"
    id: int | None = Field(default=None, primary_key=True)
    number: str = Field(index=True, unique=True)  # "IC 101"
    kind: str  # InterCity | Regional
    line: str
    origin_id: int = Field(foreign_key="railway_station.id")
    destination_id: int = Field(foreign_key="railway_station.id")
    runs_on: str  # weekday digits, Monday = 1


class RailStop(SQLModel, table=True):
    __tablename__ = "railway_stop"
    __table_args__ = (UniqueConstraint("train_id", "seq"),)
    id: int | None = Field(default=None, primary_key=True)
    train_id: int = Field(foreign_key="railway_train.id", index=True)
    seq: int
    station_id: int = Field(foreign_key="railway_station.id", index=True)
    arrives: str | None  # None at the origin
    departs: str | None  # None at the destination
    km: float  # distance from the train's origin


class RailFare(SQLModel, table=True):
    __tablename__ = "railway_fare"
    __table_args__ = (UniqueConstraint("kind", "seat_class"),)
    id: int | None = Field(default=None, primary_key=True)
    kind: str
    seat_class: str
    base: float
    per_km: float


class RailSeatInventory(SQLModel, table=True):
    __tablename__ = "railway_seat_inventory"
    __table_args__ = (UniqueConstraint("train_id", "travel_date", "seat_class"),)
    id: int | None = Field(default=None, primary_key=True)
    train_id: int = Field(foreign_key="railway_train.id", index=True)
    travel_date: str = Field(index=True)
    seat_class: str
    capacity: int
    available: int


class RailPassenger(SQLModel, table=True):
    __tablename__ = "railway_passenger"
    id: int | None = Field(default=None, primary_key=True)
    passenger_number: str = Field(index=True, unique=True)  # "P00012"
    name: str
    email: str = Field(index=True, unique=True)
    railcard: str  # none | youth | senior | family


class RailBooking(SQLModel, table=True):
    __tablename__ = "railway_booking"
    id: int | None = Field(default=None, primary_key=True)
    reference: str = Field(index=True, unique=True)  # "K7QX2M"
    passenger_id: int = Field(foreign_key="railway_passenger.id", index=True)
    status: str  # confirmed | cancelled | completed
    booked_on: str
    travel_date: str
    origin_id: int = Field(foreign_key="railway_station.id")
    destination_id: int = Field(foreign_key="railway_station.id")
    seat_class: str
    seats: int
    total_fare: float
    refund: float = 0.0


class RailTicket(SQLModel, table=True):
    __tablename__ = "railway_ticket"
    __table_args__ = (UniqueConstraint("booking_id", "leg"),)
    id: int | None = Field(default=None, primary_key=True)
    booking_id: int = Field(foreign_key="railway_booking.id", index=True)
    leg: int
    train_id: int = Field(foreign_key="railway_train.id", index=True)
    travel_date: str
    origin_id: int = Field(foreign_key="railway_station.id")
    destination_id: int = Field(foreign_key="railway_station.id")
    departs: str
    arrives: str
    seat_class: str
    fare: float


TABLES = (
    RailStation,
    RailTrain,
    RailStop,
    RailFare,
    RailSeatInventory,
    RailPassenger,
    RailBooking,
    RailTicket,
)
