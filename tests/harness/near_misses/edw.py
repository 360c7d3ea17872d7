"""Near misses of the edw tasks (see __init__.py)."""

from __future__ import annotations

from tests.harness.near_misses import NearMiss

MISSES: list[NearMiss] = [
    # edw-budget-vs-actual: money "to the cent"
    NearMiss(
        "edw-budget-vs-actual",
        "ENG budget 5826400.90 (true 5826400.00) in the sheet and the memo",
        replace=(('["ENG", 5826400.0,', '["ENG", 5826400.9,'),),
    ),
    NearMiss(
        "edw-budget-vs-actual",
        "the largest overrun 50 cents off in the memo",
        replace=(('"Salaries and wages", 166125.0]', '"Salaries and wages", 166125.5]'),),
    ),
    NearMiss(
        "edw-budget-vs-actual",
        "the spreadsheet also shared with the Sales Director",
        extra=(
            (
                "mcp__sheets__share",
                {"spreadsheet_id": 6, "email": "maya.wagner@company.example", "role": "reader"},
            ),
        ),
    ),
]
