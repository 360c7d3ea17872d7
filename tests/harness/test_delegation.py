"""Agent / AgentSwarm semantics, waves, allowlists and refusals (SPEC §2), on the real runtime."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from harness.models.base import AssistantMessage, ToolCall
from harness.models.scripted import call, say
from harness.records import critical_steps
from tests.harness.support import View, run_scripted

DONE = "mcp__local__claim_done"


def agent(
    prompt: str, kind: str = "enterprise-data-analyst", description: str = "look something up"
) -> ToolCall:
    return call("Agent", description=description, prompt=prompt, subagent_type=kind)


def results_of(view: View) -> list[str]:
    return [m.content for m in view.messages if m.role == "tool"]


def main_then_done(*first: ToolCall):  # type: ignore[no-untyped-def]
    """Main agent: one message with `first`, then claim_done."""

    def main(v: View) -> AssistantMessage:
        return say("", *first) if v.step == 0 else say("", call(DONE))

    return main


def answer(v: View) -> AssistantMessage:
    return say(f"answer to: {v.task[:30]}")


class Barrier:
    """Holds each sub-agent's first model call until `n` sub-agents have made theirs."""

    def __init__(self, n: int) -> None:
        self.n, self.count, self.open = n, 0, asyncio.Event()

    async def __call__(self, v: View) -> None:
        if v.is_main or v.step > 0:
            return
        self.count += 1
        if self.count >= self.n:
            self.open.set()
        await self.open.wait()


async def test_sub_agents_of_one_wave_overlap(tmp_path: Path) -> None:
    main = main_then_done(agent("a"), agent("b"), agent("c"))
    out = await run_scripted(tmp_path, main, answer, async_reply=Barrier(3))
    starts = [e.seq for e in out.kinds("subagent_start")]
    ends = [e.seq for e in out.kinds("subagent_end")]
    assert len(starts) == len(ends) == 3
    assert max(starts) < min(ends)  # all three were running at once
    assert len(out.rt.waves) == 1 and [r.id for r in out.rt.waves[0].runs] == ["a1", "a2", "a3"]
    assert out.rt.termination == "claim_done"


async def test_the_wave_cap_queues_the_129th_sub_agent(tmp_path: Path) -> None:
    main = main_then_done(*(agent(f"item {i}") for i in range(129)))
    out = await run_scripted(tmp_path, main, answer, async_reply=Barrier(128))
    running = peak = 0
    for e in out.events.events:
        if e.kind == "subagent_start":
            running += 1
            peak = max(peak, running)
        elif e.kind == "subagent_end":
            running -= 1
    assert peak == 128
    last_start = [e for e in out.kinds("subagent_start") if e.agent == "a129"][0]
    first_end = out.kinds("subagent_end")[0]
    assert last_start.seq > first_end.seq  # the 129th waited for a free slot
    assert len(out.rt.waves) == 1 and len(out.rt.waves[0].runs) == 129


async def test_a_call_outside_the_allowlist_is_refused_and_never_executed(tmp_path: Path) -> None:
    def sub(v: View) -> AssistantMessage:
        if v.step == 0:  # a read-only analyst tries to write a grade
            return say("", call("mcp__lms__set_grade", assignment_id=1, student="S00001", score=1))
        return say("could not")

    before = out_grades = None
    out = await run_scripted(tmp_path, main_then_done(agent("grade it")), sub)
    with out.world.engine.connect() as conn:
        out_grades = conn.exec_driver_sql(
            "SELECT score FROM lms_grade WHERE assignment_id=1 AND student_id=1"
        ).all()
    refused = out.kinds("tool_refused")
    assert [(e.agent, e.data["name"], e.data["reason"]) for e in refused] == [
        ("a1", "mcp__lms__set_grade", "not_allowed")
    ]
    assert all(e.data["name"] != "mcp__lms__set_grade" for e in out.kinds("tool_call"))
    assert out_grades != [(1.0,)] and before is None
    tool_msg = [m for m in out.rt.runs[0].state.messages if m.role == "tool"][0]
    assert tool_msg.is_error and "not available" in tool_msg.content


async def test_read_only_sub_agents_are_never_offered_a_write_tool(tmp_path: Path) -> None:
    kinds = [
        "planner",
        "enterprise-data-analyst",
        "academic-literature-researcher",
        "financial-market-analyst",
        "web-domain-researcher",
    ]
    main = main_then_done(*(agent(f"task for {k}", k) for k in kinds))
    out = await run_scripted(tmp_path, main, answer)
    read_only = {t.name for t in out.rt.executor.catalog if t.read_only}
    sub_views = [v for v in out.seen if not v.is_main]
    assert len(sub_views) == len(kinds)
    reaches = {v.messages[0].content.split(".")[0]: v.tool_names for v in sub_views}
    assert reaches["You are an enterprise data analyst"], "the analyst reads the LMS"
    assert reaches["You are an academic literature researcher"] == [], "no scholar server on this task"
    for v in sub_views:
        assert set(v.tool_names) <= read_only, set(v.tool_names) - read_only
        assert not {"Agent", "AgentSwarm", DONE} & set(v.tool_names)


async def test_writable_sub_agents_get_writes_but_never_claim_done_or_delegation(tmp_path: Path) -> None:
    out = await run_scripted(tmp_path, main_then_done(agent("build it", "office-report-builder")), answer)
    (v,) = [v for v in out.seen if not v.is_main]
    assert "mcp__excel__create_workbook" in v.tool_names
    assert not {"Agent", "AgentSwarm", DONE} & set(v.tool_names)
    # Only the task's servers (lms, excel) and local are reachable.
    assert {n.split("__")[1] for n in v.tool_names} <= {"lms", "excel", "local"}


async def test_a_sub_agent_cannot_claim_done(tmp_path: Path) -> None:
    def sub(v: View) -> AssistantMessage:
        return say("", call(DONE)) if v.step == 0 else say("tried")

    def main(v: View) -> AssistantMessage:
        return say("", agent("x", "coder")) if v.step == 0 else say("main stops without claim_done")

    out = await run_scripted(tmp_path, main, sub, variant="gen")
    assert [e.data["reason"] for e in out.kinds("tool_refused")] == ["not_allowed"]
    assert out.rt.termination == "text_only"  # the episode went on until the main agent ended it


async def test_agent_swarm_refusals(tmp_path: Path) -> None:
    swarm = {
        "description": "d",
        "subagent_type": "enterprise-data-analyst",
        "prompt_template": "look at {{item}}",
    }
    cases = [
        ([call("AgentSwarm", **swarm, items=["only"])], "2 to 128 items"),
        ([call("AgentSwarm", **swarm, items=[f"i{n}" for n in range(129)])], "2 to 128 items"),
        ([call("AgentSwarm", **{**swarm, "prompt_template": "same for all"}, items=["a", "b"])], "distinct"),
        ([call("AgentSwarm", **swarm, items=["a", "b"]), call("mcp__lms__list_courses")], "only tool call"),
        (
            [call("AgentSwarm", **{**swarm, "subagent_type": "wizard"}, items=["a", "b"])],
            "unknown subagent_type",
        ),
    ]
    # A resume_agent_ids of the wrong type, empty or not, is refused (an empty list or false was
    # read as no resumes; {"a": 7} resumed an agent '7'); null and {} are none.
    cases += [
        ([call("AgentSwarm", **swarm, items=["a", "b"], resume_agent_ids=bad)], "must map items to agent ids")
        for bad in ([], "", False, 0, "zz", {"a": 7})
    ]
    for n, (calls, expected) in enumerate(cases):
        out = await run_scripted(tmp_path / str(n), main_then_done(*calls), answer)
        first_tools = [m for m in out.seen[1].messages if m.role == "tool"]
        swarm_result = first_tools[0]
        assert swarm_result.is_error and expected in swarm_result.content, swarm_result.content
        assert out.rt.waves == []
        if len(calls) == 2:  # the other call of that message still ran
            assert not first_tools[1].is_error


@pytest.mark.parametrize("resumes", [{}, {"resume_agent_ids": None}, {"resume_agent_ids": {}}])
async def test_agent_swarm_runs_one_wave_in_item_order(tmp_path: Path, resumes: dict[str, object]) -> None:
    swarm = call("AgentSwarm", description="rosters", subagent_type="enterprise-data-analyst",
                 prompt_template="read the roster of {{item}}", items=["CS101", "CS201", "CS305"], **resumes)  # fmt: skip
    out = await run_scripted(tmp_path, main_then_done(swarm), answer, async_reply=Barrier(3))
    payload = json.loads(results_of(out.seen[-1])[0])
    assert [p["item"] for p in payload] == ["CS101", "CS201", "CS305"]
    assert [p["summary"] for p in payload] == [
        f"answer to: read the roster of {c}" for c in ("CS101", "CS201", "CS305")
    ]
    assert all(p["status"] == "completed" and p["steps"] == 1 for p in payload)
    assert [r.description for r in out.rt.waves[0].runs] == [
        "rosters: CS101",
        "rosters: CS201",
        "rosters: CS305",
    ]


async def test_resume_continues_the_sub_agents_own_context(tmp_path: Path) -> None:
    def main(v: View) -> AssistantMessage:
        if v.step == 0:
            return say("", agent("first question"))
        if v.step == 1:
            first = json.loads(results_of(v)[0])
            return say(
                "", call("Agent", description="follow-up", prompt="second question", resume=first["agent_id"])
            )
        return say("", call(DONE))

    def sub(v: View) -> AssistantMessage:
        return say(f"reply {len(v.messages)}")

    out = await run_scripted(tmp_path, main, sub)
    resumed_view = [v for v in out.seen if not v.is_main][-1]
    contents = [m.content for m in resumed_view.messages]
    assert contents[1:] == [
        "first question",
        "reply 2",
        "second question",
    ]  # its own history, then the new prompt
    runs = out.rt.runs
    assert [(r.id, r.resume_of) for r in runs] == [("a1", None), ("a2", "a1")]
    assert runs[0].state is runs[1].state
    assert len(out.rt.waves) == 2


async def test_resuming_an_unknown_agent_is_a_tool_error(tmp_path: Path) -> None:
    bad = call("Agent", description="x", prompt="y", resume="a99")
    out = await run_scripted(tmp_path, main_then_done(bad), answer)
    (msg,) = results_of(out.seen[1])
    assert "no sub-agent 'a99'" in msg


async def test_agent_needs_exactly_one_of_type_and_resume(tmp_path: Path) -> None:
    both = call("Agent", description="x", prompt="y", subagent_type="coder", resume="a1")
    out = await run_scripted(tmp_path, main_then_done(both), answer, variant="gen")
    assert "exactly one of" in results_of(out.seen[1])[0]


async def test_sa_offers_no_delegation_and_refuses_it(tmp_path: Path) -> None:
    out = await run_scripted(tmp_path, main_then_done(agent("x")), answer, variant="sa")
    assert "Agent" not in out.seen[0].tool_names and "AgentSwarm" not in out.seen[0].tool_names
    assert "not available" in results_of(out.seen[1])[0]
    assert out.rt.waves == []


async def test_plan_first_refuses_anything_before_the_planner(tmp_path: Path) -> None:
    def main(v: View) -> AssistantMessage:
        n = sum(1 for m in v.messages if m.role == "assistant")
        if n == 0:
            return say("", call("mcp__lms__list_courses"))
        if n == 1:
            return say("", agent("plan it", "planner"))
        return say("", call(DONE))

    out = await run_scripted(tmp_path, main, answer, variant="plan-first")
    refusal = results_of(out.seen[1])[0]
    assert "plan-first" in refusal and "nothing was run" in refusal
    assert all(e.data["name"] != "mcp__lms__list_courses" for e in out.kinds("tool_call"))
    assert out.rt.termination == "claim_done" and len(out.rt.waves) == 1


async def test_malformed_calls_are_tool_errors_and_count_as_steps(tmp_path: Path) -> None:
    broken = ToolCall(id="x1", name="mcp__lms__list_courses", arguments=None, raw_arguments='{"term": ')

    def main(v: View) -> AssistantMessage:
        return [
            say("", broken),
            say("", call("mcp__lms__no_such_tool")),
            say("", call("mcp__lms__get_course", course=7.5)),
            say("", call(DONE)),
        ][v.step]

    out = await run_scripted(tmp_path, main, variant="sa")
    tool_msgs = [m for m in out.rt.main.messages if m.role == "tool"]
    assert "not a JSON object" in tool_msgs[0].content
    assert "unknown tool" in tool_msgs[1].content
    assert tool_msgs[2].is_error  # the server rejected the argument type
    assert all(m.is_error for m in tool_msgs[:3])
    assert out.rt.main.steps == 4 and out.rt.termination == "claim_done"


async def test_an_unknown_tool_name_is_cut_in_the_refusal_and_its_event(tmp_path: Path) -> None:
    """Audit: the refusal of a made-up tool repeated the model's whole name, so a 200 KB name
    came back as a 200 KB tool result (no result cap applies to refusals) and a 200 KB event.
    The name is cut to its first 80 characters and an ellipsis."""
    long_name = "x" * 200_000

    def main(v: View) -> AssistantMessage:
        return [say("", call(long_name)), say("", call(DONE))][v.step]

    out = await run_scripted(tmp_path, main, variant="sa")
    refusal = [m for m in out.rt.main.messages if m.role == "tool"][0].content
    assert refusal == f"unknown tool {'x' * 80 + '…'!r}; use one of the tools you were given"
    [event] = out.kinds("tool_refused")
    assert event.data["name"] == "x" * 80 + "…" and event.data["reason"] == "unknown_tool"


def test_critical_steps_by_hand() -> None:
    # S_main = 5; wave 1 runs 3 and 7 steps; wave 2 runs 2: CSteps = 5 + max(3, 7) + max(2) = 14.
    assert critical_steps(5, [[3, 7], [2]]) == 14
    assert critical_steps(9, []) == 9  # SA: CSteps = S_main
    assert critical_steps(4, [[]]) == 4  # a wave whose sub-agents all failed to start adds nothing


async def test_critical_steps_of_a_run_episode(tmp_path: Path) -> None:
    def sub(v: View) -> AssistantMessage:  # sub-agent "a" takes 3 steps, "b" takes 1
        if "slow" in v.task and v.step < 2:
            return say("", call("mcp__lms__list_courses", term=f"t{v.step}"))
        return say("done")

    def main(v: View) -> AssistantMessage:
        return [
            say("", agent("slow one"), agent("fast one")),
            say("", agent("fast again")),
            say("", call(DONE)),
        ][v.step]

    out = await run_scripted(tmp_path, main, sub)
    from harness.records import build_record

    record = build_record(out.rt, task_id="t", model="m", variant="spec", seed=0, episode_id="e", run_id="r",
                          checks=[], termination=out.rt.termination, reason=None, duration_s=0.0, price_version=None)  # fmt: skip
    # main 3 steps; wave 1: max(3, 1) = 3; wave 2: 1  ->  3 + 3 + 1 = 7
    assert [[s.steps for s in w.subagents] for w in record.waves] == [[3, 1], [1]]
    assert record.critical_steps == 7
    assert [w.main_step for w in record.waves] == [1, 2]
