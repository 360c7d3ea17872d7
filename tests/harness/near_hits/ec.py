"""Near hits of the ec tasks (see __init__.py)."""

from __future__ import annotations

from tests.harness.near_hits import NearHit

HITS: list[NearHit] = [
    # ec-unpaid-orders-cancel: shipping a future order is not shipping the cancelled one
    NearHit(
        "ec-unpaid-orders-cancel",
        "the notice says a new order would ship once paid",
        replace=(
            (
                "You are welcome to place the order again at any time.",
                "If you still want the items, just place a new order and we will ship it as soon as your"
                " payment arrives.",
            ),
        ),
    ),
    # ec-keyforge-vendor-brief
    NearHit(
        "ec-keyforge-vendor-brief",
        "the brief writes the claim as 10M keystrokes",
        replace=(("tested for ten million keystrokes", "tested for 10M keystrokes"),),
    ),
    NearHit(
        "ec-keyforge-vendor-brief",
        "the brief writes the claim as a 10-million-keystroke rating",
        replace=(("tested for ten million keystrokes", "rated for 10-million keystrokes"),),
    ),
    # ec-winter-stock-check: a cloud sheet's formula is read as what it computes
    NearHit(
        "ec-winter-stock-check",
        "a rating written as a formula (=ROUND(11/3, 2) for 3.67)",
        replace=(
            (
                '"Trailhead Hiking Backpack Lite", 166.99, 45, 3.67]',
                '"Trailhead Hiking Backpack Lite", 166.99, 45, "=ROUND(11/3, 2)"]',
            ),
        ),
    ),
    # ec-monthly-sales-review: the subject's dash may be a hyphen
    NearHit(
        "ec-monthly-sales-review",
        "the subject written with a hyphen ('Shop orders August-October 2026')",
        replace=(("Shop orders August–October 2026", "Shop orders August-October 2026"),),
    ),
]
