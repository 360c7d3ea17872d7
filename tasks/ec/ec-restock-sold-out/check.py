"""Every sold-out active product got its reorder quantity, nothing else was restocked; a wiki log page."""

import re

from harness.checks import Criterion, World, new_rows, nothing_else_changed
from mcp_servers.shop.schema import TODAY

SKU = re.compile(r"\b[A-Z]{3}-\d{4}\b")


def logged(line: str, product: dict, skus: set[str]) -> bool:
    """The line names this product (SKU and name, no other product) and the units received."""
    if product["sku"] not in line or any(s != product["sku"] for s in SKU.findall(line) if s in skus):
        return False
    if product["name"].lower() not in line.lower():
        return False
    rest = re.sub(re.escape(product["name"]), " ", line.replace(product["sku"], " "), flags=re.I)
    # the units received: a number of its own, not one inside a bin code like A-11-3
    units = [int(n) for n in re.findall(r"(?<![\w-])(\d+)(?![\w-])", rest.replace(",", ""))]
    return product["reorder_quantity"] in units


def others_changed(world: World) -> list[str]:
    """Changes other than restocked stock rows (which ones, and by how much, is checked on its own) and the
    new log page with its blocks."""
    new = {r["id"] for r in world.query("SELECT id FROM wiki_page WHERE lower(title) = 'restock 2026-11-20'")}
    return world.changes(
        "shop",
        "wiki",
        allow={
            "shop_stock": lambda seeded, final: {"on_hand", "last_restocked"},
            "wiki_page": new_rows("id", new),
            "wiki_block": new_rows("page_id", new),
        },
    )


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
    # one log page: a second copy of it is clutter on the wiki
    out.append(Criterion.of("one log page", len(pages) == 1, f"{len(pages)} pages 'Restock 2026-11-20'"))
    lines = [ln for b in world.rows("wiki_block", page_id=pages[-1]["id"]) for ln in b["text"].splitlines()]
    skus = {p["sku"] for p in stock}
    unlogged = [p["sku"] for p in booked if not any(logged(ln, p, skus) for ln in lines)]
    listed = {s for ln in lines for s in SKU.findall(ln) if s in skus}
    out.append(
        Criterion.of(
            "nothing else logged",
            listed <= {p["sku"] for p in booked},
            f"the page lists products that were not delivered: {sorted(listed - {p['sku'] for p in booked})}",
        )
    )
    out.append(
        Criterion.of(
            "wiki log",
            not unlogged,
            f"the wiki page lacks a line with the SKU, name and units received for {unlogged}",
        )
    )
    out.append(nothing_else_changed(others_changed(world)))
    return out
