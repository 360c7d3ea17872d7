"""Running one real episode (`harness.runner.Runner`, task `lms-due-reminder`) against a FakeLLM.

The delegation script: the main agent's first step starts a wave of two sub-agents (two `Agent`
calls in one message); each sub-agent answers with text; the main agent's second step calls
`mcp__local__claim_done`. Usage per call is fixed, so the tests can state the sums by hand.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from contracts.episode import EpisodeRecord
from harness.budgets import Budgets
from harness.catalog import load_tasks
from harness.models.base import Message, Model, ModelResponse, ModelSettings, UserMessage
from harness.models.pricing import load_prices
from harness.models.registry import PROVIDERS, split_name
from harness.profiles import load_profiles
from harness.runner import Runner, RunPlan
from harness.store import EventRow, Store, episode_key
from tests.models.fake_llm import Dialect, FakeLLM, Reply, Script, Seen, WireUsage

KEY_ENV = "MSEVAL_FAKE_KEY"
KEY = "sk-fake-test-key"
PRICES = Path(__file__).with_name("prices-test.yaml")
TASK = "lms-due-reminder"
CLAIM_DONE = "mcp__local__claim_done"

# Usage per call (as the provider reports it; harness input = uncached + cache_read + cache_write).
# input 3000, cached 0; of the 2000 written, 500 to the 1-hour cache
MAIN_1 = WireUsage(uncached=1000, cache_write=2000, cache_write_1h=500, output=100, reasoning=30)
SUB_A = WireUsage(uncached=800, output=50)  # input 800, cached 0
SUB_B = WireUsage(uncached=600, cache_read=300, output=70)  # input 900, cached 300
MAIN_2 = WireUsage(uncached=500, cache_read=5000, cache_write=300, output=40)  # input 5800, cached 5000


@dataclass(frozen=True)
class Route:
    """A provider route: the model name the harness is given and the wire format it speaks."""

    model: str
    dialect: Dialect
    variant: str
    subagent_type: str


ROUTES = {
    "anthropic": Route("anthropic:fake-claude", "anthropic", "spec", "enterprise-data-analyst"),
    "openai": Route("openai:fake-gpt", "chat", "gen", "explorer"),
    "openai-responses": Route(
        "openai:fake-gpt?api=responses", "responses", "spec", "enterprise-data-analyst"
    ),
    "openai-compatible": Route("openai-compatible:fake-qwen", "chat", "gen", "explorer"),
}


def answer(reply: Reply) -> Script:
    """A script that gives `reply` to every request."""

    def script(seen: Seen) -> Reply:
        return reply

    return script


def agent_call(part: str, subagent_type: str) -> tuple[str, dict[str, Any]]:
    return (
        "Agent",
        {
            "description": f"find the open assignment, part {part}",
            "prompt": f"Find the open CS101 assignment and its due date. [part {part}]",
            "subagent_type": subagent_type,
        },
    )


def sub_reply(seen: Seen) -> Reply:
    part = "A" if "[part A]" in seen.first_user else "B"
    usage = SUB_A if part == "A" else SUB_B
    return Reply(text=f"Part {part}: the open assignment is 'Project 1', due 2026-12-04.", usage=usage)


def delegation_script(subagent_type: str) -> Script:
    def script(seen: Seen) -> Reply:
        if not seen.is_main:
            return sub_reply(seen)
        if seen.turn == 0:
            return Reply(
                text="Two independent look-ups: I start them together.",
                calls=(agent_call("A", subagent_type), agent_call("B", subagent_type)),
                usage=MAIN_1,
                thinking="plan: two look-ups in one wave",
            )
        return Reply(calls=((CLAIM_DONE, {"summary": "done"}),), usage=MAIN_2)

    return script


def plan_for(
    fake: FakeLLM, route: Route, tmp_path: Path, settings: ModelSettings | None = None,
    budgets: Budgets | None = None,
) -> RunPlan:  # fmt: skip
    return RunPlan(
        settings_matrix=[(route.model, route.variant)], tasks=load_tasks(TASK), profiles=load_profiles(),
        settings=settings or ModelSettings(), budgets=budgets or Budgets(), prices=load_prices(PRICES),
        store_url=f"sqlite:///{tmp_path}/m.db", runs_dir=tmp_path, base_url=fake.url, api_key_env=KEY_ENV,
        concurrency=1,
    )  # fmt: skip


async def run_episode(
    fake: FakeLLM, route: Route, tmp_path: Path, settings: ModelSettings | None = None,
    budgets: Budgets | None = None,
) -> tuple[EpisodeRecord, list[EventRow]]:  # fmt: skip
    """Run the episode; return its record and its events, read back from the store."""
    plan = plan_for(fake, route, tmp_path, settings, budgets)
    result = await Runner(plan).run()
    assert not fake.errors, fake.errors
    (record,) = result.records
    store = Store(plan.store_url)
    try:
        events = store.events(episode_key(result.run_id, TASK, route.model, route.variant, 0))
    finally:
        store.close()
    return record, events


def make_model(fake: FakeLLM, route: Route, settings: ModelSettings | None = None) -> Model:
    """The route's model, made by its provider's factory for the fake server."""
    provider, model_id = split_name(route.model)
    module, _, factory = PROVIDERS[provider].partition(":")
    make = getattr(importlib.import_module(module), factory)
    return make(model_id, settings or ModelSettings(), fake.url, KEY_ENV)  # type: ignore[no-any-return]


async def one_call(
    fake: FakeLLM, route: Route, messages: Sequence[Message] = (), settings: ModelSettings | None = None
) -> ModelResponse:
    """One model call through the provider's factory and its real SDK; raises its `ModelAPIError`."""
    settings = settings or ModelSettings()
    model = make_model(fake, route, settings)
    try:
        return await model.generate(messages or [UserMessage(content="go")], [], settings)  # type: ignore[no-any-return]
    finally:
        await model.aclose()
