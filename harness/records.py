"""Build the episode record (`mseval.episode/1`, SPEC §8) from a finished episode runtime."""

from __future__ import annotations

from collections.abc import Sequence

from contracts.episode import CheckResult, EpisodeRecord, MainRecord, SubagentRecord, Usage, WaveRecord
from harness.budgets import NORMAL
from harness.checks import Criterion
from harness.episode import EpisodeRuntime


def critical_steps(main_steps: int, waves: Sequence[Sequence[int]]) -> int:
    """CSteps = S_main + Σ over waves of the longest sub-agent run in the wave (SPEC §2)."""
    return main_steps + sum(max(w, default=0) for w in waves)


def build_record(
    rt: EpisodeRuntime | None,
    *,
    task_id: str,
    model: str,
    variant: str,
    seed: int,
    episode_id: str,
    run_id: str,
    checks: list[Criterion] | None,
    termination: str | None,
    reason: str | None,
    duration_s: float,
    price_version: str | None,
) -> EpisodeRecord:
    # never ran to a verdict: a fault of ours, the provider refused the main agent's key or model,
    # or its endpoint stayed unreachable
    absent = termination == "harness_error" or rt is None or rt.infra_failure is not None
    check_results = (
        None
        if checks is None
        else [CheckResult(name=c.name, passed=c.passed, message=c.message) for c in checks]
    )
    success = (
        None
        if absent
        else bool(termination in NORMAL and checks is not None and all(c.passed for c in checks))
    )
    if rt is None:
        return EpisodeRecord(
            task_id=task_id, model=model, variant=variant, seed=seed, status="absent", success=None,
            termination=termination, reason=reason, episode_id=episode_id, run_id=run_id, duration_s=duration_s,
            checks=check_results, price_version=price_version,
        )  # fmt: skip
    waves = [
        WaveRecord(
            index=w.index,
            main_step=w.main_step,
            subagents=[
                SubagentRecord(
                    id=r.id,
                    type=r.type,
                    mode=r.mode,
                    description=r.description,
                    prompt=r.prompt,
                    label=rt.label_of(r),
                    resume_of=r.resume_of,
                    steps=r.steps,
                    tools=r.tools,
                    response=r.response,
                    usage=r.usage,
                    termination=r.termination,
                    writes_ok=r.writes_ok,
                    started_s=None if r.started_s is None else round(r.started_s, 4),
                    ended_s=None if r.ended_s is None else round(r.ended_s, 4),
                )  # fmt: skip
                for r in w.runs
            ],
        )
        for w in rt.waves
    ]
    main = MainRecord(
        steps=rt.main.steps,
        response=rt.main.last_text,
        turns=rt.main_turns,
        termination=termination,
        usage=rt.main.usage,
    )
    cost = rt.cost_usd
    return EpisodeRecord(
        task_id=task_id, model=model, variant=variant, seed=seed, status="absent" if absent else "completed",
        success=success, termination=termination, reason=reason, main=main, waves=waves,
        critical_steps=critical_steps(rt.main.steps, [[r.steps for r in w.runs] for w in rt.waves]),
        usage=rt.usage if rt.usage else Usage(), cost_usd=None if cost is None else round(cost, 8), checks=check_results,
        episode_id=episode_id, run_id=run_id, duration_s=round(duration_s, 4), price_version=price_version,
    )  # fmt: skip
