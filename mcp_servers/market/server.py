"""The `market` server: read tickers, quotes, daily price history, quarterly financials and market
news; keep watchlists (SPEC §5, scenario SM). Prices are end of day; the last session is today."""

from __future__ import annotations

from datetime import date
from typing import Any, Literal

from mcp.server.mcpserver import MCPServer
from sqlalchemy import func, or_
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from mcp_servers.common.paging import MAX_PAGE_SIZE, page_window, paginate
from mcp_servers.common.spec import ServerContext, ServerSpec
from mcp_servers.common.tooling import ToolError, as_json, reader, writer
from mcp_servers.common.values import LIKE_ESCAPE, iso_date, like_pattern
from mcp_servers.market.schema import (
    HISTORY_START,
    NOW,
    TABLES,
    TODAY,
    YEAR_START,
    MarketFinancials,
    MarketNews,
    MarketPrice,
    MarketTicker,
    MarketWatchlist,
    MarketWatchlistItem,
)
from mcp_servers.market.seed import QUARTERS, seed

READ = "market-data-fetch"
WRITE = "record-update"
MAX_WATCHLIST = 50


def _ticker(s: Session, symbol: str) -> MarketTicker:
    found = s.execute(
        select(MarketTicker).where(MarketTicker.symbol == symbol.strip().upper())
    ).scalar_one_or_none()
    if found is None:
        raise ToolError(f"no ticker {symbol!r}; list_tickers shows the symbols (e.g. NOVA)")
    return found


def _watchlist(s: Session, name: str) -> MarketWatchlist:
    found = s.execute(
        select(MarketWatchlist).where(func.lower(MarketWatchlist.name) == name.strip().lower())
    ).scalar_one_or_none()
    if found is None:
        names = [
            w.name for w in s.execute(select(MarketWatchlist).order_by(col(MarketWatchlist.id))).scalars()
        ]
        raise ToolError(f"no watchlist {name!r}; watchlists: {names}")
    return found


def _commit(s: Session, conflict: str) -> None:
    """Commit; a unique-key clash (a concurrent writer got there first) becomes a tool error."""
    try:
        s.commit()
    except IntegrityError:
        s.rollback()
        raise ToolError(conflict) from None


def _date(value: str | None, name: str) -> str | None:
    return None if value is None else iso_date(value, name)


def _bucket(day: str, interval: str) -> str:
    if interval == "monthly":
        return day[:7]
    if interval == "weekly":
        year, week, _ = date.fromisoformat(day).isocalendar()
        return f"{year}-W{week:02d}"
    return day


def _bars(prices: list[MarketPrice], interval: str) -> list[dict[str, Any]]:
    """Daily bars, or weekly/monthly bars (first open, highest high, lowest low, last close, total volume)."""
    out: list[dict[str, Any]] = []
    last_key = None
    for p in prices:
        key = _bucket(p.date, interval)
        if key != last_key:
            out.append(
                {
                    "date": p.date,
                    "open": p.open,
                    "high": p.high,
                    "low": p.low,
                    "close": p.close,
                    "volume": p.volume,
                }
            )
            last_key = key
            continue
        bar = out[-1]
        bar.update(
            high=max(bar["high"], p.high),
            low=min(bar["low"], p.low),
            close=p.close,
            volume=bar["volume"] + p.volume,
        )
        bar["end_date"] = p.date
    return out


def build(ctx: ServerContext) -> MCPServer:
    app = MCPServer(
        "market",
        instructions=f"End-of-day stock market data (USD) for 30 listed companies. Today, {TODAY}, is the "
        f"last trading session; daily prices go back to {HISTORY_START}. Financial statement figures are in USD "
        "millions.",
    )

    def last_bars(s: Session, t: MarketTicker, n: int) -> list[MarketPrice]:
        return list(
            s.execute(
                select(MarketPrice)
                .where(MarketPrice.ticker_id == t.id)
                .order_by(col(MarketPrice.date).desc())
                .limit(n)
            ).scalars()
        )

    @reader(app, READ)
    def list_tickers(sector: str | None = None) -> str:
        """The listed companies: symbol, name, sector, industry, exchange, dividend yield. Filter by sector
        (Technology, Healthcare, Financials, Energy, Consumer Discretionary, Consumer Staples, Industrials,
        Communication Services, Utilities, Materials, Real Estate)."""
        with Session(ctx.engine) as s:
            stmt = select(MarketTicker).order_by(col(MarketTicker.symbol))
            if sector:
                stmt = stmt.where(func.lower(MarketTicker.sector) == sector.strip().lower())
            rows = [
                {"symbol": t.symbol, "name": t.name, "sector": t.sector, "industry": t.industry,
                 "exchange": t.exchange, "dividend_yield_pct": t.dividend_yield_pct}
                for t in s.execute(stmt).scalars()
            ]  # fmt: skip
        if sector and not rows:
            raise ToolError(
                f"no tickers in sector {sector!r}; call list_tickers without a sector to see them all"
            )
        return as_json(rows)

    @reader(app, READ)
    def get_quote(symbol: str) -> str:
        """The latest end-of-day quote of a symbol: open, high, low, close, volume, change and change_pct
        against the previous close, market cap, year_high/year_low (the highest high and lowest low of the
        2026 sessions only) and ytd_change_pct (today's close against the first 2026 open), 20-day average
        volume, trailing P/E (close over the last four quarters' EPS)."""
        with Session(ctx.engine) as s:
            t = _ticker(s, symbol)
            bars = last_bars(s, t, 20)
            last, prev = bars[0], bars[1]
            this_year = (MarketPrice.ticker_id == t.id, col(MarketPrice.date) >= YEAR_START)
            first_open = s.execute(
                select(MarketPrice.open).where(*this_year).order_by(col(MarketPrice.date)).limit(1)
            ).scalar_one()
            high, low = s.execute(
                select(func.max(MarketPrice.high), func.min(MarketPrice.low)).where(*this_year)
            ).one()
            eps = s.execute(
                select(MarketFinancials.eps).where(MarketFinancials.ticker_id == t.id)
                .order_by(col(MarketFinancials.period_end).desc()).limit(4)
            ).scalars().all()  # fmt: skip
            ttm = sum(eps)
            return as_json({
                "symbol": t.symbol, "name": t.name, "date": last.date, "open": last.open, "high": last.high,
                "low": last.low, "close": last.close, "volume": last.volume, "previous_close": prev.close,
                "change": round(last.close - prev.close, 2), "change_pct": round((last.close / prev.close - 1) * 100, 2),
                "market_cap": round(last.close * t.shares_outstanding), "year_high": high, "year_low": low,
                "ytd_change_pct": round((last.close / first_open - 1) * 100, 2),
                "avg_volume_20d": round(sum(b.volume for b in bars) / len(bars)),
                "pe_ratio": round(last.close / ttm, 1) if ttm > 0 else None,
                "dividend_yield_pct": t.dividend_yield_pct,
            })  # fmt: skip

    @reader(app, READ)
    def get_price_history(
        symbol: str,
        start_date: str | None = None,
        end_date: str | None = None,
        interval: Literal["daily", "weekly", "monthly"] = "daily",
        page: int = 1,
        page_size: int = 50,
    ) -> str:
        """Price bars of a symbol, oldest first, one page at a time (at most 50 bars a page): date, open,
        high, low, close, volume. Dates YYYY-MM-DD, inclusive; data covers every trading day from
        2025-10-01 (the last quarter of 2025) to today, and without start_date/end_date all of it is
        returned. Weekly/monthly bars aggregate the days (end_date is the bar's last trading day)."""
        start, end = _date(start_date, "start_date"), _date(end_date, "end_date")
        if page < 1:
            raise ToolError("page starts at 1")
        if not 1 <= page_size <= MAX_PAGE_SIZE:
            raise ToolError(f"page_size must be between 1 and {MAX_PAGE_SIZE}")
        if start and end and end < start:
            raise ToolError("end_date is before start_date")
        with Session(ctx.engine) as s:
            t = _ticker(s, symbol)
            stmt = select(MarketPrice).where(MarketPrice.ticker_id == t.id).order_by(col(MarketPrice.date))
            if start:
                stmt = stmt.where(col(MarketPrice.date) >= start)
            if end:
                stmt = stmt.where(col(MarketPrice.date) <= end)
            bars = _bars(list(s.execute(stmt).scalars()), interval)
        items, meta = page_window(bars, page, page_size)
        return as_json({"symbol": t.symbol, "interval": interval, **meta, "items": items})

    @reader(app, READ)
    def get_financials(symbol: str, quarters: int = 4) -> str:
        """Quarterly results of a symbol, newest first (up to 7 quarters, 2025Q1-2026Q3), in USD millions
        except EPS: revenue, gross profit, operating income, net income, EPS against the consensus
        estimate (surprise_pct), free cash flow, cash, total debt, and revenue growth year over year."""
        if not 1 <= quarters <= len(QUARTERS):
            raise ToolError(f"quarters must be between 1 and {len(QUARTERS)}")
        with Session(ctx.engine) as s:
            t = _ticker(s, symbol)
            rows = s.execute(
                select(MarketFinancials).where(MarketFinancials.ticker_id == t.id).order_by(col(MarketFinancials.period_end).desc())
            ).scalars().all()  # fmt: skip
        by_quarter = {f.fiscal_quarter: f for f in rows}
        out = []
        for f in rows[:quarters]:
            prior = by_quarter.get(f"{int(f.fiscal_quarter[:4]) - 1}{f.fiscal_quarter[4:]}")
            item = {k: getattr(f, k) for k in MarketFinancials.model_fields if k not in ("id", "ticker_id")}
            item["surprise_pct"] = (
                round((f.eps - f.eps_estimate) / abs(f.eps_estimate) * 100, 1) if f.eps_estimate else None
            )
            item["revenue_growth_yoy_pct"] = (
                round((f.revenue / prior.revenue - 1) * 100, 1) if prior else None
            )
            out.append(item)
        return as_json({"symbol": t.symbol, "currency": "USD millions", "quarters": out})

    @reader(app, READ)
    def search_news(
        query: str | None = None,
        symbol: str | None = None,
        sentiment: Literal["positive", "negative", "neutral"] | None = None,
        date_from: str | None = None,
        date_to: str | None = None,
        page: int = 1,
        page_size: int = 20,
    ) -> str:
        """Market news, newest first, one page at a time: `query` matches headline or summary
        (case-insensitive); filter by symbol (company news), sentiment and dates (YYYY-MM-DD, inclusive).
        Market-wide items have no symbol."""
        start, end = _date(date_from, "date_from"), _date(date_to, "date_to")
        with Session(ctx.engine) as s:
            stmt = (
                select(MarketNews, MarketTicker.symbol)
                .outerjoin(MarketTicker, col(MarketTicker.id) == MarketNews.ticker_id)
                .order_by(col(MarketNews.published_at).desc(), col(MarketNews.id).desc())
            )
            if symbol:
                stmt = stmt.where(MarketNews.ticker_id == _ticker(s, symbol).id)
            if query:
                like = like_pattern(query.strip().lower())
                stmt = stmt.where(
                    or_(
                        func.lower(MarketNews.headline).like(like, escape=LIKE_ESCAPE),
                        func.lower(MarketNews.summary).like(like, escape=LIKE_ESCAPE),
                    )
                )
            if sentiment:
                stmt = stmt.where(MarketNews.sentiment == sentiment)
            if start:
                stmt = stmt.where(col(MarketNews.published_at) >= start)
            if end:
                stmt = stmt.where(col(MarketNews.published_at) < end + "T99")

            def render(row: Any) -> dict[str, Any]:
                n, sym = row
                return {"published_at": n.published_at, "symbol": sym, "headline": n.headline, "summary": n.summary,
                        "source": n.source, "sentiment": n.sentiment}  # fmt: skip

            return as_json(paginate(s, stmt, page, page_size, render))

    def items_of(s: Session, w: MarketWatchlist) -> list[tuple[MarketWatchlistItem, MarketTicker]]:
        rows = s.execute(
            select(MarketWatchlistItem, MarketTicker)
            .join(MarketTicker, col(MarketTicker.id) == MarketWatchlistItem.ticker_id)
            .where(MarketWatchlistItem.watchlist_id == w.id)
            .order_by(col(MarketWatchlistItem.id))
        ).all()
        return [(i, t) for i, t in rows]

    @reader(app, READ)
    def list_watchlists() -> str:
        """The saved watchlists with their symbols."""
        with Session(ctx.engine) as s:
            lists = s.execute(select(MarketWatchlist).order_by(col(MarketWatchlist.id))).scalars().all()
            return as_json([
                {"name": w.name, "description": w.description, "created_at": w.created_at,
                 "symbols": [t.symbol for _, t in items_of(s, w)]}
                for w in lists
            ])  # fmt: skip

    @reader(app, READ)
    def get_watchlist(name: str) -> str:
        """One watchlist by name: each symbol with its note, when it was added, and today's close and change."""
        with Session(ctx.engine) as s:
            w = _watchlist(s, name)
            out = []
            for item, t in items_of(s, w):
                last, prev = last_bars(s, t, 2)
                out.append({"symbol": t.symbol, "name": t.name, "note": item.note, "added_at": item.added_at,
                            "close": last.close, "change_pct": round((last.close / prev.close - 1) * 100, 2)})  # fmt: skip
            return as_json({"name": w.name, "description": w.description, "items": out})

    @writer(app, WRITE)
    def create_watchlist(name: str, symbols: list[str] | None = None, description: str = "") -> str:
        """Create a watchlist with a unique name, optionally with its first symbols."""
        if not name.strip() or len(name) > 80:
            raise ToolError("name must be 1-80 characters")
        with Session(ctx.engine) as s:
            taken = s.execute(
                select(MarketWatchlist).where(func.lower(MarketWatchlist.name) == name.strip().lower())
            ).scalar_one_or_none()
            if taken:
                raise ToolError(
                    f"a watchlist named {taken.name!r} already exists; add_to_watchlist adds to it"
                )
            tickers = [_ticker(s, sym) for sym in dict.fromkeys(x.strip().upper() for x in symbols or [])]
            if len(tickers) > MAX_WATCHLIST:
                raise ToolError(f"a watchlist holds at most {MAX_WATCHLIST} symbols")
            w = MarketWatchlist(name=name.strip(), description=description, created_at=NOW)
            s.add(w)
            s.flush()
            for t in tickers:
                s.add(MarketWatchlistItem(watchlist_id=w.id or 0, ticker_id=t.id or 0, added_at=NOW))
            _commit(s, f"a watchlist named {name.strip()!r} already exists")
            return f"Watchlist {w.name!r} created with {len(tickers)} symbol(s)."

    @writer(app, WRITE)
    def add_to_watchlist(watchlist: str, symbol: str, note: str = "") -> str:
        """Add a symbol (with an optional note) to a watchlist, by the watchlist's name."""
        with Session(ctx.engine) as s:
            w = _watchlist(s, watchlist)
            t = _ticker(s, symbol)
            items = items_of(s, w)
            if any(existing.symbol == t.symbol for _, existing in items):
                raise ToolError(f"{t.symbol} is already on {w.name!r}")
            if len(items) >= MAX_WATCHLIST:
                raise ToolError(f"{w.name!r} is full ({MAX_WATCHLIST} symbols); remove one first")
            s.add(MarketWatchlistItem(watchlist_id=w.id or 0, ticker_id=t.id or 0, added_at=NOW, note=note))
            _commit(s, f"{t.symbol} is already on {w.name!r}")
            return f"{t.symbol} added to {w.name!r} ({len(items) + 1} symbols)."

    @writer(app, WRITE, destructive=True)
    def remove_from_watchlist(watchlist: str, symbol: str) -> str:
        """Remove a symbol from a watchlist."""
        with Session(ctx.engine) as s:
            w = _watchlist(s, watchlist)
            t = _ticker(s, symbol)
            item = s.execute(
                select(MarketWatchlistItem).where(
                    MarketWatchlistItem.watchlist_id == w.id, MarketWatchlistItem.ticker_id == t.id
                )
            ).scalar_one_or_none()
            if item is None:
                raise ToolError(f"{t.symbol} is not on {w.name!r}")
            s.delete(item)
            s.commit()
            return f"{t.symbol} removed from {w.name!r}."

    return app


SPEC = ServerSpec(
    name="market",
    description="Stock market data: tickers, daily prices, quarterly financials, news; watchlists",
    build=build,
    tables=TABLES,
    seed=seed,
    scenario="SM",
)
