"""Unpaid orders placed before November are cancelled for non-payment, their customers told; nothing else."""

from harness.checks import Criterion, World
from mcp_servers.mail.schema import sent_mail
from mcp_servers.shop.schema import NOW


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
    extra = sorted({e["order_number"] for e in changed if e["order_id"] not in wanted})
    out = [
        Criterion.of("targets exist", bool(targets), "no unpaid order before November was found"),
        Criterion.of(
            "unpaid orders cancelled",
            not missed,
            f"not cancelled with reason 'payment not received': {missed}",
        ),
        Criterion.of("nothing else changed", not extra, f"other orders were changed: {extra}"),
    ]
    unmailed = [
        o["order_number"]
        for o in targets
        if not sent_mail(world.engine, to=o["email"], subject_contains=o["order_number"])
    ]
    out.append(Criterion.of("customers told", not unmailed, f"no mail to the customer of {unmailed}"))
    return out
