"""What both OpenAI wire formats (Chat Completions in `openai_provider`, the Responses API in
`openai_responses`) share: tool calls and their arguments, tool results, token usage, and
which OpenAI models are reasoning models."""

from __future__ import annotations

import json
import re
from typing import Any

from contracts.episode import Usage
from harness.models.base import ToolCall, ToolMessage
from harness.models.wire_text import without_lone_surrogates

_REASONING_MODEL = re.compile(r"^(o\d|gpt-(5|[6-9]|\d{2,}))", re.IGNORECASE)


def is_reasoning_model(provider: str, model: str) -> bool:
    """Whether OpenAI's `model` is a reasoning model (o-series, gpt-5 and later)."""
    return provider == "openai" and bool(_REASONING_MODEL.match(model.rsplit("/", 1)[-1]))


def arguments_text(call: ToolCall, strict_json: bool) -> str:
    """A call's arguments as sent back in history (`{}` for invalid ones when `strict_json`)."""
    if call.arguments is not None:
        return json.dumps(call.arguments, ensure_ascii=False)
    # Some compatible servers re-parse earlier turns' arguments to render their chat template and
    # fail on invalid JSON; the tool error that answered the call already quotes the raw text.
    return "{}" if strict_json else call.raw_arguments or ""


def result_text(m: ToolMessage) -> str:
    """A tool result's text; neither format has an error flag, so an error says "Error: "."""
    return f"Error: {m.content}" if m.is_error else m.content


def parse_arguments(raw: Any) -> tuple[dict[str, Any] | None, str | None]:
    """(arguments, raw text when they are not a JSON object). The argument text is JSON inside
    JSON: its own `\\ud800` escapes decode here, so lone surrogates are replaced here too."""
    if isinstance(raw, dict):
        return without_lone_surrogates(raw), None
    if raw is None:
        return {}, None  # `arguments` left out or null: a call without arguments
    text = without_lone_surrogates(raw if isinstance(raw, str) else json.dumps(raw))
    if not text.strip():
        return {}, None  # a call without arguments, as some servers write it
    try:
        value = json.loads(text)
    except ValueError:
        return None, text
    return (without_lone_surrogates(value), None) if isinstance(value, dict) else (None, text)


def tool_call(call_id: str, name: Any, raw: Any) -> ToolCall:
    """A parsed call; arguments that are not a JSON object are kept as `raw_arguments`."""
    arguments, text = parse_arguments(raw)
    return ToolCall(
        id=call_id, name=without_lone_surrogates(str(name or "")), arguments=arguments, raw_arguments=text
    )


def token_usage(prompt: Any, cached: Any, output: Any, reasoning: Any) -> Usage:
    """Token counts from the wire, a missing one counted as 0."""
    return Usage(
        input_tokens=int(prompt or 0),
        cached_input_tokens=int(cached or 0),
        output_tokens=int(output or 0),
        reasoning_tokens=int(reasoning or 0),
    )
