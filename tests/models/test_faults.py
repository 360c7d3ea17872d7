"""Model API faults through the real SDKs and the real runtime (SPEC §2, §12).

The fake server sends `retry-after-ms: 1` (or `retry-after: 0.001`) with retryable errors, so the
harness's backoff honours it and the tests do not wait; nothing here depends on timing.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.budgets import Budgets
from harness.runner import Runner
from tests.models.episodes import (
    CLAIM_DONE,
    KEY,
    KEY_ENV,
    MAIN_2,
    ROUTES,
    delegation_script,
    plan_for,
    run_episode,
)
from tests.models.fake_llm import FakeLLM, Fault, Reply, Seen, WireUsage

RATE_LIMIT = {
    "anthropic": Fault(429, {"retry-after-ms": "1"}, "rate limited", "rate_limit_error"),
    "openai-compatible": Fault(429, {"retry-after": "0.001"}, "rate limited", "rate_limit_exceeded"),
}


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, KEY)


@pytest.mark.parametrize("name", list(RATE_LIMIT))
async def test_rate_limit_is_retried_after_the_servers_wait(name: str, tmp_path: Path) -> None:
    route = ROUTES[name]
    with FakeLLM(route.dialect, delegation_script(route.subagent_type)) as fake:
        fake.fail_next(RATE_LIMIT[name])
        record, events = await run_episode(fake, route, tmp_path)
    assert record.termination == "claim_done", record.reason
    assert len(fake.requests) == 5  # the refused call, then the four of the episode
    (retry,) = [e for e in events if e.kind == "model_retry"]
    expected_wait = 0.001  # retry-after-ms: 1, and retry-after: 0.001
    latency = retry.data.pop("latency_s")  # what the refused try took: recorded, not asserted
    assert retry.agent == "main" and retry.data == {
        "attempt": 1, "error_kind": "rate_limit", "status": 429, "wait_s": expected_wait,
        "error": "HTTP 429: rate limited [" + RATE_LIMIT[name].code + "]",  # type: ignore[operator]
    }  # fmt: skip
    assert isinstance(latency, float) and latency >= 0
    assert len([e for e in events if e.kind == "model_call"]) == 4


@pytest.mark.parametrize("name", ["anthropic", "openai"])
async def test_server_errors_beyond_the_retry_budget_stop_the_agent(name: str, tmp_path: Path) -> None:
    route = ROUTES[name]
    with FakeLLM(route.dialect, delegation_script(route.subagent_type)) as fake:
        fake.fail_next(*[Fault(500, {"retry-after-ms": "1"}, "internal error")] * 11)
        record, events = await run_episode(fake, route, tmp_path)
    assert record.status == "completed" and record.termination == "api_error" and record.success is False
    assert len(fake.requests) == 11  # the first try and 10 retries (the default budget)
    retries = [e for e in events if e.kind == "model_retry"]
    assert [e.data["attempt"] for e in retries] == list(range(1, 11))
    assert {(e.data["error_kind"], e.data["status"]) for e in retries} == {("server_error", 500)}
    (breach,) = [e for e in events if e.kind == "budget_breach"]
    assert breach.data["reason"] == "api_error" and breach.data["retries"] == 10
    assert "HTTP 500" in breach.data["error"]
    assert not [e for e in events if e.kind == "model_call"]


@pytest.mark.parametrize("name", ["anthropic", "openai"])
async def test_authentication_error_is_clear_and_not_retried(name: str, tmp_path: Path) -> None:
    route = ROUTES[name]
    with FakeLLM(route.dialect, delegation_script(route.subagent_type)) as fake:
        fake.fail_next(Fault(401, message="invalid api key", code="authentication_error"))
        record, events = await run_episode(fake, route, tmp_path)
    assert len(fake.requests) == 1
    # the provider refused the key: no verdict on the model, so absent (not a failure of it)
    assert (record.status, record.success, record.termination) == ("absent", None, "api_error")
    assert record.reason is not None and "refused the credentials" in record.reason
    assert not [e for e in events if e.kind == "model_retry"]
    (breach,) = [e for e in events if e.kind == "budget_breach"]
    error = breach.data["error"]
    assert (
        error.startswith("authentication: HTTP 401") and f"${KEY_ENV}" in error and "invalid api key" in error
    )
    assert KEY not in error  # the key itself is never written anywhere


@pytest.mark.parametrize(
    ("fault", "absent"),
    [
        (Fault(404, message="model fake-claude not found", code="not_found_error"), True),
        (Fault(402, message="payment required"), True),
        (Fault(429, message="you exceeded your current quota", code="insufficient_quota"), True),
        # Anthropic's empty credit balance is a 400, not a 402: it was scored as the model's failure.
        (
            Fault(
                400,
                message="Your credit balance is too low to access the Anthropic API. "
                "Please go to Plans & Billing to upgrade or purchase credits.",
                code="invalid_request_error",
            ),
            True,
        ),
        (Fault(400, message="messages: roles must alternate", code="invalid_request_error"), False),
    ],
    ids=["unknown model", "payment", "quota", "no credit", "bad request"],
)
async def test_a_refused_model_or_quota_makes_the_episode_absent_a_bad_request_does_not(
    fault: Fault, absent: bool, tmp_path: Path
) -> None:
    """A wrong model id, an unpaid account or a spent quota ended each episode `api_error`,
    completed and failed: the model scored 0 for the provider's refusal."""
    route = ROUTES["anthropic"]
    with FakeLLM(route.dialect, delegation_script(route.subagent_type)) as fake:
        fake.fail_next(fault)
        record, _ = await run_episode(fake, route, tmp_path)
    assert len(fake.requests) == 1 and record.termination == "api_error"
    assert (record.status, record.success) == (("absent", None) if absent else ("completed", False))
    assert record.reason is not None and fault.message in record.reason


async def test_context_overflow_stops_the_agent_without_retries(tmp_path: Path) -> None:
    route = ROUTES["anthropic"]
    with FakeLLM(route.dialect, delegation_script(route.subagent_type)) as fake:
        fake.fail_next(Fault(400, message="prompt is too long: 210000 tokens > 200000 maximum"))
        record, events = await run_episode(fake, route, tmp_path)
    assert len(fake.requests) == 1 and record.termination == "context_overflow"


# How hosted and self-hosted OpenAI-compatible servers word a prompt beyond the context window.
OVERFLOW_WORDINGS = {
    "xAI": "This model's maximum prompt length is 131072 but the request contains 150000 tokens.",
    "Gemini": "The input token count (1234567) exceeds the maximum number of tokens allowed (1048576).",
    "Bedrock gateway": "Input is too long for requested model.",
    "TGI": "Input validation error: `inputs` tokens + `max_new_tokens` must be <= 4096. "
    "Given: 4000 `inputs` tokens and 1000 `max_new_tokens`",
}


@pytest.mark.parametrize("server", list(OVERFLOW_WORDINGS))
async def test_context_overflow_in_a_compatible_servers_words(server: str, tmp_path: Path) -> None:
    """These were `bad_request`: the episode ended `api_error`, hiding that the context was full."""
    route = ROUTES["openai-compatible"]
    with FakeLLM(route.dialect, delegation_script(route.subagent_type)) as fake:
        status = 422 if server == "TGI" else 400
        fake.fail_next(Fault(status, message=OVERFLOW_WORDINGS[server]))
        record, _ = await run_episode(fake, route, tmp_path)
    assert len(fake.requests) == 1 and record.termination == "context_overflow", record.termination


# 200 answers that are not the JSON object the API promises: cut off mid-way, a proxy's HTML
# page, a JSON array.
MALFORMED_200 = {
    "truncated JSON": Fault(200, raw=b'{"id": "msg_1", "type": "mess'),
    "HTML page": Fault(200, raw=b"<html><body>gateway</body></html>", content_type="text/html"),
    "JSON array": Fault(200, raw=b"[1, 2]"),
    # was a UnicodeDecodeError out of the provider: the episode ended harness_error, absent
    "not UTF-8": Fault(200, raw=b'{"id": "msg_\xff\xfe"}'),
}
HTTP_ROUTES = ["anthropic", "openai", "openai-responses"]


@pytest.mark.parametrize("name", HTTP_ROUTES)
@pytest.mark.parametrize("body", list(MALFORMED_200))
async def test_malformed_200_body_is_an_api_error_not_a_harness_error(
    name: str, body: str, tmp_path: Path
) -> None:
    route = ROUTES[name]
    with FakeLLM(route.dialect, delegation_script(route.subagent_type)) as fake:
        fake.fail_next(MALFORMED_200[body])
        record, events = await run_episode(fake, route, tmp_path, budgets=Budgets(api_retries=0))
    assert record.status == "completed" and record.termination == "api_error", record.reason
    (breach,) = [e for e in events if e.kind == "budget_breach"]
    # retryable (it went through the retry policy, whose budget here is 0) and named
    assert breach.data["retries"] == 0 and breach.data["error"].startswith("server_error: unreadable answer")
    assert (
        "not valid JSON" if body in ("truncated JSON", "not UTF-8") else "not a JSON object"
    ) in breach.data["error"]


@pytest.mark.parametrize(("name", "body"), list(zip(HTTP_ROUTES, MALFORMED_200, strict=False)))
async def test_malformed_200_body_is_retried(name: str, body: str, tmp_path: Path) -> None:
    route = ROUTES[name]
    with FakeLLM(route.dialect, delegation_script(route.subagent_type)) as fake:
        fake.fail_next(MALFORMED_200[body])
        record, events = await run_episode(fake, route, tmp_path)
    assert record.termination == "claim_done", record.reason
    (retry,) = [e for e in events if e.kind == "model_retry"]
    assert retry.data["error_kind"] == "server_error" and retry.data["status"] is None


# 200 answers that are JSON objects but not the API's answer, or have parts of the wrong type.
# They crashed the parser (the episode ended harness_error, absent) or, for `{}` and an error
# object, were taken as an empty final answer (the main agent stopped `text_only`).
WRONG_SHAPE_200: dict[str, dict[str, bytes]] = {
    "anthropic": {
        "empty object": b"{}",
        "error object": b'{"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}',
        "content of strings": b'{"type": "message", "role": "assistant", "content": ["hi"], "stop_reason": "end_turn"}',
        "token count not a number": b'{"type": "message", "role": "assistant", "content": [], "usage": {"input_tokens": "abc"}}',
    },
    "openai": {
        "choices of strings": b'{"choices": ["hi"]}',
        "message a string": b'{"choices": [{"index": 0, "message": "hi", "finish_reason": "stop"}]}',
        "function a string": b'{"choices": [{"index": 0, "message": {"role": "assistant", "tool_calls": [{"id": "c", "type": "function", "function": "x"}]}}]}',
    },
    "openai-responses": {
        "empty object": b"{}",
        "error object": b'{"error": {"message": "upstream overloaded", "code": "server_error"}}',
        "output of strings": b'{"status": "completed", "output": ["x"]}',
        "message content a string": b'{"status": "completed", "output": [{"type": "message", "content": "hi"}]}',
    },
}  # fmt: skip


@pytest.mark.parametrize(
    ("name", "body"), [(name, body) for name, bodies in WRONG_SHAPE_200.items() for body in bodies]
)
async def test_a_200_of_the_wrong_shape_is_retried(name: str, body: str, tmp_path: Path) -> None:
    route = ROUTES[name]
    with FakeLLM(route.dialect, delegation_script(route.subagent_type)) as fake:
        fake.fail_next(Fault(200, raw=WRONG_SHAPE_200[name][body]))
        record, events = await run_episode(fake, route, tmp_path)
    assert record.termination == "claim_done", record.reason
    (retry,) = [e for e in events if e.kind == "model_retry"]
    assert retry.agent == "main" and retry.data["error_kind"] == "server_error"
    assert len([e for e in events if e.kind == "model_call"]) == 4


def malformed_script(seen: Seen) -> Reply:
    """Step 1: one call whose arguments are not JSON, one call to a tool that does not exist."""
    if seen.turn == 0:
        return Reply(
            calls=(("mcp__lms__list_courses", '{"term": "2026-fall"'), ("mcp__nowhere__frobnicate", {"x": 1}))
        )
    return Reply(calls=((CLAIM_DONE, {"summary": "gave up"}),), usage=MAIN_2)


@pytest.mark.parametrize("name", list(ROUTES))
async def test_malformed_tool_calls_get_tool_errors_and_the_episode_goes_on(
    name: str, tmp_path: Path
) -> None:
    route = ROUTES[name]
    with FakeLLM(route.dialect, malformed_script) as fake:
        record, events = await run_episode(fake, route, tmp_path)
    assert record.termination == "claim_done" and record.main is not None and record.main.steps == 2, (
        record.reason
    )
    turns = record.main.turns or []
    assert turns[0].tools == ["mcp__lms__list_courses", "mcp__nowhere__frobnicate"] and turns[0].tools_ok == 0
    refused = [(e.data["name"], e.data["reason"]) for e in events if e.kind == "tool_refused"]
    assert refused == [
        ("mcp__lms__list_courses", "invalid_arguments"),
        ("mcp__nowhere__frobnicate", "unknown_tool"),
    ]
    # the model got both errors back as tool errors, in the provider's format
    second = fake.requests[1]
    (bad_json, bad_name) = second.tool_results
    assert bad_json[1] and "not a JSON object" in bad_json[0] and '{"term": "2026-fall"' in bad_json[0]
    assert bad_name[1] and "unknown tool 'mcp__nowhere__frobnicate'" in bad_name[0]
    if name == "openai":
        sent = second.body["messages"][2]["tool_calls"][0]["function"]["arguments"]
        assert sent == '{"term": "2026-fall"'  # the model's own text, as it wrote it
    if name == "openai-compatible":
        sent = second.body["messages"][2]["tool_calls"][0]["function"]["arguments"]
        assert sent == "{}"  # servers that re-parse history would fail on it; the error quotes it


# Failed answers that still report tokens, which the provider bills: each is added to the
# episode's usage (and cost) and recorded as a `model_error_usage` event.
BILLED = WireUsage(uncached=5000, cache_read=2000, output=11)
BILLED_FAILURES = {
    # a 200 that stops on the context window: the agent stops, not retried
    "anthropic": {"stop_reason": "model_context_window_exceeded"},
    # a Chat answer without choices, and a Responses answer with status failed: retried
    "openai": {"choices": []},
    "openai-responses": {"status": "failed", "error": {"code": "server_error", "message": "went wrong"}},
}


@pytest.mark.parametrize("name", list(BILLED_FAILURES))
async def test_the_tokens_of_a_billed_failed_answer_are_counted(name: str, tmp_path: Path) -> None:
    route = ROUTES[name]
    script, failed = delegation_script(route.subagent_type), []

    def fails_first(seen: Seen) -> Reply:
        if not failed:
            failed.append(seen)
            return Reply(text="…", usage=BILLED, body_fields=BILLED_FAILURES[name])
        return script(seen)

    with FakeLLM(route.dialect, fails_first) as fake:
        record, events = await run_episode(fake, route, tmp_path)
    (billed,) = [e for e in events if e.kind == "model_error_usage"]
    assert billed.agent == "main"
    assert (billed.data["input_tokens"], billed.data["output_tokens"]) == (7000, 11)
    calls = [e.data for e in events if e.kind == "model_call"]
    # the record's totals are the successful calls' and the failed answer's
    assert record.usage.input_tokens == sum(c["input_tokens"] for c in calls) + 7000
    assert record.usage.output_tokens == sum(c["output_tokens"] for c in calls) + 11
    assert record.cost_usd == pytest.approx(sum(c["cost_usd"] for c in calls) + billed.data["cost_usd"])
    assert billed.data["cost_usd"] > 0
    # the store's events rebuild the record's usage, token kind by token kind (the billed
    # failure's cached tokens were in the record and not in its event)
    for kind in ("input_tokens", "cached_input_tokens", "output_tokens", "reasoning_tokens"):
        assert getattr(record.usage, kind) == sum(c[kind] for c in calls) + billed.data[kind], kind
    assert billed.data["cached_input_tokens"] == 2000 and billed.data["messages"] >= 2
    assert billed.data["latency_s"] >= 0
    if name == "anthropic":
        assert record.termination == "context_overflow" and calls == []
    else:
        assert record.termination == "claim_done", record.reason
        assert len([e for e in events if e.kind == "model_retry"]) == 1


async def test_an_endpoint_that_stays_unreachable_makes_the_episode_absent(tmp_path: Path) -> None:
    """A crashed server (connection refused on every retry) ended each episode completed and
    failed, so the model was scored 0 for it and `--resume` skipped it."""
    route = ROUTES["openai"]
    with FakeLLM(route.dialect, delegation_script(route.subagent_type)) as fake:
        plan = plan_for(fake, route, tmp_path, budgets=Budgets(api_retries=1))
    # the fake server has stopped: its port now refuses connections
    (record,) = (await Runner(plan).run()).records
    assert (record.status, record.success, record.termination) == ("absent", None, "api_error")
    assert record.reason is not None and "cannot reach openai:fake-gpt" in record.reason


async def test_a_context_overflow_answer_without_usage_has_an_unknown_cost(tmp_path: Path) -> None:
    """An Anthropic 200 stopping on the context window with no usage (which the provider bills)
    was priced as zero tokens: the episode cost 0.0 instead of unknown."""
    route = ROUTES["anthropic"]

    def overflows(seen: Seen) -> Reply:
        return Reply(text="…", body_fields={"stop_reason": "model_context_window_exceeded", "usage": None})

    with FakeLLM(route.dialect, overflows) as fake:
        record, events = await run_episode(fake, route, tmp_path)
    assert record.termination == "context_overflow"
    (billed,) = [e for e in events if e.kind == "model_error_usage"]
    assert billed.data["cost_usd"] is None and record.cost_usd is None


# A choice that failed while the model wrote it, as OpenRouter answers once generation has begun
# (200, `finish_reason: error`, an `error` object in the choice).
CHOICE_ERROR = {
    "index": 0,
    "finish_reason": "error",
    "native_finish_reason": "error",
    "message": {"role": "assistant", "content": ""},
    "error": {"code": 502, "message": "Upstream provider returned an error"},
}


async def test_a_choice_that_failed_while_written_is_retried_not_the_models_answer(tmp_path: Path) -> None:
    """Its empty text was taken as the main agent's final answer: the episode ended `text_only`
    after one call, a failure scored to the model for its provider's fault."""
    route = ROUTES["openai-compatible"]
    script, failed = delegation_script(route.subagent_type), []

    def fails_first(seen: Seen) -> Reply:
        if not failed:
            failed.append(seen)
            return Reply(usage=BILLED, body_fields={"choices": [CHOICE_ERROR]})
        return script(seen)

    with FakeLLM(route.dialect, fails_first) as fake:
        record, events = await run_episode(fake, route, tmp_path)
    assert record.termination == "claim_done", record.reason
    (retry,) = [e for e in events if e.kind == "model_retry"]
    assert retry.data["error_kind"] == "server_error"
    assert (
        retry.data["error"]
        == "the answer failed while it was written: Upstream provider returned an error [502]"
    )
    (billed,) = [e for e in events if e.kind == "model_error_usage"]  # its tokens are billed
    assert (billed.data["input_tokens"], billed.data["output_tokens"]) == (7000, 11)
