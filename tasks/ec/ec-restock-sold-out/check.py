"""Every sold-out active product got its reorder quantity, nothing else was restocked; a wiki log page."""

from harness.checks import Criterion, World
from mcp_servers.shop.schema import TODAY


def check(world: World) -> list[Criterion]:
    stock = world.query(
        """SELECT p.sku, p.name, p.active, s.on_hand, s.reorder_quantity, s.last_restocked
           FROM shop_products p JOIN shop_stock s ON s.product_id = p.id"""
    )
    # seeded restock dates are all before today: today's date marks what this episode booked
    booked = [p for p in stock if p["last_restocked"] == TODAY]
    still_out = [p["sku"] for p in stock if p["active"] and p["on_hand"] == 0]
    # a sold-out product restocked by its reorder quantity ends exactly at it
    wrong = [p["sku"] for p in booked if not p["active"] or p["on_hand"] != p["reorder_quantity"]]
    out = [
        Criterion.of("something booked", bool(booked), "no product was restocked"),
        Criterion.of("no active product sold out", not still_out, f"still out of stock: {still_out}"),
        Criterion.of(
            "only sold-out products, by their reorder quantity",
            not wrong,
            f"restocked wrongly (not sold out, inactive or another quantity): {wrong}",
        ),
    ]
    pages = world.query(
        """SELECT p.id FROM wiki_page p JOIN wiki_page parent ON parent.id = p.parent_id
           WHERE lower(p.title) = 'restock 2026-11-20' AND parent.title = 'Operations' AND NOT p.archived"""
    )
    if not pages:
        out.append(Criterion("wiki page", False, "no page 'Restock 2026-11-20' under Operations"))
        return out
    blocks = [b["text"] for b in world.rows("wiki_block", page_id=pages[-1]["id"])]
    unlogged = [
        p["sku"]
        for p in booked
        if not any(p["sku"] in b and str(p["reorder_quantity"]) in b.replace(p["sku"], "") for b in blocks)
    ]
    out.append(
        Criterion.of(
            "wiki log",
            not unlogged,
            f"the wiki page lacks a line with the SKU and units received for {unlogged}",
        )
    )
    return out
