"""Near hits of the vp tasks (see __init__.py)."""

from __future__ import annotations

from tests.harness.near_hits import NearHit

HITS: list[NearHit] = [
    # vp-launch-tracker: a cloud sheet's formula is read as what it computes
    NearHit(
        "vp-launch-tracker",
        "the Total row written as formulas (=SUM(B2:B10) ...)",
        replace=(
            (
                '["Total", 44080, 551464, 2381, 123]',
                '["Total", "=SUM(B2:B10)", "=SUM(C2:C10)", "=SUM(D2:D10)", "=SUM(E2:E10)"]',
            ),
        ),
    ),
    # vp-autumn-channel-review: a workbook's formulas are read as what they compute
    NearHit(
        "vp-autumn-channel-review",
        "the Summary rows written as formulas over the channel sheets (=COUNTA, =SUM)",
        replace=tuple(
            (
                f'["@{name}", {videos}, {views}, {minutes}]',
                f'["@{name}", "=COUNTA({name}!A2:A{videos + 1})", "=SUM({name}!D2:D{videos + 1})",'
                f' "=SUM({name}!E2:E{videos + 1})"]',
            )
            for name, videos, views, minutes in (
                ("techunboxed", 5, 167275, 1608309),
                ("codecraft", 4, 47538, 555785),
                ("fitwithleo", 4, 52467, 458167),
            )
        ),
    ),
]
