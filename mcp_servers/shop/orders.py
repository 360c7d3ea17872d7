"""The shop's write tools, with the validation the store applies: stock must cover every line, a
coupon must be active, in its dates, under its use limit and above its minimum order; refunds
never exceed what was paid; status moves one step along pending -> paid -> shipped -> delivered.

Concurrent sub-agents may write the same episode: stock, coupon uses, refunds and status changes
are conditional UPDATEs (`... WHERE on_hand >= :qty`), so two writers can never oversell, refund
twice or cancel twice; the loser gets a tool error and its transaction is rolled back.
"""

from __future__ import annotations

import re
import uuid
from typing import Literal

from mcp.server.mcpserver import MCPServer
from pydantic import BaseModel
from sqlalchemy import or_, update
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col, select

from mcp_servers.common.spec import ServerContext
from mcp_servers.common.tooling import ToolError, writer
from mcp_servers.common.values import finite, iso_date
from mcp_servers.shop import records
from mcp_servers.shop.schema import (
    NOW,
    TODAY,
    ShopCoupon,
    ShopOrder,
    ShopOrderEvent,
    ShopOrderLine,
    ShopRefund,
    ShopStock,
)
from mcp_servers.shop.seed import FREE_SHIPPING_FROM, SHIPPING_FEE

WRITE = "record-update"
MAX_RESTOCK = 10_000
CENT = 0.005  # money is rounded to cents: compare with half a cent of slack
NEXT_STATUS = {"pending": "paid", "paid": "shipped", "shipped": "delivered"}
COUPON_CODE = re.compile(r"^[A-Z0-9][A-Z0-9-]{2,19}$")


class OrderItem(BaseModel):
    """One line of a new order."""

    sku: str
    quantity: int


def _set_status(
    s: Session, o: ShopOrder, allowed: tuple[str, ...], new: str, note: str, **values: float
) -> None:
    """Move `o` to `new` only if it is still in `allowed` (a concurrent change makes this fail)."""
    done = (
        s.connection()
        .execute(
            update(ShopOrder)
            .where(col(ShopOrder.id) == o.id, col(ShopOrder.status).in_(allowed))
            .values(status=new, **values)
        )
        .rowcount
    )
    if done != 1:
        raise ToolError(f"order {o.order_number} changed meanwhile; get_order shows its current status")
    s.add(ShopOrderEvent(order_id=o.id or 0, at=NOW, status=new, note=note))


def _adjust_stock(s: Session, product_id: int, delta: int, sku: str) -> None:
    stmt = update(ShopStock).where(col(ShopStock.product_id) == product_id)
    if delta < 0:
        stmt = stmt.where(col(ShopStock.on_hand) >= -delta)
    if s.connection().execute(stmt.values(on_hand=col(ShopStock.on_hand) + delta)).rowcount != 1:
        raise ToolError(f"not enough stock of {sku} any more; get_product shows what is on hand")


def _check_date(value: str, name: str) -> str:
    return iso_date(value, name)


def register_writes(app: MCPServer, ctx: ServerContext) -> None:
    """Add the write tools to `app`."""

    @writer(app, WRITE)
    def create_order(customer: str, items: list[OrderItem], coupon_code: str | None = None) -> str:
        """Place an order for a customer (number CU10001, e-mail or id) and charge it: items are
        [{"sku": "AUD-1001", "quantity": 2}, ...]. Stock must cover every line; the optional coupon must
        be valid today and the order must reach its minimum. Shipping is free from 50 EUR (after the
        discount), otherwise 4.99. Returns the new order number and totals; the order is `paid`."""
        if not items:
            raise ToolError("items must list at least one {sku, quantity}")
        wanted: dict[str, int] = {}
        for item in items:
            if item.quantity < 1:
                raise ToolError(f"quantity of {item.sku} must be at least 1")
            key = item.sku.strip().upper()
            wanted[key] = wanted.get(key, 0) + item.quantity
        with Session(ctx.engine) as s:
            c = records.customer(s, customer)
            lines, short = [], []
            for sku, qty in wanted.items():
                p = records.product(s, sku)
                if not p.active:
                    raise ToolError(f"{p.sku} ({p.name}) is discontinued and cannot be ordered")
                on_hand = records.stock(s, p.id).on_hand
                if on_hand < qty:
                    short.append(f"{p.sku}: {qty} wanted, {on_hand} on hand")
                lines.append((p, qty))
            if short:
                raise ToolError("not enough stock: " + "; ".join(short))
            subtotal = round(sum(p.price * q for p, q in lines), 2)
            discount, coupon = 0.0, None
            if coupon_code:
                coupon = s.execute(
                    select(ShopCoupon).where(ShopCoupon.code == coupon_code.strip().upper())
                ).scalar_one_or_none()
                if coupon is None:
                    raise ToolError(f"no coupon {coupon_code!r}; list_coupons shows them")
                state = records.coupon_state(coupon)
                if state != "valid":
                    raise ToolError(f"coupon {coupon.code} cannot be used today: it is {state}")
                if subtotal < coupon.min_order_total:
                    raise ToolError(
                        f"coupon {coupon.code} needs an order of at least {coupon.min_order_total:.2f} EUR; "
                        f"this one is {subtotal:.2f}"
                    )
                discount = (
                    round(subtotal * coupon.value / 100, 2)
                    if coupon.kind == "percent"
                    else min(coupon.value, subtotal)
                )
                used = s.connection().execute(
                    update(ShopCoupon)
                    .where(
                        col(ShopCoupon.id) == coupon.id,
                        or_(
                            col(ShopCoupon.max_uses).is_(None),
                            col(ShopCoupon.used_count) < col(ShopCoupon.max_uses),
                        ),
                    )
                    .values(used_count=col(ShopCoupon.used_count) + 1)
                )
                if used.rowcount != 1:
                    raise ToolError(f"coupon {coupon.code} has just reached its use limit")
            shipping = 0.0 if subtotal - discount >= FREE_SHIPPING_FROM else SHIPPING_FEE
            total = round(subtotal - discount + shipping, 2)
            o = ShopOrder(
                order_number=f"TMP-{uuid.uuid4().hex}", customer_id=c.id or 0, placed_at=NOW, status="paid",
                coupon_code=coupon.code if coupon else None, subtotal=subtotal, discount=discount,
                shipping_fee=shipping, total=total, paid_amount=total, ship_city=c.city, ship_country=c.country,
            )  # fmt: skip
            s.add(o)
            s.flush()
            o.order_number = f"ORD-{100000 + (o.id or 0)}"
            for p, qty in lines:
                _adjust_stock(s, p.id or 0, -qty, p.sku)
                s.add(ShopOrderLine(order_id=o.id or 0, product_id=p.id or 0, quantity=qty,
                                    unit_price=p.price, line_total=round(p.price * qty, 2)))  # fmt: skip
            s.add(ShopOrderEvent(order_id=o.id or 0, at=NOW, status="pending", note="order placed"))
            s.add(ShopOrderEvent(order_id=o.id or 0, at=NOW, status="paid", note="card payment captured"))
            s.commit()
            return (
                f"Order {o.order_number} placed for {c.customer_number}: subtotal {subtotal:.2f}, discount "
                f"{discount:.2f}, shipping {shipping:.2f}, total {total:.2f} EUR (paid)."
            )

    @writer(app, WRITE, destructive=True)
    def cancel_order(order_number: str, reason: str) -> str:
        """Cancel an order that has not shipped yet (pending or paid): its items go back to stock and
        whatever was paid is refunded. Shipped or delivered orders cannot be cancelled: use issue_refund."""
        if not reason.strip():
            raise ToolError("give a reason for the cancellation")
        with Session(ctx.engine) as s:
            o = records.order(s, order_number)
            if o.status in ("shipped", "delivered"):
                raise ToolError(
                    f"{o.order_number} is already {o.status}; use issue_refund instead of cancelling"
                )
            if o.status in ("cancelled", "refunded"):
                raise ToolError(f"{o.order_number} is already {o.status}")
            refund = round(o.paid_amount - o.refunded_amount, 2)
            _set_status(s, o, ("pending", "paid"), "cancelled", reason, refunded_amount=o.paid_amount)
            lines = s.execute(select(ShopOrderLine).where(ShopOrderLine.order_id == o.id)).scalars().all()
            for line in lines:
                _adjust_stock(s, line.product_id, line.quantity, str(line.product_id))
            if refund > 0:
                s.add(
                    ShopRefund(
                        order_id=o.id or 0, amount=refund, reason=f"order cancelled: {reason}", created_at=NOW
                    )
                )
            s.commit()
            tail = f"; {refund:.2f} EUR refunded" if refund > 0 else ""
            return f"{o.order_number} cancelled; {len(lines)} line(s) returned to stock{tail}."

    @writer(app, WRITE)
    def issue_refund(order_number: str, amount: float, reason: str) -> str:
        """Refund part or all of a paid, shipped or delivered order. The amount (EUR) must be positive
        and at most what was paid minus what was already refunded; a full refund marks it `refunded`."""
        amount = round(finite(amount, "amount"), 2)
        if amount <= 0:
            raise ToolError("amount must be positive")
        if not reason.strip():
            raise ToolError("give a reason for the refund")
        with Session(ctx.engine) as s:
            o = records.order(s, order_number)
            if o.status == "pending":
                raise ToolError(
                    f"{o.order_number} was never paid: nothing to refund (cancel_order cancels it)"
                )
            if o.status in ("cancelled", "refunded"):
                raise ToolError(f"{o.order_number} is {o.status}: everything paid has been refunded already")
            left = round(o.paid_amount - o.refunded_amount, 2)
            if amount > left + CENT:
                raise ToolError(
                    f"{amount:.2f} EUR is more than can be refunded on {o.order_number}: paid {o.paid_amount:.2f}, "
                    f"already refunded {o.refunded_amount:.2f}, so at most {left:.2f}"
                )
            done = s.connection().execute(
                update(ShopOrder)
                .where(
                    col(ShopOrder.id) == o.id,
                    col(ShopOrder.refunded_amount) + amount <= col(ShopOrder.paid_amount) + CENT,
                )
                .values(refunded_amount=col(ShopOrder.refunded_amount) + amount)
            )
            if done.rowcount != 1:
                raise ToolError(
                    f"another refund on {o.order_number} came first; get_order shows what is left"
                )
            s.add(ShopRefund(order_id=o.id or 0, amount=amount, reason=reason, created_at=NOW))
            full = amount >= left - CENT
            if full:
                _set_status(s, o, ("paid", "shipped", "delivered"), "refunded", reason)
            s.commit()
            state = "fully refunded" if full else f"{left - amount:.2f} EUR still refundable"
            return f"Refunded {amount:.2f} EUR on {o.order_number} ({state})."

    @writer(app, WRITE)
    def restock(sku: str, quantity: int) -> str:
        """Book received goods into stock: adds `quantity` (1-10000) units of a product to on-hand stock."""
        if not 1 <= quantity <= MAX_RESTOCK:
            raise ToolError(f"quantity must be between 1 and {MAX_RESTOCK}")
        with Session(ctx.engine) as s:
            p = records.product(s, sku)
            _adjust_stock(s, p.id or 0, quantity, p.sku)
            st = records.stock(s, p.id)
            st.last_restocked = TODAY
            s.add(st)
            s.commit()
            return (
                f"{p.sku} restocked by {quantity}: {st.on_hand} on hand (reorder level {st.reorder_level})."
            )

    @writer(app, WRITE)
    def create_coupon(
        code: str,
        kind: Literal["percent", "fixed"],
        value: float,
        valid_from: str,
        valid_until: str,
        min_order_total: float = 0.0,
        max_uses: int | None = None,
        description: str = "",
    ) -> str:
        """Create a coupon: code (3-20 of A-Z, 0-9, '-'), kind percent (value 1-100) or fixed (value in
        EUR), validity dates YYYY-MM-DD (inclusive), optional minimum order total and use limit."""
        code = code.strip().upper()
        if not COUPON_CODE.match(code):
            raise ToolError(
                "code must be 3-20 characters of A-Z, 0-9 and '-', starting with a letter or digit"
            )
        finite(value, "value")
        finite(min_order_total, "min_order_total")
        if kind == "percent" and not 1 <= value <= 100:
            raise ToolError("a percent coupon's value must be between 1 and 100")
        if value <= 0:
            raise ToolError("value must be positive")
        valid_from = _check_date(valid_from, "valid_from")
        valid_until = _check_date(valid_until, "valid_until")
        if valid_until < valid_from:
            raise ToolError("valid_until is before valid_from")
        if valid_until < TODAY:
            raise ToolError(f"valid_until {valid_until} is already past (today is {TODAY})")
        if min_order_total < 0 or (max_uses is not None and max_uses < 1):
            raise ToolError("min_order_total must be >= 0 and max_uses >= 1 (or omitted for no limit)")
        with Session(ctx.engine) as s:
            if s.execute(select(ShopCoupon).where(ShopCoupon.code == code)).scalar_one_or_none():
                raise ToolError(f"coupon {code} already exists; choose another code")
            s.add(ShopCoupon(code=code, kind=kind, value=value, min_order_total=min_order_total, valid_from=valid_from,
                             valid_until=valid_until, max_uses=max_uses, description=description))  # fmt: skip
            try:
                s.commit()
            except IntegrityError:
                raise ToolError(f"coupon {code} already exists; choose another code") from None
            return f"Coupon {code} created ({value:g}{'%' if kind == 'percent' else ' EUR'} off, {valid_from} to {valid_until})."

    @writer(app, WRITE)
    def update_order_status(
        order_number: str, status: Literal["paid", "shipped", "delivered"], note: str = ""
    ) -> str:
        """Move an order one step on: pending -> paid (payment received), paid -> shipped,
        shipped -> delivered. Cancellations and refunds have their own tools."""
        with Session(ctx.engine) as s:
            o = records.order(s, order_number)
            expected = NEXT_STATUS.get(o.status)
            if expected != status:
                after = f"only to {expected}" if expected else "no further (it is final)"
                raise ToolError(f"{o.order_number} is {o.status}: it can move {after}, not to {status}")
            extra = {"paid_amount": o.total} if status == "paid" else {}
            _set_status(s, o, (o.status,), status, note, **extra)
            s.commit()
            return f"{o.order_number} is now {status}."
