"""Case taxonomy of MAD-SAE against SA per (task, seed), with automatic reasons (SPEC §9).

Over pairs where both episodes completed (the others are left out and counted):
  beneficial F2S (MAD succeeds, SA fails); CES (both succeed, MAD strictly fewer CSteps or
  strictly cheaper); adverse S2F (SA succeeds, MAD fails); CIS (both succeed, not CES, MAD
  strictly costlier); AES (both fail, MAD strictly fewer CSteps or strictly cheaper); CIF (both
  fail, not AES, MAD strictly more CSteps or strictly costlier); `neutral` for the rest.
A cost comparison needs both costs recorded; otherwise only critical steps decide.

Reasons, where the record decides them: MAO (no sub-agent), UD (delegated on a D_no-need
task), UDP (every wave has one sub-agent, or more waves than the prior for no fewer CSteps),
DP (a wave of ≥ 2 sub-agents and fewer CSteps). A case may carry several reasons.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from contracts import DelegationPrior, EpisodeRecord
from evaluation.success import critical_steps, is_completed, is_success
from evaluation.utilities import pair_episodes

Category = Literal["F2S", "CES", "S2F", "CIS", "AES", "CIF", "neutral"]
CATEGORIES: tuple[Category, ...] = ("F2S", "CES", "S2F", "CIS", "AES", "CIF", "neutral")
BENEFICIAL = frozenset({"F2S", "CES"})
ADVERSE = frozenset({"S2F", "CIS", "AES", "CIF"})
REASONS = ("MAO", "UD", "UDP", "DP")


def _cheaper(a: EpisodeRecord, b: EpisodeRecord) -> bool:
    return a.cost_usd is not None and b.cost_usd is not None and a.cost_usd < b.cost_usd


def classify(mas: EpisodeRecord, sa: EpisodeRecord) -> Category:
    """The category of one pair of completed episodes."""
    mas_ok, sa_ok = is_success(mas), is_success(sa)
    fewer_steps = critical_steps(mas) < critical_steps(sa)
    more_steps = critical_steps(mas) > critical_steps(sa)
    cheaper, costlier = _cheaper(mas, sa), _cheaper(sa, mas)
    if mas_ok and not sa_ok:
        return "F2S"
    if sa_ok and not mas_ok:
        return "S2F"
    if mas_ok:
        if fewer_steps or cheaper:
            return "CES"
        return "CIS" if costlier else "neutral"
    if fewer_steps or cheaper:
        return "AES"
    return "CIF" if more_steps or costlier else "neutral"


def reasons(mas: EpisodeRecord, sa: EpisodeRecord, prior: DelegationPrior | None) -> tuple[str, ...]:
    """The reasons the records decide; the prior-based ones only when a prior is given."""
    waves = [w for w in mas.waves if w.subagents]
    if not waves:
        return ("MAO",)
    found: list[str] = []
    fewer_steps = critical_steps(mas) < critical_steps(sa)
    if prior is not None and not prior.need_delegation:
        found.append("UD")
    more_waves = prior is not None and len(waves) > len(prior.waves) and not fewer_steps
    if all(len(w.subagents) == 1 for w in waves) or more_waves:
        found.append("UDP")
    if any(len(w.subagents) >= 2 for w in waves) and fewer_steps:
        found.append("DP")
    return tuple(found)


@dataclass(frozen=True)
class Case:
    """One classified (task, seed) pair."""

    task_id: str
    seed: int
    category: Category
    reasons: tuple[str, ...]
    mas_csteps: int
    sa_csteps: int
    mas_cost: float | None
    sa_cost: float | None


@dataclass(frozen=True)
class Taxonomy:
    """Category and reason counts of a setting against its baseline."""

    counts: dict[str, int]
    reasons: dict[str, dict[str, int]]
    """Per category, how many cases carry each reason."""
    cases: list[Case] = field(repr=False)
    left_out: int
    """Pairs left out because one of the two episodes is absent."""
    unpaired: int


def taxonomy(
    mas: Sequence[EpisodeRecord], sa: Sequence[EpisodeRecord], priors: Mapping[str, DelegationPrior]
) -> Taxonomy:
    """Classify every pair of completed episodes and count categories and reasons."""
    pairing = pair_episodes(mas, sa)
    counts: dict[str, int] = dict.fromkeys(CATEGORIES, 0)
    by_reason: dict[str, dict[str, int]] = {c: dict.fromkeys(REASONS, 0) for c in CATEGORIES}
    cases: list[Case] = []
    left_out = 0
    for pair in pairing.pairs:
        if not (is_completed(pair.mas) and is_completed(pair.sa)):
            left_out += 1
            continue
        category = classify(pair.mas, pair.sa)
        why = reasons(pair.mas, pair.sa, priors.get(pair.mas.task_id))
        counts[category] += 1
        for reason in why:
            by_reason[category][reason] += 1
        cases.append(
            Case(
                pair.mas.task_id,
                pair.mas.seed,
                category,
                why,
                critical_steps(pair.mas),
                critical_steps(pair.sa),
                pair.mas.cost_usd,
                pair.sa.cost_usd,
            )
        )
    return Taxonomy(counts, by_reason, cases, left_out, pairing.unpaired)
