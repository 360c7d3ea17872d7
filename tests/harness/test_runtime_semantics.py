"""Runtime semantics of SPEC §2, §3 and §7 found wanting in an audit, each pinned by the defect
it had: the real runtime over real in-process MCP servers, the model scripted."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from harness.episode import EpisodeRuntime
from harness.mcp_client import CallOutcome, ServerFailure, ServerPool
from harness.models.base import AssistantMessage
from harness.models.scripted import call, say
from tests.harness.support import View, run_scripted
from tests.harness.test_delegation import DONE, agent, answer

READ = "mcp__lms__list_courses"


async def test_a_harness_fault_in_a_main_call_beside_a_wave_ends_its_sub_agents_as_harness_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A main-agent call that failed the harness (a server failing twice) in the message that
    started a wave recorded the wave's sub-agents `time_limit`, though no time budget ran out."""
    never = asyncio.Event()
    runtimes: list[EpisodeRuntime] = []
    run, pool_call = EpisodeRuntime.run, ServerPool.call

    async def keep(self: EpisodeRuntime) -> object:
        runtimes.append(self)
        return await run(self)

    async def failing(
        self: ServerPool, server: str, tool: str, arguments: dict[str, Any], caller: str | None = None
    ) -> CallOutcome:
        if caller == "main" and tool == "list_courses":
            await asyncio.sleep(0)  # the sub-agents are started and waiting on their model
            raise ServerFailure("server lms failed again after a restart")
        return await pool_call(self, server, tool, arguments, caller)

    async def hold(v: View) -> None:
        if not v.is_main:
            await never.wait()  # only the fault can end them

    monkeypatch.setattr(EpisodeRuntime, "run", keep)
    monkeypatch.setattr(ServerPool, "call", failing)
    with pytest.raises(ExceptionGroup):
        await run_scripted(
            tmp_path,
            lambda v: say("", agent("a"), agent("b"), call(READ)),
            lambda v: say("x"),
            async_reply=hold,
        )
    (rt,) = runtimes
    assert rt.termination == "harness_error"
    assert [(r.id, r.termination) for r in rt.runs] == [("a1", "harness_error"), ("a2", "harness_error")]
    assert sorted((e.agent, e.data["termination"]) for e in rt.events.of_kind("subagent_end")) == [
        ("a1", "harness_error"),
        ("a2", "harness_error"),
    ]


async def test_plan_first_refuses_an_agent_swarm_of_planners_as_its_first_action(tmp_path: Path) -> None:
    """The plan-first rule, as the variant's prompt, its principles and the refusal state it, is an
    `Agent` call with subagent_type planner; an `AgentSwarm` of planners was accepted as one."""
    swarm = call(
        "AgentSwarm",
        description="plans",
        subagent_type="planner",
        prompt_template="plan {{item}}",
        items=["a", "b"],
    )

    def main(v: View) -> AssistantMessage:
        return [say("", swarm), say("", agent("plan it", "planner")), say("", call(DONE))][v.step]

    out = await run_scripted(tmp_path, main, answer, variant="plan-first")
    refusal = [m.content for m in out.rt.main.messages if m.role == "tool"][0]
    assert (
        refusal.startswith("plan-first: your first action must be an Agent call")
        and "nothing was run" in refusal
    )
    assert [(e.data["name"], e.data["reason"]) for e in out.kinds("tool_refused")] == [
        ("AgentSwarm", "plan_first")
    ]
    assert [[r.type for r in w.runs] for w in out.rt.waves] == [["planner"]]  # the swarm never ran
    assert out.rt.termination == "claim_done"
