"""SR (missing-as-zero and conditional), coverage, critical steps and cost."""

from __future__ import annotations

from evaluation.success import (
    critical_steps,
    is_completed,
    is_success,
    mean_cost,
    mean_critical_steps,
    success_rate,
)
from tests.evaluation.builders import episode, sub


def test_sr_counts_absent_as_failure_and_reports_conditional_beside_it() -> None:
    """4 episodes: 2 successes, 1 failure, 1 absent.
    SR = 2/4 = 0.5; conditional SR = 2/3; coverage = 3/4."""
    records = [
        episode("t1", success=True),
        episode("t2", success=True),
        episode("t3", success=False),
        episode("t4", status="absent"),
    ]
    sr = success_rate(records)
    assert (sr.episodes, sr.completed, sr.absent, sr.successes) == (4, 3, 1, 2)
    assert sr.sr == 0.5
    assert sr.sr_conditional == 2 / 3
    assert sr.coverage == 0.75


def test_foreign_trace_verdicts_follow_the_runtime_rules() -> None:
    """Regression: absent and success were read from `status`/`success` alone. Six episodes:
    a  completed, success true, claim_done      → success
    b  completed, success true, no termination  → success (taken at its word)
    c  completed, success false, harness_error  → absent (SPEC §12)
    d  completed, success true, step_limit      → failure (SPEC §2: normal termination needed)
    e  completed, success null                  → failure, counted as without a verdict
    f  completed, success true, main.termination step_limit only → failure
    SR = 2/6; completed = 5; conditional SR = 2/5; coverage = 5/6."""
    f = episode("f").model_copy(
        update={"main": episode("f").main.model_copy(update={"termination": "step_limit"})}
    )
    records = [
        episode("a", termination="claim_done"),
        episode("b"),
        episode("c", success=False, termination="harness_error"),
        episode("d", termination="step_limit"),
        episode("e", success=None),
        f,
    ]
    sr = success_rate(records)
    assert (sr.episodes, sr.completed, sr.absent, sr.successes) == (6, 5, 1, 2)
    assert (sr.sr, sr.sr_conditional, sr.coverage) == (2 / 6, 2 / 5, 5 / 6)
    assert (sr.no_verdict, sr.abnormal_success) == (1, 2)
    assert not is_completed(records[2]) and not is_success(records[3])


def test_empty_split_is_undefined_not_zero() -> None:
    sr = success_rate([])
    assert (sr.sr, sr.sr_conditional, sr.coverage) == (None, None, None)


def test_all_absent_has_sr_zero_and_undefined_conditional() -> None:
    """SR = 0/2 = 0; conditional = 0/0 → undefined; coverage = 0/2 = 0."""
    sr = success_rate([episode("t1", status="absent"), episode("t2", status="absent")])
    assert (sr.sr, sr.sr_conditional, sr.coverage) == (0.0, None, 0.0)


def test_critical_steps_take_the_longest_sub_agent_of_each_wave() -> None:
    """CSteps = S_main + Σ_waves max S_a = 5 + max(3, 7) + max(2) = 14."""
    record = episode("t", main_steps=5, waves=[[sub("a", steps=3), sub("b", steps=7)], [sub("c", steps=2)]])
    assert critical_steps(record) == 14


def test_recorded_critical_steps_win_and_sa_is_main_steps() -> None:
    assert critical_steps(episode("t", main_steps=5, critical_steps=9)) == 9
    assert critical_steps(episode("t", variant="sa", main_steps=5)) == 5


def test_means_are_over_completed_episodes_and_unknown_cost_is_counted() -> None:
    """Completed CSteps 4 and 6 → mean 5 (the absent one is left out).
    Costs: 1.0 and unknown → mean 1.0 over 1, 1 left out."""
    records = [
        episode("t1", main_steps=4, cost=1.0),
        episode("t2", main_steps=6, cost=None),
        episode("t3", main_steps=50, status="absent", cost=9.0),
    ]
    steps = mean_critical_steps(records)
    assert (steps.value, steps.n) == (5.0, 2)
    cost = mean_cost(records)
    assert (cost.value, cost.n, cost.left_out) == (1.0, 1, 1)
