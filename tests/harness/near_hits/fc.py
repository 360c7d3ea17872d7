"""Near hits of the fc tasks (see __init__.py)."""

from __future__ import annotations

from tests.harness.near_hits import NearHit

# the event dates in the gold statements' tables
STATEMENT_DAYS = (
    "09-14", "09-16", "09-19", "09-24", "10-13", "10-15", "11-01", "11-03", "11-09", "11-25", "12-02",
    "12-03", "12-10", "12-16", "12-21", "12-23", "12-25", "12-27", "12-30",
)  # fmt: skip

HITS: list[NearHit] = [
    # fc-fortnight-schedule: a cloud sheet's formula is read as what it computes
    NearHit(
        "fc-fortnight-schedule",
        "CO-1078's guests written as a formula (=100+20)",
        replace=(('"Graduation Garden Party", 120,', '"Graduation Garden Party", "=100+20",'),),
    ),
    # fc-client-statements: US dates, month first throughout (11/03/2026 is 3 November)
    NearHit(
        "fc-client-statements",
        "every event date written month first (09/14/2026, 11/03/2026)",
        replace=tuple((f'"2026-{md}"', f'"{md.replace("-", "/")}/2026"') for md in STATEMENT_DAYS),
    ),
    # fc-menu-comparison: a Total row below the menus, its sums right
    NearHit(
        "fc-menu-comparison",
        "the Summary ends with a Total row of the right sums (40.0, 5058.5)",
        replace=(
            (
                '"dairy, gluten, mustard, nuts"]]',
                '"dairy, gluten, mustard, nuts"], ["Total", 40.0, 5058.5, null]]',
            ),
        ),
    ),
]
