"""The runtime of one episode: the main agent, its sub-agents, their waves, and the accounting.

`EpisodeRuntime.run()` drives the main agent to its end. Everything the agents do goes
through here: model calls (with the retry policy, usage, cost and events), tool calls
(allowlist refusals, MCP calls), and delegation (refusals here; the waves of sub-agents that
run under a concurrency cap in `harness.waves`).
The runner wraps `run()` in the episode's wall-time budget.
"""

from __future__ import annotations

import asyncio
import gc
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any, Protocol

from contracts.episode import Turn, Usage
from contracts.prior import DelegationPrior
from contracts.tagging import label_from_calls, tag
from harness import delegation as dl
from harness.agent import (
    AgentRun,
    AgentState,
    StepOutcome,
    is_claim_done,
    run_agent,
    shown_name,
    summarize_args,
    tool_error,
)
from harness.budgets import Budgets, Termination
from harness.events import EventLog
from harness.mcp_client import CallOutcome
from harness.models.base import (
    AssistantMessage,
    Model,
    ModelAPIError,
    ModelResponse,
    ModelSettings,
    SystemMessage,
    ToolCall,
    ToolMessage,
    UserMessage,
)
from harness.models.pricing import PriceTable
from harness.models.retry import RetryPolicy
from harness.profiles import PLANNER, Profile
from harness.prompts import main_system_prompt, task_prompt
from harness.tools import ToolInfo, allowlist
from harness.waves import MAIN_ID, WaveState, delegate, resume_blocked

_heap_settled = False


def settle_heap() -> None:
    """Once per process, at the first episode: collect, then freeze what survived (`gc.freeze`).

    What exists by then (imported modules, SDK and pydantic schemas, catalogs, world templates)
    lives as long as the process. Left to the collector, each full collection walks all of it:
    about 0.1 s, in the middle of a wave of sub-agents. Frozen objects are still freed when
    their reference count drops to zero; only cyclic garbage among them is kept.
    """
    global _heap_settled
    if not _heap_settled:
        _heap_settled = True
        gc.collect()
        gc.freeze()


class ToolExecutor(Protocol):
    catalog: list[ToolInfo]

    async def call(
        self, server: str, tool: str, arguments: dict[str, Any], caller: str | None = None
    ) -> CallOutcome: ...


@dataclass
class EpisodeSetup:
    """Everything an episode's runtime needs, decided before it starts."""

    model: Model
    settings: ModelSettings
    variant: Profile
    roles: dict[str, Profile]
    servers: Sequence[str]
    prompt: str
    budgets: Budgets
    prior: DelegationPrior | None = None
    prices: PriceTable | None = None
    today: str = "2026-11-20"
    sleep: Callable[[float], Awaitable[None]] = asyncio.sleep


class EpisodeRuntime:
    api_error_types: tuple[type[BaseException], ...] = (ModelAPIError,)

    def __init__(self, setup: EpisodeSetup, executor: ToolExecutor, events: EventLog) -> None:
        self.setup = setup
        self.budgets = setup.budgets
        self.executor = executor
        self.events = events
        self.retry = RetryPolicy(max_retries=setup.budgets.api_retries)
        self.catalog_names = {t.name for t in executor.catalog}
        self.waves: list[WaveState] = []
        self.main_turns: list[Turn] = []
        self.usage = Usage()
        # null, never 0, for a model the price table does not know, even if no call succeeds
        prices = setup.prices
        self.cost_usd: float | None = 0.0 if prices and prices.lookup(setup.model.name) else None
        self.planned = setup.variant.header.delegation != "plan-first"
        self.states: dict[str, AgentState] = {}  # run id -> the context it ran in
        self.role_tools: dict[str, dict[str, ToolInfo]] = {}  # allowlists, computed once per role
        self.next_id = 0
        self.termination: Termination | None = None
        # Set when the provider refused the main agent's call (ModelAPIError.refuses_access), or
        # its endpoint could not be reached through every retry: the episode is then recorded
        # absent, an infrastructure failure, not the model's (`--resume` keeps it absent: a new run
        # runs it again once the key, model id or endpoint is fixed).
        self.infra_failure: str | None = None
        # What ends an agent that is cancelled: the wall-time budget, unless a fault of the
        # harness in some agent cancelled its task group (then "harness_error").
        self.cancel_reason: Termination = "time_limit"
        variant = setup.variant
        tools = self.role_allowlist(variant, subagent=False)
        specs = [t.spec for t in tools.values()]
        if variant.delegates:
            specs += dl.tool_specs(list(setup.roles))
        self.main = AgentState(
            id=MAIN_ID,
            profile=variant,
            is_main=True,
            messages=[
                SystemMessage(content=main_system_prompt(variant, setup.roles, setup.today)),
                UserMessage(content=task_prompt(setup.prompt, variant, setup.prior)),
            ],
            tools=tools,
            specs=specs,
            max_steps=self.steps_cap(variant),
        )

    # -- set-up -------------------------------------------------------------------------------
    def steps_cap(self, profile: Profile) -> int:
        cap = profile.header.maxSteps
        return min(cap, self.budgets.max_steps) if cap else self.budgets.max_steps

    def role_allowlist(self, profile: Profile, *, subagent: bool) -> dict[str, ToolInfo]:
        h = profile.header
        return allowlist(
            self.executor.catalog, tools=h.tools, disallowed=h.disallowedTools, read_only=profile.read_only,
            servers=self.setup.servers, subagent=subagent,
        )  # fmt: skip

    # -- the episode -----------------------------------------------------------------------------
    async def run(self) -> Termination:
        settle_heap()
        self.events.emit("episode_start", variant=self.setup.variant.name, model=self.setup.model.name)
        try:
            self.termination = await run_agent(self, self.main)
        except asyncio.CancelledError:
            self.termination = self.cancel_reason
            raise
        except Exception:
            self.termination = "harness_error"
            raise
        return self.termination

    def breach(self, agent: AgentState, reason: Termination, **data: Any) -> Termination:
        self.events.emit("budget_breach", agent.run_id, reason=reason, **data)
        return reason

    # -- model calls -----------------------------------------------------------------------------
    async def call_model(self, agent: AgentState, run: AgentRun | None) -> ModelResponse:
        model, settings = self.setup.model, self.setup.settings

        started = [0.0]  # when the latest try began

        def on_retry(attempt: int, error: ModelAPIError, wait: float) -> None:
            self.events.emit(
                "model_retry",
                agent.run_id,
                attempt=attempt,
                error_kind=error.kind,
                status=error.status,
                wait_s=round(wait, 3),
                latency_s=round(time.perf_counter() - started[0], 4),  # what the failed try took
                error=error.message[:500],
            )

        async def attempt() -> ModelResponse:
            started[0] = time.perf_counter()
            try:
                return await model.generate(agent.messages, agent.specs, settings)
            except ModelAPIError as error:
                if error.usage is not None:  # a failed answer that still reports (bills) tokens
                    cost = self._bill(agent, run, error.usage, priced=error.usage_reported)
                    u = error.usage  # every token kind, as a model_call records them
                    self.events.emit(
                        "model_error_usage", agent.run_id, error_kind=error.kind, status=error.status,
                        messages=len(agent.messages), input_tokens=u.input_tokens,
                        cached_input_tokens=u.cached_input_tokens, cache_write_input_tokens=u.cache_write_input_tokens,
                        cache_write_1h_input_tokens=u.cache_write_1h_input_tokens, output_tokens=u.output_tokens,
                        reasoning_tokens=u.reasoning_tokens,
                        latency_s=round(time.perf_counter() - started[0], 4), cost_usd=cost,
                    )  # fmt: skip
                raise

        response = await self.retry.call(attempt, on_retry=on_retry, sleep=self.setup.sleep)
        usage = response.usage
        cost = self._bill(agent, run, usage, priced=response.usage_reported)
        message = response.message
        self.events.emit(
            "model_call", agent.run_id, step=agent.steps + 1, messages=len(agent.messages),
            input_tokens=usage.input_tokens, cached_input_tokens=usage.cached_input_tokens,
            cache_write_input_tokens=usage.cache_write_input_tokens,
            cache_write_1h_input_tokens=usage.cache_write_1h_input_tokens,
            output_tokens=usage.output_tokens, reasoning_tokens=usage.reasoning_tokens,
            latency_s=round(response.latency_s, 4), cost_usd=cost, stop_reason=response.stop_reason,
            text=message.content[:4000],
            tool_calls=[c.name for c in message.tool_calls],
        )  # fmt: skip
        return response

    def _bill(
        self, agent: AgentState, run: AgentRun | None, usage: Usage, priced: bool = True
    ) -> float | None:
        """Add one answer's tokens to the agent's, the run's and the episode's; its cost (None
        when the price table does not know the model, or `priced` is False: the answer had no
        token counts to price). One unknown cost makes the episode's unknown."""
        prices = self.setup.prices
        cost = prices.call_cost(self.setup.model.name, usage) if prices and priced else None
        agent.usage = agent.usage + usage
        self.usage = self.usage + usage
        if run is not None:
            run.usage = run.usage + usage
        self.cost_usd = None if cost is None or self.cost_usd is None else self.cost_usd + cost
        return cost

    # -- one step's tool calls ---------------------------------------------------------------------
    async def execute_step(
        self, agent: AgentState, run: AgentRun | None, message: AssistantMessage
    ) -> StepOutcome:
        calls = message.tool_calls  # ids distinct (the agent loop sees to it)
        results: dict[str, ToolMessage] = {}
        launches: list[dl.Launch] = []
        ordinary: list[ToolCall] = []
        resumable = dl.Resumable(self.states, partial(resume_blocked, self), lambda state: state.profile.name)
        for call in calls:
            if call.name not in dl.DELEGATION_TOOLS or not (agent.is_main and self.setup.variant.delegates):
                ordinary.append(call)
                continue
            try:
                if call.arguments is None:
                    raise dl.DelegationError(
                        f"arguments are not a JSON object: {summarize_args(None, call.raw_arguments, 300)}"
                    )
                if call.name == dl.AGENT_SWARM:
                    if len(calls) > 1:
                        raise dl.DelegationError(
                            f"{dl.AGENT_SWARM} must be the only tool call in its message"
                        )
                    launches += dl.parse_swarm(call, list(self.setup.roles), resumable)
                else:
                    launches.append(dl.parse_agent(call, list(self.setup.roles), resumable))
            except dl.DelegationError as exc:
                self.events.emit(
                    "tool_refused",
                    agent.run_id,
                    call_id=call.id,
                    name=call.name,
                    reason="delegation",
                    error=str(exc),
                )
                results[call.id] = tool_error(call, str(exc))
        if agent.is_main and not self.planned:
            # plan-first: nothing runs until a step holds an accepted Agent call to the planner (as
            # the variant is told; an AgentSwarm of planners is not one).
            if not any(launch.subagent_type == PLANNER and launch.by_agent_call for launch in launches):
                text = f"plan-first: your first action must be an {dl.AGENT} call with subagent_type '{PLANNER}'; nothing was run"
                for c in calls:
                    if c.id not in results:
                        self.events.emit(
                            "tool_refused", agent.run_id, call_id=c.id, name=c.name, reason="plan_first"
                        )
                return StepOutcome([results.get(c.id) or tool_error(c, text) for c in calls])
            self.planned = True

        async def one(call: ToolCall) -> None:
            try:
                results[call.id] = await self._execute_tool(agent, run, call)
            except Exception:
                # A fault of ours beside a wave (a main-agent call next to Agent calls): the task
                # group now cancels the wave, whose sub-agents end by this fault, not the clock.
                self.cancel_reason = "harness_error"
                raise

        if len(ordinary) == 1 and not launches:
            await one(ordinary[0])  # the common case: no task to create, no hop through the loop
        else:
            async with asyncio.TaskGroup() as tg:
                for call in ordinary:
                    tg.create_task(one(call))
                if launches:
                    tg.create_task(delegate(self, results, agent.steps, launches, {c.id: c for c in calls}))
        ordered = [results[c.id] for c in calls]
        done = any(is_claim_done(agent, c, results[c.id]) for c in calls)
        return StepOutcome(ordered, claimed_done=done)

    async def _execute_tool(self, agent: AgentState, run: AgentRun | None, call: ToolCall) -> ToolMessage:
        info = agent.tools.get(call.name)
        if info is None:
            known = call.name in self.catalog_names or call.name in dl.DELEGATION_TOOLS
            reason = "not_allowed" if known else "unknown_tool"
            name = call.name if known else shown_name(call.name)
            self.events.emit("tool_refused", agent.run_id, call_id=call.id, name=name, reason=reason)
            text = (
                f"tool {call.name!r} is not available to this agent; nothing was run"
                if known
                else f"unknown tool {name!r}; use one of the tools you were given"
            )
            return tool_error(call, text)
        if call.arguments is None:
            self.events.emit(
                "tool_refused", agent.run_id, call_id=call.id, name=call.name, reason="invalid_arguments"
            )
            return tool_error(
                call,
                f"arguments of {call.name} are not a JSON object: {summarize_args(None, call.raw_arguments, 300)}",
            )
        self.events.emit(
            "tool_call",
            agent.run_id,
            call_id=call.id,
            name=call.name,
            arguments=summarize_args(call.arguments, None),
        )
        outcome = await self.executor.call(info.server, info.tool, call.arguments, agent.id)
        self.events.emit(
            "tool_result", agent.run_id, call_id=call.id, name=call.name, is_error=outcome.is_error,
            bytes=len(outcome.text.encode()), truncated=outcome.truncated,
        )  # fmt: skip
        if run is not None:
            run.tools.append(call.name)
            if info.label and not info.bookkeeping:
                run.tried_labels.append(info.label)
                if not outcome.is_error:
                    run.labels.append(info.label)
                    run.writes_ok += not info.read_only
        # Built from our own validated parts: no re-validation on this per-call path.
        return ToolMessage.model_construct(
            tool_call_id=call.id, name=call.name, content=outcome.text, is_error=outcome.is_error
        )

    def label_of(self, run: AgentRun) -> str | None:
        """From its successful calls, else its sub-task text, else all the calls it made (as
        evaluation tags a record without a label, from its `tools`): null only when none tells."""
        found = tag(run.mode, run.labels, f"{run.description}\n{run.prompt}")
        return found or label_from_calls(run.mode, run.tried_labels)

    @property
    def runs(self) -> list[AgentRun]:
        return [r for w in self.waves for r in w.runs]
