"""Pure railway logic shared by the seed and the server: clock arithmetic, fares, booking
references, and the connection search over an in-memory timetable."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

# A change of trains needs at least this long on the platform, as real journey planners assume.
MIN_CHANGE_MINUTES = 5
REFERENCE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # 32 symbols, no 0/O or 1/I


def to_minutes(hhmm: str) -> int:
    h, m = hhmm.split(":")
    return int(h) * 60 + int(m)


def to_hhmm(minutes: int) -> str:
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


def runs_on(pattern: str, day: date) -> bool:
    """Whether a train with weekday pattern `pattern` ("12345", Monday = 1) runs on `day`."""
    return str(day.isoweekday()) in pattern


def fare(base: float, per_km: float, km: float, discount: float = 0.0, seats: int = 1) -> float:
    """Price of `seats` seats over `km` with a railcard `discount` (a fraction)."""
    return round((base + per_km * km) * (1 - discount), 2) * seats


def reference_for(booking_id: int) -> str:
    """A six-symbol booking reference, unique per id (an odd multiplier is a bijection mod 2^30)."""
    n = (booking_id * 0x2E5BF271) % (1 << 30)
    return "".join(REFERENCE_ALPHABET[(n >> (5 * i)) & 31] for i in range(6))


@dataclass(frozen=True)
class Call:
    """One call of a train at a station."""

    station_id: int
    seq: int
    arrives: int | None
    departs: int | None
    km: float


@dataclass(frozen=True)
class TrainRun:
    """A train and its calls in order: plain values, so a server may keep its timetable."""

    id: int
    number: str
    kind: str
    runs_on: str
    calls: tuple[Call, ...] = ()

    def call_at(self, station_id: int) -> Call | None:
        return next((c for c in self.calls if c.station_id == station_id), None)


@dataclass(frozen=True)
class Leg:
    train: TrainRun
    board: Call
    alight: Call

    @property
    def departs(self) -> int:
        assert self.board.departs is not None
        return self.board.departs

    @property
    def arrives(self) -> int:
        assert self.alight.arrives is not None
        return self.alight.arrives

    @property
    def km(self) -> float:
        return round(self.alight.km - self.board.km, 1)


def leg(train: TrainRun, origin: int, destination: int) -> Leg | None:
    """The leg of `train` from `origin` to `destination`, if it calls at both in that order."""
    a, b = train.call_at(origin), train.call_at(destination)
    if a is None or b is None or a.seq >= b.seq or a.departs is None or b.arrives is None:
        return None
    return Leg(train, a, b)


def connections(
    trains: Sequence[TrainRun], origin: int, destination: int, day: date, after: int, max_changes: int
) -> list[list[Leg]]:
    """Journeys from `origin` to `destination` on `day` leaving at or after `after` (minutes):
    direct trains, and with `max_changes` = 1 also one change of trains. Sorted by arrival,
    then departure. Every direct train is kept (a slower one may be cheaper); a journey with a change
    is dropped when another journey leaves no earlier, arrives no later and has no more changes."""
    running = [t for t in trains if runs_on(t.runs_on, day)]
    found: list[list[Leg]] = []
    for t in running:
        direct = leg(t, origin, destination)
        if direct and direct.departs >= after:
            found.append([direct])
    if max_changes >= 1:
        for first in running:
            start = first.call_at(origin)
            if start is None or start.departs is None or start.departs < after:
                continue
            for change in first.calls:
                if change.seq <= start.seq or change.station_id == destination:
                    continue
                l1 = leg(first, origin, change.station_id)
                if l1 is None:
                    continue
                best: Leg | None = None
                for second in running:
                    if second.id == first.id:
                        continue
                    l2 = leg(second, change.station_id, destination)
                    ok = l2 is not None and l2.departs >= l1.arrives + MIN_CHANGE_MINUTES
                    if ok and l2 is not None and (best is None or l2.arrives < best.arrives):
                        best = l2
                if best is not None:
                    found.append([l1, best])
    found.sort(key=lambda j: (j[-1].arrives, -j[0].departs, len(j)))
    kept: list[list[Leg]] = []
    for journey in found:
        dominated = len(journey) > 1 and any(
            k[0].departs >= journey[0].departs
            and k[-1].arrives <= journey[-1].arrives
            and len(k) <= len(journey)
            for k in kept
        )
        if not dominated:
            kept.append(journey)
    return kept
