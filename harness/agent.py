"""The agent loop (SPEC §2): one step = one model call plus every tool call of its message.

`run_agent` drives one agent — the main agent or a sub-agent — until it ends: normally (text
and no tool call; or, for the main agent, a successful `claim_done`) or by a budget (steps,
context window, identical consecutive calls, API retries). The tool calls of one message run
concurrently; the episode runtime executes them (MCP calls, refusals, delegation waves).
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from contracts.episode import Turn, Usage
from harness.budgets import Termination
from harness.models.base import AssistantMessage, Message, ToolCall, ToolMessage, ToolSpec, UserMessage
from harness.models.provider_common import distinct_ids
from harness.models.retry import RetriesExhausted
from harness.profiles import Profile
from harness.tools import CLAIM_DONE, ToolInfo

if TYPE_CHECKING:
    from harness.episode import EpisodeRuntime


@dataclass
class AgentState:
    """One agent's own context; a resumed sub-agent continues the same state."""

    id: str
    profile: Profile
    is_main: bool
    messages: list[Message]
    tools: dict[str, ToolInfo]
    specs: list[ToolSpec]
    max_steps: int
    steps: int = 0
    usage: Usage = field(default_factory=Usage)
    running: bool = False
    last_text: str = ""
    loop_key: str | None = None
    loop_count: int = 0
    run_id: str = ""  # the run now continuing this context, which events are tagged with

    def __post_init__(self) -> None:
        self.run_id = self.run_id or self.id


@dataclass
class AgentRun:
    """One run of a sub-agent within a wave (a resume is a new run of the same state)."""

    id: str
    state: AgentState
    type: str
    mode: str
    description: str
    prompt: str
    resume_of: str | None
    call_id: str = ""  # the Agent/AgentSwarm call that started it
    steps: int = 0
    tools: list[str] = field(default_factory=list)
    writes_ok: int = 0
    labels: list[str] = field(default_factory=list)  # of its successful calls, in call order
    tried_labels: list[str] = field(default_factory=list)  # of every call it made, failed ones too
    usage: Usage = field(default_factory=Usage)
    termination: Termination | None = None
    response: str = ""
    started_s: float | None = None
    ended_s: float | None = None


@dataclass(frozen=True)
class StepOutcome:
    messages: list[ToolMessage]
    claimed_done: bool = False


# Encoders made once: json.dumps with options builds a new encoder per call (~17 µs), and these
# run for every tool call.
CUT_OFF_ANSWER = (
    "Your reply was cut off at the output-token limit. Continue from where it stopped, with "
    "less in one reply."
)
_KEY_ENCODER = json.JSONEncoder(sort_keys=True, default=str)
_ARGS_ENCODER = json.JSONEncoder(ensure_ascii=False, default=str)


def call_key(call: ToolCall) -> str:
    args = call.arguments if call.arguments is not None else call.raw_arguments
    return call.name + "\x00" + _KEY_ENCODER.encode(args)


def _repeats(agent: AgentState, calls: tuple[ToolCall, ...], limit: int) -> bool:
    """Advance the identical-consecutive-call counter; True when it reaches `limit`."""
    for call in calls:
        key = call_key(call)
        if key == agent.loop_key:
            agent.loop_count += 1
        else:
            agent.loop_key, agent.loop_count = key, 1
        if agent.loop_count >= limit:
            return True
    return False


async def run_agent(rt: EpisodeRuntime, agent: AgentState, run: AgentRun | None = None) -> Termination:
    """Run `agent` until it ends; return why. `run` is the sub-agent run being recorded."""
    agent.running = True
    try:
        return await _loop(rt, agent, run)
    except asyncio.CancelledError:
        # The episode's wall-time budget cancels every running agent, and so does a fault of the
        # harness in another agent (`rt.cancel_reason` says which).
        if run is not None and run.termination is None:
            run.termination = rt.cancel_reason
        raise
    except Exception:
        # A fault of ours (a server failing twice, a bug): the episode ends as harness_error, and
        # the sibling sub-agents the task group now cancels are ended by it, not by the clock.
        rt.cancel_reason = "harness_error"
        if run is not None and run.termination is None:
            run.termination = "harness_error"
        raise
    finally:
        agent.running = False


def _turn(rt: EpisodeRuntime, agent: AgentState, message: AssistantMessage, ok: int | None) -> None:
    """Record a main-agent step (SPEC §8 `main.turns`); `ok`: its calls that succeeded."""
    if agent.is_main:
        names = [c.name for c in message.tool_calls]
        rt.main_turns.append(Turn(step=agent.steps, text=message.content, tools=names, tools_ok=ok))


def _stop(rt: EpisodeRuntime, agent: AgentState, message: AssistantMessage, reason: Termination) -> None:
    """The agent stops before running `message`'s tool calls: each gets a result saying so, so
    the context stays a valid transcript (a resumed sub-agent continues from it)."""
    _turn(rt, agent, message, 0)
    text = f"not run: this agent stopped ({reason})"
    agent.messages.extend(tool_error(c, text) for c in message.tool_calls)


async def _loop(rt: EpisodeRuntime, agent: AgentState, run: AgentRun | None) -> Termination:
    budgets = rt.budgets
    while True:
        if agent.steps >= agent.max_steps:
            return rt.breach(agent, "step_limit", steps=agent.steps)
        try:
            response = await rt.call_model(agent, run)
        except RetriesExhausted as exc:
            if agent.is_main and exc.last.kind == "connection":  # a server down, not a model's doing
                rt.infra_failure = f"the model endpoint could not be reached: {exc.last}"
            return rt.breach(agent, "api_error", error=str(exc.last), retries=exc.retries)
        except rt.api_error_types as exc:
            kind = getattr(exc, "kind", "other")
            if agent.is_main and getattr(exc, "refuses_access", False):
                rt.infra_failure = str(exc)
            return rt.breach(
                agent, "context_overflow" if kind == "context_overflow" else "api_error", error=str(exc)
            )
        agent.steps += 1
        if run is not None:
            run.steps += 1
        message = distinct_call_ids(response.message)
        agent.messages.append(message)
        if message.content:
            agent.last_text = message.content
        if response.usage.input_tokens + response.usage.output_tokens > budgets.context_tokens:
            _stop(rt, agent, message, "context_overflow")
            return rt.breach(agent, "context_overflow", input_tokens=response.usage.input_tokens)
        if not message.tool_calls and response.truncated:
            # An answer cut off at the output-token limit (often empty: a reasoning model spent
            # the limit thinking) is not the agent's last word: it is told and goes on (the step
            # counts); its final text is what it writes after.
            _turn(rt, agent, message, 0)
            rt.events.emit("truncated", agent.run_id, step=agent.steps, calls=0)
            agent.messages.append(UserMessage(content=CUT_OFF_ANSWER))
            continue
        if not message.tool_calls:
            agent.last_text = message.content  # its answer, even an empty one: not an earlier text
            _turn(rt, agent, message, 0)
            return "text_only"
        if response.truncated:
            # A call cut off mid-way may have partial arguments: none is run; the agent is told
            # and goes on (the step counts).
            _turn(rt, agent, message, 0)
            rt.events.emit("truncated", agent.run_id, step=agent.steps, calls=len(message.tool_calls))
            text = (
                "not run: your reply was cut off at the output-token limit, so this call may be "
                "incomplete; send it again, with less in one reply"
            )
            agent.messages.extend(tool_error(c, text) for c in message.tool_calls)
            continue
        if _repeats(agent, message.tool_calls, budgets.loop_repeats):
            _stop(rt, agent, message, "loop_detected")
            return rt.breach(
                agent, "loop_detected", tool=message.tool_calls[-1].name, repeats=agent.loop_count
            )
        try:
            outcome = await rt.execute_step(agent, run, message)
        except (asyncio.CancelledError, Exception):
            # Cut short (the time budget, or a fault of the harness): a turn whose count of
            # successful calls is unknown.
            _turn(rt, agent, message, None)
            raise
        agent.messages.extend(outcome.messages)
        _turn(rt, agent, message, sum(1 for m in outcome.messages if not m.is_error))
        if outcome.claimed_done:
            return "claim_done"


def distinct_call_ids(message: AssistantMessage) -> AssistantMessage:
    """`message` with every tool call's id distinct: some servers repeat ids within a message,
    and each call's result must be matched to its own call. A repeated id gets a suffix."""
    calls = message.tool_calls
    if len({c.id for c in calls}) == len(calls):
        return message
    ids = distinct_ids([c.id for c in calls], "call_")
    fixed = tuple(
        c if new == c.id else c.model_copy(update={"id": new}) for c, new in zip(calls, ids, strict=True)
    )
    return message.model_copy(update={"tool_calls": fixed})


def is_claim_done(agent: AgentState, call: ToolCall, result: ToolMessage) -> bool:
    return agent.is_main and call.name == CLAIM_DONE and not result.is_error


def tool_error(call: ToolCall, text: str) -> ToolMessage:
    return ToolMessage(tool_call_id=call.id, name=call.name, content=text, is_error=True)


def summarize_args(arguments: dict[str, Any] | None, raw: str | None, limit: int = 2000) -> str:
    text = _ARGS_ENCODER.encode(arguments) if arguments is not None else (raw or "")
    return text if len(text) <= limit else text[:limit] + "…"


def shown_name(name: str, limit: int = 80) -> str:
    """A tool name the model made up, cut for events and error text: it has no length bound."""
    return name if len(name) <= limit else name[:limit] + "…"


__all__ = [
    "AgentRun",
    "AgentState",
    "AssistantMessage",
    "StepOutcome",
    "distinct_call_ids",
    "is_claim_done",
    "run_agent",
    "shown_name",
    "tool_error",
]
