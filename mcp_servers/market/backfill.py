"""The daily bars before 2026: every trading day from `HISTORY_START` (2025-10-01) to the end of 2025,
walked backward from each company's first 2026 open.

They make a task's "2026" condition matter: a first open, high, low or drawdown taken over every
stored bar is not the 2026 one. The walk has its own random generator, so the 2026 bars (and the
news and financials drawn after them) come out exactly as before.
"""

from __future__ import annotations

import math
import random
from datetime import date, timedelta
from typing import Any

from mcp_servers.market.companies import HOLIDAYS_2025, Company
from mcp_servers.market.schema import HISTORY_START, YEAR_START

Row = dict[str, Any]


def sessions_2025() -> list[str]:
    """Every trading day from HISTORY_START to the last session of 2025."""
    out, d = [], date.fromisoformat(HISTORY_START)
    while d.isoformat() < YEAR_START:
        if d.weekday() < 5 and d.isoformat() not in HOLIDAYS_2025:
            out.append(d.isoformat())
        d += timedelta(days=1)
    return out


def market_moves_2025(rng: random.Random, days: list[str]) -> list[float]:
    """The common market factor of each 2025 session (log return, close to close)."""
    return [rng.gauss(0.0004, 0.008) for _ in days]


def bars_2025(
    rng: random.Random,
    ticker_id: int,
    c: Company,
    days: list[str],
    market: list[float],
    surprise: dict[str, float],
) -> list[Row]:
    """A company's 2025 bars, oldest first: the same model as the 2026 walk (market factor, own
    moves, a jump on a results day), run backward so the last 2025 close leads, after an overnight
    gap, to the first 2026 open `c.price`."""
    sigma = c.vol / math.sqrt(252)
    volume_base = max(200_000, int(c.cap_bn * 1e9 / c.price * 0.006))
    close = c.price * math.exp(-rng.gauss(0, sigma * 0.3))  # the close before the first 2026 open
    out: list[Row] = []
    for k in reversed(range(len(days))):
        day = days[k]
        r = c.beta * market[k] + (c.drift - c.vol**2 / 2) / 252 + rng.gauss(0, sigma * 0.8)
        jump = 0.0
        if day in surprise:
            jump = math.copysign(min(0.14, 0.025 + abs(surprise[day]) * 0.9), surprise[day])
            r += jump
        prev = close * math.exp(-r)
        open_ = prev * math.exp(jump * 0.8 + rng.gauss(0, sigma * 0.3))
        high = max(open_, close) * (1 + abs(rng.gauss(0, sigma * 0.5)))
        low = min(open_, close) * (1 - abs(rng.gauss(0, sigma * 0.5)))
        volume = int(volume_base * math.exp(rng.gauss(0, 0.25)) * (1 + 12 * abs(r)) * (2.5 if jump else 1))
        out.append({"ticker_id": ticker_id, "date": day, "open": round(open_, 2), "high": round(high, 2),
                    "low": round(low, 2), "close": round(close, 2), "volume": volume})  # fmt: skip
        close = prev
    out.reverse()
    return out
