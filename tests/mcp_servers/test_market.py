from __future__ import annotations

from datetime import date
from typing import Any

import pytest
from mcp import Client

from mcp_servers.market.schema import HISTORY_START
from tests.mcp_servers.support import World, as_data, check_contract, serve, text

CALLS = {
    "list_tickers": {"sector": "Technology"},
    "get_quote": {"symbol": "NOVA"},
    "get_price_history": {"symbol": "nova", "start_date": "2026-03-01", "end_date": "2026-03-31"},
    "get_financials": {"symbol": "SEMI", "quarters": 2},
    "search_news": {"symbol": "NOVA"},
    "list_watchlists": {},
    "get_watchlist": {"name": "Core holdings"},
    "create_watchlist": {"name": "Energy transition", "symbols": ["SOLR", "WIND"]},
    "add_to_watchlist": {"watchlist": "core holdings", "symbol": "QBIT", "note": "speculative"},
    "remove_from_watchlist": {"watchlist": "Core holdings", "symbol": "HRBR"},
}


async def call(client: Client, tool: str, **args: Any) -> Any:
    return as_data(await client.call_tool(tool, args))


async def error(client: Client, tool: str, **args: Any) -> str:
    result = await client.call_tool(tool, args)
    assert result.is_error, f"{tool} should have failed: {text(result)}"
    return text(result)


async def all_pages(client: Client, **args: Any) -> list[dict[str, Any]]:
    first = await call(client, "get_price_history", **args)
    items = list(first["items"])
    for page in range(2, first["pages"] + 1):
        items += (await call(client, "get_price_history", page=page, **args))["items"]
    assert len(items) == first["total"]
    return items


async def test_market_contract(world: World) -> None:
    async with serve("market", world) as client:
        await check_contract(client, world, CALLS)
        lists = {w["name"]: w["symbols"] for w in await call(client, "list_watchlists")}
        assert lists == {
            "Core holdings": ["NOVA", "SEMI", "RTLX", "STRM", "QBIT"],
            "Dividend ideas": ["TELX", "PETX", "REIT"],
            "Energy transition": ["SOLR", "WIND"],
        }


async def test_history_pages_cover_every_trading_day(world: World) -> None:
    async with serve("market", world) as client:
        assert len(await call(client, "list_tickers")) == 30
        days = await all_pages(client, symbol="SEMI")
        dates = [d["date"] for d in days]
        assert dates == sorted(set(dates)) and dates[0] == HISTORY_START and dates[-1] == "2026-11-20"
        assert all(date.fromisoformat(d).weekday() < 5 for d in dates)
        assert not {"2025-11-27", "2025-12-25", "2026-07-03", "2026-04-03"} & set(dates)
        assert all(
            d["low"] <= min(d["open"], d["close"]) <= max(d["open"], d["close"]) <= d["high"] for d in days
        )
        this_year = [d for d in days if d["date"] >= "2026-01-01"]
        assert this_year[0]["date"] == "2026-01-02" and len(days) - len(this_year) == 64
        quote = await call(client, "get_quote", symbol="SEMI")
        assert quote["close"] == days[-1]["close"] and quote["previous_close"] == days[-2]["close"]
        assert quote["change_pct"] == pytest.approx(
            (days[-1]["close"] / days[-2]["close"] - 1) * 100, abs=0.01
        )
        weekly = await all_pages(
            client, symbol="SEMI", interval="weekly", start_date="2026-06-01", end_date="2026-06-30"
        )
        june = [d for d in days if d["date"].startswith("2026-06")]
        assert weekly[0]["date"] == "2026-06-01" and weekly[-1]["end_date"] == "2026-06-30"
        assert sum(w["volume"] for w in weekly) == sum(d["volume"] for d in june)
        assert weekly[0]["open"] == june[0]["open"] and weekly[-1]["close"] == june[-1]["close"]
        monthly = await all_pages(client, symbol="SEMI", interval="monthly")
        assert [m["date"][:7] for m in monthly[:4]] == ["2025-10", "2025-11", "2025-12", "2026-01"]
        assert len(monthly) == 14 and max(m["high"] for m in monthly) == max(d["high"] for d in days)
        described = {t.name: t.description or "" for t in (await client.list_tools()).tools}
        assert HISTORY_START in described["get_price_history"]


async def test_quote_year_figures_leave_out_2025(world: World) -> None:
    """Regression: get_quote took its 2026 high/low over every stored bar and its year-to-date change
    from the first stored open, which became wrong once the 2025 bars were added."""
    async with serve("market", world) as client:
        for symbol in ("SEMI", "PETX", "FOOD"):
            days = await all_pages(client, symbol=symbol)
            this_year = await all_pages(client, symbol=symbol, start_date="2026-01-01")
            quote = await call(client, "get_quote", symbol=symbol)
            assert quote["year_high"] == max(d["high"] for d in this_year)
            assert quote["year_low"] == min(d["low"] for d in this_year)
            assert quote["ytd_change_pct"] == round((quote["close"] / this_year[0]["open"] - 1) * 100, 2)
            # the trap the 2025 bars set: over every stored bar the first open differs, and for SEMI
            # (a 2025 low) and PETX (a 2025 high) the range too
            assert days[0]["open"] != this_year[0]["open"]
            extremes = (max(d["high"] for d in days), min(d["low"] for d in days))
            assert (extremes != (quote["year_high"], quote["year_low"])) == (symbol != "FOOD")


async def test_financials_and_news_agree(world: World) -> None:
    async with serve("market", world) as client:
        fin = (await call(client, "get_financials", symbol="CLDX", quarters=7))["quarters"]
        assert [q["fiscal_quarter"] for q in fin] == [
            "2026Q3",
            "2026Q2",
            "2026Q1",
            "2025Q4",
            "2025Q3",
            "2025Q2",
            "2025Q1",
        ]
        latest = fin[0]
        assert latest["revenue_growth_yoy_pct"] == pytest.approx(
            (latest["revenue"] / fin[4]["revenue"] - 1) * 100, abs=0.1
        )
        assert fin[-1]["revenue_growth_yoy_pct"] is None
        news = await call(
            client,
            "search_news",
            symbol="CLDX",
            date_from=latest["reported_on"],
            date_to=latest["reported_on"],
        )
        verb = "beats" if latest["eps"] >= latest["eps_estimate"] else "misses"
        assert any(verb in n["headline"] and "Q3" in n["headline"] for n in news["items"]), news
        negative = await call(client, "search_news", sentiment="negative", page_size=50)
        assert negative["total"] > 20 and all(n["sentiment"] == "negative" for n in negative["items"])
        stamps = [n["published_at"] for n in negative["items"]]
        assert stamps == sorted(stamps, reverse=True)
        tumble = await call(
            client, "search_news", query="TUMBLE", date_from="2026-04-07", date_to="2026-04-07"
        )
        assert tumble["total"] >= 1 and tumble["items"][0]["symbol"] is None


async def test_watchlist_writes(world: World) -> None:
    async with serve("market", world) as client:
        made = await client.call_tool(
            "create_watchlist", {"name": "Chips", "symbols": ["semi", "SEMI", "qbit"]}
        )
        assert "2 symbol" in text(made)
        assert "already exists" in await error(client, "create_watchlist", name="chips")
        assert "no ticker" in await error(client, "create_watchlist", name="Bad", symbols=["ZZZZ"])
        assert "already on" in await error(client, "add_to_watchlist", watchlist="Chips", symbol="SEMI")
        added = await client.call_tool(
            "add_to_watchlist", {"watchlist": "Chips", "symbol": "NOVA", "note": "software"}
        )
        assert not added.is_error, text(added)
        chips = await call(client, "get_watchlist", name="chips")
        assert [(i["symbol"], i["note"]) for i in chips["items"]] == [
            ("SEMI", ""),
            ("QBIT", ""),
            ("NOVA", "software"),
        ]
        quote = await call(client, "get_quote", symbol="NOVA")
        assert chips["items"][2]["close"] == quote["close"]
        assert not (
            await client.call_tool("remove_from_watchlist", {"watchlist": "Chips", "symbol": "qbit"})
        ).is_error
        assert "is not on" in await error(client, "remove_from_watchlist", watchlist="Chips", symbol="QBIT")
        assert "no watchlist" in await error(client, "get_watchlist", name="Nope")
        assert [i["symbol"] for i in (await call(client, "get_watchlist", name="Chips"))["items"]] == [
            "SEMI",
            "NOVA",
        ]


async def test_bad_input_is_a_tool_error(world: World) -> None:
    async with serve("market", world) as client:
        for tool, args, expected in [
            ("get_quote", {"symbol": "ZZZZ"}, "no ticker"),
            ("get_price_history", {"symbol": "NOVA", "start_date": "March"}, "YYYY-MM-DD"),
            (
                "get_price_history",
                {"symbol": "NOVA", "start_date": "2026-05-01", "end_date": "2026-04-01"},
                "before",
            ),
            ("get_price_history", {"symbol": "NOVA", "page_size": 500}, "page_size"),
            ("get_price_history", {"symbol": "NOVA", "interval": "hourly"}, "validation error"),
            ("get_financials", {"symbol": "NOVA", "quarters": 0}, "quarters"),
            # the data holds 7 quarters, as the description says; 8 was accepted
            ("get_financials", {"symbol": "NOVA", "quarters": 8}, "between 1 and 7"),
            ("list_tickers", {"sector": "Crypto"}, "no tickers in sector"),
            ("search_news", {"page": 0}, "page starts at 1"),
        ]:
            assert expected in await error(client, tool, **args), (tool, args)


async def test_news_search_text_is_literal_and_dates_are_checked(world: World) -> None:
    """Regression: '%' in a query was a LIKE wildcard and matched every headline."""
    async with serve("market", world) as client:
        assert as_data(await client.call_tool("search_news", {"query": "%_%"}))["total"] == 0
        result = await client.call_tool("search_news", {"date_from": "2026-13-01"})
        assert result.is_error and "not a calendar date" in text(result), text(result)
