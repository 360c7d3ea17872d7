"""Deterministic shop data: ~108 products with stock, 300 customers, ~900 orders (2025-06 to
2026-11-20) with lines, status history and refunds, 12 coupons and ~650 reviews.

Rows are inserted without ids, in id order, so ids are 1..n on every backend and database
sequences stay in step with them (orders created later get fresh ids).
"""

from __future__ import annotations

import random
from datetime import date, datetime, timedelta
from typing import Any

from sqlalchemy import insert
from sqlmodel import Session, SQLModel

from mcp_servers.common.names import people
from mcp_servers.shop.schema import (
    TODAY,
    ShopCoupon,
    ShopCustomer,
    ShopOrder,
    ShopOrderEvent,
    ShopOrderLine,
    ShopProduct,
    ShopRefund,
    ShopReview,
    ShopStock,
)

Row = dict[str, Any]
FREE_SHIPPING_FROM = 50.0
SHIPPING_FEE = 4.99

CATALOG: dict[str, tuple[list[str], list[tuple[str, int, int]]]] = {
    "Audio": (["Sonora", "Vibe", "Klangwerk"], [("Wireless Earbuds", 39, 149), ("Over-Ear Headphones", 59, 299),
              ("Bluetooth Speaker", 29, 199), ("Soundbar", 129, 449), ("Turntable", 149, 399)]),
    "Computing": (["Keyforge", "Nimbus", "Bytewise"], [("Mechanical Keyboard", 59, 189), ("Wireless Mouse", 19, 89),
                  ("USB-C Hub", 25, 79), ("27-inch Monitor", 179, 449), ("HD Webcam", 39, 129), ("Laptop Stand", 25, 69)]),
    "Home": (["Lumen", "Casa Nova", "Hearth"], [("Desk Lamp", 25, 99), ("Air Purifier", 89, 329), ("Smart Plug", 12, 35),
             ("Robot Vacuum", 199, 599), ("Ceiling Fan", 79, 249)]),
    "Kitchen": (["Ferro", "Gusto", "Nordkok"], [("Chef's Knife", 35, 149), ("Cast Iron Skillet", 29, 89),
                ("Blender", 49, 229), ("Electric Kettle", 25, 99), ("Coffee Grinder", 29, 189)]),
    "Outdoor": (["Trailhead", "Fjellstad", "Summit Co"], [("Hiking Backpack", 49, 199), ("Camping Tent", 89, 449),
                ("Insulated Bottle", 15, 45), ("Headlamp", 15, 69), ("Sleeping Bag", 49, 249)]),
    "Fitness": (["Core", "Pulse", "Atlas Fit"], [("Yoga Mat", 19, 79), ("Adjustable Dumbbells", 99, 349),
                ("Resistance Bands", 12, 39), ("Fitness Tracker", 49, 199), ("Foam Roller", 15, 45)]),
    "Office": (["Inkwell", "Ordo", "Paperlane"], [("Notebook Set", 9, 29), ("Fountain Pen", 19, 149),
               ("Desk Organizer", 15, 59), ("Ergonomic Chair", 149, 599), ("Whiteboard", 29, 119)]),
}  # fmt: skip
VARIANTS = ["", " Pro", " Lite", " Max", " Mini", " 2"]
CITIES = [
    ("Berlin", "Germany"), ("Munich", "Germany"), ("Hamburg", "Germany"), ("Paris", "France"), ("Lyon", "France"),
    ("Madrid", "Spain"), ("Barcelona", "Spain"), ("Rome", "Italy"), ("Milan", "Italy"), ("Amsterdam", "Netherlands"),
    ("Vienna", "Austria"), ("Brussels", "Belgium"), ("Copenhagen", "Denmark"), ("Stockholm", "Sweden"),
    ("Warsaw", "Poland"), ("Lisbon", "Portugal"), ("Dublin", "Ireland"), ("Prague", "Czechia"),
]  # fmt: skip
# code, kind, value, min order total, valid from, valid until, max uses, active, description
COUPONS: list[tuple[str, str, float, float, str, str, int | None, bool, str]] = [
    ("WELCOME10", "percent", 10, 0, "2025-01-01", "2027-12-31", None, True, "10% off for new customers"),
    ("SUMMER15", "percent", 15, 40, "2025-06-01", "2025-08-31", None, True, "Summer sale 2025"),
    ("AUTUMN20", "percent", 20, 80, "2025-09-15", "2025-10-31", None, True, "Autumn sale 2025"),
    ("XMAS25", "percent", 25, 100, "2025-12-01", "2025-12-24", None, True, "Christmas 2025"),
    ("SPRING15", "percent", 15, 50, "2026-03-01", "2026-05-31", None, True, "Spring sale 2026"),
    ("SAVE20", "fixed", 20, 150, "2025-06-01", "2026-12-31", None, True, "20 EUR off orders from 150 EUR"),
    ("FIVEOFF", "fixed", 5, 30, "2025-06-01", "2026-12-31", None, True, "5 EUR off orders from 30 EUR"),
    ("VIP30", "percent", 30, 0, "2026-01-01", "2026-12-31", 40, True, "Gold tier, first 40 uses"),
    (
        "OUTDOOR10",
        "percent",
        10,
        0,
        "2026-04-01",
        "2026-12-31",
        None,
        True,
        "10% off, spring outdoor campaign",
    ),
    ("AUTUMN26", "percent", 12, 60, "2026-10-01", "2026-11-30", None, True, "Autumn sale 2026"),
    ("BLACKFRIDAY25", "percent", 25, 0, "2026-11-27", "2026-11-30", 500, True, "Black Friday 2026"),
    ("LEAKED50", "percent", 50, 0, "2026-02-01", "2026-12-31", None, False, "Deactivated after it leaked"),
]
REVIEWS = {
    5: [("Excellent", "Does exactly what I wanted. Great quality for the price."),
        ("Love it", "Arrived quickly and works perfectly. Would buy again."),
        ("Best purchase this year", "Solid build, easy to use, no complaints at all.")],
    4: [("Very good", "Works well; a couple of small things could be better."),
        ("Good value", "Happy with it overall. Packaging could be better."),
        ("Recommended", "Does the job nicely, slightly smaller than I expected.")],
    3: [("It's okay", "Average quality. Fine for occasional use."),
        ("Mixed feelings", "Some parts are great, others feel cheap."),
        ("Does the job", "Nothing special, but it works.")],
    2: [("Disappointing", "Stopped working properly after a few weeks."),
        ("Not as described", "The finish is worse than in the pictures."),
        ("Meh", "Feels flimsy; I expected more for the price.")],
    1: [("Broke after a week", "Stopped working after a week. Asked for a refund."),
        ("Do not buy", "Arrived damaged and support was slow."),
        ("Waste of money", "Poor quality, nothing like the description.")],
}  # fmt: skip
REFUND_REASONS = ["item arrived damaged", "wrong item delivered", "item not as described", "changed my mind"]
# A discontinued product that sold out too: a restock of "every active product out of stock"
# must leave it alone.
SOLD_OUT_DISCONTINUED = "FIT-1086"


def _insert(session: Session, model: type[SQLModel], rows: list[Row]) -> None:
    if rows:
        session.connection().execute(insert(model), rows)


def _products(rng: random.Random) -> tuple[list[Row], list[Row], list[float]]:
    products: list[Row] = []
    stock: list[Row] = []
    quality: list[float] = []
    for category, (brands, items) in CATALOG.items():
        for item, low, high in items:
            for brand in brands:
                n = len(products) + 1
                price = max(low, round(rng.uniform(low, high))) - 0.01
                products.append({
                    "sku": f"{category[:3].upper()}-{1000 + n}", "name": f"{brand} {item}{rng.choice(VARIANTS)}",
                    "category": category, "brand": brand, "price": price,
                    "description": f"{item} by {brand}.", "active": rng.random() > 0.05,
                    "created_on": (date(2024, 1, 1) + timedelta(days=rng.randint(0, 600))).isoformat(),
                })  # fmt: skip
                level = rng.choice([10, 15, 20, 25, 30, 40])
                r = rng.random()
                on_hand = (
                    0 if r < 0.04 else rng.randint(1, level) if r < 0.16 else rng.randint(level + 1, 220)
                )
                stock.append({
                    "product_id": n, "on_hand": on_hand, "reorder_level": level, "reorder_quantity": level * 3,
                    "bin_location": f"{'ABCDEF'[n % 6]}-{n % 20 + 1:02d}-{n % 4 + 1}",
                    "last_restocked": (date(2026, 8, 1) + timedelta(days=rng.randint(0, 100))).isoformat(),
                })  # fmt: skip
                quality.append(rng.uniform(2.6, 4.8))
    n = next(i for i, p in enumerate(products) if p["sku"] == SOLD_OUT_DISCONTINUED)
    assert not products[n]["active"], f"{SOLD_OUT_DISCONTINUED} must be a discontinued product"
    stock[n]["on_hand"] = 0
    return products, stock, quality


def _stamp(day: date, rng: random.Random) -> str:
    return datetime(
        day.year, day.month, day.day, rng.randint(7, 22), rng.randint(0, 59), rng.randint(0, 59)
    ).isoformat()


def seed(session: Session) -> None:
    """Fill the shop tables (same rows on every call)."""
    rng = random.Random(4242026)
    today = date.fromisoformat(TODAY)
    products, stock, quality = _products(rng)
    _insert(session, ShopProduct, products)
    _insert(session, ShopStock, stock)

    customers: list[Row] = []
    for i, (name, email) in enumerate(people(300, seed=88, domain="mail.example"), start=1):
        city, country = rng.choice(CITIES)
        customers.append({
            "customer_number": f"CU{10000 + i}", "name": name, "email": email, "city": city, "country": country,
            "tier": rng.choices(["standard", "silver", "gold"], [70, 20, 10])[0],
            "joined_on": (date(2023, 1, 1) + timedelta(days=rng.randint(0, 1000))).isoformat(),
        })  # fmt: skip
    _insert(session, ShopCustomer, customers)

    coupons: list[Row] = [
        {"code": c, "kind": k, "value": float(v), "min_order_total": float(m), "valid_from": f, "valid_until": u,
         "max_uses": mx, "used_count": 0, "active": a, "description": d}
        for c, k, v, m, f, u, mx, a, d in COUPONS
    ]  # fmt: skip
    orders: list[Row] = []
    lines: list[Row] = []
    events: list[Row] = []
    refunds: list[Row] = []
    reviews: list[Row] = []
    start = date(2025, 6, 1)
    span = (today - start).days
    customer_weights = [{"standard": 1.0, "silver": 2.0, "gold": 4.0}[c["tier"]] for c in customers]
    while len(orders) < 900:
        # more orders as the shop grows: square-root spacing puts more of them near today
        day = start + timedelta(days=min(span, int(span * rng.random() ** 0.7)))
        placed = _stamp(day, rng)
        cust_id = rng.choices(range(1, len(customers) + 1), customer_weights)[0]
        cust = customers[cust_id - 1]
        picked = rng.sample(
            [i for i, p in enumerate(products, 1) if p["active"] or day.year < 2026], rng.randint(1, 4)
        )
        order_id = len(orders) + 1
        subtotal = 0.0
        order_lines = []
        for prod_id in picked:
            qty = rng.choices([1, 2, 3], [75, 20, 5])[0]
            price = products[prod_id - 1]["price"]
            order_lines.append({"order_id": order_id, "product_id": prod_id, "quantity": qty,
                                "unit_price": price, "line_total": round(qty * price, 2)})  # fmt: skip
            subtotal += qty * price
        subtotal = round(subtotal, 2)
        coupon = None
        if rng.random() < 0.18:
            usable = [c for c in coupons if c["active"] and c["valid_from"] <= placed[:10] <= c["valid_until"]
                      and subtotal >= c["min_order_total"] and (c["max_uses"] is None or c["used_count"] < c["max_uses"])
                      and (c["code"] != "VIP30" or cust["tier"] == "gold")]  # fmt: skip
            coupon = rng.choice(usable) if usable else None
        discount = 0.0
        if coupon:
            coupon["used_count"] += 1
            discount = (
                round(subtotal * coupon["value"] / 100, 2)
                if coupon["kind"] == "percent"
                else min(coupon["value"], subtotal)
            )
        shipping = 0.0 if subtotal - discount >= FREE_SHIPPING_FROM else SHIPPING_FEE
        total = round(subtotal - discount + shipping, 2)
        age = (today - day).days
        r = rng.random()
        if age < 6:
            status = "pending" if r < 0.2 else "paid" if r < 0.8 else "shipped"
        elif age <= 14:
            status = "shipped" if r < 0.5 else "delivered" if r < 0.95 else "cancelled"
        else:  # a few bank-transfer orders were never paid
            status = ("pending" if age < 35 and r < 0.06 else "delivered" if r < 0.88 else "cancelled" if r < 0.93
                      else "refunded" if r < 0.97 else "partial")  # fmt: skip
        history = (
            ["pending"]
            if status == "pending" or (status == "cancelled" and r > 0.98)
            else ["pending", "paid"]
        )
        history += {"shipped": ["shipped"], "delivered": ["shipped", "delivered"], "cancelled": ["cancelled"],
                    "refunded": ["shipped", "delivered", "refunded"], "partial": ["shipped", "delivered"]}.get(status, [])  # fmt: skip
        moment = datetime.fromisoformat(placed)
        for step in history:
            events.append({"order_id": order_id, "at": moment.isoformat(), "status": step,
                           "note": "order placed" if step == "pending" else ""})  # fmt: skip
            moment += timedelta(hours=rng.randint(1, 20) if step == "pending" else rng.randint(20, 70))
        paid = total if "paid" in history else 0.0
        refunded = 0.0
        if paid and status in ("cancelled", "refunded", "partial"):
            line = rng.choice(order_lines)
            refunded = paid if status != "partial" else min(paid, line["line_total"])
            reason = "order cancelled by customer" if status == "cancelled" else rng.choice(REFUND_REASONS)
            refunds.append(
                {"order_id": order_id, "amount": refunded, "reason": reason, "created_at": moment.isoformat()}
            )
        if status == "delivered" or status == "partial":
            delivered = moment.date()
            for line in order_lines:
                if rng.random() < 0.35 and delivered + timedelta(days=2) < today:
                    rating = max(1, min(5, round(rng.gauss(quality[line["product_id"] - 1], 0.9))))
                    title, body = rng.choice(REVIEWS[rating])
                    when = min(today, delivered + timedelta(days=rng.randint(2, 20)))
                    reviews.append({"product_id": line["product_id"], "customer_id": cust_id, "rating": rating,
                                    "title": title, "body": body, "created_at": _stamp(when, rng), "verified_purchase": True})  # fmt: skip
        orders.append({
            "order_number": f"ORD-{100000 + order_id}", "customer_id": cust_id, "placed_at": placed,
            "status": "delivered" if status == "partial" else status, "coupon_code": coupon and coupon["code"],
            "subtotal": subtotal, "discount": discount, "shipping_fee": shipping, "total": total,
            "paid_amount": paid, "refunded_amount": refunded, "ship_city": cust["city"], "ship_country": cust["country"],
        })  # fmt: skip
        lines += order_lines
    # the store's orders are numbered in the order they were placed
    order_of = sorted(range(len(orders)), key=lambda k: orders[k]["placed_at"])
    renumber = {old + 1: new + 1 for new, old in enumerate(order_of)}
    orders = [orders[k] | {"order_number": f"ORD-{100001 + new}"} for new, k in enumerate(order_of)]
    for row in (*lines, *events, *refunds):
        row["order_id"] = renumber[row["order_id"]]
    for _ in range(40):  # a few unverified reviews
        reviews.append({"product_id": rng.randint(1, len(products)), "customer_id": rng.randint(1, len(customers)),
                        "rating": rng.choice([1, 5, 5, 4]), "title": "Seen it at a friend's", "body": "Tried it, my opinion.",
                        "created_at": _stamp(today - timedelta(days=rng.randint(1, 300)), rng), "verified_purchase": False})  # fmt: skip
    reviews.sort(key=lambda r: r["created_at"])
    _insert(session, ShopCoupon, coupons)
    _insert(session, ShopOrder, orders)
    _insert(session, ShopOrderLine, sorted(lines, key=lambda r: r["order_id"]))
    _insert(session, ShopOrderEvent, sorted(events, key=lambda r: (r["order_id"], r["at"])))
    _insert(session, ShopRefund, sorted(refunds, key=lambda r: r["created_at"]))
    _insert(session, ShopReview, reviews)
