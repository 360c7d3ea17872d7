"""Per-provider rate limits (SPEC §13): requests and tokens per minute, across the whole run.

`Window` is the rule, pure and clock-free: over the last 60 s, at most `rpm` requests and at
most `tpm` tokens. Before a call, `reserve(now, tokens)` books it and returns how long the
caller must wait first; after the call the booking is corrected to the tokens the provider
reported (an answer that reports none keeps its estimate). A local run shares one `Window` per
provider among all its episodes; under Ray the window lives in a named actor, so every worker
draws from the same budget.
"""

from __future__ import annotations

import asyncio
import bisect
import functools
import json
import time
from collections import deque
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from contracts.episode import Usage
from harness.models.base import (
    AssistantMessage,
    Message,
    Model,
    ModelAPIError,
    ModelResponse,
    ModelSettings,
    ToolCall,
    ToolSpec,
)

WINDOW_S = 60.0


class RateLimits(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    rpm: int | None = Field(default=None, ge=1, description="requests per minute")
    tpm: int | None = Field(default=None, ge=1, description="tokens (input + output) per minute")


@dataclass
class Window:
    rpm: int | None
    tpm: int | None
    _calls: deque[list[float]] = field(default_factory=deque)  # [start time, tokens], by start time

    def reserve(self, now: float, tokens: int) -> tuple[float, list[float]]:
        """Book a call of about `tokens` tokens; return (seconds to wait, the booking)."""
        start = now
        while True:
            live = [c for c in self._calls if c[0] > start - WINDOW_S]
            wait_until = start
            if self.rpm is not None and len(live) >= self.rpm:
                wait_until = max(wait_until, live[-self.rpm][0] + WINDOW_S)
            if self.tpm is not None and live:
                used = sum(c[1] for c in live)
                # A single call larger than the whole budget goes through alone, not never.
                over = used + min(tokens, self.tpm) - self.tpm
                for c in live:
                    if over <= 0:
                        break
                    over -= c[1]
                    wait_until = max(wait_until, c[0] + WINDOW_S)
            if wait_until == start:
                break
            start = wait_until
        booking = [start, float(tokens)]
        # In time order, which the checks above assume (a call that fits before calls already
        # queued, once settling freed tokens, goes before them). Only what has left the window by
        # `now` is forgotten: `start` may be minutes ahead, and calls queued before it still count.
        bisect.insort(self._calls, booking, key=lambda c: c[0])
        while self._calls and self._calls[0][0] <= now - WINDOW_S:
            self._calls.popleft()
        return start - now, booking

    @staticmethod
    def settle(booking: list[float], tokens: int) -> None:
        booking[1] = float(tokens)


def estimate_tokens(messages: Sequence[Message], tools: Sequence[ToolSpec] = ()) -> int:
    """A call's input tokens before it is made, as ⌊characters / 4⌋ + 1 of all it sends: the
    messages' text, the tool calls' names and arguments, replayed provider state (reasoning),
    and the tool schemas (several thousand tokens on their own in a task with many tools)."""
    chars = sum(len(t.name) + len(t.description) + len(json.dumps(t.input_schema)) for t in tools)
    for m in messages:
        chars += len(m.content)
        if isinstance(m, AssistantMessage):
            chars += sum(len(c.name) + len(_arguments(c)) for c in m.tool_calls)
            if m.provider_state:
                chars += len(json.dumps(m.provider_state))
    return chars // 4 + 1


def _arguments(call: ToolCall) -> str:
    return json.dumps(call.arguments) if call.arguments is not None else call.raw_arguments or ""


class LocalWindow:
    """The window of one process (a local run: every episode shares it)."""

    def __init__(self, limits: RateLimits) -> None:
        self.window = Window(limits.rpm, limits.tpm)

    async def reserve(self, tokens: int) -> tuple[float, Any]:
        return self.window.reserve(time.monotonic(), tokens)

    async def settle(self, handle: Any, tokens: int) -> None:
        Window.settle(handle, tokens)


class RayWindow:
    """The window of a whole Ray cluster: a named actor every worker finds by name.

    The Ray driver creates the actors (`create_shared_windows`) and holds them for the run: an
    actor that a worker's episode created would be owned by that task and die with it, so the
    next episode would start an empty window."""

    def __init__(self, provider: str, limits: RateLimits) -> None:
        import ray

        try:
            self.actor = ray.get_actor(window_name(provider))
        except ValueError:  # no driver made it (a worker run on its own): this episode's own
            self.actor = (
                _shared_window_class().options(name=window_name(provider), get_if_exists=True).remote(limits)
            )

    async def reserve(self, tokens: int) -> tuple[float, Any]:
        return await self.actor.reserve.remote(tokens)  # type: ignore[no-any-return]

    async def settle(self, handle: Any, tokens: int) -> None:
        await self.actor.settle.remote(handle, tokens)


def window_name(provider: str) -> str:
    return f"mseval-ratelimit-{provider}"


def create_shared_windows(limits: dict[str, RateLimits]) -> list[Any]:
    """The cluster-wide windows of a Ray run, one per limited provider, created by the driver;
    keep the returned handles until the run ends (the actors live as long as they are held)."""
    cls = _shared_window_class()
    return [
        cls.options(name=window_name(provider), get_if_exists=True).remote(lim)
        for provider, lim in limits.items()
        if lim.rpm or lim.tpm
    ]


@functools.cache
def _shared_window_class() -> Any:
    import ray

    @ray.remote
    class SharedWindow:
        def __init__(self, limits: RateLimits) -> None:
            self.window = Window(limits.rpm, limits.tpm)
            self.bookings: dict[int, list[float]] = {}
            self.next = 0

        def reserve(self, tokens: int) -> tuple[float, int]:
            wait, booking = self.window.reserve(time.monotonic(), tokens)
            self.next += 1
            self.bookings[self.next] = booking
            return wait, self.next

        def settle(self, key: int, tokens: int) -> None:
            booking = self.bookings.pop(key, None)
            if booking is not None:
                Window.settle(booking, tokens)

    return SharedWindow


class RateLimitedModel:
    """A model whose calls first wait for room in its provider's window."""

    def __init__(
        self,
        inner: Model,
        window: LocalWindow | RayWindow,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self.inner = inner
        self.name = inner.name
        self.window = window
        self.sleep = sleep

    async def generate(
        self, messages: Sequence[Message], tools: Sequence[ToolSpec], settings: ModelSettings
    ) -> ModelResponse:
        estimate = estimate_tokens(messages, tools) + settings.max_output_tokens // 4
        wait, handle = await self.window.reserve(estimate)
        if wait > 0:
            await self.sleep(wait)
        try:
            response = await self.inner.generate(messages, tools, settings)
        except ModelAPIError as error:
            # A refused call still took its request slot; its tokens are what the provider
            # reports it used (a failed answer that bills; one that bills without counts keeps
            # the estimate), else none.
            used = _used(error.usage, error.usage_reported, estimate) if error.usage else 0
            await self.window.settle(handle, used)
            raise
        await self.window.settle(handle, _used(response.usage, response.usage_reported, estimate))
        return response

    async def aclose(self) -> None:
        await self.inner.aclose()


def _used(usage: Usage, reported: bool, estimate: int) -> int:
    """The tokens a call's booking is corrected to: those the provider reported, or the estimate
    booked before the call when the answer carried no counts (its usage then reads 0, but the
    server still processed the tokens, and booking none would let the next calls exceed --tpm)."""
    return usage.input_tokens + usage.output_tokens if reported else estimate
