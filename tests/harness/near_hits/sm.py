"""Near hits of the sm tasks (see __init__.py)."""

from __future__ import annotations

from tests.harness.near_hits import NearHit

FOOD = "- FOOD (Harvest Foods): 3.0%"

HITS: list[NearHit] = [
    # sm-dividend-watchlist: the yields of the ideas already listed, said to be so, are no claim
    NearHit(
        "sm-dividend-watchlist",
        "the mail also gives the yields of the three ideas already listed, in a sentence",
        replace=(
            (
                FOOD,
                f"{FOOD}\\n\\nFor reference, the three already on the list: TELX 5.2%, PETX 3.8%, REIT 4.6%.",
            ),
        ),
    ),
    NearHit(
        "sm-dividend-watchlist",
        "the mail also lists the three ideas already there, with their yields, under their own heading",
        replace=(
            (
                FOOD,
                f"{FOOD}\\n\\nUnchanged, already on the list:\\n- TELX: 5.2%\\n- PETX: 3.8%\\n- REIT: 4.6%",
            ),
        ),
    ),
]
