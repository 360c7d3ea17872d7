"""Success rate, critical steps and cost of a set of episodes (SPEC §2, §4, §9).

SR counts absent episodes (never ran to a verdict) as failures; the conditional SR over
completed episodes is always given beside it with the coverage and the counts. With several
seeds, each (task, seed) episode is one trial: SR = successes / episodes.

Traces from other harnesses are held to the runtime's rules rather than to their `status` and
`success` alone: an episode that ended `harness_error` is absent (SPEC §12) whatever its status,
and a success needs a normal termination (SPEC §2), so `success: true` after, say, `step_limit`
is a failure. A trace that records no termination is taken at its word. A completed episode
with `success: null` (no verdict) is a failure, and counted.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from contracts import EpisodeRecord
from contracts.episode import NORMAL_TERMINATIONS

HARNESS_ERROR = "harness_error"


def termination_of(record: EpisodeRecord) -> str | None:
    """The episode's termination; a trace may give it on the main agent alone."""
    return record.termination if record.termination is not None else record.main.termination


def is_completed(record: EpisodeRecord) -> bool:
    """The episode ran to a verdict: status completed and not ended by a fault of the harness."""
    return record.status == "completed" and termination_of(record) != HARNESS_ERROR


def ended_normally(record: EpisodeRecord) -> bool:
    """claim_done or text_only, or no termination recorded (a foreign trace)."""
    termination = termination_of(record)
    return termination is None or termination in NORMAL_TERMINATIONS


def is_success(record: EpisodeRecord) -> bool:
    """Completed, ended normally and every check passed (an absent episode is a failure)."""
    return is_completed(record) and record.success is True and ended_normally(record)


def has_no_verdict(record: EpisodeRecord) -> bool:
    """Completed with `success: null`: counted as a failure, and counted."""
    return is_completed(record) and record.success is None


def is_absent_with_verdict(record: EpisodeRecord) -> bool:
    """Absent, yet giving `success` true or false: a verdict an absent episode cannot have, and
    that scoring does not read."""
    return not is_completed(record) and record.success is not None


def is_abnormal_success(record: EpisodeRecord) -> bool:
    """Completed with `success: true` after an abnormal termination: counted as a failure."""
    return is_completed(record) and record.success is True and not ended_normally(record)


def ratio(numerator: float, denominator: float) -> float | None:
    """numerator / denominator, or None (undefined) when the denominator is 0."""
    return numerator / denominator if denominator else None


@dataclass(frozen=True)
class SuccessRate:
    """SR, conditional SR and coverage with the counts behind them."""

    episodes: int
    completed: int
    absent: int
    successes: int
    sr: float | None
    """successes / episodes: missing-as-zero."""
    sr_conditional: float | None
    """successes / completed."""
    coverage: float | None
    """completed / episodes."""
    no_verdict: int = 0
    """Completed episodes with `success: null`, counted as failures."""
    abnormal_success: int = 0
    """Completed episodes with `success: true` after an abnormal termination, counted as failures."""


def success_rate(records: Sequence[EpisodeRecord]) -> SuccessRate:
    """SR (missing-as-zero), conditional SR and coverage, with the counts; None on no episodes."""
    episodes = len(records)
    completed = sum(1 for r in records if is_completed(r))
    successes = sum(1 for r in records if is_success(r))
    return SuccessRate(
        episodes=episodes,
        completed=completed,
        absent=episodes - completed,
        successes=successes,
        sr=ratio(successes, episodes),
        sr_conditional=ratio(successes, completed),
        coverage=ratio(completed, episodes),
        no_verdict=sum(1 for r in records if has_no_verdict(r)),
        abnormal_success=sum(1 for r in records if is_abnormal_success(r)),
    )


def computed_critical_steps(record: EpisodeRecord) -> int:
    """CSteps = S_main + Σ_waves max_{a in wave} S_a (SA: S_main)."""
    return record.main.steps + sum(max((s.steps for s in w.subagents), default=0) for w in record.waves)


def critical_steps(record: EpisodeRecord) -> int:
    """The recorded critical steps, computed from the waves when a trace lacks them."""
    if record.critical_steps is not None:
        return record.critical_steps
    return computed_critical_steps(record)


@dataclass(frozen=True)
class Mean:
    """A mean with the number of values and how many were unknown."""

    value: float | None
    n: int
    left_out: int
    """Episodes in scope whose value is unknown (e.g. no cost recorded)."""


def mean_critical_steps(records: Sequence[EpisodeRecord]) -> Mean:
    """Mean CSteps over completed episodes."""
    values = [float(critical_steps(r)) for r in records if is_completed(r)]
    return Mean(sum(values) / len(values) if values else None, len(values), 0)


def mean_cost(records: Sequence[EpisodeRecord]) -> Mean:
    """Mean cost in USD over completed episodes that recorded one (the rest are counted)."""
    costs = [r.cost_usd for r in records if is_completed(r)]
    known = [c for c in costs if c is not None]
    return Mean(math.fsum(known) / len(known) if known else None, len(known), len(costs) - len(known))


def task_count(records: Iterable[EpisodeRecord]) -> int:
    """Distinct tasks among the records."""
    return len({r.task_id for r in records})
