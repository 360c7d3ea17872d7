"""`openai:MODEL` and `openai-compatible:MODEL` through `openai.AsyncOpenAI`: the provider
class, its factories and pre-flight checks, and the Chat Completions mapping (the helpers both
wire formats share are in `openai_wire`).

Two wire formats:
- Chat Completions (the default, mapped here): system/user/assistant messages, `tool_calls` on
  assistant messages, `role: tool` messages for results, `tools=[{"type": "function", ...}]`.
- The Responses API, chosen per model with the name option `?api=responses`
  (`openai:gpt-5.2?api=responses`), mapped in `openai_responses` (stateless, with reasoning
  items replayed).

Tool-call ids are made distinct when parsing (a missing one invented, a repeated one suffixed
`-N`); a call's name is replayed as the API accepts it (`wire_text.api_tool_name`).

`openai-compatible:MODEL` is Chat Completions at `--base-url` (vLLM, Ollama, llama.cpp, SGLang,
DeepSeek, GLM, Kimi, Qwen, MiniMax…); the key comes from the variable named by `--api-key-env`,
or is "EMPTY" when none is named (local servers accept any key). A `reasoning_content` or
`reasoning` field a server returns (DeepSeek, Kimi, vLLM reasoning parsers) is kept and sent
back with its turn, under the same name, as are OpenRouter's `reasoning_details` and each tool
call's `extra_content` (Gemini's thought signatures). DeepSeek's `prompt_cache_hit_tokens`, else Moonshot's
top-level `cached_tokens` (Kimi), counts as cached input when `prompt_tokens_details.cached_tokens`
is absent.

Tool arguments that are not a JSON object become `ToolCall(arguments=None, raw_arguments=…)`:
the runtime answers with a tool error and the episode goes on. Chat Completions has no error
flag on tool results, so an error result is sent as "Error: <text>".

Settings (Chat Completions): `max_output_tokens` → `max_completion_tokens` (OpenAI) or
`max_tokens` (compatible servers, which all know it); `reasoning_effort` → `reasoning_effort`;
`temperature` is sent except to OpenAI's reasoning models (o-series, gpt-5 and later), which
reject it — put `temperature` in the extras to force it. Extras win over everything.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Sequence
from typing import Any, Literal

from contracts.episode import Usage
from contracts.errors import InputError
from harness.models import openai_responses
from harness.models.base import (
    AssistantMessage,
    ErrorKind,
    Message,
    ModelAPIError,
    ModelResponse,
    ModelSettings,
    SystemMessage,
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
from harness.models.provider_common import (
    CONNECT_TIMEOUT_S,
    REQUEST_TIMEOUT_S,
    answer_object,
    api_key,
    direct_client,
    distinct_ids,
    error_text,
    is_overflow,
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

Api = Literal["chat", "responses"]
OPTIONS = {"api": ("chat", "responses")}
DEFAULT_KEY_ENV = "OPENAI_API_KEY"
COMPATIBLE_KEY = "EMPTY"
CHAT_STATE = "openai_chat"
# A compatible server's reasoning text on the assistant message: `reasoning_content` (DeepSeek,
# Kimi, older vLLM reasoning parsers) or `reasoning` (vLLM since late 2025, OpenRouter).
REASONING_FIELDS = ("reasoning_content", "reasoning")
# OpenRouter's structured reasoning on the assistant message (a list, encrypted parts included),
# which it asks to be sent back unchanged; and what a server adds to a tool call beside its
# function (Gemini's `extra_content.google.thought_signature`, which Gemini 3 requires back on
# every replayed call), kept per call id.
REASONING_DETAILS = "reasoning_details"
CALL_EXTRA = "extra_content"


def check(model_id: str, base_url: str | None, api_key_env: str | None) -> str:
    """Validate what `make` needs, without the SDK; return the API key. Raises `InputError`."""
    split_options(model_id, OPTIONS)
    return api_key("openai", api_key_env, DEFAULT_KEY_ENV)


def check_compatible(model_id: str, base_url: str | None, api_key_env: str | None) -> str:
    """As `check`, for `openai-compatible:MODEL` (a base URL is required; the key is not)."""
    split_options(model_id, OPTIONS)
    if not base_url:
        raise InputError.one(
            "--base-url",
            None,
            f"openai-compatible:{model_id} needs --base-url (e.g. http://127.0.0.1:8000/v1)",
        )
    return api_key("openai-compatible", api_key_env, None, fallback=COMPATIBLE_KEY)


def make(
    model_id: str, settings: ModelSettings, base_url: str | None, api_key_env: str | None
) -> OpenAIModel:
    """The registry's factory for `openai:MODEL[?api=chat|responses]`."""
    key = check(model_id, base_url, api_key_env)
    base, options = split_options(model_id, OPTIONS)
    return OpenAIModel(
        "openai", model_id, base, api=_api(options), api_key=key, base_url=base_url,
        key_env=api_key_env or DEFAULT_KEY_ENV,
    )  # fmt: skip


def make_compatible(
    model_id: str, settings: ModelSettings, base_url: str | None, api_key_env: str | None
) -> OpenAIModel:
    """The registry's factory for `openai-compatible:MODEL` (needs `--base-url`)."""
    key = check_compatible(model_id, base_url, api_key_env)
    base, options = split_options(model_id, OPTIONS)
    return OpenAIModel(
        "openai-compatible",
        model_id,
        base,
        api=_api(options),
        api_key=key,
        base_url=base_url,
        key_env=api_key_env,
    )


def _api(options: dict[str, str]) -> Api:
    return "responses" if options.get("api") == "responses" else "chat"


# -- Chat Completions -----------------------------------------------------------------------------
def chat_messages(messages: Sequence[Message], strict_json: bool = False) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for m in messages:
        if isinstance(m, SystemMessage | UserMessage):
            out.append({"role": m.role, "content": m.content})
        elif isinstance(m, ToolMessage):
            out.append({"role": "tool", "tool_call_id": m.tool_call_id, "content": result_text(m)})
        else:
            item: dict[str, Any] = {
                "role": "assistant",
                "content": m.content or (None if m.tool_calls else ""),
            }
            state = (m.provider_state or {}).get(CHAT_STATE) or {}
            extras = state.get(CALL_EXTRA) or {}
            if m.tool_calls:
                item["tool_calls"] = [
                    {"id": c.id, "type": "function",
                     "function": {"name": api_tool_name(c.name),
                                  "arguments": arguments_text(c, strict_json)},
                     **({CALL_EXTRA: extras[c.id]} if c.id in extras else {})}
                    for c in m.tool_calls
                ]  # fmt: skip
            item.update({k: state[k] for k in (*REASONING_FIELDS, REASONING_DETAILS) if state.get(k)})
            out.append(item)
    return out


def chat_tools(tools: Sequence[ToolSpec]) -> list[dict[str, Any]]:
    return [
        {
            "type": "function",
            "function": {"name": t.name, "description": t.description, "parameters": t.input_schema},
        }
        for t in tools
    ]


def chat_body(
    provider: str, model: str, messages: Sequence[Message], tools: Sequence[ToolSpec], settings: ModelSettings
) -> dict[str, Any]:
    body: dict[str, Any] = {"model": model, "messages": chat_messages(messages, provider != "openai")}
    if tools:
        body["tools"] = chat_tools(tools)
    if settings.temperature is not None and not is_reasoning_model(provider, model):
        body["temperature"] = settings.temperature
    body["max_completion_tokens" if provider == "openai" else "max_tokens"] = settings.max_output_tokens
    if settings.reasoning_effort:
        body["reasoning_effort"] = settings.reasoning_effort
    return merged(body, request_extras(settings.extra, provider))


def _content_text(content: Any) -> str:
    if isinstance(content, list):  # content parts, as some servers answer
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return content or ""


def chat_from_wire(data: dict[str, Any]) -> tuple[AssistantMessage, Usage, str | None]:
    usage = _chat_usage(data)
    choices = data.get("choices") or []
    if not choices:
        raise ModelAPIError(
            "server_error",
            f"the answer has no choices: {json.dumps(data)[:300]}",
            usage=usage if data.get("usage") else None,
        )
    choice = choices[0]
    if choice.get("finish_reason") == "error" or isinstance(choice.get("error"), dict):
        raise choice_error(choice, usage if data.get("usage") else None)
    msg = choice.get("message") or {}
    wire_calls = msg.get("tool_calls") or []
    ids = distinct_ids([c.get("id") for c in wire_calls], "call_")
    calls = tuple(
        tool_call(ident, (c.get("function") or {}).get("name"), (c.get("function") or {}).get("arguments"))
        for c, ident in zip(wire_calls, ids, strict=True)
    )
    # kept under the field it came in, and sent back so
    kept: dict[str, Any] = {k: msg[k] for k in REASONING_FIELDS if isinstance(msg.get(k), str) and msg[k]}
    if isinstance(msg.get(REASONING_DETAILS), list) and msg[REASONING_DETAILS]:
        kept[REASONING_DETAILS] = msg[REASONING_DETAILS]
    extras = {
        i: c[CALL_EXTRA] for c, i in zip(wire_calls, ids, strict=True) if isinstance(c.get(CALL_EXTRA), dict)
    }
    if extras:
        kept[CALL_EXTRA] = extras
    state = {CHAT_STATE: kept} if kept else None
    # A refusal comes in its own field with empty content: it is the model's answer.
    text = _content_text(msg.get("content")) or str(msg.get("refusal") or "")
    message = AssistantMessage(content=text, tool_calls=calls, provider_state=state)
    return message, usage, choice.get("finish_reason")


def choice_error(choice: dict[str, Any], usage: Usage | None) -> ModelAPIError:
    """The error of a choice that failed while the model wrote it (`finish_reason: error`, an
    `error` object in the choice: OpenRouter and other gateways answer 200 once generation has
    begun, and say so here). Its text so far is not the model's answer: an upstream fault,
    retried like a 5xx, or like a 429 when its code says so."""
    message, code = error_text({"error": choice.get("error") or {}}, "no reason given")
    kind: ErrorKind = "server_error"
    if code == "429" or "rate" in code.lower():
        kind = "rate_limit"
    elif is_overflow(message, code):
        kind = "context_overflow"
    reason = f"{message} [{code}]" if code and code not in message else message
    return ModelAPIError(kind, f"the answer failed while it was written: {reason}", usage=usage)


def _chat_usage(data: dict[str, Any]) -> Usage:
    u = data.get("usage") or {}
    cached = (u.get("prompt_tokens_details") or {}).get("cached_tokens")
    if cached is None:  # DeepSeek's name, else Moonshot's (Kimi), at the top of `usage`
        cached = u.get("prompt_cache_hit_tokens", u.get("cached_tokens"))
    return token_usage(
        u.get("prompt_tokens"),
        cached,
        u.get("completion_tokens"),
        (u.get("completion_tokens_details") or {}).get("reasoning_tokens"),
    )


# -- the model ------------------------------------------------------------------------------------
class OpenAIModel:
    def __init__(
        self, provider: str, model_id: str, model: str, *, api: Api, api_key: str,
        base_url: str | None = None, key_env: str | None = None,
    ) -> None:  # fmt: skip
        import openai

        self.name = f"{provider}:{model_id}"
        self.provider, self.model, self.api, self.key_env = provider, model, api, key_env
        self.base_url = base_url
        self._build, self._parse = chat_body, chat_from_wire
        if api == "responses":
            self._build, self._parse = openai_responses.responses_body, openai_responses.responses_from_wire
        self._sdk = openai
        self._said_no_usage = False  # a server that reports no usage is told about once
        # kept to take it out of error messages; the placeholder sent to local servers is no secret
        self._key = None if api_key == COMPATIBLE_KEY else api_key
        self.client = openai.AsyncOpenAI(
            api_key=api_key,
            base_url=base_url or None,
            max_retries=0,
            timeout=openai.Timeout(REQUEST_TIMEOUT_S, connect=CONNECT_TIMEOUT_S),
            http_client=direct_client(openai, base_url),
        )

    async def _call(self, body: dict[str, Any], max_output_tokens: int) -> dict[str, Any]:
        model = body.pop("model")
        limit = request_timeout_s(max_output_tokens)
        timeout = self._sdk.Timeout(limit, connect=CONNECT_TIMEOUT_S)
        # The SDK's timeout bounds each read, not the call: the whole call gets `limit` too.
        async with asyncio.timeout(limit):
            if self.api == "responses":
                result: Any = await self.client.responses.create(
                    model=model, extra_body=body, timeout=timeout
                )
            else:
                messages = body.pop("messages")
                result = await self.client.chat.completions.create(
                    model=model, messages=messages, extra_body=body, timeout=timeout
                )
        return answer_object(result, self.name)

    async def generate(
        self, messages: Sequence[Message], tools: Sequence[ToolSpec], settings: ModelSettings
    ) -> ModelResponse:
        return await keyless(self._generate(messages, tools, settings), self._key)

    async def _generate(
        self, messages: Sequence[Message], tools: Sequence[ToolSpec], settings: ModelSettings
    ) -> ModelResponse:
        body = self._build(self.provider, self.model, messages, tools, settings)
        sdk = self._sdk
        t0 = time.perf_counter()
        try:
            data = await self._call(body, settings.max_output_tokens)
        except Exception as exc:
            if (error := sdk_error(sdk, exc, self.provider, self.name, self.key_env, self.base_url)) is None:
                raise
            raise error from exc
        latency = time.perf_counter() - t0
        # chat_from_wire checks `choices`; a failed Responses answer explains itself, output or not
        items = "output" if self.api == "responses" and data.get("status") != "failed" else None
        message, usage, stop = read_answer(self._parse, data, self.name, items)
        if not data.get("usage") and not self._said_no_usage:
            self._said_no_usage = True
            warn_no_usage(self.name)
        return ModelResponse(
            message=message,
            usage=usage,
            latency_s=latency,
            stop_reason=stop,
            usage_reported=bool(data.get("usage")),
        )

    async def aclose(self) -> None:
        await self.client.close()
