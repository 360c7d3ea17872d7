"""The episode event stream (SPEC §8): append-only, one `Event` per thing that happened.

Kinds: episode_start, model_call, model_retry, model_error_usage (a failed answer that still
reported tokens), truncated (an answer cut off at the output-token limit: `step`, and `calls`
not run), tool_call, tool_result, tool_refused, wave_start, wave_end, subagent_start,
subagent_end, budget_breach, termination, check, harness_error, server_restart (an MCP server
that crashed or hung, being restarted: `server`, `cause`). Events are kept in memory for the
episode and handed to a sink (the store's streaming writer) as they happen; the sink must not
block the agent loop.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


# A plain frozen dataclass, not a pydantic model: events are made by the runtime itself, several
# per step, and validating each one cost more than the rest of the step's bookkeeping.
@dataclass(frozen=True, slots=True)
class Event:
    seq: int
    t: float  # seconds since the episode started (monotonic clock)
    kind: str
    agent: str  # "main", a sub-agent id, or "" for episode-level events
    data: dict[str, Any]


Sink = Callable[[Event], None]


class EventLog:
    def __init__(self, sink: Sink | None = None) -> None:
        self.events: list[Event] = []
        self._sink = sink
        self._t0 = time.monotonic()

    def now(self) -> float:
        return time.monotonic() - self._t0

    def emit(self, kind: str, agent: str = "", **data: Any) -> Event:
        event = Event(seq=len(self.events), t=self.now(), kind=kind, agent=agent, data=data)
        self.events.append(event)
        if self._sink is not None:
            self._sink(event)
        return event

    def of_kind(self, kind: str) -> list[Event]:
        return [e for e in self.events if e.kind == kind]
