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
    # sm-core-holdings-review: a fall said in words keeps its sign
    NearHit(
        "sm-core-holdings-review",
        "SEMI's slide says the Q3 EPS missed estimates by 2.7% (for -2.7%)",
        replace=(("Q3 EPS surprise -2.7%", "Q3 EPS missed estimates by 2.7%"),),
    ),
    # sm-harvest-foods-note: the deal's start as a date
    NearHit(
        "sm-harvest-foods-note",
        "the note gives the deal's start as 2026-12-01 (not the word December)",
        replace=(("Aldermoor Catering from December", "Aldermoor Catering from 2026-12-01"),),
    ),
    # sm-healthcare-peers: best and worst on one line, set apart by '|'
    NearHit(
        "sm-healthcare-peers",
        "the takeaways in one bullet, 'Best: MEDX | Worst: GENO'",
        replace=(
            (
                '"Best performer: MEDX (Medexa Therapeutics), +63.76% since the 2026 open", '
                '"Worst performer: GENO (Genova Biosciences), -20.70% since the 2026 open"',
                '"Best: MEDX (+63.76% since the 2026 open) | Worst: GENO (-20.70%)"',
            ),
        ),
    ),
]
