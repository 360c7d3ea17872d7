"""UDR, ODR and the micro-averaged hit scores."""

from __future__ import annotations

from evaluation.delegation import delegation_rates, f1, hit_scores
from evaluation.units import deterministic_labeler
from tests.evaluation.builders import episode, prior, sub

LABELER = deterministic_labeler()
L, S = "course-records-lookup", "spreadsheet-build"
PRIORS = {
    "need1": prior("need1", [[L, L], [S]]),  # 3 gold units
    "need2": prior("need2", [[L]]),  # 1 gold unit
    "none1": prior("none1"),
    "none2": prior("none2"),
}


def test_rates_and_hits_by_hand() -> None:
    """need1: waves [L(A), L(B)] [S] → 3 run units, 3 hits.
    need2: no delegation → under-delegated, 0 hits of 1 gold unit.
    none1: one wave [L] → over-delegated, 1 run unit, 0 hits. none2: alone.
    unknown: no prior → left out. need1 seed 1: absent → left out.

    UDR = 1/2; ODR = 1/2; P = 3 hits / (3 + 1) run units = 0.75;
    R = 3 / (3 + 1) gold units = 0.75; F1 = 2·0.75·0.75 / 1.5 = 0.75."""
    records = [
        episode("need1", waves=[[sub("a", L, description="A"), sub("b", L, description="B")], [sub("c", S)]]),
        episode("need1", seed=1, status="absent"),
        episode("need2"),
        episode("none1", waves=[[sub("d", L)]]),
        episode("none2"),
        episode("unknown", waves=[[sub("e", L)]]),
    ]
    rates = delegation_rates(records, PRIORS)
    assert (rates.udr, rates.odr) == (0.5, 0.5)
    assert (rates.d_need, rates.d_no_need, rates.under, rates.over, rates.absent, rates.no_prior) == (
        2,
        2,
        1,
        1,
        1,
        1,
    )
    hits = hit_scores(records, PRIORS, LABELER)
    assert (hits.hits_delegated, hits.run_units, hits.hits_need, hits.gold_units, hits.delegated) == (
        3,
        4,
        3,
        4,
        2,
    )
    assert (hits.p_hit, hits.r_hit, hits.f1_hit) == (0.75, 0.75, 0.75)


def test_no_delegation_at_all() -> None:
    """Nothing delegated: UDR = 2/2 = 1, ODR = 0/1 = 0, P undefined (no delegating episode),
    R = 0/4 = 0, so F1 = 0 (not undefined)."""
    records = [episode("need1"), episode("need2"), episode("none1")]
    rates = delegation_rates(records, PRIORS)
    assert (rates.udr, rates.odr) == (1.0, 0.0)
    hits = hit_scores(records, PRIORS, LABELER)
    assert (hits.p_hit, hits.r_hit, hits.f1_hit) == (None, 0.0, 0.0)


def test_empty_splits_are_undefined() -> None:
    """Only D_no-need tasks: UDR and R_hit undefined, so F1 undefined; ODR = 1/1."""
    records = [episode("none1", waves=[[sub("d", L)]])]
    rates = delegation_rates(records, PRIORS)
    assert (rates.udr, rates.odr) == (None, 1.0)
    hits = hit_scores(records, PRIORS, LABELER)
    assert (hits.p_hit, hits.r_hit, hits.f1_hit) == (0.0, None, None)


def test_no_prior_at_all_leaves_everything_out() -> None:
    records = [episode("x", waves=[[sub("a", L)]]), episode("y")]
    rates = delegation_rates(records, {})
    assert (rates.udr, rates.odr, rates.no_prior) == (None, None, 2)


def test_over_delegated_units_lower_precision() -> None:
    """need2 gold [L]; run [L, L(other sub-task), S] in one wave: 1 hit of 3 run units.
    P = 1/3, R = 1/1, F1 = 2·(1/3)·1 / (4/3) = 0.5."""
    records = [
        episode("need2", waves=[[sub("a", L, description="x"), sub("b", L, description="y"), sub("c", S)]])
    ]
    hits = hit_scores(records, PRIORS, LABELER)
    assert (hits.p_hit, hits.r_hit) == (1 / 3, 1.0)
    assert hits.f1_hit == 0.5


def test_f1_rules() -> None:
    assert f1(None, None) is None
    assert f1(None, 0.0) == 0.0
    assert f1(0.0, 0.0) == 0.0
    assert f1(0.5, 1.0) == 2 * 0.5 / 1.5
