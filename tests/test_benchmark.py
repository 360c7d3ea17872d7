"""The benchmark as a whole (issue: 48 validated tasks): every task validates, both splits in
every scenario, and the simulated agents show what the benchmark is meant to measure."""

from __future__ import annotations

import asyncio

import pytest

from contracts.scenarios import SCENARIOS
from harness.catalog import load_tasks
from harness.models.pricing import load_prices
from harness.profiles import load_profiles
from harness.runner import Runner, RunPlan
from harness.validate import validate_tasks

TASKS = load_tasks("all")
NOISY = "sim:oracle?noise=0.3&seed=1"
# The module's matrix is run once: this file runs on one worker (`make test`: --dist loadfile).


def test_the_catalog_has_six_tasks_per_scenario_in_both_splits() -> None:
    assert len(TASKS) == 48
    for code in SCENARIOS:
        mine = [t for t in TASKS if t.spec.scenario == code]
        assert len(mine) == 6, code
        assert {t.need_delegation for t in mine} == {True, False}, code


def test_every_task_validates() -> None:
    reports = asyncio.run(validate_tasks(TASKS, load_profiles(), concurrency=4))
    bad = {r.task: r.problems for r in reports if not r.ok}
    assert bad == {}


@pytest.fixture(scope="module")
def records(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], dict[str, object]]:
    tmp = tmp_path_factory.mktemp("bench")
    plan = RunPlan(
        settings_matrix=[("sim:single", "sa"), ("sim:oracle", "spec"), ("sim:eager", "spec"), (NOISY, "spec")],
        tasks=TASKS, profiles=load_profiles(), prices=load_prices(), store_url=f"sqlite:///{tmp / 's.db'}",
        runs_dir=tmp, concurrency=4,
    )  # fmt: skip
    result = asyncio.run(Runner(plan).run())
    by: dict[tuple[str, str], dict[str, object]] = {}
    for r in result.records:
        by.setdefault((r.model, r.variant), {})[r.task_id] = r
    return by


def test_the_oracle_succeeds_everywhere_and_delegation_pays_on_d_need(records) -> None:  # type: ignore[no-untyped-def]
    oracle, single = records[("sim:oracle", "spec")], records[("sim:single", "sa")]
    assert all(r.success for r in oracle.values())  # type: ignore[attr-defined]
    assert all(r.success for r in single.values())  # type: ignore[attr-defined]
    for t in TASKS:
        o, s = oracle[t.id], single[t.id]
        if t.need_delegation:
            assert o.subagents and o.critical_steps < s.critical_steps, t.id  # type: ignore[attr-defined]
        else:
            assert not o.subagents and o.critical_steps == s.critical_steps, t.id  # type: ignore[attr-defined]


def test_eager_over_delegates_and_pays_for_it_on_d_no_need(records) -> None:  # type: ignore[no-untyped-def]
    eager, oracle = records[("sim:eager", "spec")], records[("sim:oracle", "spec")]
    no_need = [t.id for t in TASKS if not t.need_delegation]
    odr = sum(1 for t in no_need if eager[t].subagents) / len(no_need)  # type: ignore[attr-defined]
    assert odr > 0
    for t in no_need:
        assert eager[t].critical_steps > oracle[t].critical_steps, t  # type: ignore[attr-defined]


def test_noise_lowers_the_success_rate(records) -> None:  # type: ignore[no-untyped-def]
    noisy, oracle = records[(NOISY, "spec")], records[("sim:oracle", "spec")]
    sr = lambda rs: sum(1 for r in rs.values() if r.success) / len(rs)  # noqa: E731
    assert sr(noisy) < sr(oracle)


def test_noise_reaches_the_main_agent_s_delegation_calls(records) -> None:  # type: ignore[no-untyped-def]
    """Noise dropped or garbled only the sub-agents' MCP calls, never an Agent or AgentSwarm
    call: the noisy oracle's waves were always the oracle's, so UDR and hits never varied."""
    noisy, oracle = records[(NOISY, "spec")], records[("sim:oracle", "spec")]
    waves = lambda r: [[s.description for s in w.subagents] for w in r.waves]  # noqa: E731
    differ = [t for t in oracle if waves(noisy[t]) != waves(oracle[t])]
    assert differ, "noise never changed a wave"
