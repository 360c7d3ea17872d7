"""Near hits of the fc tasks (see __init__.py)."""

from __future__ import annotations

from tests.harness.near_hits import NearHit

HITS: list[NearHit] = [
    # fc-fortnight-schedule: a cloud sheet's formula is read as what it computes
    NearHit(
        "fc-fortnight-schedule",
        "CO-1078's guests written as a formula (=100+20)",
        replace=(('"Graduation Garden Party", 120,', '"Graduation Garden Party", "=100+20",'),),
    ),
]
