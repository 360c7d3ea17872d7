"""Simulated agents (SPEC §4): deterministic policies that drive the real harness offline.

A sim agent reads its task's gold solution and delegation prior and answers through the same
message interface as a model, so every part of the harness runs as it would with a model:
tool calls go to the real MCP servers, delegation starts real sub-agents in waves.

- `sim:single` does every sub-task itself, one tool call per step.
- `sim:oracle` delegates exactly as the prior says (one wave per prior wave; AgentSwarm when a
  wave's sub-agents share a type, otherwise several Agent calls in one message).
- `sim:eager` delegates every sub-task, one sub-agent per wave, needed or not.
- `sim:shy` never delegates, even when offered sub-agents (the name for the non-delegating
  policy under a delegating variant; it behaves as `single`).
Under a plan-first variant every policy's first step is the `planner` call the rule asks for.
Options `?noise=P&seed=N`: each tool call is dropped (P/2) or garbled (P/2); `latency=S` makes
every call take S seconds (at most MAX_LATENCY_S, an hour), like a model behind an API (waves
then show real parallelism).

The agent's role and progress are read from the messages alone (is `claim_done` offered? how
many assistant turns since the sub-task prompt?), so the policy is stateless and a resumed
sub-agent continues where its context says it is. Usage is estimated as ⌈characters / 4⌉ of what
the agent reads (every offered tool's name, description and input schema, then the messages) and
writes; the cached part is what its previous call read (the tools and the messages before its last
reply), as a provider's prompt cache would hold it.
"""

from __future__ import annotations

import asyncio
import json
import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any, TypeVar

from contracts.episode import Usage
from contracts.errors import InputError
from harness.catalog import Solution, Subtask, Task
from harness.delegation import AGENT, AGENT_SWARM, ITEM
from harness.models.base import (
    AssistantMessage,
    Message,
    ModelResponse,
    ModelSettings,
    ToolCall,
    ToolMessage,
    ToolSpec,
    UserMessage,
)
from harness.models.registry import name_options
from harness.profiles import PLANNER, label_types
from harness.prompts import PLAN_FIRST_NOTE
from harness.tools import CLAIM_DONE

_Sized = TypeVar("_Sized")

POLICIES = ("single", "oracle", "eager", "shy")
SUBTASK_MARK = re.compile(r"\[subtask:([A-Za-z0-9_-]+)\]")
PLAN_MARK = "[plan]"
PLAN_FIRST_HEADING = PLAN_FIRST_NOTE.split("\n", 1)[0]  # what the runtime adds for plan-first
GARBLED = "§garbled§"
SUMMARY_CHARS = 600
# The longest a sim call may be told to take (`latency=S`): an hour, far beyond any provider's
# call, so a typo (`latency=1e9`, 31 years) is refused rather than a run that never ends.
MAX_LATENCY_S = 3600.0


def _tokens(chars: int) -> int:
    return -(-chars // 4)


def _chars(m: Message) -> int:
    n = len(m.content)
    if isinstance(m, AssistantMessage):
        n += sum(len(c.name) + _json_chars(c.arguments or {}) for c in m.tool_calls)
    return n


def _spec_chars(t: ToolSpec) -> int:
    """What a model reads of an offered tool: its name, description and input schema."""
    return len(t.name) + len(t.description) + _json_chars(t.input_schema)


def _json_chars(value: object) -> int:
    """The characters of `value` as JSON text, non-ASCII as itself: 'é' is one character read or
    written, not the six of its `\\u00e9` escape."""
    return len(json.dumps(value, ensure_ascii=False))


@cache
def _label_types() -> dict[str, dict[str, str]]:
    return label_types()


@dataclass(frozen=True)
class SimOptions:
    """What a `sim:POLICY?noise=P&seed=N&latency=S` name asks for (seed None: the episode's seed
    alone draws the noise; N: N with the episode's seed, so `--seeds K` still gives K draws)."""

    policy: str
    noise: float = 0.0
    seed: int | None = None
    latency_s: float = 0.0


def parse_sim_name(name: str) -> SimOptions:
    """The policy and options of a sim model name; `InputError` naming `--model` when bad."""
    base, _, _ = name.partition("?")
    policy = base.removeprefix("sim:")
    if policy not in POLICIES:
        raise InputError.one("--model", None, f"unknown sim policy {policy!r}; known: {', '.join(POLICIES)}")
    _, options = name_options(name)
    unknown = set(options) - {"noise", "seed", "latency"}
    if unknown:
        raise InputError.one(
            "--model", None, f"{name}: unknown option(s) {sorted(unknown)}; use ?noise=P&seed=N&latency=S"
        )
    try:
        noise = float(options.get("noise", 0.0))
        seed = int(options["seed"]) if "seed" in options else None
        latency = float(options.get("latency", 0.0))
    except ValueError:
        raise InputError.one(
            "--model", None, f"{name}: noise and latency must be numbers, seed an integer"
        ) from None
    if not 0.0 <= noise <= 1.0 or not 0.0 <= latency <= MAX_LATENCY_S:  # NaN fails both
        raise InputError.one(
            "--model",
            None,
            f"{name}: noise must be between 0 and 1, latency between 0 and {MAX_LATENCY_S:g} seconds",
        )
    # int() also takes '-1', '+1', ' 1' and '1_0': a seed is written in digits alone
    if "seed" in options and not re.fullmatch(r"[0-9]+", options["seed"]):
        raise InputError.one("--model", None, f"{name}: seed must be a whole number, 0 or more")
    return SimOptions(policy=policy, noise=noise, seed=seed, latency_s=latency)


@dataclass
class SimModel:
    name: str
    policy: str
    task: Task
    noise: float = 0.0
    noise_seed: str = "0"  # what draws the noise: the episode's seed, or `N/seed` for `?seed=N`
    latency_s: float = 0.0
    _plans: dict[Any, list[AssistantMessage]] = field(default_factory=dict)
    # What each message and offered tool counts for in the usage, by identity: an agent's call
    # resends its earlier messages and the same tools, and measuring them anew (a json.dumps of
    # every tool schema) was a tenth of the demo's CPU. The object is kept with its size, so its
    # id cannot be taken by another while the entry stands.
    _sizes: dict[int, tuple[object, int]] = field(default_factory=dict)

    @classmethod
    def from_name(cls, name: str, task: Task, seed: int) -> SimModel:
        o = parse_sim_name(name)
        # `?seed=N` picks another family of draws, never one draw for every episode seed: with
        # `--seeds K` the K episodes of a task would be copies of one (the same calls dropped).
        noise_seed = str(seed) if o.seed is None else f"{o.seed}/{seed}"
        return cls(
            name=name, policy=o.policy, task=task, noise=o.noise, noise_seed=noise_seed, latency_s=o.latency_s
        )

    @property
    def solution(self) -> Solution:
        return self.task.solution

    async def generate(
        self, messages: Sequence[Message], tools: Sequence[ToolSpec], settings: ModelSettings
    ) -> ModelResponse:
        if self.latency_s:
            await asyncio.sleep(self.latency_s)
        if any(t.name == CLAIM_DONE for t in tools):
            message = self._main_turn(messages, tools)
        else:
            message = self._sub_turn(messages)
        offer = sum(self._size(t, _spec_chars) for t in tools)
        read = [self._size(m, _chars) for m in messages]
        last_reply = next(
            (i for i in range(len(messages) - 1, -1, -1) if isinstance(messages[i], AssistantMessage)), None
        )
        # The prompt cache holds what this agent's previous call read: the tools and the messages
        # before its last reply (that reply was output, never read); a first call has none cached.
        cached = 0 if last_reply is None else offer + sum(read[:last_reply])
        usage = Usage(
            input_tokens=_tokens(offer + sum(read)),
            cached_input_tokens=_tokens(cached),
            output_tokens=_tokens(_chars(message)),
        )
        return ModelResponse(
            message=message,
            usage=usage,
            latency_s=self.latency_s,
            stop_reason="tool_use" if message.tool_calls else "end_turn",
        )

    def _size(self, item: _Sized, measure: Callable[[_Sized], int]) -> int:
        known = self._sizes.get(id(item))
        if known is not None and known[0] is item:
            return known[1]
        n = measure(item)
        self._sizes[id(item)] = (item, n)
        return n

    async def aclose(self) -> None:
        return None

    # -- noise --------------------------------------------------------------------------------------
    def _noisy(self, call: ToolCall, where: str) -> ToolCall | None:
        if self.noise <= 0:
            return call
        r = random.Random(f"{self.noise_seed}:{self.task.id}:{where}").random()
        if r >= self.noise:
            return call
        if r < self.noise / 2:
            return None
        garbled = dict.fromkeys(call.arguments or {}, GARBLED) or {"unexpected": GARBLED}
        return ToolCall(id=call.id, name=call.name, arguments=garbled)

    def _own_steps(self, subtasks: Sequence[Subtask], agent: str) -> list[AssistantMessage]:
        steps = []
        for st in subtasks:
            for i, c in enumerate(st.calls):
                call = self._noisy(
                    ToolCall(id=f"sim_{agent}_{st.id}_{i}", name=c.tool, arguments=dict(c.arguments)),
                    f"{agent}:{st.id}:{i}",
                )
                if call is not None:
                    steps.append(
                        AssistantMessage(
                            content="" if i else f"Working on: {st.description}", tool_calls=(call,)
                        )
                    )
        return steps

    # -- the main agent -------------------------------------------------------------------------------
    def _main_turn(self, messages: Sequence[Message], tools: Sequence[ToolSpec]) -> AssistantMessage:
        types = _subagent_types(tools)
        system = messages[0].content if messages else ""
        key = (tuple(types), PLAN_FIRST_HEADING in system)
        if key not in self._plans:
            self._plans[key] = self._main_plan(types, plan_first=key[1])
        plan = self._plans[key]
        step = sum(1 for m in messages if isinstance(m, AssistantMessage))
        return plan[step] if step < len(plan) else AssistantMessage(content="All sub-tasks are done.")

    def _main_plan(self, types: list[str], plan_first: bool) -> list[AssistantMessage]:
        delegate = self.policy in ("oracle", "eager") and bool(types)
        steps: list[AssistantMessage] = []
        if plan_first and PLANNER in types:
            # The rule of the variant, which the runtime enforces by refusing every other call until
            # the planner runs: every policy follows it (single and shy then work alone).
            plan = ToolCall(id="sim_main_plan", name=AGENT, arguments={
                "description": "plan the task", "subagent_type": PLANNER,
                "prompt": f"{PLAN_MARK} Decompose this task into sub-tasks and a delegation plan: {self.task.spec.title}",
            })  # fmt: skip
            steps.append(AssistantMessage(content="First, a plan.", tool_calls=(plan,)))
        prior = self.task.prior
        if delegate and self.policy == "oracle" and prior is not None and prior.need_delegation:
            wave_of = {u.subtask: i for i, wave in enumerate(prior.waves) for u in wave}
            started = 0  # the prior's waves start in its order, whatever the solution's order
            for st in self.solution.subtasks:
                w = wave_of.get(st.id)
                if w is None:
                    steps += self._own_steps([st], "main")
                    continue
                for v in range(started, w + 1):
                    picks = [
                        (u.subtask, u.description, self._type_for(u.subtask, types)) for u in prior.waves[v]
                    ]
                    steps += self._wave_message(picks, v)
                started = max(started, w + 1)
        elif delegate and self.policy == "eager":
            for i, st in enumerate(self.solution.subtasks):
                steps += self._wave_message([(st.id, st.description, self._type_for(st.id, types))], i)
        else:
            steps += self._own_steps(self.solution.subtasks, "main")
        done_call = ToolCall(
            id="sim_main_done", name=CLAIM_DONE, arguments={"summary": f"Completed: {self.task.spec.title}"}
        )
        steps.append(AssistantMessage(content="Everything is in place.", tool_calls=(done_call,)))
        return steps

    def _type_for(self, subtask_id: str, types: list[str]) -> str:
        st = self.solution.subtask(subtask_id)
        unit = next(
            (u for u in (self.task.prior.units if self.task.prior else []) if u.subtask == subtask_id), None
        )
        fallback = _label_types().get(st.label, {})
        candidates = ([unit.spec, unit.gen] if unit else []) + [
            fallback.get("spec", ""),
            fallback.get("gen", ""),
        ]
        return next((c for c in candidates if c in types), types[0])

    def _wave_message(self, picks: list[tuple[str, str, str]], wave: int) -> list[AssistantMessage]:
        """The main agent's message starting a wave; under noise its calls, like any, may be
        dropped (no message when all are) or garbled (the runtime refuses them)."""
        kinds = {t for _, _, t in picks}
        if len(picks) >= 2 and len(kinds) == 1:
            call = ToolCall(id=f"sim_main_wave{wave}", name=AGENT_SWARM, arguments={
                "description": f"wave {wave + 1}", "subagent_type": picks[0][2],
                "prompt_template": f"{ITEM}\nCarry out this sub-task with your tools and report the result briefly.",
                "items": [f"{desc} [subtask:{sid}]" for sid, desc, _ in picks],
            })  # fmt: skip
            calls: tuple[ToolCall, ...] = (call,)
        else:
            calls = self._agent_calls(picks, wave)
        kept = tuple(c for i, call in enumerate(calls) if (c := self._noisy(call, f"main:wave{wave}:{i}")))
        return [AssistantMessage(content=f"Delegating wave {wave + 1}.", tool_calls=kept)] if kept else []

    def _agent_calls(self, picks: list[tuple[str, str, str]], wave: int) -> tuple[ToolCall, ...]:
        return tuple(
            ToolCall(
                id=f"sim_main_wave{wave}_{i}",
                name=AGENT,
                arguments={
                    "description": desc,
                    "subagent_type": kind,
                    "prompt": f"{desc}\nCarry out this sub-task with your tools and report the result briefly. [subtask:{sid}]",
                },
            )  # fmt: skip
            for i, (sid, desc, kind) in enumerate(picks)
        )

    # -- a sub-agent ----------------------------------------------------------------------------------
    def _sub_turn(self, messages: Sequence[Message]) -> AssistantMessage:
        start = max((i for i, m in enumerate(messages) if isinstance(m, UserMessage)), default=0)
        prompt = messages[start].content if messages else ""
        progress = sum(1 for m in messages[start:] if isinstance(m, AssistantMessage))
        if PLAN_MARK in prompt:
            return AssistantMessage(content=self._plan_text())
        known = {s.id for s in self.solution.subtasks}
        ids = [sid for sid in SUBTASK_MARK.findall(prompt) if sid in known]
        if not ids:
            return AssistantMessage(
                content="I could not identify my sub-task in the instructions; nothing was done."
            )
        key = ("sub", tuple(ids))
        if key not in self._plans:
            self._plans[key] = self._own_steps([self.solution.subtask(s) for s in ids], "-".join(ids))
        plan = self._plans[key]
        if progress < len(plan):
            return plan[progress]
        results = " | ".join(m.content for m in messages[start:] if isinstance(m, ToolMessage))
        head = "; ".join(self.solution.subtask(s).description for s in ids)
        return AssistantMessage(content=f"Done: {head}. Results: {results[:SUMMARY_CHARS]}")

    def _plan_text(self) -> str:
        prior = self.task.prior
        if prior is None or not prior.need_delegation:
            return "Plan: the main agent can do this alone, in order: " + "; ".join(
                s.description for s in self.solution.subtasks
            )
        waves = [
            "wave {}: {}".format(i + 1, ", ".join(u.description for u in w))
            for i, w in enumerate(prior.waves)
        ]
        return "Plan: " + "; ".join(waves)


def _subagent_types(tools: Sequence[ToolSpec]) -> list[str]:
    for t in tools:
        if t.name == AGENT:
            enum = t.input_schema.get("properties", {}).get("subagent_type", {}).get("enum", [])
            return [str(x) for x in enum]
    return []
