"""A scripted model: replies come from a function of what the agent sees.

For tests and benchmarks (and for users' own tests of profiles and tasks): it drives the real
harness through the same interface as any model, offline and deterministic. The reply function
gets the agent's messages and offered tools and returns an `AssistantMessage`, or raises a
`ModelAPIError` to simulate a failing API.
"""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import Callable, Sequence
from typing import Any

from contracts.episode import Usage
from harness.models.base import AssistantMessage, Message, ModelResponse, ModelSettings, ToolCall, ToolSpec

Reply = Callable[[Sequence[Message], Sequence[ToolSpec]], AssistantMessage]
_ids = itertools.count(1)


def call(name: str, **arguments: Any) -> ToolCall:
    """A tool call with a fresh id."""
    return ToolCall(id=f"call_{next(_ids)}", name=name, arguments=arguments)


def say(text: str = "", *calls: ToolCall) -> AssistantMessage:
    return AssistantMessage(content=text, tool_calls=tuple(calls))


def estimate_tokens(chars: int) -> int:
    return -(-chars // 4)


class ScriptedModel:
    def __init__(
        self, reply: Reply, *, name: str = "scripted:test", latency_s: float = 0.0, usage: Usage | None = None
    ) -> None:
        self.name = name
        self.reply = reply
        self.latency_s = latency_s
        self.fixed_usage = usage
        self.calls = 0

    async def generate(
        self, messages: Sequence[Message], tools: Sequence[ToolSpec], settings: ModelSettings
    ) -> ModelResponse:
        self.calls += 1
        if self.latency_s:
            await asyncio.sleep(self.latency_s)
        message = self.reply(messages, tools)
        usage = self.fixed_usage or Usage(
            input_tokens=estimate_tokens(sum(len(getattr(m, "content", "")) for m in messages)),
            output_tokens=estimate_tokens(
                len(message.content) + sum(len(json.dumps(c.arguments)) for c in message.tool_calls)
            ),
        )
        return ModelResponse(message=message, usage=usage, latency_s=self.latency_s)

    async def aclose(self) -> None:
        return None
