from __future__ import annotations

import asyncio
from typing import Any

import pytest
from mcp import Client
from sqlalchemy import text as sql_text

from tests.mcp_servers.support import World, as_data, check_contract, serve, text


async def call(client: Client, tool: str, **args: Any) -> Any:
    return as_data(await client.call_tool(tool, args))


async def error(client: Client, tool: str, **args: Any) -> str:
    result = await client.call_tool(tool, args)
    assert result.is_error, f"{tool} should have failed: {text(result)}"
    return text(result)


async def first_order(client: Client, status: str) -> str:
    return (await call(client, "list_orders", status=status, page_size=1))["items"][0]["order_number"]


async def in_stock(client: Client, index: int = 0) -> dict[str, Any]:
    items = (await call(client, "search_products", in_stock_only=True, sort="price_desc", page_size=10))[
        "items"
    ]
    return items[index]


def scalar(world: World, sql: str, **params: Any) -> Any:
    with world.engine.connect() as conn:
        return conn.execute(sql_text(sql), params).scalar()


async def test_shop_contract(world: World) -> None:
    async with serve("shop", world) as client:
        product = await in_stock(client)
        calls = {
            "search_products": {"query": "headphones", "sort": "rating"},
            "get_product": {"sku": product["sku"]},
            "low_stock_report": {"page_size": 5},
            "find_customers": {"query": "garcia"},
            "get_customer": {"customer": "CU10001"},
            "get_order": {"order_number": "ORD-100001"},
            "list_orders": {"customer": "CU10001", "status": "delivered"},
            "list_reviews": {"sku": product["sku"], "min_rating": 4},
            "list_coupons": {"state": "valid"},
            "create_order": {"customer": "CU10001", "items": [{"sku": product["sku"], "quantity": 1}]},
            "cancel_order": {"order_number": await first_order(client, "paid"), "reason": "customer request"},
            "issue_refund": {
                "order_number": await first_order(client, "delivered"),
                "amount": 1.5,
                "reason": "late",
            },
            "restock": {"sku": product["sku"], "quantity": 5},
            "create_coupon": {
                "code": "WINTER10",
                "kind": "percent",
                "value": 10,
                "valid_from": "2026-12-01",
                "valid_until": "2027-01-31",
            },  # fmt: skip
            "update_order_status": {
                "order_number": await first_order(client, "shipped"),
                "status": "delivered",
            },
        }
        await check_contract(client, world, calls)
        assert (await call(client, "get_product", sku=product["sku"]))["stock"]["on_hand"] == product[
            "on_hand"
        ] - 1 + 5
        assert scalar(world, "SELECT kind FROM shop_coupons WHERE code = 'WINTER10'") == "percent"


async def test_create_order_with_coupon_charges_and_takes_stock(world: World) -> None:
    async with serve("shop", world) as client:
        a, b = await in_stock(client, 0), await in_stock(client, 1)
        before = await call(client, "get_customer", customer="CU10002")
        uses = scalar(world, "SELECT used_count FROM shop_coupons WHERE code = 'WELCOME10'")
        done = text(
            await client.call_tool(
                "create_order",
                {"customer": "CU10002", "items": [{"sku": a["sku"], "quantity": 2}, {"sku": b["sku"], "quantity": 1}],
                 "coupon_code": "welcome10"},
            )
        )  # fmt: skip
        number = done.split()[1]
        order = await call(client, "get_order", order_number=number)
        subtotal = round(2 * a["price"] + b["price"], 2)
        assert order["subtotal"] == pytest.approx(subtotal)
        assert order["discount"] == pytest.approx(round(subtotal * 0.1, 2))
        assert order["total"] == pytest.approx(subtotal - order["discount"] + order["shipping_fee"])
        assert (
            order["status"] == "paid"
            and order["paid_amount"] == order["total"]
            and order["coupon_code"] == "WELCOME10"
        )
        assert [(ln["sku"], ln["quantity"]) for ln in order["lines"]] == [(a["sku"], 2), (b["sku"], 1)]
        assert [h["status"] for h in order["history"]] == ["pending", "paid"]
        assert (await call(client, "get_product", sku=a["sku"]))["stock"]["on_hand"] == a["on_hand"] - 2
        assert scalar(world, "SELECT used_count FROM shop_coupons WHERE code = 'WELCOME10'") == uses + 1
        after = await call(client, "get_customer", customer="CU10002")
        assert after["orders"] == before["orders"] + 1
        assert after["total_paid"] == pytest.approx(before["total_paid"] + order["total"])
        newest = await call(client, "list_orders", customer="CU10002", page_size=1)
        assert newest["items"][0]["order_number"] == number


async def test_orders_are_refused_when_the_store_would_refuse_them(world: World) -> None:
    async with serve("shop", world) as client:
        p = await in_stock(client)
        cheap = (await call(client, "search_products", in_stock_only=True, sort="price_asc", page_size=1))[
            "items"
        ][0]
        gone = scalar(world, "SELECT sku FROM shop_products WHERE active = false ORDER BY id LIMIT 1")
        before = world.dump("shop_")
        one = [{"sku": p["sku"], "quantity": 1}]
        cases = [
            ({"items": [{"sku": p["sku"], "quantity": p["on_hand"] + 1}]}, "not enough stock"),
            ({"items": one, "coupon_code": "SUMMER15"}, "expired"),
            ({"items": one, "coupon_code": "BLACKFRIDAY25"}, "scheduled"),
            ({"items": one, "coupon_code": "LEAKED50"}, "inactive"),
            ({"items": one, "coupon_code": "NOPE"}, "no coupon"),
            ({"items": [{"sku": cheap["sku"], "quantity": 1}], "coupon_code": "SAVE20"}, "at least 150.00"),
            ({"items": [{"sku": gone, "quantity": 1}]}, "discontinued"),
            ({"items": [{"sku": "XXX-1", "quantity": 1}]}, "no product"),
            ({"items": [{"sku": p["sku"], "quantity": 0}]}, "at least 1"),
            ({"items": []}, "at least one"),
        ]
        for args, expected in cases:
            assert expected in await error(client, "create_order", customer="CU10003", **args), args
        assert "no customer" in await error(client, "create_order", customer="CU99999", items=one)
        assert world.dump("shop_") == before


async def test_coupon_use_limit(world: World) -> None:
    async with serve("shop", world) as client:
        p = await in_stock(client)
        made = await client.call_tool(
            "create_coupon",
            {"code": "once-only", "kind": "fixed", "value": 5, "valid_from": "2026-11-01", "valid_until": "2026-12-31", "max_uses": 1},
        )  # fmt: skip
        assert not made.is_error, text(made)
        items = [{"sku": p["sku"], "quantity": 1}]
        first = await client.call_tool(
            "create_order", {"customer": "CU10004", "items": items, "coupon_code": "ONCE-ONLY"}
        )
        assert not first.is_error, text(first)
        assert "exhausted" in await error(
            client, "create_order", customer="CU10005", items=items, coupon_code="ONCE-ONLY"
        )
        coupons = {c["code"]: c for c in await call(client, "list_coupons")}
        assert coupons["ONCE-ONLY"]["used_count"] == 1 and coupons["ONCE-ONLY"]["state"] == "exhausted"


async def test_refunds_never_exceed_what_was_paid(world: World) -> None:
    async with serve("shop", world) as client:
        number = await first_order(client, "delivered")
        order = await call(client, "get_order", order_number=number)
        paid, refunds = order["paid_amount"], len(order["refunds"])
        msg = await error(client, "issue_refund", order_number=number, amount=paid + 1, reason="too much")
        assert f"at most {paid:.2f}" in msg
        assert "positive" in await error(client, "issue_refund", order_number=number, amount=0, reason="x")
        part = await client.call_tool(
            "issue_refund", {"order_number": number, "amount": 10, "reason": "scratched"}
        )
        assert "still refundable" in text(part)
        assert f"at most {paid - 10:.2f}" in await error(
            client, "issue_refund", order_number=number, amount=paid, reason="rest"
        )
        rest = await client.call_tool(
            "issue_refund", {"order_number": number, "amount": round(paid - 10, 2), "reason": "rest"}
        )
        assert "fully refunded" in text(rest)
        order = await call(client, "get_order", order_number=number)
        assert order["status"] == "refunded" and order["refunded_amount"] == pytest.approx(paid)
        assert [r["amount"] for r in order["refunds"][refunds:]] == [10, pytest.approx(paid - 10)]
        assert "refunded" in await error(
            client, "issue_refund", order_number=number, amount=1, reason="again"
        )
        pending = await first_order(client, "pending")
        assert "never paid" in await error(client, "issue_refund", order_number=pending, amount=1, reason="x")


async def test_cancel_returns_stock_and_refunds_payment(world: World) -> None:
    async with serve("shop", world) as client:
        number = await first_order(client, "paid")
        order = await call(client, "get_order", order_number=number)
        stock = {
            ln["sku"]: (await call(client, "get_product", sku=ln["sku"]))["stock"]["on_hand"]
            for ln in order["lines"]
        }
        assert "refunded" in text(
            await client.call_tool("cancel_order", {"order_number": number, "reason": "duplicate"})
        )
        order = await call(client, "get_order", order_number=number)
        assert order["status"] == "cancelled" and order["history"][-1]["status"] == "cancelled"
        assert order["refunds"][-1]["amount"] == pytest.approx(order["paid_amount"])
        for ln in order["lines"]:
            on_hand = (await call(client, "get_product", sku=ln["sku"]))["stock"]["on_hand"]
            assert on_hand == stock[ln["sku"]] + ln["quantity"]
        assert "already cancelled" in await error(client, "cancel_order", order_number=number, reason="again")
        shipped = await first_order(client, "shipped")
        assert "issue_refund" in await error(client, "cancel_order", order_number=shipped, reason="late")


async def test_status_moves_one_step_at_a_time(world: World) -> None:
    async with serve("shop", world) as client:
        pending = await first_order(client, "pending")
        assert "only to paid" in await error(
            client, "update_order_status", order_number=pending, status="shipped"
        )
        for status in ("paid", "shipped", "delivered"):
            done = await client.call_tool("update_order_status", {"order_number": pending, "status": status})
            assert not done.is_error, text(done)
        order = await call(client, "get_order", order_number=pending)
        assert order["status"] == "delivered" and order["paid_amount"] == order["total"]
        assert [h["status"] for h in order["history"]][-3:] == ["paid", "shipped", "delivered"]
        assert "final" in await error(client, "update_order_status", order_number=pending, status="delivered")


async def test_listings_page_filter_and_sort(world: World) -> None:
    async with serve("shop", world) as client:
        first = await call(client, "list_orders", date_from="2026-10-01", date_to="2026-10-31", page_size=50)
        total = scalar(world, "SELECT COUNT(*) FROM shop_orders WHERE placed_at LIKE '2026-10-%'")
        seen = [o["order_number"] for p in range(1, first["pages"] + 1)
                for o in (await call(client, "list_orders", date_from="2026-10-01", date_to="2026-10-31", page=p, page_size=50))["items"]]  # fmt: skip
        assert len(seen) == len(set(seen)) == first["total"] == total > 50
        low = await call(client, "low_stock_report")
        assert low["total"] == scalar(
            world,
            "SELECT COUNT(*) FROM shop_stock s JOIN shop_products p ON p.id = s.product_id "
            "WHERE s.on_hand <= s.reorder_level AND p.active = true",
        )
        assert (
            all(i["on_hand"] <= i["reorder_level"] for i in low["items"]) and low["items"][0]["on_hand"] == 0
        )
        audio = await call(client, "search_products", category="audio", sort="price_desc", page_size=50)
        prices = [i["price"] for i in audio["items"]]
        assert audio["total"] == 15 and prices == sorted(prices, reverse=True)
        assert (await call(client, "search_products", query="AUD-1001"))["items"][0]["sku"] == "AUD-1001"
        reviews = await call(client, "list_reviews", sku=audio["items"][0]["sku"], page_size=5)
        assert sum(reviews["summary"]["stars"].values()) == reviews["summary"]["count"] == reviews["total"]
        assert "valid" in {c["state"] for c in await call(client, "list_coupons")}


async def test_bad_input_is_a_tool_error(world: World) -> None:
    async with serve("shop", world) as client:
        for tool, args, expected in [
            ("get_order", {"order_number": "ORD-1"}, "no order"),
            ("get_product", {"sku": "nope"}, "no product"),
            ("list_orders", {"status": "lost"}, "status must be one of"),
            ("list_orders", {"date_from": "1 May"}, "YYYY-MM-DD"),
            ("list_reviews", {"sku": "AUD-1001", "min_rating": 6}, "ratings go from 1 to 5"),
            ("search_products", {"page": 0}, "page starts at 1"),
            ("restock", {"sku": "AUD-1001", "quantity": 0}, "between 1 and"),
            ("create_coupon", {"code": "WELCOME10", "kind": "percent", "value": 5, "valid_from": "2026-12-01", "valid_until": "2026-12-31"}, "already exists"),
            ("create_coupon", {"code": "BIG", "kind": "percent", "value": 150, "valid_from": "2026-12-01", "valid_until": "2026-12-31"}, "between 1 and 100"),
            ("create_coupon", {"code": "OLD", "kind": "fixed", "value": 5, "valid_from": "2026-01-01", "valid_until": "2026-02-01"}, "already past"),
            ("create_coupon", {"code": "X", "kind": "fixed", "value": 5, "valid_from": "2026-12-01", "valid_until": "2026-12-31"}, "3-20 characters"),
            ("create_coupon", {"code": "ODD", "kind": "bogus", "value": 5, "valid_from": "2026-12-01", "valid_until": "2026-12-31"}, "validation error"),
        ]:  # fmt: skip
            assert expected in await error(client, tool, **args), (tool, args)


async def test_concurrent_orders_never_oversell(world: World) -> None:
    """Sub-agents ordering the last units at once: exactly one wins, stock never goes negative."""
    async with serve("shop", world) as client:
        p = (await call(client, "search_products", in_stock_only=True, sort="price_asc", page_size=1))[
            "items"
        ][0]
        args = {"customer": "CU10001", "items": [{"sku": p["sku"], "quantity": p["on_hand"]}]}
        results = await asyncio.gather(*[client.call_tool("create_order", args) for _ in range(4)])
        assert sorted(r.is_error for r in results) == [False, True, True, True]
        assert all("stock" in text(r) for r in results if r.is_error)
        assert (await call(client, "get_product", sku=p["sku"]))["stock"]["on_hand"] == 0


async def test_nan_amounts_wildcards_categories_and_dates_are_refused(world: World) -> None:
    """Regressions: a refund or coupon of 'nan' was stored (nan fails every comparison); '%' in a
    search matched every product; an unknown category or a compact date_from gave wrong results."""
    async with serve("shop", world) as client:
        number = await first_order(client, "delivered")
        coupon = {
            "code": "NANX",
            "kind": "fixed",
            "value": 5,
            "valid_from": "2026-12-01",
            "valid_until": "2027-01-31",
        }
        for tool, args, expected in [
            ("issue_refund", {"order_number": number, "amount": "nan", "reason": "x"}, "finite"),
            ("issue_refund", {"order_number": number, "amount": "inf", "reason": "x"}, "finite"),
            ("create_coupon", {**coupon, "value": "nan"}, "finite"),
            ("create_coupon", {**coupon, "min_order_total": "inf"}, "finite"),
            ("create_coupon", {**coupon, "valid_from": "20261201"}, "YYYY-MM-DD"),
            ("search_products", {"category": "Gadgets"}, "Audio"),
            ("search_products", {"min_price": "nan"}, "finite"),
            ("list_orders", {"date_from": "20260101"}, "YYYY-MM-DD"),
            ("list_orders", {"date_from": "2026-02-30"}, "not a calendar date"),
        ]:  # fmt: skip
            result = await client.call_tool(tool, args)
            assert result.is_error and expected in text(result), (tool, args, text(result))
        assert (await call(client, "get_order", order_number=number))["refunds"] == []
        assert as_data(await client.call_tool("search_products", {"query": "%"}))["total"] == 0
        audio = as_data(await client.call_tool("search_products", {"category": "audio"}))
        assert audio["total"] > 0


async def test_coupon_percent_below_one_is_refused_and_dates_are_stored_stripped(
    world: World,
) -> None:
    """Regressions: a 0.5 percent coupon was created although the description says 1-100; a date
    with surrounding spaces was checked stripped but stored as typed."""
    async with serve("shop", world) as client:
        terms = {"kind": "percent", "valid_from": " 2026-12-01 ", "valid_until": "2026-12-31\n"}
        assert "between 1 and 100" in await error(client, "create_coupon", code="HALF", value=0.5, **terms)
        made = await client.call_tool("create_coupon", {"code": "ONE", "value": 1, **terms})
        assert not made.is_error, text(made)
        coupons = {c["code"]: c for c in await call(client, "list_coupons")}
        assert "HALF" not in coupons
        assert (coupons["ONE"]["valid_from"], coupons["ONE"]["valid_until"]) == (
            "2026-12-01",
            "2026-12-31",
        )
