"""Rate limits per provider: the window rule by hand, and a limited model really waits."""

from __future__ import annotations

import asyncio
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path
from typing import Any

import pytest

from contracts.episode import Usage
from harness.models.base import (
    AssistantMessage,
    ModelAPIError,
    ModelSettings,
    ToolCall,
    ToolMessage,
    ToolSpec,
    UserMessage,
)
from harness.models.ratelimit import LocalWindow, RateLimitedModel, RateLimits, Window, estimate_tokens
from harness.models.scripted import ScriptedModel, say
from tests.models.episodes import KEY, KEY_ENV, ROUTES, make_model
from tests.models.fake_llm import FakeLLM, Reply, WireUsage


def test_requests_per_minute() -> None:
    w = Window(rpm=2, tpm=None)
    assert w.reserve(0.0, 10)[0] == 0.0
    assert w.reserve(1.0, 10)[0] == 0.0
    # The third request within a minute waits until the first leaves the window: 0 + 60 - 5 = 55 s.
    assert w.reserve(5.0, 10)[0] == 55.0
    # The fourth goes after the second's slot frees: 1 + 60 = 61, so 61 - 6 = 55 s from t = 6.
    assert w.reserve(6.0, 10)[0] == 55.0


def test_tokens_per_minute_and_settling() -> None:
    w = Window(rpm=None, tpm=1000)
    _, first = w.reserve(0.0, 600)
    assert w.reserve(10.0, 300)[0] == 0.0  # 600 + 300 <= 1000
    # 900 used; 200 more would exceed 1000 until the first call (600) leaves at t = 60.
    wait, _ = w.reserve(20.0, 200)
    assert wait == 40.0
    # Settling the first call at its real size (100) frees room for later calls.
    w2 = Window(rpm=None, tpm=1000)
    _, booking = w2.reserve(0.0, 900)
    Window.settle(booking, 100)
    assert w2.reserve(1.0, 800)[0] == 0.0


def test_a_call_bigger_than_the_budget_still_goes_alone() -> None:
    w = Window(rpm=None, tpm=100)
    assert w.reserve(0.0, 500)[0] == 0.0
    assert w.reserve(1.0, 500)[0] == 59.0


async def test_the_limited_model_waits_for_room() -> None:
    slept: list[float] = []

    async def fake_sleep(s: float) -> None:
        slept.append(s)
        await asyncio.sleep(0)

    inner = ScriptedModel(lambda m, t: say("hi"), usage=Usage(input_tokens=5, output_tokens=5))
    model = RateLimitedModel(inner, LocalWindow(RateLimits(rpm=1)), sleep=fake_sleep)
    await model.generate([UserMessage(content="x")], [], ModelSettings(max_output_tokens=4))
    await model.generate([UserMessage(content="x")], [], ModelSettings(max_output_tokens=4))
    assert inner.calls == 2
    assert len(slept) == 1 and 59.0 < slept[0] <= 60.0  # the second call waited for the minute to pass


TOOL = ToolSpec(name="find", description="Find rows.", input_schema={"type": "object"})
CONTEXT = [
    UserMessage(content="a" * 20),
    AssistantMessage(
        content="ok",
        tool_calls=(ToolCall(id="c1", name="find", arguments={"q": "x"}),),
        provider_state={"s": "t"},
    ),
    ToolMessage(tool_call_id="c1", name="find", content="result"),
]


def test_the_token_estimate_counts_tool_schemas_call_arguments_and_replayed_state() -> None:
    # schema 4 + 10 + len('{"type": "object"}') 18 = 32; text 20 + 2 + 6 = 28;
    # the call: "find" 4 + len('{"q": "x"}') 10 = 14; state len('{"s": "t"}') 10 -> 84 chars
    assert estimate_tokens(CONTEXT, [TOOL]) == 84 // 4 + 1 == 22
    assert estimate_tokens(CONTEXT) == (84 - 32) // 4 + 1


async def test_the_limited_model_books_the_tools_too() -> None:
    booked: list[int] = []

    class Recording(LocalWindow):
        async def reserve(self, tokens: int) -> tuple[float, Any]:
            booked.append(tokens)
            return await super().reserve(tokens)

    inner = ScriptedModel(lambda m, t: say("hi"), usage=Usage(input_tokens=5, output_tokens=5))
    model = RateLimitedModel(inner, Recording(RateLimits(tpm=10_000)))
    await model.generate(CONTEXT, [TOOL], ModelSettings(max_output_tokens=40))
    assert booked == [22 + 40 // 4]


async def test_a_refused_call_keeps_its_request_but_frees_its_tokens() -> None:
    """A 429 kept its estimated tokens booked for a minute, so a burst of refusals slowed the
    run further."""

    def refuse(*_: object) -> Any:
        raise ModelAPIError("rate_limit", "HTTP 429: slow down", status=429)

    window = LocalWindow(RateLimits(rpm=2, tpm=1000))
    model = RateLimitedModel(ScriptedModel(refuse), window)
    big = [UserMessage(content="a" * 3000)]  # 3000 // 4 + 1 = 751 tokens booked
    try:
        await model.generate(big, [], ModelSettings(max_output_tokens=0))
    except ModelAPIError:
        pass
    # the refused call's 751 tokens are free again: 900 more fit at once
    assert window.window.reserve(1.0, 900)[0] == 0.0
    # but it still took a request slot: with rpm 2 a third request waits for the first's minute
    assert window.window.reserve(2.0, 1)[0] > 0.0


def test_a_run_applies_its_rate_limits(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`--rpm`, `--tpm` and the config file's limits reached the run plan but not the runner's
    model factory: no call of a run ever waited."""
    from harness.catalog import load_tasks
    from harness.profiles import load_profiles
    from harness.runner import Runner, RunPlan

    monkeypatch.setenv("FAKE_KEY", "k")
    (task,) = load_tasks("lms-due-reminder")
    plan = RunPlan(
        settings_matrix=[("openai-compatible:fake", "sa")], tasks=[task], profiles=load_profiles(),
        store_url=f"sqlite:///{tmp_path / 's.db'}", runs_dir=tmp_path, base_url="http://127.0.0.1:9/v1",
        api_key_env="FAKE_KEY", rate_limits={"openai-compatible": RateLimits(rpm=5, tpm=700)},
    )  # fmt: skip
    runner = Runner(plan)
    try:
        model = runner.factory.for_episode("openai-compatible:fake", task, 0)
        assert isinstance(model, RateLimitedModel) and isinstance(model.window, LocalWindow)
        assert (model.window.window.rpm, model.window.window.tpm) == (5, 700)
    finally:
        runner.store.close()


class RecordingWindow(LocalWindow):
    """A local window that keeps the tokens each booking is settled at."""

    def __init__(self, limits: RateLimits) -> None:
        super().__init__(limits)
        self.settled: list[int] = []

    async def settle(self, handle: Any, tokens: int) -> None:
        self.settled.append(tokens)
        await super().settle(handle, tokens)


@pytest.mark.parametrize(
    ("name", "reply", "booked"),
    [
        # reported usage: input 30 + output 5
        ("openai-compatible", Reply(text="ok", usage=WireUsage(uncached=30, output=5)), 35),
        # no usage: the estimate, 2000 // 4 + 1 = 501 for the message and 400 // 4 = 100
        ("openai-compatible", Reply(text="ok", body_fields={"usage": None}), 601),
        # a failed answer that bills without counts (it raises context_overflow)
        (
            "anthropic",
            Reply(body_fields={"usage": None, "stop_reason": "model_context_window_exceeded"}),
            601,
        ),
    ],
    ids=["reported", "unreported", "unreported-error"],
)
async def test_an_answer_without_usage_keeps_its_estimate_booked(
    name: str, reply: Reply, booked: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A server that reports no usage had each call's booking settled at 0 tokens, as if it
    had sent nothing: under --tpm every call after it went at once, and the provider's own
    limit refused them."""
    monkeypatch.setenv(KEY_ENV, KEY)
    route = ROUTES[name]
    settings = ModelSettings(max_output_tokens=400)
    window = RecordingWindow(RateLimits(tpm=100_000))
    fails: AbstractContextManager[Any] = (
        pytest.raises(ModelAPIError, match="^context_overflow") if name == "anthropic" else nullcontext()
    )
    with FakeLLM(route.dialect, lambda seen: reply) as fake:
        model = RateLimitedModel(make_model(fake, route, settings), window)
        try:
            with fails:
                await model.generate([UserMessage(content="a" * 2000)], [], settings)
        finally:
            await model.aclose()
    assert window.settled == [booked]
