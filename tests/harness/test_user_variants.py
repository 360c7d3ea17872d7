"""Variants a user writes (SPEC §3, §7) get what the built-in ones get: the runtime states the
rules it enforces, the oracle's plan names types the variant offers, and the sim agents follow."""

from __future__ import annotations

import asyncio
from pathlib import Path

from harness.catalog import load_tasks
from harness.models.pricing import load_prices
from harness.profiles import BUILTIN_DIR, load_profiles
from harness.prompts import task_prompt
from harness.runner import Runner, RunPlan

TASK = "lms-enrollment-overview"


def _variant(folder: Path, name: str, like: str, principles: str, subagents: str | None = None) -> None:
    """A copy of a built-in variant under `name` with other principles (and sub-agents)."""
    front = (BUILTIN_DIR / f"{like}.md").read_text().split("---")[1]
    front = front.replace(f"name: {like}", f"name: {name}", 1)
    if subagents is not None:
        front = (
            "\n".join(
                f"subagents: {subagents}" if ln.startswith("subagents:") else ln for ln in front.splitlines()
            )
            + "\n"
        )
    (folder / f"{name}.md").write_text(f"---{front}---\n{principles}\n")


def test_a_plan_first_variant_of_the_user_s_gets_the_rule_and_the_sims_follow_it(tmp_path: Path) -> None:
    """The sim agents knew plan-first only by a phrase of the built-in variant's principles: on a
    user's plan-first variant every step was refused and each episode failed, with no wave."""
    profiles_dir = tmp_path / "profiles"
    profiles_dir.mkdir()
    _variant(profiles_dir, "plan-lite", "plan-first", "Plan, then delegate.")
    profiles = load_profiles([profiles_dir])
    plan = RunPlan(
        settings_matrix=[("sim:oracle", "plan-lite"), ("sim:eager", "plan-lite")], tasks=load_tasks(TASK),
        profiles=profiles, prices=load_prices(), store_url=f"sqlite:///{tmp_path / 's.db'}", runs_dir=tmp_path,
    )  # fmt: skip
    records = asyncio.run(Runner(plan).run()).records
    for record in records:
        assert record.success, (record.model, record.termination)
        assert [s.type for s in record.waves[0].subagents] == ["planner"] and len(record.waves) >= 3


def test_the_oracle_plan_names_the_types_the_variant_offers(tmp_path: Path) -> None:
    """The golden plan always named the gen types (`explorer`, `coder`), unknown to an oracle
    variant offering the spec roles: a model that followed it got 'unknown subagent_type'."""
    _variant(tmp_path, "oracle-spec", "oracle", "Follow the plan.",
             "[planner, enterprise-data-analyst, office-report-builder]")  # fmt: skip
    profiles = load_profiles([tmp_path])
    (task,) = load_tasks(TASK)
    mine, builtin = profiles.variant("oracle-spec"), profiles.variant("oracle")
    assert "`enterprise-data-analyst`" in task_prompt(
        "p", mine, task.prior
    ) and "`explorer`" not in task_prompt("p", mine, task.prior)
    assert "`explorer`" in task_prompt("p", builtin, task.prior)
