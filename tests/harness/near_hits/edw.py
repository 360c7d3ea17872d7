"""Near hits of the edw tasks (see __init__.py)."""

from __future__ import annotations

from tests.harness.near_hits import NearHit

HITS: list[NearHit] = [
    # edw-budget-vs-actual: a cloud sheet's formulas are read as what they compute
    NearHit(
        "edw-budget-vs-actual",
        "an ENG account's variance and variance % written as formulas (=D2-C2, =ROUND(E2/C2*100, 1))",
        replace=(
            (
                '["6000", "Salaries and wages", 4632900.0, 4249941.67, -382958.33, -8.3]',
                '["6000", "Salaries and wages", 4632900.0, 4249941.67, "=D2-C2", "=ROUND(E2/C2*100, 1)"]',
            ),
        ),
    ),
    # edw-regional-sales-review: a workbook's formulas are read as what they compute
    NearHit(
        "edw-regional-sales-review",
        "NA-EAST's Summary revenue written as =SUM(D2:F2)",
        replace=(('["NA-EAST", 141, 9883067.3,', '["NA-EAST", 141, "=SUM(D2:F2)",'),),
    ),
    NearHit(
        "edw-regional-sales-review",
        "the Summary ends with a Total row of the right sums",
        replace=(
            (
                '["EMEA-S", 84, 5394535.95, 2718767.95, 2025693.0, 650075.0]',
                '["EMEA-S", 84, 5394535.95, 2718767.95, 2025693.0, 650075.0],'
                ' ["Total", 414, 30854522.75, 13820646.25, 12565314.0, 4468562.5]',
            ),
        ),
    ),
]
