"""Looking up shop records by the keys people use (SKU, customer number or e-mail, order number),
and rendering them as the compact dicts the tools return."""

from __future__ import annotations

from typing import Any

from sqlmodel import Session, col, select

from mcp_servers.common.tooling import ToolError, fields
from mcp_servers.common.values import numeric_id
from mcp_servers.shop.schema import (
    TODAY,
    ShopCoupon,
    ShopCustomer,
    ShopOrder,
    ShopOrderEvent,
    ShopOrderLine,
    ShopProduct,
    ShopRefund,
    ShopStock,
)


def product(s: Session, sku: str) -> ShopProduct:
    key = sku.strip().upper()
    n = numeric_id(key)
    stmt = (
        select(ShopProduct).where(ShopProduct.id == n)
        if n is not None
        else select(ShopProduct).where(ShopProduct.sku == key)
    )
    found = s.execute(stmt).scalar_one_or_none()
    if found is None:
        raise ToolError(f"no product {sku!r}; give a SKU like AUD-1001 (search_products finds them)")
    return found


def stock(s: Session, product_id: int | None) -> ShopStock:
    found = s.execute(select(ShopStock).where(ShopStock.product_id == product_id)).scalar_one()
    return found


def customer(s: Session, key: str) -> ShopCustomer:
    k = key.strip()
    if (n := numeric_id(k)) is not None:
        stmt = select(ShopCustomer).where(ShopCustomer.id == n)
    elif "@" in k:
        stmt = select(ShopCustomer).where(ShopCustomer.email == k.lower())
    else:
        stmt = select(ShopCustomer).where(ShopCustomer.customer_number == k.upper())
    found = s.execute(stmt).scalar_one_or_none()
    if found is None:
        raise ToolError(
            f"no customer {key!r}; give a customer number (CU10001), an e-mail or an id (find_customers)"
        )
    return found


def order(s: Session, number: str) -> ShopOrder:
    k = number.strip().upper()
    if k.isdigit():
        k = f"ORD-{k}"
    found = s.execute(select(ShopOrder).where(ShopOrder.order_number == k)).scalar_one_or_none()
    if found is None:
        raise ToolError(f"no order {number!r}; order numbers look like ORD-100123 (list_orders finds them)")
    return found


def coupon_state(c: ShopCoupon, today: str = TODAY) -> str:
    """valid | inactive | scheduled | expired | exhausted."""
    if not c.active:
        return "inactive"
    if today < c.valid_from:
        return "scheduled"
    if today > c.valid_until:
        return "expired"
    if c.max_uses is not None and c.used_count >= c.max_uses:
        return "exhausted"
    return "valid"


def coupon_dict(c: ShopCoupon) -> dict[str, Any]:
    return {**fields(c, {"id"}), "state": coupon_state(c)}


def product_dict(
    p: ShopProduct, st: ShopStock | None = None, rating: tuple[Any, Any] | None = None
) -> dict[str, Any]:
    out: dict[str, Any] = {
        "sku": p.sku,
        "name": p.name,
        "category": p.category,
        "brand": p.brand,
        "price": p.price,
    }
    if not p.active:
        out["active"] = False
    if st is not None:
        out["on_hand"] = st.on_hand
    if rating is not None:
        avg, n = rating
        out["rating"] = None if avg is None else round(float(avg), 2)
        out["reviews"] = int(n or 0)
    return out


def order_summary(o: ShopOrder, c: ShopCustomer | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {
        "order_number": o.order_number, "placed_at": o.placed_at, "status": o.status, "total": o.total,
        "paid": o.paid_amount, "refunded": o.refunded_amount,
    }  # fmt: skip
    if c is not None:
        out["customer"] = c.customer_number
    return out


def order_detail(s: Session, o: ShopOrder) -> dict[str, Any]:
    c = s.get(ShopCustomer, o.customer_id)
    rows = s.execute(
        select(ShopOrderLine, ShopProduct)
        .join(ShopProduct, col(ShopProduct.id) == ShopOrderLine.product_id)
        .where(ShopOrderLine.order_id == o.id)
        .order_by(col(ShopOrderLine.id))
    ).all()
    refunds = s.execute(
        select(ShopRefund).where(ShopRefund.order_id == o.id).order_by(col(ShopRefund.id))
    ).scalars()
    events = s.execute(
        select(ShopOrderEvent).where(ShopOrderEvent.order_id == o.id).order_by(col(ShopOrderEvent.id))
    ).scalars()
    return {
        **fields(o, {"id", "customer_id"}),
        "customer": {"customer_number": c.customer_number, "name": c.name, "email": c.email} if c else None,
        "lines": [
            {
                "sku": p.sku,
                "name": p.name,
                "quantity": ln.quantity,
                "unit_price": ln.unit_price,
                "line_total": ln.line_total,
            }
            for ln, p in rows
        ],
        "refunds": [{"amount": r.amount, "reason": r.reason, "created_at": r.created_at} for r in refunds],
        "history": [{"at": e.at, "status": e.status, "note": e.note} for e in events],
    }
