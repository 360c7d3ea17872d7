"""Each budget of SPEC §2 fires with its termination reason (driven by a scripted model)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from pydantic import ValidationError

from contracts.episode import Usage
from harness.budgets import (
    MAX_API_RETRIES,
    MAX_CONTEXT_TOKENS,
    MAX_LOOP_REPEATS,
    MAX_STEPS,
    MAX_TOOL_RESULT_BYTES,
    MAX_TOOL_TIMEOUT_S,
    MAX_WALL_TIME_S,
    MAX_WAVE_CONCURRENCY,
    BudgetOverrides,
    Budgets,
)
from harness.models.base import AssistantMessage, ModelAPIError
from harness.models.scripted import call, say
from tests.harness.support import View, run_scripted

READ = "mcp__lms__list_courses"


async def test_step_limit_stops_the_agent_at_100_steps(tmp_path: Path) -> None:
    # A main agent that never stops: a different read each step (so no loop is detected).
    out = await run_scripted(
        tmp_path, lambda v: say("", call(READ, term=f"t{len(v.messages)}")), variant="sa"
    )
    assert out.rt.termination == "step_limit"
    assert out.rt.main.steps == 100
    assert [e.data["reason"] for e in out.kinds("budget_breach")] == ["step_limit"]


async def test_wall_time_stops_the_episode(tmp_path: Path) -> None:
    never = asyncio.Event()

    async def hang(_v: View) -> None:
        await never.wait()  # the model never answers; only the wall-time budget can end this

    out = await run_scripted(
        tmp_path, lambda v: say("x"), variant="sa", budgets=Budgets(wall_time_s=0.2), async_reply=hang
    )
    assert out.rt.termination == "time_limit"
    assert out.rt.main.steps == 0


async def test_context_window_overflow(tmp_path: Path) -> None:
    out = await run_scripted(
        tmp_path, lambda v: say("", call(READ)), variant="sa", budgets=Budgets(context_tokens=10)
    )
    # The scripted model estimates ⌈chars/4⌉ input tokens: the system prompt alone exceeds 10.
    assert out.rt.termination == "context_overflow"
    assert out.rt.main.steps == 1
    assert out.kinds("tool_call") == []  # the overflowing step's calls were not run


async def test_six_identical_consecutive_calls_are_a_loop(tmp_path: Path) -> None:
    out = await run_scripted(tmp_path, lambda v: say("", call(READ, term="2026-fall")), variant="sa")
    assert out.rt.termination == "loop_detected"
    assert out.rt.main.steps == 6
    assert len(out.kinds("tool_call")) == 5  # the sixth identical call is not executed


async def test_five_identical_calls_then_a_different_one_is_no_loop(tmp_path: Path) -> None:
    def main(v: View) -> AssistantMessage:
        n = sum(1 for m in v.messages if m.role == "assistant")
        if n < 5:
            return say("", call(READ, term="2026-fall"))
        if n == 5:
            return say("", call(READ, term="2026-spring"))
        return say("", call("mcp__local__claim_done"))

    out = await run_scripted(tmp_path, main, variant="sa")
    assert out.rt.termination == "claim_done"


async def test_ten_retries_then_api_error(tmp_path: Path) -> None:
    attempts = []

    def failing(_v: View) -> ModelAPIError:
        attempts.append(1)
        return ModelAPIError("server_error", "HTTP 500", status=500)

    out = await run_scripted(tmp_path, failing, variant="sa")
    assert out.rt.termination == "api_error"
    assert len(attempts) == 11  # the first try and 10 retries
    assert len(out.kinds("model_retry")) == 10
    assert out.rt.main.steps == 0


async def test_a_non_retryable_error_stops_at_once(tmp_path: Path) -> None:
    attempts = []

    def unauthorized(_v: View) -> ModelAPIError:
        attempts.append(1)
        return ModelAPIError("authentication", "invalid API key", status=401)

    out = await run_scripted(tmp_path, unauthorized, variant="sa")
    assert out.rt.termination == "api_error" and len(attempts) == 1


async def test_retry_then_success_goes_on(tmp_path: Path) -> None:
    state = {"failed": 0}

    def flaky(v: View) -> AssistantMessage | ModelAPIError:
        if state["failed"] < 3:
            state["failed"] += 1
            return ModelAPIError("rate_limit", "429", status=429, retry_after_s=0.0)
        return say("", call("mcp__local__claim_done"))

    out = await run_scripted(tmp_path, flaky, variant="sa")
    assert out.rt.termination == "claim_done"
    assert [e.data["attempt"] for e in out.kinds("model_retry")] == [1, 2, 3]


async def test_task_budgets_override_the_run(tmp_path: Path) -> None:
    assert Budgets().merged({"max_steps": 7}).max_steps == 7
    out = await run_scripted(
        tmp_path,
        lambda v: say("", call(READ, term=f"t{len(v.messages)}")),
        variant="sa",
        budgets=Budgets(max_steps=7),
    )
    assert out.rt.termination == "step_limit" and out.rt.main.steps == 7


def test_usage_adds_up() -> None:
    assert Usage(input_tokens=3, output_tokens=1) + Usage(input_tokens=2, cached_input_tokens=1) == Usage(
        input_tokens=5, cached_input_tokens=1, output_tokens=1
    )


@pytest.mark.parametrize(
    ("key", "too_much"),
    [
        ("max_steps", MAX_STEPS + 1),
        ("wall_time_s", MAX_WALL_TIME_S + 1),
        ("context_tokens", MAX_CONTEXT_TOKENS + 1),
        ("loop_repeats", MAX_LOOP_REPEATS + 1),
        ("api_retries", MAX_API_RETRIES + 1),
        ("wave_concurrency", MAX_WAVE_CONCURRENCY + 1),
        ("tool_timeout_s", MAX_TOOL_TIMEOUT_S + 1),
        ("tool_result_bytes", MAX_TOOL_RESULT_BYTES + 1),
    ],
)
def test_every_budget_has_a_maximum_and_reaches_it(key: str, too_much: float) -> None:
    """No budget had an upper bound: `max_steps=10000000000` (a slip) was a run that never stops,
    and `tool_timeout_s=1e300` an overflow in the event loop. The maximum itself is taken."""
    limit = type(too_much)(too_much - 1)
    assert getattr(Budgets().merged({key: limit}), key) == limit
    assert getattr(BudgetOverrides.model_validate({key: limit}), key) == limit
    for model in (Budgets, BudgetOverrides):
        with pytest.raises(ValidationError, match="less than or equal to"):
            model.model_validate({key: too_much})


@pytest.mark.parametrize("key", list(Budgets.model_fields))
def test_a_boolean_is_not_a_budget(key: str) -> None:
    """pydantic's lax mode read `max_steps: true` as 1 step and `wall_time_s: false` as 0."""
    for value in (True, False):
        for model in (Budgets, BudgetOverrides):
            with pytest.raises(ValidationError, match=f"give a number, not {str(value).lower()}"):
                model.model_validate({key: value})


def test_budgets_still_take_text_and_whole_numbers() -> None:
    """`--budget max_steps=50` hands over text, and 7200 is a wall time as well as 7200.0."""
    budgets = Budgets().merged({"max_steps": "50", "wall_time_s": 30, "tool_timeout_s": "1.5"})
    assert (budgets.max_steps, budgets.wall_time_s, budgets.tool_timeout_s) == (50, 30.0, 1.5)
