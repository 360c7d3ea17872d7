"""The OpenAI Responses API wire mapping, for `openai:MODEL?api=responses` (and compatible servers).

Messages become `instructions` (the system text) and input items: `message`, `function_call`,
`function_call_output`. Calls run stateless (`store: false`): each response's output items are
kept in `provider_state` and replayed on the next call (without server ids or status), so
reasoning items with their `encrypted_content` carry the model's reasoning across tool calls; a
reasoning item without it is dropped. Distinct call ids are written into the kept items too, so
replayed calls match their results; a call's name is replayed as the API accepts it
(`wire_text.api_tool_name`).

Settings: `max_output_tokens` → `max_output_tokens`; `reasoning_effort` → `reasoning.effort`;
`temperature` as for Chat Completions (not sent to OpenAI's reasoning models); OpenAI is asked
to `include` `reasoning.encrypted_content` for a reasoning model or when an effort is set.
Extras win over everything. An answer with `status: failed` raises `ModelAPIError`, its kind
read from `error.code` (`failed_kind`). The provider class that dispatches here, and the helpers
both formats share, are in `openai_provider`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from contracts.episode import Usage
from harness.models.base import (
    AssistantMessage,
    ErrorKind,
    Message,
    ModelAPIError,
    ModelSettings,
    SystemMessage,
    ToolCall,
    ToolMessage,
    ToolSpec,
    UserMessage,
)
from harness.models.openai_wire import (
    arguments_text,
    is_reasoning_model,
    result_text,
    token_usage,
    tool_call,
)
from harness.models.provider_common import distinct_ids, is_overflow, merged, request_extras
from harness.models.wire_text import api_tool_name

RESPONSES_STATE = "openai_responses"


def _replayable(item: dict[str, Any]) -> dict[str, Any] | None:
    """An output item as input for the next stateless call: without server ids or status, a
    call's name as the API accepts it."""
    if item.get("type") == "reasoning" and not item.get("encrypted_content"):
        return None  # a bare reasoning item refers to server state that `store: false` never kept
    out = {k: v for k, v in item.items() if k not in ("id", "status")}
    if out.get("type") == "function_call":
        out["name"] = api_tool_name(str(out.get("name") or ""))
    return out


def responses_input(messages: Sequence[Message]) -> tuple[str, list[dict[str, Any]]]:
    instructions: list[str] = []
    items: list[dict[str, Any]] = []
    for m in messages:
        if isinstance(m, SystemMessage):
            instructions.append(m.content)
        elif isinstance(m, UserMessage):
            items.append({"type": "message", "role": "user", "content": m.content})
        elif isinstance(m, ToolMessage):
            items.append(
                {"type": "function_call_output", "call_id": m.tool_call_id, "output": result_text(m)}
            )
        else:
            state = (m.provider_state or {}).get(RESPONSES_STATE) or {}
            if isinstance(state.get("output"), list):
                items += [r for r in map(_replayable, state["output"]) if r is not None]
                continue
            if m.content:
                items.append({"type": "message", "role": "assistant", "content": m.content})
            items += [
                {
                    "type": "function_call",
                    "call_id": c.id,
                    "name": api_tool_name(c.name),
                    "arguments": arguments_text(c, False),
                }
                for c in m.tool_calls
            ]
    return "\n\n".join(instructions), items


def responses_tools(tools: Sequence[ToolSpec]) -> list[dict[str, Any]]:
    return [
        {
            "type": "function",
            "name": t.name,
            "description": t.description,
            "parameters": t.input_schema,
            "strict": False,
        }
        for t in tools
    ]


def responses_body(
    provider: str, model: str, messages: Sequence[Message], tools: Sequence[ToolSpec], settings: ModelSettings
) -> dict[str, Any]:
    instructions, items = responses_input(messages)
    body: dict[str, Any] = {"model": model, "input": items, "store": False}
    if instructions:
        body["instructions"] = instructions
    if tools:
        body["tools"] = responses_tools(tools)
    reasoning = is_reasoning_model(provider, model)
    if settings.temperature is not None and not reasoning:
        body["temperature"] = settings.temperature
    body["max_output_tokens"] = settings.max_output_tokens
    if settings.reasoning_effort:
        body["reasoning"] = {"effort": settings.reasoning_effort}
    if provider == "openai" and (reasoning or settings.reasoning_effort):
        body["include"] = ["reasoning.encrypted_content"]
    return merged(body, request_extras(settings.extra, provider))


def failed_kind(code: str, message: str) -> ErrorKind:
    """The error kind of a Responses answer with `status: failed`, by its `error.code`.

    Only `server_error` and `rate_limit_exceeded` pass with time; every other code
    (`invalid_prompt`, the policy codes, `invalid_image*`, …) fails the same way again. The API
    has no context-length code (that is a 400), but a compatible server may say it here.
    """
    if is_overflow(code, message):
        return "context_overflow"
    if code in ("server_error", ""):  # no code at all: an unexplained fault on the server's side
        return "server_error"
    return "rate_limit" if code == "rate_limit_exceeded" else "bad_request"


def responses_from_wire(data: dict[str, Any]) -> tuple[AssistantMessage, Usage, str | None]:
    u = data.get("usage") or {}
    usage = token_usage(
        u.get("input_tokens"),
        (u.get("input_tokens_details") or {}).get("cached_tokens"),
        u.get("output_tokens"),
        (u.get("output_tokens_details") or {}).get("reasoning_tokens"),
    )
    if data.get("status") == "failed":
        error = data.get("error") or {}
        code, text = str(error.get("code") or ""), str(error.get("message") or "")
        reason = f"{text} [{code}]" if code and text else text or code or "no reason given"
        raise ModelAPIError(
            failed_kind(code, text), f"the response failed: {reason}", usage=usage if u else None
        )
    output: list[dict[str, Any]] = [dict(item) for item in data.get("output") or []]
    functions = [item for item in output if item.get("type") == "function_call"]
    # Distinct call ids, written into the items kept for replay too, so they match the outputs.
    for item, ident in zip(
        functions, distinct_ids([i.get("call_id") for i in functions], "call_"), strict=True
    ):
        item["call_id"] = ident
    texts: list[str] = []
    calls: list[ToolCall] = []
    for item in output:
        if item.get("type") == "message":  # one passage per message item, as Anthropic's text blocks
            texts.append("".join(p.get("text") or p.get("refusal") or "" for p in item.get("content") or []))
        elif item.get("type") == "function_call":
            calls.append(tool_call(item["call_id"], item.get("name"), item.get("arguments")))
    stop = (data.get("incomplete_details") or {}).get("reason") or data.get("status")
    message = AssistantMessage(
        content="\n\n".join(t for t in texts if t),
        tool_calls=tuple(calls),
        provider_state={RESPONSES_STATE: {"output": output}},
    )
    return message, usage, stop
