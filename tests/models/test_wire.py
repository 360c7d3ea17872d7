"""The providers' mappings to and from the wire, and the error table, as pure functions."""

from __future__ import annotations

import email.utils
import time

import pytest

from contracts.episode import Usage
from contracts.errors import InputError
from harness.models import anthropic_provider as ap
from harness.models import openai_provider as op
from harness.models import openai_responses as ors
from harness.models import openai_wire
from harness.models.base import (
    AssistantMessage,
    Message,
    ModelAPIError,
    ModelSettings,
    SystemMessage,
    ToolCall,
    ToolMessage,
    ToolSpec,
    UserMessage,
)
from harness.models.pricing import PriceTable, load_prices
from harness.models.provider_common import api_key, request_extras, retry_after_s, split_options, status_error

CALL_A = ToolCall(id="c1", name="mcp__lms__list_courses", arguments={"term": "fall"})
CALL_B = ToolCall(id="c2", name="mcp__lms__get_course", arguments=None, raw_arguments='{"course": ')
HISTORY: list[Message] = [
    SystemMessage(content="be brief"),
    UserMessage(content="task"),
    AssistantMessage(content="two calls", tool_calls=(CALL_A, CALL_B)),
    ToolMessage(tool_call_id="c1", name=CALL_A.name, content="[]"),
    ToolMessage(tool_call_id="c2", name=CALL_B.name, content="bad arguments", is_error=True),
    UserMessage(content="and now?"),
]


# -- Anthropic -----------------------------------------------------------------------------------
def test_anthropic_merges_tool_results_and_following_user_text_into_one_user_message() -> None:
    system, wire = ap.to_wire(HISTORY)
    assert system == "be brief"
    assert [m["role"] for m in wire] == ["user", "assistant", "user"]
    assert wire[1]["content"] == [
        {"type": "text", "text": "two calls"},
        {"type": "tool_use", "id": "c1", "name": "mcp__lms__list_courses", "input": {"term": "fall"}},
        {"type": "tool_use", "id": "c2", "name": "mcp__lms__get_course", "input": {}},  # must be an object
    ]
    assert wire[2]["content"] == [
        {"type": "tool_result", "tool_use_id": "c1", "content": "[]", "is_error": False},
        {"type": "tool_result", "tool_use_id": "c2", "content": "bad arguments", "is_error": True},
        {"type": "text", "text": "and now?"},
    ]


def test_anthropic_sends_thinking_blocks_back_unchanged() -> None:
    data = {
        "content": [
            {"type": "thinking", "thinking": "hmm", "signature": "s1"},
            {"type": "redacted_thinking", "data": "xyz"},
            {"type": "tool_use", "id": "t1", "name": "f", "input": {"a": 1}},
        ],
        "usage": {"input_tokens": 10, "cache_read_input_tokens": 100, "cache_creation_input_tokens": 5,
                  "cache_creation": {"ephemeral_5m_input_tokens": 3, "ephemeral_1h_input_tokens": 2},
                  "output_tokens": 7, "output_tokens_details": {"thinking_tokens": 3}},
        "stop_reason": "tool_use",
    }  # fmt: skip
    message, usage, stop = ap.from_wire(data)
    assert message.tool_calls == (ToolCall(id="t1", name="f", arguments={"a": 1}),) and stop == "tool_use"
    # input 10 excludes cache reads (100) and writes (5): the harness records the total
    assert usage == Usage(
        input_tokens=115,
        cached_input_tokens=100,
        cache_write_input_tokens=5,
        cache_write_1h_input_tokens=2,
        output_tokens=7,
        reasoning_tokens=3,
    )
    _, wire = ap.to_wire([UserMessage(content="q"), message])
    assert wire[1]["content"] == data["content"]


def test_anthropic_never_replays_a_blank_text_block() -> None:
    """Regression: Claude's "\\n\\n" before a tool call was replayed as a text block, which the
    API refuses ("text content blocks must contain non-whitespace text") in every later request
    of that agent, so the agent stopped with api_error on its next step."""
    usage = {"input_tokens": 1, "output_tokens": 1}
    blank, _, _ = ap.from_wire({
        "content": [{"type": "text", "text": "\n\n"}, {"type": "tool_use", "id": "t1", "name": "f", "input": {}}],
        "usage": usage, "stop_reason": "tool_use",
    })  # fmt: skip
    thinking, _, _ = ap.from_wire({
        "content": [{"type": "thinking", "thinking": "x", "signature": "s"}, {"type": "text", "text": " "},
                    {"type": "tool_use", "id": "t2", "name": "f", "input": {}}],
        "usage": usage, "stop_reason": "tool_use",
    })  # fmt: skip
    alone = AssistantMessage(
        content="\n", provider_state={"anthropic": {"content": [{"type": "text", "text": "\n"}]}}
    )
    cited = AssistantMessage(
        content="a b",
        provider_state={"anthropic": {"content": [
            {"type": "text", "text": "a"}, {"type": "text", "text": " "}, {"type": "text", "text": ""},
            {"type": "thinking", "thinking": "y", "signature": "s"}, {"type": "text", "text": "b"},
        ]}},
    )  # fmt: skip
    history: list[Message] = [
        UserMessage(content=" \n"),
        blank,
        ToolMessage(tool_call_id="t1", name="f", content="\n"),
        thinking,
        ToolMessage(tool_call_id="t2", name="f", content="ok"),
        alone,
        UserMessage(content="go on"),
        cited,
    ]
    _, wire = ap.to_wire(history)
    contents = [m["content"] for m in wire]
    assert contents[0] == [{"type": "text", "text": "(empty)"}]
    assert contents[1] == [{"type": "tool_use", "id": "t1", "name": "f", "input": {}}]
    assert contents[2] == [
        {"type": "tool_result", "tool_use_id": "t1", "content": "(no output)", "is_error": False}
    ]
    assert [b["type"] for b in contents[3]] == ["thinking", "tool_use"]  # signature kept, blank left out
    assert contents[5] == [{"type": "text", "text": "(empty)"}]
    # beside text that says something a blank block is accepted, and keeps the passage as written
    assert [b.get("text") for b in contents[7]] == ["a", " ", None, "b"]


def test_anthropic_request_body_settings() -> None:
    tools = [ToolSpec(name="f", description="d", input_schema={"type": "object"})]
    body = ap.request_body("m", HISTORY, tools, ModelSettings(temperature=0.7, max_output_tokens=99))
    assert body["max_tokens"] == 99 and "temperature" not in body and "thinking" not in body
    assert body["tools"] == [{"name": "f", "description": "d", "input_schema": {"type": "object"}}]
    off = ap.request_body("m", HISTORY, [], ModelSettings(reasoning_effort="none"))
    assert off["thinking"] == {"type": "disabled"} and "tools" not in off
    extra = {
        "top_level": 1,
        "anthropic": {"thinking": {"type": "enabled", "budget_tokens": 2048}},
        "openai": {"x": 2},
    }
    forced = ap.request_body("m", HISTORY, [], ModelSettings(reasoning_effort="high", extra=extra))
    assert forced["thinking"] == {"type": "enabled", "budget_tokens": 2048}  # the provider's extras win
    assert forced["output_config"] == {"effort": "high"} and forced["top_level"] == 1 and "x" not in forced


# -- OpenAI Chat Completions ------------------------------------------------------------------------
def test_chat_messages_and_error_results() -> None:
    wire = op.chat_messages(HISTORY)
    assert [m["role"] for m in wire] == ["system", "user", "assistant", "tool", "tool", "user"]
    assert wire[2]["tool_calls"][1]["function"]["arguments"] == '{"course": '
    assert wire[4] == {"role": "tool", "tool_call_id": "c2", "content": "Error: bad arguments"}
    strict = op.chat_messages(HISTORY, strict_json=True)
    assert strict[2]["tool_calls"][1]["function"]["arguments"] == "{}"


@pytest.mark.parametrize(
    ("raw", "arguments", "kept"),
    [
        ('{"a": 1}', {"a": 1}, None),
        ("", {}, None),
        ("{not json", None, "{not json"),
        ("[1, 2]", None, "[1, 2]"),
        ({"a": 1}, {"a": 1}, None),
        (None, {}, None),  # `arguments` left out or null
    ],
)
def test_tool_arguments_that_are_not_an_object_are_kept_raw(
    raw: object, arguments: object, kept: object
) -> None:
    assert openai_wire.parse_arguments(raw) == (arguments, kept)


def test_chat_usage_and_reasoning_content() -> None:
    data = {
        "choices": [{"message": {"content": None, "reasoning_content": "think",
                                 "tool_calls": [{"id": "", "function": {"name": "f", "arguments": "{}"}}]},
                     "finish_reason": "tool_calls"}],
        "usage": {"prompt_tokens": 100, "completion_tokens": 20, "prompt_tokens_details": {"cached_tokens": 60},
                  "completion_tokens_details": {"reasoning_tokens": 12}},
    }  # fmt: skip
    message, usage, stop = op.chat_from_wire(data)
    assert usage == Usage(input_tokens=100, cached_input_tokens=60, output_tokens=20, reasoning_tokens=12)
    assert message.content == "" and message.tool_calls[0].id.startswith("call_")  # a server without ids
    assert op.chat_messages([message])[0]["reasoning_content"] == "think"
    with pytest.raises(ModelAPIError) as exc:
        op.chat_from_wire({"choices": []})
    assert exc.value.retryable


def test_temperature_is_left_out_for_openai_reasoning_models_only() -> None:
    s = ModelSettings(temperature=0.0)
    assert "temperature" not in op.chat_body("openai", "gpt-5.2", [], [], s)
    assert "temperature" not in op.chat_body("openai", "o4-mini", [], [], s)
    assert op.chat_body("openai", "gpt-4.1", [], [], s)["temperature"] == 0.0
    assert op.chat_body("openai-compatible", "gpt-5-served-locally", [], [], s)["temperature"] == 0.0
    forced = ModelSettings(temperature=0.0, extra={"openai": {"temperature": 1.0}})
    assert op.chat_body("openai", "gpt-5", [], [], forced)["temperature"] == 1.0
    none = ModelSettings(temperature=None)
    assert "temperature" not in op.chat_body("openai-compatible", "qwen", [], [], none)


# -- OpenAI Responses -------------------------------------------------------------------------------
def test_responses_replay_drops_server_ids_and_bare_reasoning() -> None:
    data = {
        "status": "completed",
        "output": [
            {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "enc"},
            {"type": "reasoning", "id": "rs_2", "summary": []},
            {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed", "phase": "commentary",
             "content": [{"type": "output_text", "text": "hi"}]},
            {"type": "function_call", "id": "fc_1", "call_id": "c9", "name": "f", "arguments": "{}"},
        ],
        "usage": {"input_tokens": 50, "input_tokens_details": {"cached_tokens": 10}, "output_tokens": 5,
                  "output_tokens_details": {"reasoning_tokens": 4}},
    }  # fmt: skip
    message, usage, _ = ors.responses_from_wire(data)
    assert message.content == "hi" and message.tool_calls == (ToolCall(id="c9", name="f", arguments={}),)
    assert usage == Usage(input_tokens=50, cached_input_tokens=10, output_tokens=5, reasoning_tokens=4)
    _, items = ors.responses_input(
        [message, ToolMessage(tool_call_id="c9", name="f", content="x", is_error=True)]
    )
    assert items == [
        {"type": "reasoning", "summary": [], "encrypted_content": "enc"},
        {"type": "message", "role": "assistant", "phase": "commentary", "content": [{"type": "output_text", "text": "hi"}]},
        {"type": "function_call", "call_id": "c9", "name": "f", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "c9", "output": "Error: x"},
    ]  # fmt: skip


def test_responses_message_items_are_separate_passages() -> None:
    """A commentary message then the final one ran together ("Checking.The answer is 4.")."""
    data = {
        "status": "completed",
        "output": [
            {"type": "message", "role": "assistant", "phase": "commentary",
             "content": [{"type": "output_text", "text": "Checking."}]},
            {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "The answer"},
                                                                 {"type": "output_text", "text": " is 4."}]},
            {"type": "message", "role": "assistant", "content": []},
        ],
    }  # fmt: skip
    message, _, _ = ors.responses_from_wire(data)
    assert message.content == "Checking.\n\nThe answer is 4."


def test_failed_response_maps_to_an_error_kind() -> None:
    with pytest.raises(ModelAPIError) as exc:
        ors.responses_from_wire(
            {"status": "failed", "error": {"code": "rate_limit_exceeded", "message": "slow"}}
        )
    assert exc.value.kind == "rate_limit"


# -- errors and the environment ------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("status", "body", "kind"),
    [
        (429, {"error": {"type": "rate_limit_error", "message": "slow down"}}, "rate_limit"),
        (429, {"code": "insufficient_quota", "message": "You exceeded your quota"}, "other"),
        (529, {"error": {"type": "overloaded_error", "message": "Overloaded"}}, "server_error"),
        (503, "upstream unavailable", "server_error"),
        (408, None, "timeout"),
        (
            400,
            {"error": {"message": "prompt is too long: 210000 tokens > 200000 maximum"}},
            "context_overflow",
        ),
        (
            400,
            {"message": "This model's maximum context length is 32768 tokens.", "code": None},
            "context_overflow",
        ),
        (400, {"code": "context_length_exceeded", "message": "Input too long"}, "context_overflow"),
        (400, {"error": {"message": "the request exceeds the available context size"}}, "context_overflow"),
        (400, {"error": {"message": "tools.0.name: invalid"}}, "bad_request"),
        (401, {"error": {"message": "invalid x-api-key"}}, "authentication"),
        (403, {"error": {"message": "forbidden"}}, "authentication"),
        (404, {"error": {"message": "model not found"}}, "bad_request"),
    ],
)
def test_status_errors(status: int, body: object, kind: str) -> None:
    error = status_error("openai", status, {}, body, f"Error code: {status}", "MY_KEY")
    assert error.kind == kind and error.status == status
    assert error.retryable == (kind in ("rate_limit", "server_error", "timeout"))
    if kind == "authentication":
        assert "$MY_KEY" in error.message


def test_a_compatible_server_s_refusal_hints_at_the_usual_cause() -> None:
    """A 401 from an OpenAI-compatible server with no --api-key-env did not say that a placeholder
    key was sent; a 404 of a --base-url without /v1 was a bare '404 page not found'."""
    error = status_error("openai-compatible", 401, {}, {"error": {"message": "bad key"}}, "x", None)
    assert error.message == (
        "HTTP 401: openai-compatible refused the credentials (no --api-key-env was given: "
        "a placeholder key was sent): bad key"
    )
    error = status_error("openai-compatible", 404, {}, "404 page not found", "x", None)
    assert error.message == (
        "HTTP 404: 404 page not found (check --base-url, which usually ends in /v1, and the model name)"
    )
    assert "base-url" not in status_error("openai", 404, {}, "not found", "x", "OPENAI_API_KEY").message


def test_retry_after_headers() -> None:
    assert retry_after_s({"retry-after-ms": "250"}) == 0.25
    assert retry_after_s({"retry-after": "3"}) == 3.0
    assert retry_after_s({"retry-after-ms": "x", "retry-after": "2"}) == 2.0
    assert retry_after_s({}) is None and retry_after_s({"retry-after": "soon"}) is None
    # No positive, finite wait: back off instead. `0` spent all 10 retries in no time; `nan`
    # made asyncio.sleep wait for ever.
    for useless in ("0", "-5", "nan", "inf", "Wed, 21 Oct 2015 07:28:00 GMT"):
        assert retry_after_s({"retry-after": useless}) is None, useless
    assert retry_after_s({"retry-after-ms": "0", "retry-after": "2"}) == 2.0
    later = email.utils.formatdate(time.time() + 3600, usegmt=True)
    assert 3000 < (retry_after_s({"retry-after": later}) or 0) <= 3600
    error = status_error("anthropic", 429, {"retry-after-ms": "1"}, None, "x")
    assert error.retry_after_s == 0.001


def test_api_key_from_the_named_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MY_KEY", "k1")
    monkeypatch.delenv("UNSET_KEY", raising=False)
    assert api_key("openai", "MY_KEY", "OPENAI_API_KEY") == "k1"
    assert api_key("openai-compatible", None, None, fallback="EMPTY") == "EMPTY"
    with pytest.raises(InputError, match="UNSET_KEY is not set"):
        api_key("openai-compatible", "UNSET_KEY", None, fallback="EMPTY")  # named, so required
    with pytest.raises(InputError, match="NAME of an environment variable"):
        api_key("openai", "sk-proj-abc123", None)


def test_a_key_given_for_a_name_is_never_echoed_and_a_stray_line_break_is_caught(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A Groq key `gsk_…` passes as a variable name; its "is not set" message printed it whole.
    A key read from a CRLF .env ended in \r and failed as "Connection error" after 10 retries."""
    key = "gsk_ABCDEFsecret0123456789"
    monkeypatch.delenv(key, raising=False)
    with pytest.raises(InputError) as caught:
        api_key("openai-compatible", key, None)
    (line,) = [str(p) for p in caught.value.problems]
    assert "secret0123456789" not in line and "gsk_AB…" in line and "not the key" in line
    monkeypatch.delenv("openai_key", raising=False)  # a lower-case name is still a name
    with pytest.raises(InputError, match="environment variable openai_key is not set"):
        api_key("openai", "openai_key", None)
    monkeypatch.setenv("CRLF_KEY", "sk-abc\r")
    assert api_key("openai", "CRLF_KEY", None) == "sk-abc"  # surrounding whitespace is dropped
    monkeypatch.setenv("BROKEN_KEY", "sk-abc\rdef")
    with pytest.raises(InputError, match="BROKEN_KEY holds a character no API key has"):
        api_key("openai", "BROKEN_KEY", None)


def test_model_options_and_extras() -> None:
    assert split_options("gpt-5?api=responses", op.OPTIONS) == ("gpt-5", {"api": "responses"})
    with pytest.raises(InputError, match="unknown option 'x'"):
        split_options("gpt-5?x=1", op.OPTIONS)
    with pytest.raises(InputError, match="must be one of chat, responses"):
        split_options("gpt-5?api=bogus", op.OPTIONS)
    extra = {"seed": 1, "openai": {"seed": 2}, "anthropic": {"a": 1}}
    assert request_extras(extra, "openai") == {"seed": 2}
    assert request_extras(extra, "openai-compatible") == {"seed": 1}


def test_a_provider_option_given_twice_is_refused_not_last_wins() -> None:
    """`gpt-5?api=responses&api=chat` used the Chat API: dict(parse_qsl(...)) kept the last."""
    with pytest.raises(InputError) as caught:
        split_options("gpt-5?api=responses&api=chat", op.OPTIONS)
    assert str(caught.value) == (
        "--model: gpt-5?api=responses&api=chat: option 'api' is given more than once; give it once"
    )


def test_factories_need_their_inputs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(InputError, match="OPENAI_API_KEY is not set"):
        op.make("gpt-5", ModelSettings(), None, None)
    with pytest.raises(InputError, match="needs --base-url"):
        op.make_compatible("qwen", ModelSettings(), None, None)
    with pytest.raises(InputError, match="needs --base-url"):
        op.check_compatible("qwen", None, None)
    assert op.check_compatible("qwen", "http://127.0.0.1:8000/v1", None) == "EMPTY"
    with pytest.raises(InputError, match="unknown option"):
        ap.make("claude-x?api=responses", ModelSettings(), None, None)


def test_cache_writes_are_priced_at_cache_write_else_at_input() -> None:
    table = PriceTable.model_validate(
        {
            "version": "t",
            "currency_rates": {"USD": 1.0},
            "models": [
                {"match": "a:*", "input": 3.0, "cached_input": 0.3, "cache_write": 3.75, "output": 15.0},
                {"match": "b:*", "input": 3.0, "cached_input": 0.3, "output": 15.0},
            ],
        }
    )
    usage = Usage(
        input_tokens=10_000, cached_input_tokens=6_000, cache_write_input_tokens=3_000, output_tokens=200
    )
    # a: 1000·3 + 6000·0.3 + 3000·3.75 + 200·15 = 3000 + 1800 + 11250 + 3000 = 19050 per 1e6
    assert table.call_cost("a:m", usage) == pytest.approx(0.01905)
    # b (no cache_write price): the writes cost input, SPEC §4 as written: 4000·3 + 1800 + 3000 = 16800
    assert table.call_cost("b:m", usage) == pytest.approx(0.0168)


def test_one_hour_cache_writes_are_priced_at_cache_write_1h_else_at_cache_write() -> None:
    table = PriceTable.model_validate(
        {
            "version": "t",
            "currency_rates": {"USD": 1.0},
            "models": [
                {"match": "a:*", "input": 3.0, "cached_input": 0.3, "cache_write": 3.75,
                 "cache_write_1h": 6.0, "output": 15.0},
                {"match": "b:*", "input": 3.0, "cached_input": 0.3, "cache_write": 3.75, "output": 15.0},
                {"match": "c:*", "input": 3.0, "cached_input": 0.3, "output": 15.0},
            ],
        }
    )  # fmt: skip
    usage = Usage(
        input_tokens=10_000, cached_input_tokens=6_000, cache_write_input_tokens=3_000,
        cache_write_1h_input_tokens=1_000, output_tokens=200,
    )  # fmt: skip
    # a: 1000·3 + 6000·0.3 + 2000·3.75 + 1000·6 + 200·15 = 3000 + 1800 + 7500 + 6000 + 3000 = 21300
    assert table.call_cost("a:m", usage) == pytest.approx(0.0213)
    # b (no cache_write_1h): every write at cache_write, as before: 19050
    assert table.call_cost("b:m", usage) == pytest.approx(0.01905)
    # c (no write prices at all): SPEC §4 as written: 16800
    assert table.call_cost("c:m", usage) == pytest.approx(0.0168)
    # 1-hour writes never exceed the writes: 5000 claimed, 3000 written, all 3000 at 6.0
    over = usage.model_copy(update={"cache_write_1h_input_tokens": 5_000})
    assert table.call_cost("a:m", over) == pytest.approx((3000 + 1800 + 3000 * 6 + 3000) / 1e6)


@pytest.mark.parametrize(
    ("model", "rate"),
    [
        ("openai:gpt-5", (1.25, 10.0)),
        ("openai:gpt-5?api=responses", (1.25, 10.0)),
        ("openai:gpt-5-2025-08-07", (1.25, 10.0)),
        ("openai:gpt-5-pro", (15.0, 120.0)),  # was gpt-5's rate: a glob gpt-5* took it
        ("openai:o3", (2.0, 8.0)),
        ("openai:o3-mini", (1.1, 4.4)),  # was o3's rate
        ("openai:gpt-4o-2024-05-13", (5.0, 15.0)),  # was gpt-4o's rate
        ("openai:o3-pro", None),  # not listed: no price rather than o3's
        ("openai:o4-mini-deep-research", None),
        ("openai:gpt-5.4", None),
        ("openai-compatible:deepseek-chat", (2.0, 3.0)),
        ("openai-compatible:deepseek-r1:7b", None),  # self-hosted under the same family name
    ],
)
def test_prices_apply_to_the_models_they_name_and_no_other(
    model: str, rate: tuple[float, float] | None
) -> None:
    price = load_prices().lookup(model)
    assert (None if price is None else (price.input, price.output)) == rate


@pytest.mark.parametrize("model", ["anthropic:claude-sonnet-4-20250514", "anthropic:claude-sonnet-4-0"])
def test_sonnet_4_calls_above_200k_input_tokens_are_priced_at_the_long_context_tier(model: str) -> None:
    """Regression: Sonnet 4 fell to the general `claude-sonnet-4*` entry, which has no tier, so a
    call of its 1M-token context window above 200K input tokens was priced at half its rate."""
    prices = load_prices()
    # above 200K: 300000·6 + 1000·22.5 = 1,822,500 per 1e6 (the whole call at the high tier)
    assert prices.call_cost(model, Usage(input_tokens=300_000, output_tokens=1_000)) == pytest.approx(1.8225)
    # at 200K, the base prices: 200000·3 + 1000·15 = 615,000 per 1e6
    assert prices.call_cost(model, Usage(input_tokens=200_000, output_tokens=1_000)) == pytest.approx(0.615)
