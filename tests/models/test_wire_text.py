"""What crosses the wire is made safe for the other end (`harness.models.wire_text`): lone
surrogates in a server's answer, tool names the model invented in replayed history."""

from __future__ import annotations

import json
from typing import Any

import pytest

from harness.models import anthropic_provider as ap
from harness.models import openai_provider as op
from harness.models import openai_responses as ors
from harness.models.base import AssistantMessage, Message, ModelAPIError, ToolCall, ToolMessage, UserMessage
from harness.models.openai_wire import parse_arguments
from harness.models.wire_text import TOOL_NAME, api_tool_name, without_lone_surrogates
from tests.models.episodes import KEY, KEY_ENV, ROUTES, answer, one_call
from tests.models.fake_llm import Dialect, FakeLLM, Fault, Reply

HIGH, LOW = "\ud800", "\udc00"  # lone surrogates, as `\ud800` escapes in JSON decode
FFFD = "\ufffd"
SMILE = "\U0001f600"  # a proper pair (`\ud83d\ude00` in escaped JSON): kept as it is
DIALECTS = ["anthropic", "openai", "openai-responses"]  # Messages, Chat Completions, Responses


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, KEY)


# -- lone surrogates ------------------------------------------------------------------------------
def test_lone_surrogates_are_replaced_everywhere_in_a_json_value() -> None:
    value = {f"k{HIGH}": [f"a{LOW}b", {"n": HIGH + HIGH}, 1, None, True], "pair": "\ud83d\ude00"}
    assert without_lone_surrogates(value) == {
        f"k{FFFD}": [f"a{FFFD}b", {"n": FFFD + FFFD}, 1, None, True],
        "pair": SMILE,  # a high and a low surrogate side by side are one character
    }
    assert without_lone_surrogates("plain") == "plain"
    # argument text is JSON inside JSON: its own escapes decode only when it is parsed
    assert parse_arguments('{"q\\ud800": ["\\udc00"]}') == ({f"q{FFFD}": [FFFD]}, None)
    assert parse_arguments({"q": HIGH}) == ({"q": FFFD}, None)
    assert parse_arguments(f"not json {HIGH}") == (None, f"not json {FFFD}")


@pytest.mark.parametrize("name", DIALECTS)
async def test_lone_surrogates_in_an_answer_never_reach_the_store_or_the_next_request(name: str) -> None:
    """A server's JSON may carry `\\ud800` escapes: the lone surrogates they decode to went into
    the answer's text, tool names, arguments and reasoning, and the store, the JSON export and
    the next request (which replays the answer) failed to encode them as UTF-8."""
    route = ROUTES[name]
    reply = Reply(
        text=f"a{HIGH}b{SMILE}",
        calls=((f"find{LOW}", {f"k{HIGH}": [f"v{LOW}", {"n": f"x{HIGH}"}]}),),
        thinking=f"hm{HIGH}",
        escaped=True,
    )
    with FakeLLM(route.dialect, answer(reply)) as fake:
        response = await one_call(fake, route)
        message = response.message
        (call,) = message.tool_calls
        history: list[Message] = [
            UserMessage(content="go"),
            message,
            ToolMessage(tool_call_id=call.id, name=call.name, content="no such tool", is_error=True),
        ]
        await one_call(fake, route, history)  # the answer replayed: encoded as UTF-8 by the SDK
    assert message.content == f"a{FFFD}b{SMILE}"
    assert call.name == f"find{FFFD}"
    assert call.arguments == {f"k{FFFD}": [f"v{FFFD}", {"n": f"x{FFFD}"}]}
    stored = json.dumps(response.model_dump(mode="json"), ensure_ascii=False)
    assert f"hm{FFFD}" in stored  # the reasoning, kept for replay
    stored.encode("utf-8")  # what the store and the export do with it
    assert len(fake.requests) == 2 and not fake.errors


@pytest.mark.parametrize("name", ["anthropic", "openai"])
async def test_lone_surrogates_in_an_error_message_are_replaced(name: str) -> None:
    """An error body's message goes into events and the episode's reason, both stored."""
    route = ROUTES[name]
    body = {"type": "error", "error": {"type": "invalid_request_error", "message": f"bad {HIGH} input"}}
    with FakeLLM(route.dialect, answer(Reply())) as fake, pytest.raises(ModelAPIError) as caught:
        fake.fail_next(Fault(400, raw=json.dumps(body).encode()))
        await one_call(fake, route)
    assert caught.value.message == f"HTTP 400: bad {FFFD} input [invalid_request_error]"


# -- tool names in replayed history ---------------------------------------------------------------
INVENTED = "functions.search docs/\u00fc" + "x" * 60  # a dot, a space, a slash, a non-ASCII letter
SENT = "functions_search_docs__" + "x" * 41  # 23 + 41 = 64 characters


def test_a_tool_name_outside_the_apis_pattern_is_made_to_fit() -> None:
    assert api_tool_name(INVENTED) == SENT
    assert api_tool_name("") == "_"
    assert api_tool_name("mcp__lms__list_courses") == "mcp__lms__list_courses"  # valid: unchanged
    assert api_tool_name("find\n") == "find_"  # `$` would let a trailing line break through
    assert api_tool_name("y" * 65) == "y" * 64


def _replayed(dialect: Dialect, body: dict[str, Any]) -> tuple[list[tuple[str, str]], list[str]]:
    """(name, id) of each replayed tool call, and the ids of the results, in a request's body."""
    calls: list[tuple[str, str]] = []
    results: list[str] = []
    if dialect == "anthropic":
        for block in [b for m in body["messages"] for b in m["content"] if isinstance(b, dict)]:
            if block["type"] == "tool_use":
                calls.append((block["name"], block["id"]))
            elif block["type"] == "tool_result":
                results.append(block["tool_use_id"])
    elif dialect == "chat":
        for m in body["messages"]:
            calls += [(c["function"]["name"], c["id"]) for c in m.get("tool_calls") or []]
            if m["role"] == "tool":
                results.append(m["tool_call_id"])
    else:
        for item in body["input"]:
            if item.get("type") == "function_call":
                calls.append((item["name"], item["call_id"]))
            elif item.get("type") == "function_call_output":
                results.append(item["call_id"])
    return calls, results


@pytest.mark.parametrize("name", DIALECTS)
@pytest.mark.parametrize("thinking", [None, "plan"], ids=["rebuilt", "kept"])
async def test_an_invented_tool_name_is_replayed_as_the_api_accepts_it(
    name: str, thinking: str | None
) -> None:
    """The services refuse a whole request whose history holds a tool name outside
    `^[a-zA-Z0-9_-]{1,64}$`: one call to a tool the model invented ended the episode. With
    thinking, Anthropic's turn is replayed from its kept blocks (Responses always is)."""
    route = ROUTES[name]
    first = Reply(calls=((INVENTED, {"q": 1}), ("", {})), thinking=thinking)
    with FakeLLM(route.dialect, answer(first)) as fake:
        message = (await one_call(fake, route)).message
        assert [c.name for c in message.tool_calls] == [INVENTED, ""]  # recorded as the model wrote them
        history: list[Message] = [UserMessage(content="go"), message]
        history += [
            ToolMessage(tool_call_id=c.id, name=c.name, content="unknown tool", is_error=True)
            for c in message.tool_calls
        ]
        await one_call(fake, route, history)
        calls, results = _replayed(route.dialect, fake.requests[1].body)
    assert [n for n, _ in calls] == [SENT, "_"]
    assert all(TOOL_NAME.fullmatch(n) for n, _ in calls)
    assert [i for _, i in calls] == results == [c.id for c in message.tool_calls]  # still paired
    if name == "anthropic" and thinking:  # the kept turn itself is unchanged: fixed as it is sent
        assert message.provider_state is not None
        blocks = message.provider_state["anthropic"]["content"]
        assert [b["name"] for b in blocks if b["type"] == "tool_use"] == [INVENTED, ""]


def test_a_turn_without_kept_state_is_replayed_with_names_that_fit_too() -> None:
    """A turn rebuilt from its tool calls (no kept Responses items, as from another provider or
    a scripted model) goes through the same names as a kept one."""
    call = ToolCall(id="c1", name=INVENTED, arguments={})
    history: list[Message] = [
        UserMessage(content="go"),
        AssistantMessage(content="", tool_calls=(call,)),
        ToolMessage(tool_call_id="c1", name=INVENTED, content="unknown tool", is_error=True),
    ]
    (item,) = [i for i in ors.responses_input(history)[1] if i["type"] == "function_call"]
    assert (item["name"], item["call_id"]) == (SENT, "c1")
    (chat,) = op.chat_messages(history)[1]["tool_calls"]
    assert (chat["function"]["name"], chat["id"]) == (SENT, "c1")
    (use,) = ap.to_wire(history)[1][1]["content"]
    assert (use["name"], use["id"]) == (SENT, "c1")


def test_a_kept_tool_use_whose_input_is_no_object_is_replayed_with_an_empty_one() -> None:
    """A compatible server's `tool_use` with a string `input`, kept whole (its turn has
    thinking), went back as that string, and the API refused the whole request. It goes back as
    `{}`, as a rebuilt turn sends arguments that were no object; the model saw the tool error."""
    kept = [
        {"type": "thinking", "thinking": "t", "signature": "s"},
        {"type": "tool_use", "id": "c1", "name": "mcp__local__todo_read", "input": '{"a": '},
    ]
    call = ToolCall(id="c1", name="mcp__local__todo_read", arguments=None, raw_arguments='{"a": ')
    turn = AssistantMessage(content="", tool_calls=(call,), provider_state={ap.STATE_KEY: {"content": kept}})
    thinking, use = ap.to_wire([UserMessage(content="go"), turn])[1][1]["content"]
    assert thinking == kept[0] and use == {**kept[1], "input": {}}
    assert kept[1]["input"] == '{"a": '  # the kept turn itself is not changed
