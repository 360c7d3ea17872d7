"""Per-task sums of a MAD-SAE setting against its baseline, for the paired bootstrap.

Each headline statistic (SR difference, U_p, U_e, U_c, F1_hit, MSQ) is a ratio of sums over
episodes; these are the sums, one mapping per task, built with the same predicates as the
metrics themselves (`stats.point_values` of them equals the row's values).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from contracts import DelegationPrior, EpisodeRecord
from evaluation.delegation import HitsOf, episode_hits
from evaluation.success import critical_steps, is_completed, is_success
from evaluation.units import Labeler
from evaluation.utilities import both_costs, in_d_del, pair_episodes


def task_terms(
    mas: Sequence[EpisodeRecord],
    sa: Sequence[EpisodeRecord],
    priors: Mapping[str, DelegationPrior],
    labeler: Labeler,
    hits_of: HitsOf | None = None,
) -> list[dict[str, float]]:
    """One mapping of summed terms per task of the MAD-SAE setting, in task-id order."""
    per_task: dict[str, dict[str, float]] = {}

    def bump(task: str, **terms: float) -> None:
        sums = per_task.setdefault(task, {})
        for name, value in terms.items():
            sums[name] = sums.get(name, 0.0) + value

    for record in mas:
        per_task.setdefault(record.task_id, {})
    for pair in pair_episodes(mas, sa).pairs:
        task = pair.mas.task_id
        mas_ok, sa_ok = is_success(pair.mas), is_success(pair.sa)
        bump(task, mas_successes=mas_ok, mas_episodes=1, sa_successes=sa_ok, sa_episodes=1)
        if not in_d_del(pair):
            continue
        bump(task, del_mas_wins=mas_ok, del_sa_wins=sa_ok, del_n=1)
        if mas_ok and sa_ok:
            bump(
                task, plus_steps_mas=critical_steps(pair.mas), plus_steps_sa=critical_steps(pair.sa), plus_n=1
            )
            if both_costs(pair):
                bump(task, cost_mas=pair.mas.cost_usd or 0.0, cost_sa=pair.sa.cost_usd or 0.0, cost_n=1)
    for record in mas:
        prior = priors.get(record.task_id)
        if prior is None or not is_completed(record):
            continue
        hits = hits_of(record, prior) if hits_of else episode_hits(record, prior, labeler)
        if record.delegated:
            bump(record.task_id, hits_delegated=hits.hits, run_units=hits.run_units)
        if prior.need_delegation:
            bump(record.task_id, hits_need=hits.hits, gold_units=hits.gold_units)
    return [per_task[task] for task in sorted(per_task)]  # by task id: the lines' order never counts
