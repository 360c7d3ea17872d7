"""Paired bootstrap 95% intervals over tasks (SPEC §9 headline numbers).

Every statistic of a setting is a ratio of sums over episodes; we keep, per task, the sums it
needs (`TERMS`), draw tasks with replacement (all seeds of a task and both the MAD-SAE and the
SA episodes move together: the bootstrap is paired), and recompute each statistic from the
resampled sums. Replicates where a statistic is 0/0 are left out and counted. The percentile
interval, a fixed seed, and the number of resamples are stated in the score's contract.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

DEFAULT_RESAMPLES = 1000
DEFAULT_SEED = 0
LEVEL = 0.95

TERMS = (
    "mas_successes",
    "mas_episodes",
    "sa_successes",
    "sa_episodes",
    "del_mas_wins",
    "del_sa_wins",
    "del_n",
    "plus_steps_mas",
    "plus_steps_sa",
    "plus_n",
    "cost_mas",
    "cost_sa",
    "cost_n",
    "hits_delegated",
    "run_units",
    "hits_need",
    "gold_units",
)
STATISTICS = ("sr_diff", "u_p", "u_e", "u_c", "f1_hit", "msq")
_COLUMN = {name: k for k, name in enumerate(TERMS)}


@dataclass(frozen=True)
class Interval:
    low: float
    high: float
    undefined: int
    """Replicates in which the statistic was 0/0 and so left out."""


def _div(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(b > 0, a / np.where(b > 0, b, 1.0), np.nan)


def statistics(sums: np.ndarray) -> dict[str, np.ndarray]:
    """Each statistic from rows of summed terms (NaN where undefined)."""

    def col(name: str) -> np.ndarray:
        return sums[:, _COLUMN[name]]

    sr_diff = _div(col("mas_successes"), col("mas_episodes")) - _div(col("sa_successes"), col("sa_episodes"))
    u_p = np.where(
        col("del_n") > 0, _div(col("del_mas_wins"), col("del_mas_wins") + col("del_sa_wins")), np.nan
    )
    u_e = np.where(
        col("plus_n") > 0, _div(col("plus_steps_sa"), col("plus_steps_sa") + col("plus_steps_mas")), np.nan
    )
    u_c = np.where(col("cost_n") > 0, _div(col("cost_sa"), col("cost_sa") + col("cost_mas")), np.nan)
    p = _div(col("hits_delegated"), col("run_units"))
    r = _div(col("hits_need"), col("gold_units"))
    with np.errstate(invalid="ignore"):
        f1 = np.where(r == 0, 0.0, 2 * p * r / (p + r))
    f1 = np.where(np.isnan(r), np.nan, f1)
    msq = f1 * (u_p + u_e + u_c) / 3
    return {"sr_diff": sr_diff, "u_p": u_p, "u_e": u_e, "u_c": u_c, "f1_hit": f1, "msq": msq}


def term_matrix(per_task: Sequence[Mapping[str, float]]) -> np.ndarray:
    """Tasks × TERMS matrix from per-task sums (missing terms are 0)."""
    return np.array(
        [[float(task.get(name, 0.0)) for name in TERMS] for task in per_task], dtype=float
    ).reshape(len(per_task), len(TERMS))


def paired_bootstrap(
    per_task: Sequence[Mapping[str, float]],
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> dict[str, Interval | None]:
    """95% percentile intervals of every statistic; None where the point value is undefined."""
    terms = term_matrix(per_task)
    point = statistics(terms.sum(axis=0, keepdims=True))
    n = len(per_task)
    if n == 0:
        return dict.fromkeys(STATISTICS)
    rng = np.random.default_rng(seed)
    weights = rng.multinomial(n, np.full(n, 1.0 / n), size=resamples).astype(float)
    replicates = statistics(weights @ terms)
    tail = (1.0 - LEVEL) / 2 * 100
    intervals: dict[str, Interval | None] = {}
    for name in STATISTICS:
        values = replicates[name]
        defined = values[~np.isnan(values)]
        if np.isnan(point[name][0]) or defined.size == 0:
            intervals[name] = None
            continue
        low, high = np.percentile(defined, [tail, 100 - tail])
        intervals[name] = Interval(float(low), float(high), int(values.size - defined.size))
    return intervals


def point_values(per_task: Sequence[Mapping[str, float]]) -> dict[str, float | None]:
    """The statistics on the full set (a cross-check of the scorer's own values)."""
    point = statistics(term_matrix(per_task).sum(axis=0, keepdims=True))
    return {name: None if np.isnan(v[0]) else float(v[0]) for name, v in point.items()}
