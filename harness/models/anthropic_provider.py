"""`anthropic:MODEL` — the Anthropic Messages API with tool use, through `anthropic.AsyncAnthropic`.

Mapping, both ways:
- system messages → `system`; user text → user text blocks; assistant text and tool calls →
  `text` + `tool_use` blocks; tool results → `tool_result` blocks (`is_error` set) in one user
  message per step; consecutive same-role messages are merged, as the API requires.
- The text of a response is its text blocks in order: adjacent ones run on (a passage split at
  its citations), passages parted by a tool call or thinking are separated by a blank line.
- A response with `thinking`/`redacted_thinking` blocks, or with text after a tool call, keeps
  its whole content in `provider_state["anthropic"]`, sent back unchanged on the next call
  (signatures intact, blocks in their order) but for `tool_use` ids, made distinct when
  parsing (a missing one invented, a repeated one suffixed) so that they match the
  `tool_result` blocks. A `tool_use` name the API refuses (one the model invented) is sent
  back as `wire_text.api_tool_name` makes it, in rebuilt and kept turns alike.
- What the API refuses in a history is never sent: an empty text block, a blank one in a turn
  with no other text, a turn whose last block is thinking (`_sendable`; EMPTY marks a blank turn).
- Usage: Anthropic's `input_tokens` excludes cache reads and writes; the harness's
  `input_tokens` is the total (input + cache read + cache creation), `cached_input_tokens`
  the cache reads, `cache_write_input_tokens` the cache creation (of which
  `cache_write_1h_input_tokens` went to the 1-hour cache, `cache_creation.ephemeral_1h_input_tokens`),
  `reasoning_tokens` the thinking tokens.

Settings: `max_output_tokens` → `max_tokens`; `reasoning_effort` → adaptive thinking with
`output_config.effort` (`none` turns thinking off). `temperature` is never sent: the API version
the SDK speaks (2026-10-21) rejects every sampling parameter. Extra request fields
(`ModelSettings.extra`, see `provider_common.request_extras`) go into the body as given and win.
The SDK's own retries are off: the harness's policy counts them (SPEC §2).
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Sequence
from typing import Any

from contracts.episode import Usage
from harness.models.base import (
    AssistantMessage,
    Message,
    ModelAPIError,
    ModelResponse,
    ModelSettings,
    SystemMessage,
    ToolCall,
    ToolMessage,
    ToolSpec,
    UserMessage,
)
from harness.models.provider_common import (
    CONNECT_TIMEOUT_S,
    REQUEST_TIMEOUT_S,
    answer_object,
    api_key,
    direct_client,
    distinct_ids,
    keyless,
    merged,
    read_answer,
    request_extras,
    request_timeout_s,
    sdk_error,
    split_options,
    warn_no_usage,
)
from harness.models.wire_text import api_tool_name

PROVIDER = "anthropic"
DEFAULT_KEY_ENV = "ANTHROPIC_API_KEY"
STATE_KEY = "anthropic"
THINKING_TYPES = frozenset({"thinking", "redacted_thinking"})
# The API rejects text blocks that are empty, or blank (whitespace only) in a message with no
# other text, and a turn ending in thinking: such a turn is sent with this marker (`_sendable`).
EMPTY = "(empty)"


def check(model_id: str, base_url: str | None, api_key_env: str | None) -> str:
    """Validate what `make` needs, without the SDK; return the API key. Raises `InputError`."""
    split_options(model_id, {})
    return api_key(PROVIDER, api_key_env, DEFAULT_KEY_ENV)


def make(
    model_id: str, settings: ModelSettings, base_url: str | None, api_key_env: str | None
) -> AnthropicModel:
    """The registry's factory for `anthropic:MODEL`."""
    key = check(model_id, base_url, api_key_env)
    return AnthropicModel(model_id, api_key=key, base_url=base_url, key_env=api_key_env or DEFAULT_KEY_ENV)


# -- requests ------------------------------------------------------------------------------------
def _text_block(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text if text.strip() else EMPTY}


def _assistant_blocks(m: AssistantMessage) -> list[dict[str, Any]]:
    state = (m.provider_state or {}).get(STATE_KEY)
    if isinstance(state, dict) and isinstance(state.get("content"), list):
        return _sendable([_replayable(b) for b in state["content"]])
    blocks: list[dict[str, Any]] = [_text_block(m.content)] if m.content.strip() or not m.tool_calls else []
    for call in m.tool_calls:
        args: Any = call.arguments if call.arguments is not None else {}
        blocks.append({"type": "tool_use", "id": call.id, "name": api_tool_name(call.name), "input": args})
    return blocks


def _replayable(block: Any) -> Any:
    """A kept content block as sent back: unchanged, but for a `tool_use` name the API refuses
    and an `input` that is not an object (a compatible server's string), sent as `{}` as a
    rebuilt turn sends it: the API refuses any other input, and with it the whole request."""
    if isinstance(block, dict) and block.get("type") == "tool_use":
        raw = block.get("input")
        return {
            **block,
            "name": api_tool_name(str(block.get("name") or "")),
            "input": raw if isinstance(raw, dict) else {},
        }
    return block


def _sendable(blocks: list[Any]) -> list[Any]:
    """A kept turn's blocks as the API takes them back. It refuses an empty text block, a blank
    one when no text block of the turn has more (Claude may write a bare line break before a
    tool call), and a turn whose last block is thinking (a reply cut off at max_tokens while it
    thought): each in the history, and so every later request of the agent. Empty and such blank
    text blocks are left out; a turn left empty or ending in thinking gets the EMPTY marker."""
    texts = [str(b.get("text") or "") for b in blocks if isinstance(b, dict) and b.get("type") == "text"]
    keep_blank = any(t.strip() for t in texts)

    def kept(b: Any) -> bool:
        if not (isinstance(b, dict) and b.get("type") == "text"):
            return True
        text = str(b.get("text") or "")
        return bool(text.strip() or (keep_blank and text))

    out = [b for b in blocks if kept(b)]
    if not out or (isinstance(out[-1], dict) and out[-1].get("type") in THINKING_TYPES):
        out.append(_text_block(""))
    return out


def to_wire(messages: Sequence[Message]) -> tuple[str, list[dict[str, Any]]]:
    """The `system` text and the `messages` list of a Messages API request."""
    system: list[str] = []
    wire: list[dict[str, Any]] = []
    for m in messages:
        role: str
        if isinstance(m, SystemMessage):
            system.append(m.content)
            continue
        if isinstance(m, UserMessage):
            role, blocks = "user", [_text_block(m.content)]
        elif isinstance(m, ToolMessage):
            result = {
                "type": "tool_result",
                "tool_use_id": m.tool_call_id,
                "content": m.content if m.content.strip() else "(no output)",
                "is_error": m.is_error,
            }
            role, blocks = "user", [result]
        else:
            role, blocks = "assistant", _assistant_blocks(m)
        if wire and wire[-1]["role"] == role:
            wire[-1]["content"].extend(blocks)
        else:
            wire.append({"role": role, "content": blocks})
    return "\n\n".join(system), wire


def tools_to_wire(tools: Sequence[ToolSpec]) -> list[dict[str, Any]]:
    return [{"name": t.name, "description": t.description, "input_schema": t.input_schema} for t in tools]


def request_body(
    model_id: str, messages: Sequence[Message], tools: Sequence[ToolSpec], settings: ModelSettings
) -> dict[str, Any]:
    system, wire = to_wire(messages)
    body: dict[str, Any] = {"model": model_id, "max_tokens": settings.max_output_tokens, "messages": wire}
    if system:
        body["system"] = system
    if tools:
        body["tools"] = tools_to_wire(tools)
    effort = settings.reasoning_effort
    if effort == "none":
        body["thinking"] = {"type": "disabled"}
    elif effort:
        body["thinking"] = {"type": "adaptive"}
        body["output_config"] = {"effort": effort}
    return merged(body, request_extras(settings.extra, PROVIDER))


# -- responses -----------------------------------------------------------------------------------
def _tool_call(block: dict[str, Any]) -> ToolCall:
    raw = block.get("input")
    if isinstance(raw, dict):
        return ToolCall(id=str(block.get("id", "")), name=str(block.get("name", "")), arguments=raw)
    text = raw if isinstance(raw, str) else json.dumps(raw)
    return ToolCall(
        id=str(block.get("id", "")), name=str(block.get("name", "")), arguments=None, raw_arguments=text
    )


def usage_from_wire(u: dict[str, Any] | None) -> Usage:
    u = u or {}
    read = int(u.get("cache_read_input_tokens") or 0)
    created = int(u.get("cache_creation_input_tokens") or 0)
    ttl = u.get("cache_creation") or {}
    details = u.get("output_tokens_details") or {}
    return Usage(
        input_tokens=int(u.get("input_tokens") or 0) + read + created,
        cached_input_tokens=read,
        cache_write_input_tokens=created,
        cache_write_1h_input_tokens=min(int(ttl.get("ephemeral_1h_input_tokens") or 0), created),
        output_tokens=int(u.get("output_tokens") or 0),
        reasoning_tokens=int(details.get("thinking_tokens") or 0),
    )


def from_wire(data: dict[str, Any]) -> tuple[AssistantMessage, Usage, str | None]:
    """The assistant message, usage and stop reason of a Messages API response body."""
    blocks: list[dict[str, Any]] = [dict(b) for b in data.get("content") or []]
    uses = [b for b in blocks if b.get("type") == "tool_use"]
    # Distinct ids, written into the blocks kept for replay too, so they match the results.
    for block, ident in zip(uses, distinct_ids([b.get("id") for b in uses], "toolu_"), strict=True):
        block["id"] = ident
    calls = tuple(_tool_call(b) for b in uses)
    # Kept whole when rebuilding the turn (its text, then its calls) would lose something: the
    # thinking blocks, or text written after a tool call.
    types = [b.get("type") for b in blocks]
    after_call = "tool_use" in types and "text" in types[types.index("tool_use") :]
    keep = after_call or any(t in THINKING_TYPES for t in types)
    state = {STATE_KEY: {"content": blocks}} if keep else None
    message = AssistantMessage(content=_text(blocks), tool_calls=calls, provider_state=state)
    return message, usage_from_wire(data.get("usage")), data.get("stop_reason")


def _text(blocks: list[dict[str, Any]]) -> str:
    """The answer's text in order: adjacent text blocks run on (the API splits a passage at its
    citations); passages parted by a tool call or thinking are separated by a blank line."""
    passages: list[str] = []
    run_on = False
    for block in blocks:
        if block.get("type") != "text":
            run_on = False
            continue
        piece = str(block.get("text") or "")
        if run_on:
            passages[-1] += piece
        else:
            passages.append(piece)
        run_on = True
    return "\n\n".join(p for p in passages if p)


# -- the model -----------------------------------------------------------------------------------
class AnthropicModel:
    def __init__(
        self, model_id: str, *, api_key: str, base_url: str | None = None, key_env: str | None = None
    ) -> None:
        import anthropic

        self.name = f"{PROVIDER}:{model_id}"
        self.model_id = model_id
        self.key_env = key_env
        self.base_url = base_url
        self._sdk = anthropic
        self._said_no_usage = False  # a server that reports no usage is told about once
        self._key = api_key  # kept to take it out of error messages
        self.client = anthropic.AsyncAnthropic(
            api_key=api_key,
            base_url=base_url,
            max_retries=0,
            timeout=anthropic.Timeout(REQUEST_TIMEOUT_S, connect=CONNECT_TIMEOUT_S),
            http_client=direct_client(anthropic, base_url),
        )

    async def generate(
        self, messages: Sequence[Message], tools: Sequence[ToolSpec], settings: ModelSettings
    ) -> ModelResponse:
        return await keyless(self._generate(messages, tools, settings), self._key)

    async def _generate(
        self, messages: Sequence[Message], tools: Sequence[ToolSpec], settings: ModelSettings
    ) -> ModelResponse:
        body = request_body(self.model_id, messages, tools, settings)
        model, max_tokens, wire = body.pop("model"), body.pop("max_tokens"), body.pop("messages")
        sdk = self._sdk
        limit = request_timeout_s(max_tokens)
        t0 = time.perf_counter()
        try:
            # The SDK's timeout bounds each read, not the call: the whole call gets `limit` too.
            async with asyncio.timeout(limit):
                result = await self.client.messages.create(
                    model=model, max_tokens=max_tokens, messages=wire, extra_body=body,
                    timeout=sdk.Timeout(limit, connect=CONNECT_TIMEOUT_S),
                )  # fmt: skip
        except Exception as exc:
            if (error := sdk_error(sdk, exc, PROVIDER, self.name, self.key_env, self.base_url)) is None:
                raise
            raise error from exc
        latency = time.perf_counter() - t0
        data = answer_object(result, self.name)
        message, usage, stop = read_answer(from_wire, data, self.name, "content")
        if not data.get("usage") and not self._said_no_usage:
            self._said_no_usage = True
            warn_no_usage(self.name)
        if stop == "model_context_window_exceeded":
            raise ModelAPIError(
                "context_overflow",
                f"{self.name}: the context window is full",
                usage=usage,
                usage_reported=bool(data.get("usage")),  # billed, but at a cost unknown without counts
            )
        return ModelResponse(
            message=message,
            usage=usage,
            latency_s=latency,
            stop_reason=stop,
            usage_reported=bool(data.get("usage")),
        )

    async def aclose(self) -> None:
        await self.client.close()
