"""The retry policy for model calls (SPEC §2): up to N retries of retryable errors, exponential
backoff with full jitter, a server's Retry-After honoured (capped), then `RetriesExhausted`."""

from __future__ import annotations

import asyncio
import math
import random
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TypeVar

from harness.models.base import ModelAPIError

T = TypeVar("T")

# One generator for backoff jitter; seeding a new one per call costs more than the call.
_JITTER = random.Random()

# The longest single wait; a Retry-After beyond it is capped so one call cannot stall an
# episode for minutes on a misbehaving server.
MAX_BACKOFF_S = 60.0


class RetriesExhausted(Exception):
    def __init__(self, last: ModelAPIError, retries: int) -> None:
        super().__init__(f"model call failed after {retries} retries: {last}")
        self.last = last
        self.retries = retries


@dataclass(frozen=True)
class RetryPolicy:
    max_retries: int = 10
    base_s: float = 0.5
    cap_s: float = MAX_BACKOFF_S

    def delay(self, attempt: int, error: ModelAPIError, rng: random.Random) -> float:
        wait = error.retry_after_s
        if wait is not None and math.isfinite(wait) and wait > 0:
            return min(wait, self.cap_s)
        return rng.uniform(0, min(self.cap_s, self.base_s * 2**attempt))

    async def call(
        self,
        fn: Callable[[], Awaitable[T]],
        *,
        on_retry: Callable[[int, ModelAPIError, float], None] | None = None,
        rng: random.Random | None = None,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> T:
        """Run `fn`; retry retryable `ModelAPIError`s. Non-retryable ones propagate at once."""
        rng = rng or _JITTER
        attempt = 0
        while True:
            try:
                return await fn()
            except ModelAPIError as error:
                if not error.retryable:
                    raise
                if attempt >= self.max_retries:
                    raise RetriesExhausted(error, attempt) from error
                wait = self.delay(attempt, error, rng)
                if on_retry is not None:
                    on_retry(attempt + 1, error, wait)
                attempt += 1
                await sleep(wait)
