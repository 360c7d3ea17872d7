"""Edge cases of the runtime (SPEC §2, §8, §12): resumes, stops mid-step, the time budget in
the middle of a wave, per-agent todo lists, capped delegation results, repeated call ids."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from harness.budgets import Budgets
from harness.catalog import load_tasks
from harness.episode import EpisodeRuntime
from harness.models.base import AssistantMessage, ModelAPIError, ModelResponse, ToolCall, ToolMessage
from harness.models.scripted import call, say
from harness.profiles import load_profiles
from harness.runner import Runner, RunPlan
from harness.store import Store, episode_key
from tests.harness.support import View, run_scripted
from tests.harness.test_delegation import DONE, agent, answer, results_of

READ = "mcp__lms__list_courses"


def resume(agent_id: str, prompt: str) -> ToolCall:
    return call("Agent", description="follow-up", prompt=prompt, resume=agent_id)


def first_agent_id(v: View) -> str:
    return str(json.loads(results_of(v)[0])["agent_id"])


def well_formed(messages: list[object]) -> bool:
    """Every assistant tool call is answered by a tool result before anything else is said."""
    pending: set[str] = set()
    for m in messages:
        if isinstance(m, AssistantMessage):
            if pending:
                return False
            pending = {c.id for c in m.tool_calls}
        elif isinstance(m, ToolMessage):
            pending.discard(m.tool_call_id)
        elif pending:
            return False
    return True


async def test_one_sub_agent_is_resumed_at_most_once_per_step(tmp_path: Path) -> None:
    def main(v: View) -> AssistantMessage:
        if v.step == 0:
            return say("", agent("first question"))
        if v.step == 1:
            a1 = first_agent_id(v)
            return say("", resume(a1, "second question"), resume(a1, "third question"))
        if v.step == 2:  # a2 is a run of a1: naming both is still the same sub-agent twice
            return say("", resume("a1", "fourth question"), resume("a2", "fifth question"))
        return say("", call(DONE))

    out = await run_scripted(tmp_path, main, lambda v: say(f"reply to {v.task}"))
    mains = [v for v in out.seen if v.is_main]
    refused = [results_of(v)[-1] for v in mains[2:4]]
    assert refused == [
        "sub-agent 'a1' is already resumed in this step (as 'a1'); resume each sub-agent once",
        "sub-agent 'a2' is already resumed in this step (as 'a1'); resume each sub-agent once",
    ]
    # a1's context got each accepted prompt once, in order, each followed by its reply
    context = [m.content for m in out.rt.runs[0].state.messages[1:]]
    assert context == [
        "first question", "reply to first question",
        "second question", "reply to second question",
        "fourth question", "reply to fourth question",
    ]  # fmt: skip
    assert [(r.id, r.resume_of) for r in out.rt.runs] == [("a1", None), ("a2", "a1"), ("a3", "a1")]


async def test_a_sub_agent_that_used_all_its_steps_cannot_be_resumed(tmp_path: Path) -> None:
    def main(v: View) -> AssistantMessage:
        if v.step == 0:
            return say("", agent("keep reading"))
        if v.step == 1:
            return say("", resume(first_agent_id(v), "once more"))
        return say("", call(DONE))

    def sub(v: View) -> AssistantMessage:  # never answers: a different read every step
        return say("", call(READ, term=f"t{len(v.messages)}"))

    out = await run_scripted(tmp_path, main, sub, budgets=Budgets(max_steps=3))
    assert out.rt.runs[0].termination == "step_limit" and len(out.rt.runs) == 1
    assert results_of(out.seen[-1])[-1] == "sub-agent 'a1' has used all its 3 steps and cannot be resumed"


async def test_a_sub_agent_that_filled_its_context_cannot_be_resumed(tmp_path: Path) -> None:
    """A resume of a sub-agent stopped by context_overflow was accepted: it spent a step and
    12,788 input tokens to stop at once the same way."""

    def main(v: View) -> AssistantMessage:
        if v.step == 0:
            return say("", agent("big one"))
        if v.step == 1:
            return say("", resume(first_agent_id(v), "continue"))
        return say("", call(DONE))

    def sub(v: View) -> AssistantMessage:
        return say("x" * 50_000) if v.step == 0 else say("small answer")

    out = await run_scripted(tmp_path, main, sub, budgets=Budgets(context_tokens=12_000))
    assert [r.termination for r in out.rt.runs] == ["context_overflow"]
    assert results_of(out.seen[-1])[-1] == (
        "sub-agent 'a1' has filled its context window (context_overflow) and cannot be resumed"
    )


async def test_a_swarm_resumes_only_sub_agents_of_its_type(tmp_path: Path) -> None:
    """`AgentSwarm(subagent_type=enterprise-data-analyst, resume_agent_ids={x: a1})` with a1 a
    writable office-report-builder was accepted: a writer ran in a read-only, homogeneous swarm."""

    def main(v: View) -> AssistantMessage:
        if v.step == 0:
            return say("", agent("build it", kind="office-report-builder"))
        if v.step == 1:
            swarm = call(
                "AgentSwarm", description="read", subagent_type="enterprise-data-analyst",
                prompt_template="read {{item}}", items=["x", "y"], resume_agent_ids={"x": first_agent_id(v)},
            )  # fmt: skip
            return say("", swarm)
        return say("", call(DONE))

    out = await run_scripted(tmp_path, main, lambda v: say("done"))
    assert len(out.rt.runs) == 1
    assert results_of(out.seen[-1])[-1] == (
        "sub-agent 'a1' is of type 'office-report-builder', not 'enterprise-data-analyst': a swarm's "
        "sub-agents are all of its subagent_type"
    )


async def test_a_sub_agent_stopped_by_the_loop_detector_resumes_from_a_valid_transcript(
    tmp_path: Path,
) -> None:
    resumed = asyncio.Event()

    def main(v: View) -> AssistantMessage:
        if v.step == 0:
            return say("", agent("read"))
        if v.step == 1:
            resumed.set()
            return say("", resume(first_agent_id(v), "now answer"))
        return say("", call(DONE))

    def sub(v: View) -> AssistantMessage:
        return say("the answer") if resumed.is_set() else say("", call(READ, term="same"))

    out = await run_scripted(tmp_path, main, sub)
    first, second = out.rt.runs
    assert first.termination == "loop_detected" and second.termination == "text_only"
    last_view = [v for v in out.seen if not v.is_main][-1]
    assert well_formed(list(last_view.messages))  # what a provider would be sent
    stopped = [m for m in last_view.messages if isinstance(m, ToolMessage)][-1]
    assert stopped.is_error and stopped.content == "not run: this agent stopped (loop_detected)"


async def test_a_sub_agent_stopped_by_its_context_window_leaves_a_valid_transcript(tmp_path: Path) -> None:
    # The scripted model counts ⌈chars/4⌉ output tokens: 600,000 characters exceed 128K tokens.
    out = await run_scripted(
        tmp_path, main_then(agent("read")), lambda v: say("x" * 600_000, call(READ, term="t"))
    )
    (run,) = out.rt.runs
    assert run.termination == "context_overflow"
    assert [e for e in out.kinds("tool_call") if e.agent != "main"] == []
    assert well_formed(run.state.messages)
    assert run.state.messages[-1].content == "not run: this agent stopped (context_overflow)"


async def test_the_time_budget_mid_wave_ends_every_sub_agent_on_the_record(tmp_path: Path) -> None:
    never = asyncio.Event()

    async def hold(v: View) -> None:
        if not v.is_main:
            await never.wait()  # sub-agents never answer: only the time budget ends the wave

    swarm = call(
        "AgentSwarm", description="rosters", subagent_type="enterprise-data-analyst",
        prompt_template="roster of {{item}}", items=["A", "B", "C", "D"],
    )  # fmt: skip
    out = await run_scripted(
        tmp_path, lambda v: say("", swarm), answer, async_reply=hold,
        budgets=Budgets(wall_time_s=0.5, wave_concurrency=2),
    )  # fmt: skip
    assert out.rt.termination == "time_limit"
    runs = out.rt.runs
    assert [r.termination for r in runs] == ["time_limit"] * 4
    started = [r.id for r in runs if r.started_s is not None]
    assert started == ["a1", "a2"]  # two slots: the other two were still queued
    assert all(r.ended_s is not None for r in runs if r.started_s is not None)
    assert [e.agent for e in out.kinds("subagent_start")] == started
    assert sorted((e.agent, e.data["termination"]) for e in out.kinds("subagent_end")) == [
        (a, "time_limit") for a in started
    ]
    assert [e.data["wave"] for e in out.kinds("wave_end")] == [0]
    # the main agent's interrupted step is a turn; how many of its calls succeeded is unknown
    assert [(t.step, t.tools, t.tools_ok) for t in out.rt.main_turns] == [(1, ["AgentSwarm"], None)]


async def test_a_harness_fault_in_one_sub_agent_ends_its_siblings_as_harness_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    never = asyncio.Event()
    runtimes: list[EpisodeRuntime] = []
    run = EpisodeRuntime.run

    async def keep(self: EpisodeRuntime) -> object:
        runtimes.append(self)
        return await run(self)

    async def hold(v: View) -> None:
        if not v.is_main and v.task != "roster of B":
            await never.wait()  # the siblings are mid-call when B's fault cancels the wave

    def sub(v: View) -> AssistantMessage:
        raise RuntimeError("a bug of the harness")

    monkeypatch.setattr(EpisodeRuntime, "run", keep)
    swarm = call(
        "AgentSwarm", description="rosters", subagent_type="enterprise-data-analyst",
        prompt_template="roster of {{item}}", items=["A", "B", "C", "D", "E"],
    )  # fmt: skip
    with pytest.raises(ExceptionGroup):
        await run_scripted(
            tmp_path, lambda v: say("", swarm), sub, async_reply=hold, budgets=Budgets(wave_concurrency=3)
        )
    (rt,) = runtimes
    assert rt.termination == "harness_error"
    # three slots: A, B and C started (D may take B's slot), E was still queued; every one of
    # them ends by the fault, none by the clock
    assert [r.termination for r in rt.runs] == ["harness_error"] * 5
    assert rt.runs[-1].started_s is None
    assert [(t.step, t.tools, t.tools_ok) for t in rt.main_turns] == [(1, ["AgentSwarm"], None)]


async def test_a_step_that_overflows_the_context_is_a_main_turn(tmp_path: Path) -> None:
    out = await run_scripted(
        tmp_path, lambda v: say("", call(READ)), variant="sa", budgets=Budgets(context_tokens=10)
    )
    assert out.rt.termination == "context_overflow"
    assert [(t.step, t.tools, t.tools_ok) for t in out.rt.main_turns] == [(1, [READ], 0)]


async def test_plan_first_needs_an_accepted_planner_call(tmp_path: Path) -> None:
    def main(v: View) -> AssistantMessage:
        if v.step == 0:  # a planner call that is refused (empty prompt) does not open the gate
            return say("", agent("", "planner"), call(READ))
        if v.step == 1:
            return say("", agent("plan it", "planner"))
        return say("", call(DONE))

    out = await run_scripted(tmp_path, main, answer, variant="plan-first")
    planner_error, read_refusal = results_of(out.seen[1])
    assert planner_error == "'prompt' must be a non-empty string"
    assert read_refusal.startswith("plan-first:") and "nothing was run" in read_refusal
    assert out.kinds("tool_call") == [] or all(e.data["name"] != READ for e in out.kinds("tool_call"))
    assert [(e.data["name"], e.data["reason"]) for e in out.kinds("tool_refused")] == [
        ("Agent", "delegation"),
        (READ, "plan_first"),
    ]
    assert out.rt.termination == "claim_done" and len(out.rt.waves) == 1


async def test_every_agent_has_its_own_todo_list(tmp_path: Path) -> None:
    write = "mcp__local__todo_write"
    read = "mcp__local__todo_read"

    def main(v: View) -> AssistantMessage:
        return [
            say("", call(write, items=[{"content": "main plan"}])),
            say("", agent("make your own plan", "coder")),
            say("", call(read)),
            say("", call(DONE)),
        ][v.step]

    def sub(v: View) -> AssistantMessage:
        return [
            say("", call(read)),
            say("", call(write, items=[{"content": "sub plan"}])),
            say("", call(read)),
            say("done"),
        ][v.step]

    out = await run_scripted(tmp_path, main, sub, variant="gen", task="lms-due-reminder")
    sub_results = [m.content for m in out.rt.runs[0].state.messages if m.role == "tool"]
    assert sub_results[1] == "Todo list saved (1 items)."
    assert json.loads(sub_results[0]) == []  # not the main agent's list
    assert json.loads(sub_results[2]) == [{"content": "sub plan", "status": "pending"}]
    main_read = json.loads(results_of(out.seen[-1])[-1])
    assert main_read == [{"content": "main plan", "status": "pending"}]


async def test_delegation_results_are_capped_and_stay_valid_json(tmp_path: Path) -> None:
    swarm = call(
        "AgentSwarm", description="long", subagent_type="enterprise-data-analyst",
        prompt_template="write about {{item}}", items=["A", "B"],
    )  # fmt: skip
    out = await run_scripted(
        tmp_path, main_then(swarm), lambda v: say("é" * 50_000), budgets=Budgets(tool_result_bytes=1000)
    )
    (content,) = results_of(out.seen[-1])
    assert len(content.encode()) <= 1000  # the whole result, not each summary, is within the cap
    items = json.loads(content)  # still JSON
    assert [i["item"] for i in items] == ["A", "B"]
    kept = [i["summary"].removesuffix(" [… cut by the harness: 100,000 bytes in all]") for i in items]
    assert kept[0] == kept[1] and set(kept[0]) == {"é"} and len(kept[0]) > 150  # equal shares, marked


@pytest.mark.parametrize(
    ("items", "answer"),
    [([f"course CS{n:03d}, read its roster and count active students" for n in range(128)], "roster " * 360),
     (["x" * 2000 + str(n) for n in range(128)], "summary"),
     (["A"], '"\\n' * 10_000)],
    ids=["128 items, 2.5 KB answers", "128 items of 2 KB", "an answer of escapes"],
)  # fmt: skip
async def test_a_delegation_result_holds_the_cap_whatever_its_items_and_escapes(
    tmp_path: Path, items: list[str], answer: str
) -> None:
    """Only each summary was cut, to cap / items, before JSON escaping, and the items echoed back
    were not cut at all: results of 59 KB, 309 KB and 64 KB under a 32,000-byte cap."""
    if len(items) == 1:
        first = call("Agent", description="one", subagent_type="enterprise-data-analyst", prompt=items[0])
    else:
        first = call(
            "AgentSwarm", description="many", subagent_type="enterprise-data-analyst",
            prompt_template="do {{item}}", items=items,
        )  # fmt: skip
    out = await run_scripted(tmp_path, main_then(first), lambda v: say(answer))
    (content,) = results_of(out.seen[-1])
    assert len(content.encode()) <= Budgets().tool_result_bytes
    entries = json.loads(content)
    entries = entries if isinstance(entries, list) else [entries]
    assert len(entries) == len(items) and "[… cut by the harness: " in content  # marked where cut


def main_then(first: ToolCall):  # type: ignore[no-untyped-def]
    return lambda v: say("", first) if v.step == 0 else say("", call(DONE))


async def test_events_of_a_resumed_run_carry_that_run_s_id(tmp_path: Path) -> None:
    def main(v: View) -> AssistantMessage:
        if v.step == 0:
            return say("", agent("first"))
        if v.step == 1:
            return say("", resume(first_agent_id(v), "second"))
        return say("", call(DONE))

    out = await run_scripted(tmp_path, main, answer)
    assert [e.agent for e in out.kinds("model_call")] == ["main", "a1", "main", "a2", "main"]
    starts = out.kinds("subagent_start")
    calls = [
        c.id for v in out.seen if v.is_main for m in v.messages[-1:] for c in getattr(m, "tool_calls", ())
    ]
    assert [s.data["call_id"] for s in starts] == [r.call_id for r in out.rt.runs] and all(calls)


async def test_repeated_call_ids_in_one_message_each_get_their_own_result(tmp_path: Path) -> None:
    get = "mcp__lms__get_course"
    twice = (
        ToolCall(id="dup", name=get, arguments={"course_code": "CS101"}),
        ToolCall(id="dup", name=get, arguments={"course_code": "CS201"}),
    )
    out = await run_scripted(tmp_path, main_then_many(*twice), variant="sa")
    sent = [m for m in out.seen[1].messages if isinstance(m, AssistantMessage)][-1]
    ids = [c.id for c in sent.tool_calls]
    assert ids == ["dup", "dup-1"]
    results = [m for m in out.seen[1].messages if isinstance(m, ToolMessage)]
    assert [r.tool_call_id for r in results] == ids
    assert "CS101" in results[0].content and "CS201" in results[1].content


def main_then_many(*first: ToolCall):  # type: ignore[no-untyped-def]
    return lambda v: say("", *first) if v.step == 0 else say("", call(DONE))


async def test_agent_swarm_refuses_empty_prompts(tmp_path: Path) -> None:
    swarm = call(
        "AgentSwarm", description="x", subagent_type="enterprise-data-analyst",
        prompt_template="{{item}}", items=["", " "],
    )  # fmt: skip
    out = await run_scripted(tmp_path, main_then(swarm), answer)
    assert results_of(out.seen[1]) == [
        "every prompt must be non-empty: give non-empty items or more prompt_template"
    ]
    assert out.rt.waves == []


def _plan(tmp_path: Path) -> RunPlan:
    return RunPlan(settings_matrix=[("sim:single", "sa")], tasks=load_tasks("lms-due-reminder"), profiles=load_profiles(),
                   store_url=f"sqlite:///{tmp_path / 's.db'}", runs_dir=tmp_path)  # fmt: skip


def test_a_timeout_error_of_the_harness_is_not_the_time_budget(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def fails(self: EpisodeRuntime) -> None:
        raise TimeoutError("a server took too long to restart")

    monkeypatch.setattr(EpisodeRuntime, "run", fails)
    (record,) = asyncio.run(Runner(_plan(tmp_path)).run()).records
    assert (record.status, record.termination) == ("absent", "harness_error")
    assert record.reason == "TimeoutError: a server took too long to restart"


def test_a_harness_error_s_reason_names_the_failure_inside_a_task_group(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def fails(self: EpisodeRuntime) -> None:
        raise ExceptionGroup("unhandled errors in a TaskGroup", [ExceptionGroup("inner", [KeyError("x")])])

    monkeypatch.setattr(EpisodeRuntime, "run", fails)
    (record,) = asyncio.run(Runner(_plan(tmp_path)).run()).records
    assert record.termination == "harness_error" and record.reason == "KeyError: 'x'"


def test_a_harness_error_s_reason_is_one_line_and_its_event_has_the_whole_text(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A database error's reason was SQLAlchemy's whole text: the driver's message, its DETAIL,
    `[SQL: …]` and a link, over several lines of the run's 'absent:' list."""
    from sqlalchemy.exc import IntegrityError

    async def fails(self: EpisodeRuntime) -> None:
        orig = ValueError(
            'duplicate key value violates unique constraint "pk"\nDETAIL:  Key (id)=(1) exists.'
        )
        raise IntegrityError("INSERT INTO t VALUES (1)", {}, orig)

    monkeypatch.setattr(EpisodeRuntime, "run", fails)
    plan = _plan(tmp_path)
    (record,) = asyncio.run(Runner(plan).run()).records
    assert record.reason == 'IntegrityError: duplicate key value violates unique constraint "pk"'
    store = Store(plan.store_url)
    try:
        key = episode_key(record.run_id, record.task_id, record.model, record.variant, record.seed)
        [error] = [e.data["error"] for e in store.events(key) if e.kind == "harness_error"]
    finally:
        store.close()
    assert "DETAIL:  Key (id)=(1) exists." in error and "[SQL: INSERT INTO t VALUES (1)]" in error, error


async def test_an_unpriced_model_s_cost_is_null_even_when_no_call_succeeds(tmp_path: Path) -> None:
    out = await run_scripted(
        tmp_path, lambda v: ModelAPIError("authentication", "invalid API key", status=401), variant="sa"
    )
    assert out.rt.termination == "api_error" and out.rt.main.steps == 0
    assert out.rt.cost_usd is None  # not 0.0: the price table has no "scripted:test"


async def test_tool_calls_of_a_reply_cut_off_at_the_token_limit_are_not_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from harness.models.scripted import ScriptedModel

    generate = ScriptedModel.generate

    async def cut_when_asked(self: ScriptedModel, *args: object) -> ModelResponse:
        response = await generate(self, *args)  # type: ignore[arg-type]
        cut = response.message.content == "CUT"
        return response.model_copy(update={"stop_reason": "max_tokens" if cut else "end_turn"})

    monkeypatch.setattr(ScriptedModel, "generate", cut_when_asked)

    def main(v: View) -> AssistantMessage:  # the first claim_done was cut off mid-way
        return say("CUT", call(DONE, summary="Reminders sent to")) if v.step == 0 else say("", call(DONE))

    out = await run_scripted(tmp_path, main, variant="sa")
    assert out.rt.termination == "claim_done" and out.rt.main.steps == 2
    assert [e.data["arguments"] for e in out.kinds("tool_call")] == ["{}"]  # only the second ran
    assert results_of(out.seen[1]) == [
        "not run: your reply was cut off at the output-token limit, so this call may be incomplete; "
        "send it again, with less in one reply"
    ]
    assert [e.data["stop_reason"] for e in out.kinds("model_call")] == ["max_tokens", "end_turn"]
    assert [(e.agent, e.data["calls"]) for e in out.kinds("truncated")] == [("main", 1)]


async def test_an_answer_cut_off_at_the_token_limit_is_not_the_last_word(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A text-only reply cut off at the limit (an empty one: the limit spent on thinking) ended
    the agent `text_only`, the cut-off text its answer."""
    from harness.agent import CUT_OFF_ANSWER
    from harness.models.scripted import ScriptedModel

    generate = ScriptedModel.generate

    async def cut_when_asked(self: ScriptedModel, *args: object) -> ModelResponse:
        response = await generate(self, *args)  # type: ignore[arg-type]
        cut = not response.message.content and not response.message.tool_calls
        return response.model_copy(update={"stop_reason": "max_tokens" if cut else "end_turn"})

    monkeypatch.setattr(ScriptedModel, "generate", cut_when_asked)

    def main(v: View) -> AssistantMessage:
        answered = any(m.role == "assistant" for m in v.messages)
        return say("", call(DONE)) if answered else say("")

    out = await run_scripted(tmp_path, main, variant="sa")
    assert out.rt.termination == "claim_done" and out.rt.main.steps == 2
    last = out.seen[1].messages[-1]
    assert (last.role, last.content) == ("user", CUT_OFF_ANSWER)
    assert [(e.agent, e.data["calls"]) for e in out.kinds("truncated")] == [("main", 0)]


async def test_a_run_step_budget_above_100_reaches_sub_agents_too(tmp_path: Path) -> None:
    """`--budget max_steps=150` gave the main agent 150 steps and every sub-agent still 100: the
    built-in roles' `maxSteps: 100` capped it."""

    def main(v: View) -> AssistantMessage:
        return say("", agent("read forever")) if v.step == 0 else say("", call(DONE))

    def sub(v: View) -> AssistantMessage:  # never answers: a different read every step
        return say("", call(READ, term=f"t{len(v.messages)}"))

    out = await run_scripted(tmp_path, main, sub, budgets=Budgets(max_steps=103))
    (run,) = out.rt.runs
    assert (run.termination, run.steps) == ("step_limit", 103)


async def test_a_sub_agent_summary_is_its_final_answer_even_when_empty(tmp_path: Path) -> None:
    """A sub-agent that said "Let me check the roster first." beside a tool call, then answered
    with an empty text, returned that earlier sentence as its summary."""

    def main(v: View) -> AssistantMessage:
        return say("", agent("read")) if v.step == 0 else say("", call(DONE))

    def sub(v: View) -> AssistantMessage:
        if not results_of(v):
            return say("Let me check the roster first.", call(READ))
        return say("")

    out = await run_scripted(tmp_path, main, sub)
    (run,) = out.rt.runs
    assert (run.termination, run.response) == ("text_only", "")
    assert json.loads(results_of(out.seen[-1])[-1])["summary"] == ""


async def test_a_resumed_sub_agent_counts_identical_calls_afresh(tmp_path: Path) -> None:
    """A sub-agent that made 5 identical reads and answered was stopped `loop_detected` by its
    first read after a resume: the count went on across its runs."""

    def main(v: View) -> AssistantMessage:
        if v.step == 0:
            return say("", agent("read five times"))
        if v.step == 1:
            return say("", resume(first_agent_id(v), "read once more, then answer"))
        return say("", call(DONE))

    def sub(v: View) -> AssistantMessage:
        since_prompt = 0
        for m in reversed(v.messages):
            if m.role == "user":
                break
            since_prompt += m.role == "tool"
        wanted = 5 if len([m for m in v.messages if m.role == "user"]) == 1 else 1
        return say("", call(READ, term="same")) if since_prompt < wanted else say("read")

    out = await run_scripted(tmp_path, main, sub)
    assert [(r.id, r.steps, r.termination) for r in out.rt.runs] == [
        ("a1", 6, "text_only"),
        ("a2", 2, "text_only"),
    ]


async def test_delegation_calls_are_in_the_event_stream_like_other_tool_calls(tmp_path: Path) -> None:
    """An accepted Agent or AgentSwarm call wrote no tool_call / tool_result event: the stream
    did not show what the main agent asked for or got back."""
    swarm = call(
        "AgentSwarm", description="rosters", subagent_type="enterprise-data-analyst", prompt_template="read {{item}}",
        items=["CS101", "CS201"],
    )  # fmt: skip

    def main(v: View) -> AssistantMessage:
        return say("", swarm) if v.step == 0 else say("", call(DONE))

    out = await run_scripted(tmp_path, main, answer)
    main_calls = [(e.data["name"], e.data["call_id"]) for e in out.kinds("tool_call") if e.agent == "main"]
    main_results = [e for e in out.kinds("tool_result") if e.agent == "main"]
    assert [name for name, _ in main_calls] == ["AgentSwarm", DONE]
    swarm_result = main_results[0]
    assert (swarm_result.data["name"], swarm_result.data["call_id"]) == main_calls[0]
    assert swarm_result.data["bytes"] == len(results_of(out.seen[-1])[0].encode())
    kinds = [e.kind for e in out.events.events if e.agent == "main" or e.kind.startswith("wave")]
    assert (
        kinds.index("tool_call")
        < kinds.index("wave_start")
        < kinds.index("wave_end")
        < kinds.index("tool_result")
    )


async def test_a_sub_agent_whose_calls_all_failed_is_labelled_from_them(tmp_path: Path) -> None:
    """Its label was null (no successful call, no telling text), and scoring then tagged it
    from its tools: harness and scorer gave one sub-agent two labels."""

    def main(v: View) -> AssistantMessage:
        return say("", agent("zz", description="zz")) if v.step == 0 else say("", call(DONE))

    def sub(v: View) -> AssistantMessage:  # a roster read with a course that does not exist
        return say("", call("mcp__lms__list_enrollments", course="XX999")) if v.step == 0 else say("zz")

    out = await run_scripted(tmp_path, main, sub)
    (run,) = out.rt.runs
    assert run.tools == ["mcp__lms__list_enrollments"] and run.labels == []  # it failed
    assert out.rt.label_of(run) == "course-records-lookup"


async def test_a_cap_below_the_entries_fixed_fields_cuts_the_result_as_any_tool_result(
    tmp_path: Path,
) -> None:
    swarm = call(
        "AgentSwarm", description="many", subagent_type="enterprise-data-analyst",
        prompt_template="do {{item}}", items=[f"item {n}" for n in range(8)],
    )  # fmt: skip
    out = await run_scripted(
        tmp_path, main_then(swarm), lambda v: say("answer"), budgets=Budgets(tool_result_bytes=256)
    )
    (content,) = results_of(out.seen[-1])
    kept, marker = content.split("\n[... truncated by the harness: ")
    assert len(kept.encode()) <= 256 and marker.endswith("256 shown; ask for less]")


async def test_a_file_name_that_is_not_utf8_does_not_end_the_episode(tmp_path: Path) -> None:
    """Regression: a file the agent's code named with a byte that is not UTF-8, then listed by the
    terminal, ended the episode as harness_error (the result could not be measured as UTF-8)."""
    make = "open(b'bad\\xffname.txt', 'wb').write(b'1')"

    def main(v: View) -> AssistantMessage:
        if v.step == 0:
            return say("", call("mcp__local__python_execute", code=make))
        if v.step == 1:
            return say("", call("mcp__terminal__ls", path="."))
        return say("done")

    out = await run_scripted(tmp_path, main, variant="sa", task="ar-digest-fact-check")
    assert out.rt.termination == "text_only"
    listed = out.seen[-1].messages[-1]
    assert isinstance(listed, ToolMessage) and not listed.is_error
    assert "bad\ufffdname.txt" in listed.content
