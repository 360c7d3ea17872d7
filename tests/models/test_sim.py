"""The simulated agents (SPEC §4) as a model: what they answer and the usage they report."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import math
from pathlib import Path

import pytest

import harness.models.sim as sim
from contracts.errors import InputError
from contracts.prior import DelegationPrior
from harness.catalog import load_tasks
from harness.delegation import AGENT_SWARM, tool_specs
from harness.models.base import (
    AssistantMessage,
    Message,
    ModelSettings,
    SystemMessage,
    ToolCall,
    ToolMessage,
    ToolSpec,
    UserMessage,
)
from harness.models.pricing import load_prices
from harness.models.sim import SUBTASK_MARK, SimModel, parse_sim_name
from harness.profiles import PLANNER, load_profiles
from harness.runner import Runner, RunPlan
from harness.tools import CLAIM_DONE

(TASK,) = load_tasks("lms-due-reminder")
SCHEMA = {
    "type": "object",
    "properties": {"course": {"type": "string", "description": "the course code, e.g. CS101"}},
    "required": ["course"],
}
TOOLS = [
    ToolSpec(name=CLAIM_DONE, description="Say that the task is done.", input_schema={"type": "object"}),
    ToolSpec(
        name="mcp__lms__list_assignments", description="List a course's assignments.", input_schema=SCHEMA
    ),
]
SETTINGS = ModelSettings()


def _read(tools: list[ToolSpec], messages: list[Message]) -> int:
    """The characters a model reads: every offered tool whole, then the messages."""
    offered = sum(len(t.name) + len(t.description) + len(json.dumps(t.input_schema)) for t in tools)
    return offered + sum(len(m.content) for m in messages)


async def test_sim_usage_counts_the_whole_tool_offer_and_caches_what_the_previous_call_read() -> None:
    """Input counted each tool as its description + 40 characters, whatever its name and schema
    (a built-in main agent's 18 tools: 2,717 characters counted of 7,996 read, its first call
    1,715 tokens instead of 3,034); the cached part was the messages up to the last reply, that
    reply included (output, never read) and the tools left out (the start of every prompt)."""
    model = SimModel.from_name("sim:single", TASK, seed=0)
    messages: list[Message] = [
        SystemMessage(content="You are the main agent."),
        UserMessage(content="Remind CS101."),
    ]
    first = await model.generate(messages, TOOLS, SETTINGS)
    assert first.usage.input_tokens == math.ceil(_read(TOOLS, messages) / 4)
    assert first.usage.cached_input_tokens == 0
    (call,) = first.message.tool_calls
    written = len(first.message.content) + len(call.name) + len(json.dumps(call.arguments))
    assert first.usage.output_tokens == math.ceil(written / 4)

    result = ToolMessage(tool_call_id=call.id, name=call.name, content="x" * 101)
    second = await model.generate([*messages, first.message, result], TOOLS, SETTINGS)
    assert second.usage.cached_input_tokens == first.usage.input_tokens
    assert second.usage.input_tokens == math.ceil((_read(TOOLS, messages) + written + 101) / 4)
    assert isinstance(second.message, AssistantMessage) and second.message.tool_calls


async def test_sim_measures_each_tool_and_message_once_and_a_new_one_anew(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Every call json-dumped every offered tool's schema and every earlier message's arguments
    again (a tenth of the demo's CPU). Each object is measured once now; an object that is new,
    even equal to or in the place of an earlier one, is measured itself."""
    import harness.models.sim as sim

    measured: list[str] = []
    real = sim._spec_chars

    def counting(t: ToolSpec) -> int:
        measured.append(t.name)
        return real(t)

    monkeypatch.setattr(sim, "_spec_chars", counting)
    model = SimModel.from_name("sim:single", TASK, seed=0)
    messages: list[Message] = [SystemMessage(content="main"), UserMessage(content="Remind CS101.")]
    first = await model.generate(messages, TOOLS, SETTINGS)
    (call,) = first.message.tool_calls
    result = ToolMessage(tool_call_id=call.id, name=call.name, content="x" * 10)
    await model.generate([*messages, first.message, result], TOOLS, SETTINGS)
    assert measured == [t.name for t in TOOLS]

    # the same names, a longer description, and a longer tool result in the same place
    longer = [t.model_copy(update={"description": t.description + "!" * 40}) for t in TOOLS]
    result = ToolMessage(tool_call_id=call.id, name=call.name, content="x" * 50)
    third = await model.generate([*messages, first.message, result], longer, SETTINGS)
    written = len(first.message.content) + len(call.name) + len(json.dumps(call.arguments))
    assert third.usage.input_tokens == math.ceil((_read(longer, messages) + written + 50) / 4)
    assert measured == [t.name for t in TOOLS] * 2


@pytest.mark.parametrize("policy", ["single", "shy"])
def test_sims_that_work_alone_still_call_the_planner_first_under_plan_first(
    tmp_path: Path, policy: str
) -> None:
    """Only `oracle` and `eager` made the planner call plan-first asks for: `single` and `shy`
    had every call refused, claim_done too, and failed all 48 tasks (SR 0.00, text_only)."""
    plan = RunPlan(
        settings_matrix=[(f"sim:{policy}", "plan-first")], tasks=[TASK], profiles=load_profiles(),
        prices=load_prices(), store_url=f"sqlite:///{tmp_path / 's.db'}", runs_dir=tmp_path,
    )  # fmt: skip
    (record,) = asyncio.run(Runner(plan).run()).records
    assert record.success and record.termination == "claim_done"
    assert [(w.main_step, [s.type for s in w.subagents]) for w in record.waves] == [(1, [PLANNER])]
    assert [t.tools for t in record.main.turns or []][1:] == [
        [c.tool for c in st.calls] for st in TASK.solution.subtasks
    ] + [[CLAIM_DONE]]


NOISY_TASK = next(iter(load_tasks("ar-delegation-survey-notes")))  # 30 gold calls


async def _main_calls(name: str, seed: int) -> list[tuple[str, str]]:
    """The (tool, arguments) a sim main agent offered no sub-agents calls, to its end."""
    model = SimModel.from_name(name, NOISY_TASK, seed=seed)
    messages: list[Message] = [SystemMessage(content="main"), UserMessage(content="the task")]
    calls: list[tuple[str, str]] = []
    while True:
        reply = (await model.generate(messages, TOOLS, SETTINGS)).message
        messages.append(reply)
        calls += [(c.name, json.dumps(c.arguments)) for c in reply.tool_calls]
        if not reply.tool_calls or calls[-1][0] == CLAIM_DONE:
            return calls
        messages += [ToolMessage(tool_call_id=c.id, name=c.name, content="ok") for c in reply.tool_calls]


async def test_sim_noise_zero_is_no_noise_and_noise_one_spares_no_call() -> None:
    gold = [(c.tool, json.dumps(c.arguments)) for st in NOISY_TASK.solution.subtasks for c in st.calls]
    plain = await _main_calls("sim:single", 0)
    assert plain == [*gold, (CLAIM_DONE, plain[-1][1])]
    assert await _main_calls("sim:single?noise=0&seed=5", 0) == plain
    every = await _main_calls("sim:single?noise=1", 0)
    assert every[-1][0] == CLAIM_DONE and not set(every[:-1]) & set(gold)  # each one dropped or garbled
    assert 0 < len(every) - 1 < len(gold)  # some dropped, some garbled


async def test_sim_noise_is_drawn_again_for_each_episode_seed_even_with_a_seed_option() -> None:
    """`?seed=N` replaced the episode's seed: `--seeds 3` with `sim:oracle?noise=0.3&seed=1` ran
    three identical episodes of each task (same calls dropped, same steps, same tokens), so
    several seeds added copies, not samples."""
    name = "sim:single?noise=0.3&seed=1"
    assert await _main_calls(name, 0) == await _main_calls(name, 0)
    draws = {
        json.dumps(await _main_calls(n, s)) for n in (name, "sim:single?noise=0.3&seed=2") for s in (0, 1)
    }
    assert len(draws) == 4


async def test_sim_usage_counts_non_ascii_text_as_the_characters_it_is() -> None:
    """Tool-call arguments and tool schemas were measured as ASCII-escaped JSON: the written
    `{"subject": "Café – 5 €"}` counted 40 characters (`é` as the six of `\\u00e9`) for its 25,
    and this call's input 36 tokens (143 characters) for its 31 (123)."""
    model = SimModel.from_name("sim:single", TASK, seed=0)
    schema = {"type": "object", "description": "Café"}
    tools = [ToolSpec(name=CLAIM_DONE, description="Done.", input_schema=schema)]
    call = ToolCall(id="c1", name="mcp__mail__send", arguments={"subject": "Café – 5 €"})
    reply = AssistantMessage(content="", tool_calls=(call,))
    messages: list[Message] = [
        SystemMessage(content="main"),  # 4
        UserMessage(content="Grüße"),  # 5
        reply,  # 15 (name) + 25 (`{"subject": "Café – 5 €"}`) = 40
        ToolMessage(tool_call_id="c1", name="mcp__mail__send", content="envoyé"),  # 6
    ]
    # offered: 22 (name) + 5 (description) + 41 (`{"type": "object", "description": "Café"}`) = 68
    assert sim._spec_chars(tools[0]) == 68 and sim._chars(reply) == 40
    usage = (await model.generate(messages, tools, SETTINGS)).usage
    assert usage.input_tokens == 31  # ⌈(68 + 4 + 5 + 40 + 6) / 4⌉ = ⌈123 / 4⌉
    assert usage.cached_input_tokens == 20  # what the call before the reply read: ⌈(68 + 4 + 5) / 4⌉


@pytest.mark.parametrize("seed", ["-1", "+1", " 1", "1_0", "1.0", "abc", ""])
def test_sim_seed_option_is_digits_alone(seed: str) -> None:
    """`?seed=-1` (and `+1`, ` 1`, `1_0`, which int() takes) ran as a seed; only digits are one."""
    with pytest.raises(InputError) as caught:
        parse_sim_name(f"sim:eager?seed={seed}")
    (problem,) = caught.value.problems
    assert problem.file == "--model" and "seed" in problem.message
    assert parse_sim_name("sim:eager?seed=0").seed == 0
    assert parse_sim_name("sim:eager?noise=0.5&seed=12").seed == 12


WAVE_TASK = next(iter(load_tasks("lms-enrollment-overview")))  # s1-s3 read rosters, s4 builds a file


async def _delegations(model: SimModel, tools: list[ToolSpec]) -> list[list[tuple[str, str]]]:
    """The waves a sim main agent starts, to its end: (sub-task id, type) per sub-agent."""
    messages: list[Message] = [SystemMessage(content="main"), UserMessage(content="the task")]
    waves: list[list[tuple[str, str]]] = []
    for _ in range(100):
        reply = (await model.generate(messages, tools, SETTINGS)).message
        messages.append(reply)
        wave = []
        for c in reply.tool_calls:
            args = c.arguments or {}
            prompts = args["items"] if c.name == AGENT_SWARM else [args.get("prompt", "")]
            wave += [(sid, args["subagent_type"]) for p in prompts for sid in SUBTASK_MARK.findall(p)]
        if wave:
            waves.append(wave)
        if not reply.tool_calls or reply.tool_calls[-1].name == CLAIM_DONE:
            return waves
        messages += [ToolMessage(tool_call_id=c.id, name=c.name, content="ok") for c in reply.tool_calls]
    raise AssertionError("the sim never ended")


async def test_sim_oracle_starts_the_prior_waves_in_the_prior_order() -> None:
    """The waves started in the order of the solution's sub-tasks: a prior [[s3], [s1, s2]] ran
    [(s1, s2)] first and [s3] second, not as the prior says."""
    unit = {"label": "course-records-lookup", "mode": "read-only", "gen": "explorer"}
    prior = DelegationPrior.model_validate({
        "task": WAVE_TASK.spec.id, "need_delegation": True,
        "waves": [
            [{"subtask": "s3", "description": "CS305", **unit, "spec": "enterprise-data-analyst"}],
            [{"subtask": s, "description": d, **unit, "spec": "enterprise-data-analyst"}
             for s, d in (("s1", "CS101"), ("s2", "CS201"))],
        ],
    })  # fmt: skip
    model = SimModel.from_name("sim:oracle", dataclasses.replace(WAVE_TASK, prior=prior), seed=0)
    tools = [*TOOLS, *tool_specs(["planner", "explorer", "coder"])]
    assert await _delegations(model, tools) == [
        [("s3", "explorer")],
        [("s1", "explorer"), ("s2", "explorer")],
    ]
