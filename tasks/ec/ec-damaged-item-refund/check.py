"""The damaged blender's order line is refunded (and nothing else changed in the shop), and the customer,
and no one else, is told."""

import re

from harness.checks import (
    SENDING_MAIL,
    Criterion,
    World,
    close_enough,
    new_rows,
    no_one_else_mailed,
    nothing_else_changed,
)
from mcp_servers.mail.schema import sent_mail
from mcp_servers.shop.schema import NOW

REASON = "item arrived damaged"


def amounts(text: str) -> list[float]:
    """The numbers of a text, reading 173,99 as 173.99 and 1,173.99 as 1173.99."""
    text = re.sub(r"(\d),(\d{2})\b(?!,\d)", r"\1.\2", text)
    return [float(n.replace(",", "")) for n in re.findall(r"\d[\d,]*(?:\.\d+)?", text)]


def others_changed(world: World, order_id: int) -> list[str]:
    """Changes to the shop other than the refund of the order and its refunded amount, besides the mail."""
    return world.changes(
        "shop",
        "mail",
        allow={
            "shop_orders": lambda seeded, _: (
                {"refunded_amount"} if seeded and seeded["id"] == order_id else False
            ),
            "shop_refunds": new_rows("order_id", {order_id}),
            **SENDING_MAIL,
        },
    )


def check(world: World) -> list[Criterion]:
    line = world.query(
        """SELECT o.id, o.order_number, o.status, o.paid_amount, l.line_total, c.email
           FROM shop_order_lines l JOIN shop_orders o ON o.id = l.order_id
           JOIN shop_products p ON p.id = l.product_id JOIN shop_customers c ON c.id = o.customer_id
           WHERE c.customer_number = 'CU10178' AND p.name = 'Ferro Blender Mini'
             AND o.placed_at BETWEEN '2026-10-20' AND '2026-11-01'"""
    )[0]
    refunds = world.query(
        "SELECT order_id, amount, reason FROM shop_refunds WHERE created_at = :now", now=NOW
    )
    mine = [r for r in refunds if r["order_id"] == line["id"]]
    out = [
        Criterion.of(
            "line refunded",
            len(mine) == 1 and abs(mine[0]["amount"] - line["line_total"]) < 0.005,
            f"refunds on {line['order_number']}: {mine}; expected one of {line['line_total']:.2f}",
        ),
        Criterion.of(
            "reason",
            bool(mine) and re.sub(r"[^a-z ]", "", mine[0]["reason"].lower()).split() == REASON.split(),
            "the refund's reason is not 'item arrived damaged'",
        ),
        Criterion.of("only that refund", len(refunds) == len(mine), f"{len(refunds)} refunds were issued"),
        Criterion.of("order kept", line["status"] == "delivered", f"the order is now {line['status']}"),
        nothing_else_changed(others_changed(world, line["id"])),
    ]
    mails = sent_mail(world.engine, to=line["email"])
    amount = f"{line['line_total']:.2f}"
    told = [
        m
        for m in mails
        if line["order_number"] in m.subject + m.body
        and any(close_enough(x, line["line_total"]) for x in amounts(m.body))
        and re.search(r"\brefund", m.body, re.I)
        and re.search(r"\beur\b|€|\beuros?\b", m.body, re.I)
    ]
    out.append(
        Criterion.of(
            "customer told",
            bool(told),
            f"no mail to {line['email']} naming {line['order_number']} and the refund of {amount} EUR",
        )
    )
    # the mail names the customer's order and refund: no one else may get it
    out.append(no_one_else_mailed(world, {line["email"]}))
    return out
