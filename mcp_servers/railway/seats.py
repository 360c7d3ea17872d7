"""Seat inventory and journey legs for the write tools: taking and releasing seats atomically,
working out the legs of a booking from its trains, and the refund rule."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from typing import Any

from sqlalchemy import case, update
from sqlmodel import Session, col

from mcp_servers.common.tooling import ToolError
from mcp_servers.railway import lookup as find
from mcp_servers.railway.network import MIN_CHANGE_MINUTES, Leg, TrainRun, leg, runs_on
from mcp_servers.railway.schema import TODAY, RailSeatInventory, RailStation


def refund_share(travel: date) -> float:
    """Share of the fare refunded on cancellation: full from 7 days ahead, half from 2, else none."""
    days = (travel - date.fromisoformat(TODAY)).days
    return 1.0 if days >= 7 else 0.5 if days >= 2 else 0.0


def take_seats(s: Session, train: find.TrainRef, day: str, seat_class: str, seats: int) -> None:
    inv = find.inventory(s, train.id, day, seat_class)
    if inv is None:
        raise ToolError(
            f"{train.number} has no seats on sale for {day}; sales run from {TODAY} for five weeks"
        )
    done = s.execute(
        update(RailSeatInventory)
        .where(col(RailSeatInventory.id) == inv.id, col(RailSeatInventory.available) >= seats)
        .values(available=col(RailSeatInventory.available) - seats)
    )
    if done.rowcount != 1:  # type: ignore[attr-defined]
        left = s.get(RailSeatInventory, inv.id, populate_existing=True)
        n = left.available if left else 0
        raise ToolError(
            f"{train.number} on {day} is sold out in {seat_class} class" if n == 0
            else f"only {n} {seat_class}-class seat(s) left on {train.number} on {day}; asked for {seats}"
        )  # fmt: skip


def least(a: Any, b: Any) -> Any:
    """The smaller of two SQL expressions (MIN(a, b) in SQLite is LEAST in PostgreSQL)."""
    return case((a < b, a), else_=b)


def release_seats(s: Session, train_id: int, day: str, seat_class: str, seats: int) -> None:
    s.execute(
        update(RailSeatInventory)
        .where(
            col(RailSeatInventory.train_id) == train_id,
            col(RailSeatInventory.travel_date) == day,
            col(RailSeatInventory.seat_class) == seat_class,
        )
        .values(available=least(col(RailSeatInventory.capacity), col(RailSeatInventory.available) + seats))
    )


def journey_legs(
    s: Session,
    timetable: Sequence[TrainRun],
    trains: list[str],
    origin: RailStation,
    dest: RailStation,
    day: date,
    change_at: str | None,
) -> list[Leg]:
    """The legs of a journey on the given trains (one, or two with a change) of `timetable`."""
    runs = {r.number: r for r in timetable}
    chosen = [runs[find.train(s, t).number] for t in trains]
    for r in chosen:
        if not runs_on(r.runs_on, day):
            raise ToolError(f"{r.number} does not run on {find.WEEKDAYS[day.weekday()]}s ({day.isoformat()})")
    if len(chosen) == 1:
        only = leg(chosen[0], origin.id or 0, dest.id or 0)
        if only is None:
            raise ToolError(f"{chosen[0].number} does not call at {origin.name} and then {dest.name}")
        return [only]
    first, second = chosen
    candidates = [find.station(s, change_at).id] if change_at else [c.station_id for c in first.calls]
    for via in candidates:
        l1, l2 = leg(first, origin.id or 0, via or 0), leg(second, via or 0, dest.id or 0)
        if l1 and l2 and l2.departs >= l1.arrives + MIN_CHANGE_MINUTES:
            return [l1, l2]
    raise ToolError(
        f"no change from {first.number} to {second.number} gets from {origin.name} to {dest.name} "
        f"(a change needs {MIN_CHANGE_MINUTES} minutes); find_connections lists working pairs"
    )
