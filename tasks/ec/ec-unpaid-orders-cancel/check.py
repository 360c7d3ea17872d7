"""Unpaid orders placed before November are cancelled for non-payment, their customers told; nothing else."""

import re

from harness.checks import SENDING_MAIL, Criterion, World, new_rows, no_one_else_mailed, nothing_else_changed
from mcp_servers.mail.schema import sent_mail
from mcp_servers.shop.schema import NOW

# a sentence that says the order is still on its way contradicts the cancellation notice
GOING = re.compile(r"\b(ship|ships|shipped|shipping|dispatch\w*|on its way)\b")
NEGATED = re.compile(r"\b(not|no|never|nothing|won't|cannot|can't|isn't|no longer|instead of)\b|n't\b")
# ...unless it speaks of an order the customer may place again ("if you still want the items, place a
# new order and we will ship it"), not of the cancelled one
HYPOTHETICAL = re.compile(
    r"\b(if|should you|whenever|in (the )?future)\b|\b(new|next|another|future|fresh) order\b|\bre-?order"
)


def says_it_goes_ahead(body: str) -> bool:
    sentences = re.split(r"(?<=[.!?])\s+|\n+", body.lower())
    return any(GOING.search(s) and not NEGATED.search(s) and not HYPOTHETICAL.search(s) for s in sentences)


def notice_ok(subject: str, body: str, order_number: str) -> bool:
    low = body.lower()
    return (
        order_number in subject
        and "cancel" in subject.lower()
        and "cancel" in low
        and re.search(r"\b(pay|paid|payment|transfer)", low) is not None
        and not says_it_goes_ahead(body)
    )


def others_changed(world: World, targets: set[int]) -> list[str]:
    """Changes other than cancelling the `targets` (their status, the cancellation event, their items
    back in stock), besides the mail."""
    products = {r["product_id"] for r in world.rows("shop_order_lines") if r["order_id"] in targets}
    return world.changes(
        "shop",
        "mail",
        allow={
            "shop_orders": lambda seeded, final: (
                {"status", "refunded_amount"} if seeded is not None and seeded["id"] in targets else False
            ),
            "shop_order_events": new_rows("order_id", targets),
            "shop_stock": lambda seeded, final: (
                {"on_hand"} if seeded is not None and seeded["product_id"] in products else False
            ),
            **SENDING_MAIL,
        },
    )


def check(world: World) -> list[Criterion]:
    # an episode's writes are stamped exactly NOW (some seeded events lie after it, so compare by equality)
    orders = world.query(
        """SELECT o.id, o.order_number, o.placed_at, o.status, c.email FROM shop_orders o
           JOIN shop_customers c ON c.id = o.customer_id WHERE o.placed_at < '2026-11-01'"""
    )
    last_seeded = {
        r["order_id"]: r["status"]
        for r in world.query(
            "SELECT order_id, status FROM shop_order_events WHERE at <> :now ORDER BY order_id, at, id",
            now=NOW,
        )
    }
    targets = [o for o in orders if last_seeded.get(o["id"]) == "pending"]
    changed = world.query(
        """SELECT e.order_id, e.status, e.note, o.order_number FROM shop_order_events e
           JOIN shop_orders o ON o.id = e.order_id WHERE e.at = :now""",
        now=NOW,
    )
    done = {
        e["order_id"]
        for e in changed
        if e["status"] == "cancelled" and "payment not received" in (e["note"] or "").lower()
    }
    missed = [o["order_number"] for o in targets if o["status"] != "cancelled" or o["id"] not in done]
    wanted = {o["id"] for o in targets}
    out = [
        Criterion.of("targets exist", bool(targets), "no unpaid order before November was found"),
        Criterion.of(
            "unpaid orders cancelled",
            not missed,
            f"not cancelled with reason 'payment not received': {missed}",
        ),
        nothing_else_changed(others_changed(world, wanted)),
    ]
    unmailed, not_one, wrong = [], [], []
    for o in targets:
        mails = sent_mail(world.engine, to=o["email"], subject_contains=o["order_number"])
        if not mails:
            unmailed.append(o["order_number"])
        elif len(mails) > 1:
            not_one.append(o["order_number"])
        elif not notice_ok(mails[0].subject, mails[0].body, o["order_number"]):
            wrong.append(o["order_number"])
    out += [
        Criterion.of("customers told", not unmailed, f"no mail to the customer of {unmailed}"),
        Criterion.of("one message each", not not_one, f"more than one mail about {not_one}"),
        Criterion.of(
            "cancellation notice",
            not wrong,
            f"the mail about {wrong} must have the subject 'Order <number> cancelled' and say the order was"
            " cancelled because the payment did not arrive (and not that it ships)",
        ),
    ]
    told = {o["email"].lower() for o in targets}
    out.append(no_one_else_mailed(world, told))
    return out
