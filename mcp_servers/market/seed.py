"""Deterministic market data: 30 tickers, a seeded random walk of daily OHLCV bars per ticker over
every 2026 trading day up to 2026-11-20 (a common market factor plus each stock's own moves, with
jumps on earnings days) and, before it, the last quarter of 2025 (backfill.py), seven quarters of
financials, ~360 news items tied to the big moves and results, and two watchlists.

Rows are inserted without ids, in id order, so ids are 1..n on every backend and database
sequences stay in step with them. The 2025 bars come after all the 2026 ones, so the 2026 rows keep
the ids they had before the 2025 bars were added.
"""

from __future__ import annotations

import math
import random
from datetime import date, timedelta
from typing import Any

from sqlalchemy import insert
from sqlmodel import Session, SQLModel

from mcp_servers.market.backfill import bars_2025, market_moves_2025, sessions_2025
from mcp_servers.market.companies import (
    COMPANIES,
    CORPORATE,
    DOWN_REASONS,
    HOLIDAYS_2026,
    MACRO,
    SOURCES,
    UP_REASONS,
    Company,
)
from mcp_servers.market.schema import (
    TODAY,
    MarketFinancials,
    MarketNews,
    MarketPrice,
    MarketTicker,
    MarketWatchlist,
    MarketWatchlistItem,
)

Row = dict[str, Any]
QUARTERS = [(2025, 1), (2025, 2), (2025, 3), (2025, 4), (2026, 1), (2026, 2), (2026, 3)]
QUARTER_END = {1: (3, 31), 2: (6, 30), 3: (9, 30), 4: (12, 31)}


def _insert(session: Session, model: type[SQLModel], rows: list[Row]) -> None:
    if rows:
        session.connection().execute(insert(model), rows)


def trading_days() -> list[str]:
    """Every 2026 trading day up to today."""
    out, d = [], date(2026, 1, 2)
    while d.isoformat() <= TODAY:
        if d.weekday() < 5 and d.isoformat() not in HOLIDAYS_2026:
            out.append(d.isoformat())
        d += timedelta(days=1)
    return out


def _next_trading_day(day: date, days: set[str]) -> str:
    while day.isoformat() not in days:
        day += timedelta(days=1)
    return day.isoformat()


def _financials(rng: random.Random, ticker_id: int, c: Company, shares: int, days: set[str]) -> list[Row]:
    rows = []
    for k, (year, q) in enumerate(QUARTERS):
        month, day = QUARTER_END[q]
        end = date(year, month, day)
        reported = end + timedelta(days=rng.randint(19, 40))
        while reported.weekday() >= 5:
            reported += timedelta(days=1)
        reported_on = _next_trading_day(reported, days) if reported.year == 2026 else reported.isoformat()
        season = 1.0 + (0.06 if q == 4 else -0.02 if q == 1 else 0.0)
        revenue = c.revenue_m * (1 + c.growth) ** (k / 4) * season * rng.uniform(0.97, 1.03)
        gross = revenue * c.gross_margin if c.gross_margin else revenue
        operating = revenue * (c.op_margin + rng.uniform(-0.03, 0.03))
        net = operating * (0.78 if operating > 0 else 1.0)
        eps = round(net * 1e6 / shares, 2)
        rows.append({
            "ticker_id": ticker_id, "fiscal_quarter": f"{year}Q{q}", "period_end": end.isoformat(),
            "reported_on": reported_on, "revenue": round(revenue, 1), "gross_profit": round(gross, 1),
            "operating_income": round(operating, 1), "net_income": round(net, 1), "eps": eps,
            "eps_estimate": round(eps * rng.uniform(0.9, 1.08) if eps > 0 else eps * rng.uniform(0.92, 1.1), 2),
            "free_cash_flow": round(net * rng.uniform(0.7, 1.3), 1),
            "cash": round(c.revenue_m * rng.uniform(0.5, 2.0), 1), "total_debt": round(c.revenue_m * rng.uniform(0.2, 3.0), 1),
        })  # fmt: skip
    return rows


def seed(session: Session) -> None:
    """Fill the market tables (same rows on every call)."""
    rng = random.Random(20260102)
    rng_2025 = random.Random(20251001)  # the 2025 bars' own: the draws of `rng` stay as they were
    days = trading_days()
    days_2025 = sessions_2025()
    market_2025 = market_moves_2025(rng_2025, days_2025)
    day_set = set(days)
    market = [rng.gauss(0.0004, 0.008) for _ in days]
    market[days.index("2026-04-07")] = -0.041  # a sell-off every stock shares
    market[days.index("2026-04-09")] = 0.032
    tickers: list[Row] = []
    prices: list[Row] = []
    prices_2025: list[Row] = []
    financials: list[Row] = []
    news: list[Row] = []
    for ticker_id, c in enumerate(COMPANIES, start=1):
        shares = round(c.cap_bn * 1e9 / c.price / 1000) * 1000
        tickers.append({
            "symbol": c.symbol, "name": c.name, "sector": c.sector, "industry": c.industry, "exchange": c.exchange,
            "currency": "USD", "shares_outstanding": shares, "dividend_yield_pct": c.dividend,
            "description": f"{c.name} is a {c.industry.lower()} company in the {c.sector.lower()} sector.",
        })  # fmt: skip
        fin = _financials(rng, ticker_id, c, shares, day_set)
        financials += fin
        surprise = {
            f["reported_on"]: (f["eps"] - f["eps_estimate"]) / max(abs(f["eps_estimate"]), 0.01) for f in fin
        }
        prices_2025 += bars_2025(rng_2025, ticker_id, c, days_2025, market_2025, surprise)
        sigma = c.vol / math.sqrt(252)
        close = c.price
        moves: list[tuple[float, str]] = []
        volume_base = max(200_000, int(c.cap_bn * 1e9 / c.price * 0.006))
        for k, day in enumerate(days):
            r = c.beta * market[k] + (c.drift - c.vol**2 / 2) / 252 + rng.gauss(0, sigma * 0.8)
            jump = 0.0
            if day in surprise:
                jump = math.copysign(min(0.14, 0.025 + abs(surprise[day]) * 0.9), surprise[day])
                r += jump
            prev = close if k else c.price
            gap = jump * 0.8 + rng.gauss(0, sigma * 0.3)
            open_ = prev * math.exp(gap) if k else c.price
            close = prev * math.exp(r)
            high = max(open_, close) * (1 + abs(rng.gauss(0, sigma * 0.5)))
            low = min(open_, close) * (1 - abs(rng.gauss(0, sigma * 0.5)))
            volume = int(
                volume_base * math.exp(rng.gauss(0, 0.25)) * (1 + 12 * abs(r)) * (2.5 if jump else 1)
            )
            prices.append({"ticker_id": ticker_id, "date": day, "open": round(open_, 2), "high": round(high, 2),
                           "low": round(low, 2), "close": round(close, 2), "volume": volume})  # fmt: skip
            if k and not jump:
                moves.append((math.log(close / prev), day))
        for f in fin:
            if f["reported_on"] >= "2025-10-01":
                beat = f["eps"] >= f["eps_estimate"]
                rev_yoy = None
                prior = [
                    g
                    for g in fin
                    if g["fiscal_quarter"] == f"{int(f['fiscal_quarter'][:4]) - 1}{f['fiscal_quarter'][4:]}"
                ]
                if prior:
                    rev_yoy = (f["revenue"] / prior[0]["revenue"] - 1) * 100
                growth = f"; revenue {'up' if (rev_yoy or 0) >= 0 else 'down'} {abs(rev_yoy or 0):.1f}% year over year"
                news.append({
                    "ticker_id": ticker_id, "published_at": f"{f['reported_on']}T07:00:00",
                    "headline": f"{c.name} {'beats' if beat else 'misses'} {f['fiscal_quarter'][4:]} estimates"
                    + (growth if rev_yoy is not None else ""),
                    "summary": f"{c.name} ({c.symbol}) reported {f['fiscal_quarter']} EPS of {f['eps']:.2f} against a "
                    f"consensus of {f['eps_estimate']:.2f}, on revenue of {f['revenue']:,.1f} million USD.",
                    "source": rng.choice(SOURCES), "sentiment": "positive" if beat else "negative",
                })  # fmt: skip
        for move, day in sorted(moves, key=lambda m: -abs(m[0]))[:3]:
            up = move > 0
            reason = rng.choice(UP_REASONS if up else DOWN_REASONS)
            pct = (math.exp(move) - 1) * 100
            news.append({
                "ticker_id": ticker_id, "published_at": f"{day}T15:{rng.randint(10, 59)}:00",
                "headline": f"{c.name} shares {'jump' if up else 'slide'} {abs(pct):.1f}% {reason}",
                "summary": f"{c.symbol} {'rose' if up else 'fell'} {abs(pct):.1f}% on {day} {reason}.",
                "source": rng.choice(SOURCES), "sentiment": "positive" if up else "negative",
            })  # fmt: skip
        for template, sentiment in rng.sample(CORPORATE, 3):
            day = rng.choice(days)
            news.append({
                "ticker_id": ticker_id, "published_at": f"{day}T{rng.randint(8, 18):02d}:{rng.randint(0, 59):02d}:00",
                "headline": template.format(name=c.name, buyback=rng.randint(1, 9)).replace("$ ", "$"),
                "summary": f"Company news for {c.name} ({c.symbol}).", "source": rng.choice(SOURCES), "sentiment": sentiment,
            })  # fmt: skip
    for k, day in enumerate(days):
        if abs(market[k]) > 0.016 or k % 9 == 0:
            headline, sentiment = rng.choice(MACRO)
            if abs(market[k]) > 0.016:
                headline = (
                    "Stocks surge in broad rally" if market[k] > 0 else "Markets tumble on trade tensions"
                )
                sentiment = "positive" if market[k] > 0 else "negative"
            news.append({"ticker_id": None, "published_at": f"{day}T20:05:00", "headline": headline,
                         "summary": "Market-wide news.", "source": rng.choice(SOURCES), "sentiment": sentiment})  # fmt: skip
    news.sort(key=lambda n: (n["published_at"], n["ticker_id"] or 0))
    _insert(session, MarketTicker, tickers)
    _insert(session, MarketPrice, prices + prices_2025)
    _insert(session, MarketFinancials, financials)
    _insert(session, MarketNews, news)
    _insert(session, MarketWatchlist, [
        {"name": "Core holdings", "description": "Long-term positions", "created_at": "2026-01-05T09:00:00"},
        {"name": "Dividend ideas", "description": "Income candidates to review", "created_at": "2026-06-12T09:00:00"},
    ])  # fmt: skip
    symbols = {c.symbol: i for i, c in enumerate(COMPANIES, start=1)}
    _insert(session, MarketWatchlistItem, [
        {"watchlist_id": w, "ticker_id": symbols[s], "added_at": at, "note": ""}
        for w, at, group in ((1, "2026-01-05T09:00:00", ["NOVA", "SEMI", "RTLX", "HRBR", "STRM"]),
                             (2, "2026-06-12T09:00:00", ["TELX", "PETX", "REIT"]))
        for s in group
    ])  # fmt: skip
