"""Paired bootstrap over tasks."""

from __future__ import annotations

import pytest

from evaluation.stats import paired_bootstrap, point_values

# t1: MAS solved, SA failed; t2: both solved (one episode each, in D_del, t2 in D_del⁺).
T1 = {
    "mas_successes": 1,
    "mas_episodes": 1,
    "sa_successes": 0,
    "sa_episodes": 1,
    "del_mas_wins": 1,
    "del_n": 1,
}
T2 = {
    "mas_successes": 1, "mas_episodes": 1, "sa_successes": 1, "sa_episodes": 1,
    "del_mas_wins": 1, "del_sa_wins": 1, "del_n": 1,
    "plus_steps_mas": 4, "plus_steps_sa": 6, "plus_n": 1, "cost_mas": 2.0, "cost_sa": 1.0, "cost_n": 1,
    "hits_delegated": 1, "run_units": 2, "hits_need": 1, "gold_units": 1,
}  # fmt: skip


def test_point_values_by_hand() -> None:
    """SR diff = 2/2 − 1/2 = 0.5; U_p = 2/(2+1); U_e = 6/10; U_c = 1/3;
    P = 1/2, R = 1 → F1 = 2/3; MSQ = 2/3 × (2/3 + 0.6 + 1/3)/3."""
    point = point_values([T1, T2])
    assert point["sr_diff"] == 0.5
    assert point["u_p"] == pytest.approx(2 / 3)
    assert point["u_e"] == pytest.approx(0.6)
    assert point["u_c"] == pytest.approx(1 / 3)
    assert point["f1_hit"] == pytest.approx(2 / 3)
    assert point["msq"] == pytest.approx(2 / 3 * (2 / 3 + 0.6 + 1 / 3) / 3)


def test_intervals_are_percentiles_of_resampled_tasks() -> None:
    """Resampling two tasks gives {t1,t1} (SR diff 1), {t2,t2} (0) or {t1,t2} (0.5), with
    chances 1/4, 1/4, 1/2: the 95% interval spans [0, 1]. Replicates without t2 have no D_del⁺,
    so U_e is 0/0 there: left out and counted (about a quarter of them)."""
    intervals = paired_bootstrap([T1, T2], resamples=2000, seed=1)
    sr = intervals["sr_diff"]
    assert sr is not None and (sr.low, sr.high, sr.undefined) == (0.0, 1.0, 0)
    u_e = intervals["u_e"]
    assert u_e is not None and u_e.low == u_e.high == pytest.approx(0.6)
    assert 400 < u_e.undefined < 600


def test_same_seed_same_intervals_and_undefined_point_gives_none() -> None:
    assert paired_bootstrap([T1, T2], seed=3) == paired_bootstrap([T1, T2], seed=3)
    only_t1 = paired_bootstrap([T1])
    assert only_t1["u_e"] is None and only_t1["msq"] is None
    assert paired_bootstrap([]) == dict.fromkeys(("sr_diff", "u_p", "u_e", "u_c", "f1_hit", "msq"))
