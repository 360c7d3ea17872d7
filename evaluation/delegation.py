"""Delegation appropriateness: UDR, ODR and the sub-agent hit scores (SPEC §9).

All of them use completed episodes only, and only tasks that have a delegation prior; absent
episodes and episodes of tasks without a prior are left out and counted.

- UDR = |{D_need episodes with no sub-agent}| / |D_need episodes|, None when D_need is empty.
- ODR = |{D_no-need episodes with a sub-agent}| / |D_no-need episodes|, None when empty.
- P_hit = Σ hits / Σ run units over episodes that delegated (None when none did);
  R_hit = Σ hits / Σ gold units over D_need (None when D_need is empty);
  F1_hit = 2PR/(P+R), 0 when R = 0, None when R is None. Micro-averaged.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from contracts import DelegationPrior, EpisodeRecord
from evaluation.success import is_completed, ratio
from evaluation.units import Labeler, prior_label_waves, run_units, unit_labels, wave_alignment_hits


@dataclass(frozen=True)
class Scope:
    """Which episodes a prior-based metric can use, and how many it leaves out."""

    need: list[EpisodeRecord]
    no_need: list[EpisodeRecord]
    absent: int
    no_prior: int


def prior_scope(records: Sequence[EpisodeRecord], priors: Mapping[str, DelegationPrior]) -> Scope:
    """Completed episodes split by their prior; absent and prior-less ones counted."""
    need, no_need = [], []
    absent = no_prior = 0
    for record in records:
        if not is_completed(record):
            absent += 1
        elif record.task_id not in priors:
            no_prior += 1
        elif priors[record.task_id].need_delegation:
            need.append(record)
        else:
            no_need.append(record)
    return Scope(need, no_need, absent, no_prior)


@dataclass(frozen=True)
class DelegationRates:
    """UDR and ODR with their counts."""

    udr: float | None
    odr: float | None
    d_need: int
    d_no_need: int
    under: int
    over: int
    absent: int
    no_prior: int


def delegation_rates(
    records: Sequence[EpisodeRecord], priors: Mapping[str, DelegationPrior]
) -> DelegationRates:
    """UDR and ODR with their numerators, denominators and left-out counts."""
    scope = prior_scope(records, priors)
    under = sum(1 for r in scope.need if not r.delegated)
    over = sum(1 for r in scope.no_need if r.delegated)
    return DelegationRates(
        udr=ratio(under, len(scope.need)),
        odr=ratio(over, len(scope.no_need)),
        d_need=len(scope.need),
        d_no_need=len(scope.no_need),
        under=under,
        over=over,
        absent=scope.absent,
        no_prior=scope.no_prior,
    )


@dataclass(frozen=True)
class EpisodeHits:
    """Hits, run units and gold units of one episode."""

    hits: int
    run_units: int
    gold_units: int


def episode_hits(record: EpisodeRecord, prior: DelegationPrior, labeler: Labeler) -> EpisodeHits:
    """Hits, run units and gold units of one episode against its prior."""
    run = unit_labels(run_units(record, labeler))
    gold = prior_label_waves(prior)
    return EpisodeHits(
        hits=wave_alignment_hits(gold, run),
        run_units=sum(len(w) for w in run),
        gold_units=sum(len(w) for w in gold),
    )


HitsOf = Callable[[EpisodeRecord, DelegationPrior], EpisodeHits]
"""Computes (or recalls) the hits of an episode against its prior."""


def cached_hits(labeler: Labeler) -> HitsOf:
    """`episode_hits` with a memory, so the hit scores and the bootstrap terms of a setting
    compute each episode's units and alignment once."""
    memory: dict[int, tuple[EpisodeRecord, EpisodeHits]] = {}

    def hits_of(record: EpisodeRecord, prior: DelegationPrior) -> EpisodeHits:
        # Keyed by identity; the record is kept so that its id cannot be reused meanwhile.
        known = memory.get(id(record))
        if known is None:
            known = memory[id(record)] = (record, episode_hits(record, prior, labeler))
        return known[1]

    return hits_of


@dataclass(frozen=True)
class HitScores:
    """Micro-averaged hit scores with their numerators and denominators."""

    p_hit: float | None
    r_hit: float | None
    f1_hit: float | None
    hits_delegated: int
    """Σ hits over episodes that delegated (P's numerator)."""
    run_units: int
    hits_need: int
    """Σ hits over D_need episodes (R's numerator)."""
    gold_units: int
    delegated: int
    d_need: int
    absent: int
    no_prior: int


def f1(p: float | None, r: float | None) -> float | None:
    """2PR/(P+R); 0 when R = 0; None when R is None."""
    if r is None:
        return None
    if r == 0 or p is None or p + r == 0:
        return 0.0
    return 2 * p * r / (p + r)


def hit_scores(
    records: Sequence[EpisodeRecord],
    priors: Mapping[str, DelegationPrior],
    labeler: Labeler,
    hits_of: HitsOf | None = None,
) -> HitScores:
    """Micro-averaged P_hit, R_hit and F1_hit."""
    scope = prior_scope(records, priors)
    hits_delegated = run_total = hits_need = gold_total = delegated = 0
    for record in scope.need + scope.no_need:
        prior = priors[record.task_id]
        result = hits_of(record, prior) if hits_of else episode_hits(record, prior, labeler)
        if record.delegated:
            delegated += 1
            hits_delegated += result.hits
            run_total += result.run_units
        if priors[record.task_id].need_delegation:
            hits_need += result.hits
            gold_total += result.gold_units
    p = ratio(hits_delegated, run_total)
    r = ratio(hits_need, gold_total)
    return HitScores(
        p_hit=p,
        r_hit=r,
        f1_hit=f1(p, r),
        hits_delegated=hits_delegated,
        run_units=run_total,
        hits_need=hits_need,
        gold_units=gold_total,
        delegated=delegated,
        d_need=len(scope.need),
        absent=scope.absent,
        no_prior=scope.no_prior,
    )
