"""Case taxonomy and its automatic reasons."""

from __future__ import annotations

import pytest

from evaluation.taxonomy import classify, reasons, taxonomy
from tests.evaluation.builders import episode, prior, sub

L = "course-records-lookup"


def pair(
    mas_ok: bool, sa_ok: bool, mas_steps: int, sa_steps: int, mas_cost: float | None, sa_cost: float | None
) -> tuple:
    return (
        episode("t", "spec", success=mas_ok, main_steps=mas_steps, cost=mas_cost),
        episode("t", "sa", success=sa_ok, main_steps=sa_steps, cost=sa_cost),
    )


@pytest.mark.parametrize(
    ("mas_ok", "sa_ok", "mas_steps", "sa_steps", "mas_cost", "sa_cost", "expected"),
    [
        (True, False, 9, 5, 9.0, 1.0, "F2S"),  # success first, whatever it cost
        (False, True, 1, 5, 0.1, 1.0, "S2F"),
        (True, True, 4, 5, 9.0, 1.0, "CES"),  # fewer steps, though costlier
        (True, True, 9, 5, 0.5, 1.0, "CES"),  # cheaper, though more steps
        (True, True, 5, 5, 2.0, 1.0, "CIS"),  # same steps, strictly costlier
        (True, True, 9, 5, 1.0, 1.0, "neutral"),  # more steps, same cost: neither CES nor CIS
        (True, True, 5, 5, 1.0, 1.0, "neutral"),  # tie on both
        (False, False, 4, 5, 1.0, 1.0, "AES"),
        (False, False, 5, 5, 0.5, 1.0, "AES"),
        (False, False, 6, 5, 1.0, 1.0, "CIF"),
        (False, False, 5, 5, 2.0, 1.0, "CIF"),
        (False, False, 5, 5, 1.0, 1.0, "neutral"),  # tie on both
        (True, True, 5, 5, None, 1.0, "neutral"),  # unknown cost: steps alone decide
    ],
)
def test_categories(
    mas_ok: bool,
    sa_ok: bool,
    mas_steps: int,
    sa_steps: int,
    mas_cost: float | None,
    sa_cost: float | None,
    expected: str,
) -> None:
    assert classify(*pair(mas_ok, sa_ok, mas_steps, sa_steps, mas_cost, sa_cost)) == expected


def test_reasons() -> None:
    need = prior("t", [[L, L]])
    no_need = prior("t")
    sa = episode("t", "sa", main_steps=10)
    alone = episode("t", main_steps=4)
    assert reasons(alone, sa, need) == ("MAO",)
    # One wave of 2 sub-agents, CSteps 4 + 3 = 7 < 10: delegated parallelism.
    parallel = episode("t", main_steps=4, waves=[[sub("a", L), sub("b", L)]])
    assert reasons(parallel, sa, need) == ("DP",)
    # On a D_no-need task: unnecessary delegation as well.
    assert reasons(parallel, sa, no_need) == ("UD", "DP")
    # Every wave has one sub-agent: unrealized parallelism.
    serial = episode("t", main_steps=4, waves=[[sub("a", L)], [sub("b", L)]])
    assert reasons(serial, sa, need) == ("UDP",)
    # More waves (3) than the prior (1) for no fewer CSteps (4 + 3·3 = 13 ≥ 10): UDP.
    many = episode(
        "t",
        main_steps=4,
        waves=[
            [sub(f"a{i}", L, description="sub-task of a"), sub(f"b{i}", L, description="sub-task of b")]
            for i in range(3)
        ],
    )
    assert reasons(many, sa, need) == ("UDP",)
    # Without a prior only the record decides: no UD, and the wave count is not compared.
    assert reasons(many, sa, None) == ()


def test_taxonomy_counts_and_left_out() -> None:
    """t1 F2S (delegated in parallel, fewer steps → DP); t2 CES alone (MAO);
    t3 MAS absent → left out; t4 no SA episode → unpaired."""
    mas = [
        episode("t1", success=True, main_steps=2, waves=[[sub("a", L), sub("b", L)]]),
        episode("t2", success=True, main_steps=3),
        episode("t3", status="absent"),
        episode("t4"),
    ]
    sa = [
        episode("t1", "sa", success=False, main_steps=10),
        episode("t2", "sa", success=True, main_steps=6),
        episode("t3", "sa"),
    ]
    tax = taxonomy(mas, sa, {"t1": prior("t1", [[L, L]])})
    assert tax.counts == {"F2S": 1, "CES": 1, "S2F": 0, "CIS": 0, "AES": 0, "CIF": 0, "neutral": 0}
    assert tax.reasons["F2S"]["DP"] == 1
    assert tax.reasons["CES"]["MAO"] == 1
    assert (tax.left_out, tax.unpaired) == (1, 1)
    assert [(c.task_id, c.category, c.reasons) for c in tax.cases] == [
        ("t1", "F2S", ("DP",)),
        ("t2", "CES", ("MAO",)),
    ]
