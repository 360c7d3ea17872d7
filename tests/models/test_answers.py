"""Single answers as particular servers write them, read through the real SDKs (one call each)."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from contracts.episode import Usage
from harness.models import anthropic_provider as ap
from harness.models.base import ModelAPIError, ModelSettings, ToolMessage, UserMessage
from tests.models.episodes import (
    KEY,
    KEY_ENV,
    ROUTES,
    answer,
    delegation_script,
    make_model,
    one_call,
    run_episode,
)
from tests.models.fake_llm import FakeLLM, Reply, Seen


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, KEY)


async def test_chat_refusal_is_kept_as_the_answer_text() -> None:
    refusal = "I can't help with that."
    with FakeLLM("chat", answer(Reply(message_fields={"refusal": refusal}))) as fake:
        response = await one_call(fake, ROUTES["openai"])
    assert response.message.content == refusal and response.stop_reason == "stop"


@pytest.mark.parametrize(
    ("code", "kind"),
    [
        ("server_error", "server_error"),
        ("rate_limit_exceeded", "rate_limit"),
        ("invalid_prompt", "bad_request"),
        ("bio_policy", "bad_request"),
        ("misalignment_policy_violation", "bad_request"),
        ("invalid_image_url", "bad_request"),
        ("image_content_policy_violation", "bad_request"),
        ("context_length_exceeded", "context_overflow"),  # a compatible server's way to say it
    ],
)
async def test_failed_response_is_retried_only_for_server_and_rate_limit_errors(code: str, kind: str) -> None:
    failed = {"status": "failed", "error": {"code": code, "message": "it went wrong"}, "output": []}
    with FakeLLM("responses", answer(Reply(body_fields=failed))) as fake, pytest.raises(ModelAPIError) as exc:
        await one_call(fake, ROUTES["openai-responses"])
    assert exc.value.kind == kind and exc.value.retryable == (code in ("server_error", "rate_limit_exceeded"))
    assert exc.value.message == f"the response failed: it went wrong [{code}]"


@pytest.mark.parametrize(
    ("details", "cached"),
    [(None, 600), ({"cached_tokens": 0}, 0)],  # DeepSeek's field counts only where OpenAI's is absent
)
async def test_deepseek_cache_hits_count_as_cached_input(details: dict[str, int] | None, cached: int) -> None:
    usage = {"prompt_tokens": 1000, "completion_tokens": 20, "total_tokens": 1020,
             "prompt_cache_hit_tokens": 600, "prompt_cache_miss_tokens": 400, "prompt_tokens_details": details}  # fmt: skip
    with FakeLLM("chat", answer(Reply(text="ok", body_fields={"usage": usage}))) as fake:
        response = await one_call(fake, ROUTES["openai-compatible"])
    assert response.usage == Usage(input_tokens=1000, cached_input_tokens=cached, output_tokens=20)


@pytest.mark.parametrize(
    ("details", "cached"),
    [(None, 600), ({"cached_tokens": 0}, 0)],  # Moonshot's field counts only where OpenAI's is absent
)
async def test_kimi_cache_hits_count_as_cached_input(details: dict[str, int] | None, cached: int) -> None:
    """Regression: Moonshot (Kimi) reports its cache hits as `usage.cached_tokens`, at the top, and
    they were read as 0: every cached token was priced at the full input rate (4x for Kimi K2)."""
    usage = {"prompt_tokens": 1000, "completion_tokens": 20, "total_tokens": 1020, "cached_tokens": 600,
             "prompt_tokens_details": details}  # fmt: skip
    with FakeLLM("chat", answer(Reply(text="ok", body_fields={"usage": usage}))) as fake:
        response = await one_call(fake, ROUTES["openai-compatible"])
    assert response.usage == Usage(input_tokens=1000, cached_input_tokens=cached, output_tokens=20)


async def test_vllms_reasoning_field_is_kept_and_sent_back_like_reasoning_content(tmp_path: Path) -> None:
    route = ROUTES["openai-compatible"]
    script = delegation_script(route.subagent_type)

    def scripted(seen: Seen) -> Reply:
        reply = script(seen)
        if seen.is_main and seen.turn == 0:  # as vLLM's reasoning parsers write it now
            return dataclasses.replace(reply, thinking=None, message_fields={"reasoning": "two look-ups"})
        return reply

    with FakeLLM("chat", scripted) as fake:
        record, _ = await run_episode(fake, route, tmp_path)
    assert record.termination == "claim_done", record.reason
    replayed = fake.seen(main=True)[1].body["messages"][2]
    assert replayed["role"] == "assistant" and replayed["reasoning"] == "two look-ups"
    assert "reasoning_content" not in replayed  # under the name it came in


async def test_gemini_thought_signatures_and_openrouter_reasoning_details_are_sent_back() -> None:
    """Gemini's OpenAI-compatible endpoint puts each call's thought signature in the call's
    `extra_content`, and Gemini 3 refuses a history whose calls lack it; OpenRouter asks for its
    `reasoning_details` back unchanged. Both were dropped: the second request carried neither.
    Now each replayed call carries its own `extra_content` (c2 had none: none is invented) and
    the message its `reasoning_details`, through the real SDK both ways."""
    signed = {"google": {"thought_signature": "c2lnbmVk"}}
    details = [{"type": "reasoning.encrypted", "data": "ZW5j", "index": 0}]
    calls = [
        {"id": "c1", "type": "function", "function": {"name": "mcp__local__todo_read", "arguments": "{}"},
         "extra_content": signed},
        {"id": "c2", "type": "function", "function": {"name": "mcp__local__todo_read", "arguments": "{}"}},
    ]  # fmt: skip
    replies = iter(
        [Reply(message_fields={"tool_calls": calls, "reasoning_details": details}), Reply(text="ok")]
    )
    with FakeLLM("chat", lambda _seen: next(replies)) as fake:
        model = make_model(fake, ROUTES["openai-compatible"])
        try:
            first = await model.generate([UserMessage(content="go")], [], ModelSettings())
            results = [
                ToolMessage(tool_call_id=c.id, name=c.name, content="[]") for c in first.message.tool_calls
            ]
            await model.generate([UserMessage(content="go"), first.message, *results], [], ModelSettings())
        finally:
            await model.aclose()
        replayed = fake.requests[1].body["messages"][1]
    assert [c.get("extra_content") for c in replayed["tool_calls"]] == [signed, None]
    assert replayed["reasoning_details"] == details


async def test_chat_tool_call_without_arguments_or_with_null_ones_has_no_arguments() -> None:
    calls = [
        {"id": "c1", "type": "function", "function": {"name": "mcp__local__todo_read"}},
        {"id": "c2", "type": "function", "function": {"name": "mcp__local__todo_read", "arguments": None}},
    ]
    with FakeLLM("chat", answer(Reply(message_fields={"tool_calls": calls}))) as fake:
        response = await one_call(fake, ROUTES["openai-compatible"])
    assert [(c.id, c.arguments, c.raw_arguments) for c in response.message.tool_calls] == [
        ("c1", {}, None),
        ("c2", {}, None),
    ]


@pytest.mark.parametrize("name", ["anthropic", "openai-compatible", "openai-responses"])
async def test_an_answer_without_usage_counts_zero_and_says_so_once(
    name: str, caplog: pytest.LogCaptureFixture
) -> None:
    route = ROUTES[name]
    with FakeLLM(route.dialect, answer(Reply(text="ok", body_fields={"usage": None}))) as fake:
        model = make_model(fake, route)
        try:
            for _ in range(2):
                response = await model.generate([UserMessage(content="go")], [], ModelSettings())
                assert response.usage == Usage() and response.message.content == "ok"
                assert not response.usage_reported
        finally:
            await model.aclose()
    (warning,) = [r for r in caplog.records if r.name == "harness.models"]
    assert warning.levelname == "WARNING" and route.model in warning.getMessage()
    assert "no usage" in warning.getMessage() and "count 0 tokens" in warning.getMessage()
    assert "cost is unknown" in warning.getMessage()


async def test_an_episode_whose_answers_have_no_usage_has_no_cost(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its calls were priced as 0 tokens: a priced model's episode cost 0.0, as if free."""
    monkeypatch.setenv(KEY_ENV, KEY)
    route = ROUTES["openai-compatible"]  # priced in the test table
    with FakeLLM(route.dialect, answer(Reply(text="done", body_fields={"usage": None}))) as fake:
        record, events = await run_episode(fake, route, tmp_path)
    assert record.status == "completed" and record.cost_usd is None
    assert [e.data["cost_usd"] for e in events if e.kind == "model_call"] == [None]


async def test_extras_merge_into_nested_request_fields_key_by_key() -> None:
    extra = {
        "reasoning": {"summary": "auto"},  # beside the effort mseval sets
        "chat_template_kwargs": {"enable_thinking": False},
        "openai": {"chat_template_kwargs": {"thinking_budget": 64}},  # the provider's own, on top
    }
    settings = ModelSettings(reasoning_effort="high", extra=extra)
    with FakeLLM("responses", answer(Reply(text="ok"))) as fake:
        await one_call(fake, ROUTES["openai-responses"], settings=settings)
    body = fake.requests[0].body
    assert body["reasoning"] == {"effort": "high", "summary": "auto"}
    assert body["chat_template_kwargs"] == {"enable_thinking": False, "thinking_budget": 64}


async def test_anthropic_text_blocks_keep_their_separation_and_order() -> None:
    content = [
        {"type": "text", "text": "The open assignment is "},
        {"type": "text", "text": "Project 1", "citations": [{"type": "char_location", "cited_text": "Project 1",
                                                             "document_index": 0, "start_char_index": 0,
                                                             "end_char_index": 9}]},
        {"type": "text", "text": ". Let me check its due date."},
        {"type": "tool_use", "id": "toolu_1", "name": "mcp__lms__get_course", "input": {"course": "CS101"}},
        {"type": "text", "text": "Then the reminder."},
    ]  # fmt: skip
    with FakeLLM("anthropic", answer(Reply(body_fields={"content": content}))) as fake:
        response = await one_call(fake, ROUTES["anthropic"])
    message = response.message
    assert (
        message.content
        == "The open assignment is Project 1. Let me check its due date.\n\nThen the reminder."
    )
    # replayed as it came: the text after the call stays after it
    _, wire = ap.to_wire([UserMessage(content="go"), message])
    assert [(b["type"], b.get("text")) for b in wire[1]["content"]] == [
        ("text", "The open assignment is "),
        ("text", "Project 1"),
        ("text", ". Let me check its due date."),
        ("tool_use", None),
        ("text", "Then the reminder."),
    ]


@pytest.mark.parametrize("name", ["anthropic", "openai", "openai-responses"])
async def test_a_long_answer_is_given_time_to_finish(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every call had 600 s: 64k output tokens at 20 tokens/s need 3,200 s, and a call cut off
    by the timeout is retried from the start and billed again."""
    from harness.models.provider_common import request_timeout_s

    assert (request_timeout_s(8192), request_timeout_s(64_000)) == (600.0, 3200.0)
    monkeypatch.setenv(KEY_ENV, KEY)
    route = ROUTES[name]
    settings = ModelSettings(max_output_tokens=64_000)
    with FakeLLM(route.dialect, answer(Reply(text="ok"))) as fake:
        model = make_model(fake, route, settings)
        client: Any = model.client  # type: ignore[attr-defined]
        api = (
            client.messages
            if name == "anthropic"
            else client.responses
            if "responses" in name
            else client.chat.completions
        )
        create, seen = api.create, []

        async def recording(*args: Any, **kwargs: Any) -> Any:
            seen.append(kwargs["timeout"])
            return await create(*args, **kwargs)

        monkeypatch.setattr(api, "create", recording)
        try:
            await model.generate([UserMessage(content="go")], [], settings)
        finally:
            await model.aclose()
    assert [(t.read, t.connect) for t in seen] == [(3200.0, 10.0)]


def _refused_by_the_messages_api(body: dict[str, Any]) -> str | None:
    """What the Messages API says of a history it refuses (400), for the rules on text and
    thinking blocks a replayed turn can break; None for one it takes."""
    for i, message in enumerate(body["messages"]):
        blocks = message["content"] if isinstance(message["content"], list) else []
        texts = [b["text"] for b in blocks if b["type"] == "text"]
        if any(not t for t in texts):
            return f"messages.{i}: text content blocks must be non-empty"
        if texts and not any(t.strip() for t in texts):
            return f"messages.{i}: text content blocks must contain non-whitespace text"
        if (
            message["role"] == "assistant"
            and blocks
            and blocks[-1]["type"] in ("thinking", "redacted_thinking")
        ):
            return f"messages.{i}: The final block in an assistant message cannot be `thinking`."
    return None


async def test_anthropic_turns_the_api_would_refuse_in_the_history_are_sent_as_it_takes_them() -> None:
    """Regression: a reply cut off at max_tokens while the model thought (its only block a
    thinking block), and one whose text before its tool call was a bare line break, were
    replayed as they came; the API refuses both in the history, so every later call of that
    agent failed with a 400 (bad_request) and the agent stopped with api_error."""
    cut_off = Reply(thinking="let me think about", body_fields={"stop_reason": "max_tokens"})
    blank = Reply(text="\n\n", calls=(("mcp__local__todo_read", {}),))

    def script(seen: Seen) -> Reply:
        if refused := _refused_by_the_messages_api(seen.body):
            raise ValueError(refused)  # answered with a 400, and kept in fake.errors
        return (cut_off, blank, Reply(text="done"))[seen.turn]

    with FakeLLM("anthropic", script) as fake:
        model = make_model(fake, ROUTES["anthropic"])
        settings = ModelSettings()
        try:
            history: list[Any] = [UserMessage(content="go")]
            first = await model.generate(history, [], settings)
            assert first.truncated and first.message.content == "" and not first.message.tool_calls
            history += [first.message, UserMessage(content="you were cut off; go on")]
            second = await model.generate(history, [], settings)
            (call,) = second.message.tool_calls
            history += [second.message, ToolMessage(tool_call_id=call.id, name=call.name, content="[]")]
            third = await model.generate(history, [], settings)
        finally:
            await model.aclose()
    assert not fake.errors, fake.errors
    assert third.message.content == "done"
    # the thinking block goes back with its signature, closed by the marker; the blank text is left out
    sent = fake.requests[-1].body["messages"]
    assert [b["type"] for b in sent[1]["content"]] == ["thinking", "text"]
    assert sent[1]["content"][0]["signature"].startswith("sig-") and sent[1]["content"][1]["text"] == ap.EMPTY
    assert [b["type"] for b in sent[3]["content"]] == ["tool_use"]
