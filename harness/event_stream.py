"""Streaming every running episode's events to the store, in batches from a worker thread."""

from __future__ import annotations

import asyncio
from typing import Any

from harness.events import Event
from harness.store import Store

# Events are written in batches from a worker thread; this bounds how long one can wait.
EVENT_FLUSH_INTERVAL_S = 0.25
EVENT_BATCH = 2000


class EventStreamer:
    """Batches events from every running episode and writes them from a worker thread."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._pending: list[dict[str, Any]] = []
        # Held while a batch is taken and written: a flush returns only when every event put
        # before it is in the store, also those of a batch the background loop is writing.
        self._writing = asyncio.Lock()
        self._wake = asyncio.Event()
        self._closed = False
        self._task: asyncio.Task[None] | None = None

    def sink(self, key: str, attempt: int) -> Any:
        def put(event: Event) -> None:
            self._pending.append(
                {
                    "episode_key": key,
                    "attempt": attempt,
                    "seq": event.seq,
                    "t": event.t,
                    "kind": event.kind,
                    "agent": event.agent,
                    "data": event.data,
                }
            )
            if len(self._pending) >= EVENT_BATCH:
                self._wake.set()

        return put

    async def flush(self) -> None:
        """Write every event put so far (an episode's outcome is written after its events)."""
        async with self._writing:
            batch, self._pending = self._pending, []
            if batch:
                await asyncio.to_thread(self.store.write_events, batch)

    async def _loop(self) -> None:
        while not self._closed:
            try:
                async with asyncio.timeout(EVENT_FLUSH_INTERVAL_S):
                    await self._wake.wait()
            except TimeoutError:
                pass
            self._wake.clear()
            await self.flush()

    async def __aenter__(self) -> EventStreamer:
        self._task = asyncio.create_task(self._loop(), name="event-streamer")
        return self

    async def __aexit__(self, *exc: object) -> None:
        self._closed = True
        self._wake.set()
        if self._task is not None:
            await self._task
        await self.flush()
