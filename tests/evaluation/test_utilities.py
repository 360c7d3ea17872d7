"""Orchestration utilities (ratio and pairwise form), D_del, D_del⁺, MSQ."""

from __future__ import annotations

from typing import Any

import pytest

from contracts import EpisodeRecord
from evaluation.utilities import msq, pair_episodes, utilities
from tests.evaluation.builders import episode, sub

L = "course-records-lookup"


def mas(
    task: str, success: bool | None = True, *, seed: int = 0, delegated: bool = True, **kw: Any
) -> EpisodeRecord:
    waves = [[sub("a", L, steps=2)]] if delegated else []
    return episode(task, "spec", seed=seed, success=success, waves=waves, **kw)


def sa(task: str, success: bool | None = True, *, seed: int = 0, **kw: Any) -> EpisodeRecord:
    return episode(task, "sa", seed=seed, success=success, **kw)


def test_utilities_by_hand() -> None:
    """Pairs (MAS CSteps = main + 2, cost as given):
      t1: MAS ok  (4+2=6,  $2), SA ok   (10, $1)  → D_del⁺
      t2: MAS ok  (3+2=5,  $1), SA ok   (5,  $1)  → D_del⁺
      t3: MAS ok,               SA fail           → D_del
      t4: MAS fail,             SA ok             → D_del
      t5: MAS not delegated                       → not in D_del
      t6: MAS absent                              → not in D_del (left out, counted)
    D_del = {t1..t4}: wins MAS 3, SA 3 → U_p = 3/6 = 0.5.
    D_del⁺ = {t1, t2}: ΣC_SA = 15, ΣC_MAS = 11 → U_e = 15/26; Σc_SA = 2, Σc_MAS = 3 → U_c = 2/5.
    Pairwise: U_p over t1..t4 = (½ + ½ + 1 + 0)/4 = 0.5; U_e: t1 win, t2 tie → 0.75;
    U_c: t1 loss, t2 tie → 0.25."""
    mas_records = [
        mas("t1", main_steps=4, cost=2.0),
        mas("t2", main_steps=3, cost=1.0),
        mas("t3"),
        mas("t4", success=False),
        mas("t5", delegated=False),
        mas("t6", status="absent"),
    ]
    sa_records = [
        sa("t1", main_steps=10, cost=1.0),
        sa("t2", main_steps=5, cost=1.0),
        sa("t3", success=False),
        sa("t4"),
        sa("t5"),
        sa("t6"),
    ]
    u = utilities(mas_records, sa_records)
    assert (u.d_del, u.d_del_plus, u.mas_absent, u.unpaired) == (4, 2, 1, 0)
    assert u.u_p == 0.5
    assert u.u_e == pytest.approx(15 / 26)
    assert u.u_c == pytest.approx(2 / 5)
    assert (u.u_p_pairwise, u.u_e_pairwise, u.u_c_pairwise) == (0.5, 0.75, 0.25)
    assert (u.csteps_mas, u.csteps_sa) == (5.5, 7.5)


def test_zero_over_zero_is_undefined_never_fifty_percent() -> None:
    """D_del = {t1}, both fail: U_p = 0/(0+0) → undefined; D_del⁺ empty → U_e, U_c undefined.
    The pairwise U_p is a tie, ½ — a diagnostic, not the headline."""
    u = utilities([mas("t1", success=False)], [sa("t1", success=False)])
    assert (u.u_p, u.u_e, u.u_c) == (None, None, None)
    assert u.u_p_pairwise == 0.5
    assert (u.u_e_pairwise, u.u_c_pairwise) == (None, None)


def test_zero_costs_are_undefined() -> None:
    """Both costs 0 on D_del⁺: U_c = 0/(0+0) → undefined, though U_e is defined."""
    u = utilities([mas("t1", cost=0.0)], [sa("t1", cost=0.0)])
    assert u.u_c is None
    assert u.u_e is not None


def test_absent_sa_counts_as_failure_on_d_del() -> None:
    """MAS ok, SA absent: U_p = 1/(1+0) = 1; D_del⁺ empty."""
    u = utilities([mas("t1")], [sa("t1", status="absent")])
    assert (u.d_del, u.d_del_plus, u.u_p) == (1, 0, 1.0)


def test_unknown_costs_leave_pairs_out_of_u_c_only() -> None:
    u = utilities([mas("t1", cost=None), mas("t2", cost=1.0)], [sa("t1"), sa("t2", cost=3.0)])
    assert (u.d_del_plus, u.cost_unknown) == (2, 1)
    assert u.u_c == 0.75  # 3 / (3 + 1) over t2 alone


def test_pairing_by_task_and_seed() -> None:
    """Seeds pair separately; a MAS episode with no SA episode of its (task, seed) is unpaired."""
    pairing = pair_episodes(
        [mas("t", seed=0), mas("t", seed=1), mas("t", seed=2)], [sa("t", seed=1), sa("t", seed=0)]
    )
    assert [p.task_seed for p in pairing.pairs] == [("t", 0), ("t", 1)]
    assert pairing.unpaired == 1


def test_no_delegation_gives_empty_d_del() -> None:
    u = utilities([mas("t1", delegated=False)], [sa("t1")])
    assert (u.d_del, u.u_p, u.u_p_pairwise) == (0, None, None)


def test_msq() -> None:
    """MSQ = 0.8 × (0.5 + 0.6 + 0.4)/3 = 0.8 × 0.5 = 0.4; null when any term is null."""
    assert msq(0.8, 0.5, 0.6, 0.4) == pytest.approx(0.4)
    assert msq(0.0, 0.5, 0.6, 0.4) == 0.0
    assert msq(None, 0.5, 0.6, 0.4) is None
    assert msq(0.8, 0.5, None, 0.4) is None
