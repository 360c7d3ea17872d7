"""Orchestration utilities of a MAD-SAE setting against its SA baseline, and MSQ (SPEC §9).

Episodes pair by (task, seed). D_del = pairs whose MAD-SAE episode completed and started at
least one sub-agent (an absent SA episode there counts as a failure); D_del⁺ = the pairs of
D_del that both solved. Headline utilities are in ratio form (0.5 = parity with SA):

    U_p = SR_MAS / (SR_MAS + SR_SA)   over D_del
    U_e = C̄_SA / (C̄_SA + C̄_MAS)        over D_del⁺, C̄ the mean critical steps
    U_c = c̄_SA / (c̄_SA + c̄_MAS)        over D_del⁺ pairs with both costs recorded

A 0/0 is undefined (None), never 50%. The pairwise form — per pair win 1, tie ½, loss 0,
averaged over the same sets — is reported beside it as a diagnostic.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from contracts import EpisodeRecord
from evaluation.success import critical_steps, is_completed, is_success, ratio


@dataclass(frozen=True)
class Pair:
    mas: EpisodeRecord
    sa: EpisodeRecord

    @property
    def task_seed(self) -> tuple[str, int]:
        return (self.mas.task_id, self.mas.seed)


@dataclass(frozen=True)
class Pairing:
    pairs: list[Pair]
    unpaired: int
    """MAD-SAE episodes with no SA episode of the same (task, seed): left out."""


def pair_episodes(mas: Sequence[EpisodeRecord], sa: Sequence[EpisodeRecord]) -> Pairing:
    """Pair each MAD-SAE episode with the SA episode of the same (task, seed)."""
    baseline = {(r.task_id, r.seed): r for r in sa}
    pairs = [Pair(r, baseline[(r.task_id, r.seed)]) for r in mas if (r.task_id, r.seed) in baseline]
    return Pairing(pairs, len(mas) - len(pairs))


def in_d_del(pair: Pair) -> bool:
    """The MAD-SAE episode completed and started at least one sub-agent."""
    return is_completed(pair.mas) and pair.mas.delegated


def in_d_del_plus(pair: Pair) -> bool:
    """In D_del and solved by both."""
    return in_d_del(pair) and is_success(pair.mas) and is_success(pair.sa)


def both_costs(pair: Pair) -> bool:
    """Both episodes recorded a cost."""
    return pair.mas.cost_usd is not None and pair.sa.cost_usd is not None


def share(mas_value: float, sa_value: float) -> float | None:
    """Ratio-form utility for a 'higher is better' quantity: MAS / (MAS + SA)."""
    return ratio(mas_value, mas_value + sa_value)


def win_tie_loss(better: bool, equal: bool) -> float:
    """Pairwise score of one pair: 1, ½ or 0."""
    return 1.0 if better else 0.5 if equal else 0.0


@dataclass(frozen=True)
class Utilities:
    """U_p, U_e, U_c in both forms, with set sizes, means and left-out counts."""

    d_del: int
    d_del_plus: int
    u_p: float | None
    u_e: float | None
    u_c: float | None
    u_p_pairwise: float | None
    u_e_pairwise: float | None
    u_c_pairwise: float | None
    sr_mas: float | None
    """SR of MAD-SAE over D_del."""
    sr_sa: float | None
    csteps_mas: float | None
    """Mean critical steps of MAD-SAE over D_del⁺."""
    csteps_sa: float | None
    cost_mas: float | None
    """Mean cost of MAD-SAE over D_del⁺ pairs with both costs."""
    cost_sa: float | None
    mas_absent: int
    """MAD-SAE episodes left out of D_del because they are absent."""
    unpaired: int
    cost_unknown: int
    """Pairs of D_del⁺ left out of U_c for want of a recorded cost."""


def utilities(mas: Sequence[EpisodeRecord], sa: Sequence[EpisodeRecord]) -> Utilities:
    """U_p, U_e, U_c in ratio and pairwise form, with every set size and left-out count."""
    pairing = pair_episodes(mas, sa)
    d_del = [p for p in pairing.pairs if in_d_del(p)]
    d_plus = [p for p in d_del if is_success(p.mas) and is_success(p.sa)]
    costed = [p for p in d_plus if both_costs(p)]

    wins_mas = sum(1 for p in d_del if is_success(p.mas))
    wins_sa = sum(1 for p in d_del if is_success(p.sa))
    steps_mas = sum(critical_steps(p.mas) for p in d_plus)
    steps_sa = sum(critical_steps(p.sa) for p in d_plus)
    cost_mas = math.fsum(p.mas.cost_usd or 0.0 for p in costed)
    cost_sa = math.fsum(p.sa.cost_usd or 0.0 for p in costed)

    # Ratio form: the set sizes cancel, so U_p = wins_MAS / (wins_MAS + wins_SA) and
    # U_e = ΣC_SA / (ΣC_SA + ΣC_MAS); 'lower is better' quantities swap places.
    u_p = share(wins_mas, wins_sa) if d_del else None
    u_e = share(steps_sa, steps_mas) if d_plus else None
    u_c = share(cost_sa, cost_mas) if costed else None

    def pairwise(scores: list[float]) -> float | None:
        return sum(scores) / len(scores) if scores else None

    u_p_pw = pairwise(
        [
            win_tie_loss(is_success(p.mas) > is_success(p.sa), is_success(p.mas) == is_success(p.sa))
            for p in d_del
        ]
    )
    u_e_pw = pairwise(
        [
            win_tie_loss(
                critical_steps(p.mas) < critical_steps(p.sa), critical_steps(p.mas) == critical_steps(p.sa)
            )
            for p in d_plus
        ]
    )
    u_c_pw = pairwise([win_tie_loss(_cost(p.mas) < _cost(p.sa), _cost(p.mas) == _cost(p.sa)) for p in costed])

    return Utilities(
        d_del=len(d_del),
        d_del_plus=len(d_plus),
        u_p=u_p,
        u_e=u_e,
        u_c=u_c,
        u_p_pairwise=u_p_pw,
        u_e_pairwise=u_e_pw,
        u_c_pairwise=u_c_pw,
        sr_mas=ratio(wins_mas, len(d_del)),
        sr_sa=ratio(wins_sa, len(d_del)),
        csteps_mas=ratio(steps_mas, len(d_plus)),
        csteps_sa=ratio(steps_sa, len(d_plus)),
        cost_mas=ratio(cost_mas, len(costed)),
        cost_sa=ratio(cost_sa, len(costed)),
        mas_absent=sum(1 for p in pairing.pairs if not is_completed(p.mas)),
        unpaired=pairing.unpaired,
        cost_unknown=len(d_plus) - len(costed),
    )


def _cost(record: EpisodeRecord) -> float:
    assert record.cost_usd is not None  # only called on pairs with both costs
    return record.cost_usd


def msq(f1_hit: float | None, u_p: float | None, u_e: float | None, u_c: float | None) -> float | None:
    """MSQ = F1_hit × (U_p + U_e + U_c) / 3; None when any term is undefined."""
    if f1_hit is None or u_p is None or u_e is None or u_c is None:
        return None
    return f1_hit * (u_p + u_e + u_c) / 3
