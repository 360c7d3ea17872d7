"""Delegation waves: one step's accepted `Agent`/`AgentSwarm` launches run as a wave of
sub-agents, each in its own context (a resume continues one), at most `wave_concurrency` at
once, and come back to the main agent as one tool result per delegation call (SPEC §2).

Functions of the episode runtime (`EpisodeRuntime`), as the agent loop is: they read its set-up
and budgets, and record into its waves, contexts and events.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from harness import delegation as dl
from harness.agent import AgentRun, AgentState, run_agent, summarize_args
from harness.budgets import NORMAL
from harness.mcp_client import cap_text
from harness.models.base import SystemMessage, ToolCall, ToolMessage, UserMessage
from harness.prompts import subagent_system_prompt

if TYPE_CHECKING:
    from harness.episode import EpisodeRuntime

MAIN_ID = "main"


@dataclass
class WaveState:
    index: int
    main_step: int
    runs: list[AgentRun] = field(default_factory=list)


async def delegate(
    rt: EpisodeRuntime,
    results: dict[str, ToolMessage],
    step: int,
    launches: list[dl.Launch],
    calls: dict[str, ToolCall],
) -> None:
    """Run one step's accepted launches as a wave; put each delegation call's result (every
    sub-agent it started, within the result cap) into `results` by call id."""
    for call_id in dict.fromkeys(launch.call_id for launch in launches):
        call = calls[call_id]
        rt.events.emit(
            "tool_call",
            MAIN_ID,
            call_id=call_id,
            name=call.name,
            arguments=summarize_args(call.arguments, None),
        )
    payloads = await run_wave(rt, step, launches)
    by_call: dict[str, list[dict[str, Any]]] = {}
    for launch, payload in zip(launches, payloads, strict=True):
        by_call.setdefault(launch.call_id, []).append(payload)
    for call_id, items in by_call.items():
        # The result cap holds for delegation too, the whole result within it (dl.render_capped).
        call = calls[call_id]
        limit = rt.budgets.tool_result_bytes
        content, truncated = dl.render_capped(items, call.name == dl.AGENT_SWARM, limit)
        content, cut = cap_text(content, limit)  # only when the fixed fields alone overflow
        truncated |= cut
        results[call_id] = ToolMessage(tool_call_id=call_id, name=call.name, content=content)
        rt.events.emit(
            "tool_result", MAIN_ID, call_id=call_id, name=call.name, is_error=False,
            bytes=len(results[call_id].content.encode()), truncated=truncated,
        )  # fmt: skip


async def run_wave(rt: EpisodeRuntime, step: int, launches: list[dl.Launch]) -> list[dict[str, Any]]:
    """One wave: a sub-agent run per launch, at most `wave_concurrency` at once; their payloads
    in launch order."""
    wave = WaveState(index=len(rt.waves), main_step=step)
    rt.waves.append(wave)
    runs = [prepare_run(rt, launch) for launch in launches]
    wave.runs.extend(runs)
    rt.events.emit("wave_start", MAIN_ID, wave=wave.index, main_step=step, subagents=[r.id for r in runs])
    slots = asyncio.Semaphore(rt.budgets.wave_concurrency)
    payloads: list[dict[str, Any]] = [{} for _ in runs]

    async def one(i: int, run: AgentRun) -> None:
        try:
            async with slots:
                payloads[i] = await run_subagent(rt, wave, run, launches[i].item)
        except asyncio.CancelledError:
            if run.termination is None:  # still waiting for a slot: it never started
                run.termination = rt.cancel_reason
            raise

    try:
        async with asyncio.TaskGroup() as tg:
            for i, run in enumerate(runs):
                tg.create_task(one(i, run))
    finally:
        # Also when the wave is cut short (the episode's time budget): every wave ends.
        rt.events.emit("wave_end", MAIN_ID, wave=wave.index)
    return payloads


def prepare_run(rt: EpisodeRuntime, launch: dl.Launch) -> AgentRun:
    """A new run: a fresh context for the launch's role (its allowlist computed once per role),
    or the resumed sub-agent's own context."""
    rt.next_id += 1
    run_id = f"a{rt.next_id}"
    if launch.resume is not None:
        state = rt.states[launch.resume]
        role = state.profile
    else:
        assert launch.subagent_type is not None
        role = rt.setup.roles[launch.subagent_type]
        if role.name not in rt.role_tools:
            rt.role_tools[role.name] = rt.role_allowlist(role, subagent=True)
        tools = rt.role_tools[role.name]
        state = AgentState(
            id=run_id, profile=role, is_main=False,
            messages=[SystemMessage(content=subagent_system_prompt(role, rt.setup.today))],
            tools=tools, specs=[t.spec for t in tools.values()], max_steps=rt.steps_cap(role),
        )  # fmt: skip
    rt.states[run_id] = state
    return AgentRun(
        id=run_id, state=state, type=role.name, mode=role.header.mode, description=launch.description,
        prompt=launch.prompt, resume_of=launch.resume, call_id=launch.call_id,
    )  # fmt: skip


async def run_subagent(
    rt: EpisodeRuntime, wave: WaveState, run: AgentRun, item: str | None
) -> dict[str, Any]:
    state = run.state
    state.messages.append(UserMessage(content=run.prompt))
    state.run_id = run.id
    run.started_s = rt.events.now()
    rt.events.emit(
        "subagent_start",
        run.id,
        wave=wave.index,
        type=run.type,
        resume_of=run.resume_of,
        description=run.description,
        call_id=run.call_id,
    )
    # Each run of a sub-agent (a resume too) answers a new prompt: its summary and the
    # identical-call count start afresh.
    state.last_text, state.loop_key, state.loop_count = "", None, 0
    try:
        run.termination = await run_agent(rt, state, run)
    finally:
        # Also when cancelled (the episode's time budget): every start has its end.
        run.ended_s = rt.events.now()
        run.response = state.last_text
        rt.events.emit("subagent_end", run.id, wave=wave.index, termination=run.termination, steps=run.steps)
    normal = run.termination in NORMAL
    summary = run.response if normal else f"[stopped: {run.termination}] {run.response}".strip()
    status = "completed" if normal else run.termination
    return dl.result_payload(run.id, status, run.steps, summary, item)


def resume_blocked(rt: EpisodeRuntime, state: AgentState) -> str | None:
    """Why a sub-agent's context cannot be resumed now, or None."""
    if state.running:
        return "is still running"
    if state.steps >= state.max_steps:
        return f"has used all its {state.max_steps} steps"
    last = next((r for r in reversed(rt.runs) if r.state is state), None)
    if last is not None and last.termination == "context_overflow":
        return "has filled its context window (context_overflow)"
    return None
