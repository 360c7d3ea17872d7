"""Near misses of the sm tasks (see __init__.py)."""

from __future__ import annotations

from tests.harness.near_misses import NearMiss

MISSES: list[NearMiss] = [
    # sm-dividend-watchlist
    NearMiss(
        "sm-dividend-watchlist",
        "the mail names the symbols without their yields",
        replace=(
            ("- GRID (Gridline Utilities): 3.4%", "- GRID (Gridline Utilities)"),
            ("- HRBR (Harbor Financial): 3.1%", "- HRBR (Harbor Financial)"),
            ("- FOOD (Harvest Foods): 3.0%", "- FOOD (Harvest Foods)"),
        ),
    ),
    NearMiss(
        "sm-dividend-watchlist",
        "the mail pairs two symbols with each other's yields",
        replace=(
            ("- GRID (Gridline Utilities): 3.4%", "- GRID (Gridline Utilities): 3.1%"),
            ("- HRBR (Harbor Financial): 3.1%", "- HRBR (Harbor Financial): 3.4%"),
        ),
    ),
    NearMiss(
        "sm-dividend-watchlist",
        "HRBR removed from the 'Core holdings' watchlist",
        extra=(("mcp__market__remove_from_watchlist", {"watchlist": "Core holdings", "symbol": "HRBR"}),),
    ),
    NearMiss(
        "sm-dividend-watchlist",
        "a seeded dividend idea removed",
        extra=(("mcp__market__remove_from_watchlist", {"watchlist": "Dividend ideas", "symbol": "REIT"}),),
    ),
    NearMiss(
        "sm-dividend-watchlist",
        "a note with a wrong yield",
        replace=(('"note": "yield 3.1%"', '"note": "yield 3.4%"'),),
    ),
]
