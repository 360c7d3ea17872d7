"""Stock-market tables. Prices in USD; financial statement figures in USD millions; dates ISO text.
The last trading day is `TODAY` (2026-11-20, a Friday); daily prices go back to `HISTORY_START`, the
last quarter of 2025, before the year `YEAR_START` opens."""

from __future__ import annotations

from sqlalchemy import UniqueConstraint
from sqlmodel import Field, SQLModel

TODAY = "2026-11-20"
NOW = f"{TODAY}T16:30:00"
YEAR_START = f"{TODAY[:4]}-01-01"  # "this year", "year to date": from here
HISTORY_START = "2025-10-01"  # the first stored daily bar


class MarketTicker(SQLModel, table=True):
    __tablename__ = "market_tickers"
    id: int | None = Field(default=None, primary_key=True)
    symbol: str = Field(unique=True, index=True)
    name: str
    sector: str = Field(index=True)
    industry: str
    exchange: str
    currency: str = "USD"
    shares_outstanding: int
    dividend_yield_pct: float = 0.0
    description: str


class MarketPrice(SQLModel, table=True):
    __tablename__ = "market_prices"
    __table_args__ = (UniqueConstraint("ticker_id", "date"),)
    id: int | None = Field(default=None, primary_key=True)
    ticker_id: int = Field(foreign_key="market_tickers.id", index=True)
    date: str = Field(index=True)
    open: float
    high: float
    low: float
    close: float
    volume: int


class MarketFinancials(SQLModel, table=True):
    __tablename__ = "market_financials"
    __table_args__ = (UniqueConstraint("ticker_id", "fiscal_quarter"),)
    id: int | None = Field(default=None, primary_key=True)
    ticker_id: int = Field(foreign_key="market_tickers.id", index=True)
    fiscal_quarter: str  # e.g. 2026Q3
    period_end: str
    reported_on: str
    revenue: float
    gross_profit: float
    operating_income: float
    net_income: float
    eps: float
    eps_estimate: float
    free_cash_flow: float
    cash: float
    total_debt: float


class MarketNews(SQLModel, table=True):
    __tablename__ = "market_news"
    id: int | None = Field(default=None, primary_key=True)
    ticker_id: int | None = Field(default=None, foreign_key="market_tickers.id", index=True)
    published_at: str = Field(index=True)
    headline: str
    summary: str
    source: str
    sentiment: str  # positive | negative | neutral


class MarketWatchlist(SQLModel, table=True):
    __tablename__ = "market_watchlists"
    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(unique=True)
    description: str = ""
    created_at: str


class MarketWatchlistItem(SQLModel, table=True):
    __tablename__ = "market_watchlist_items"
    __table_args__ = (UniqueConstraint("watchlist_id", "ticker_id"),)
    id: int | None = Field(default=None, primary_key=True)
    watchlist_id: int = Field(foreign_key="market_watchlists.id", index=True)
    ticker_id: int = Field(foreign_key="market_tickers.id")
    added_at: str
    note: str = ""


TABLES = (MarketTicker, MarketPrice, MarketFinancials, MarketNews, MarketWatchlist, MarketWatchlistItem)
