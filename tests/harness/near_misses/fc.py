"""Near misses of the fc tasks (see __init__.py)."""

from __future__ import annotations

from tests.harness.near_misses import NearMiss

CS = "fc-client-statements"

MISSES: list[NearMiss] = [
    # fc-client-statements
    NearMiss(
        CS,
        "Aldermoor's delivered total is 5430.00 (true 5380.00)",
        replace=(("Delivered total: 5380.00", "Delivered total: 5430.00"),),
    ),
    NearMiss(
        CS,
        "a row's Menu, Guests, Status and Total cells are blank",
        replace=(
            (
                '["CO-1011", "2026-09-14", "Indian Banquet", 60, "delivered", 870.0]',
                '["CO-1011", "2026-09-14", "", "", "", ""]',
            ),
        ),
    ),
    NearMiss(
        CS,
        "a confirmed order is listed as delivered",
        replace=(
            (
                '"Mediterranean Corporate Lunch", 80, "confirmed", 1000.0]',
                '"Mediterranean Corporate Lunch", 80, "delivered", 1000.0]',
            ),
        ),
    ),
    NearMiss(
        CS,
        "a row's total is 1650.00 (true 1560.00)",
        replace=(
            (
                '"Vegan Tasting Menu", 120, "delivered", 1560.0]',
                '"Vegan Tasting Menu", 120, "delivered", 1650.0]',
            ),
        ),
    ),
    NearMiss(
        CS,
        "a row names the wrong menu and guest count",
        replace=(('"2026-11-01", "Nut-Free School Lunch", 200,', '"2026-11-01", "Indian Banquet", 20,'),),
    ),
    NearMiss(
        CS,
        "a row's event date is wrong",
        replace=(('["CO-1064", "2026-11-03"', '["CO-1064", "2026-11-30"'),),
    ),
]
