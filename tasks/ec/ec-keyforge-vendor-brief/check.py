"""Keyforge_Brief.docx: vendor facts from the web, brand figures from the shop, weak products; mailed."""

import re

from harness.checks import (
    SENDING_MAIL,
    Criterion,
    World,
    close_enough,
    no_one_else_mailed,
    nothing_else_changed,
)
from mcp_servers.mail.schema import sent_mail

BRANDS = ["Keyforge", "Nimbus", "Bytewise"]
HEADER = ["brand", "active products", "units on hand", "average rating", "1-2 star reviews"]
YUSUF = "yusuf.andersen@company.example"

MAILED = {"yusuf.andersen@company.example"}  # the only recipients the task has


def products(world: World, brand: str) -> list[dict]:
    return world.query(
        """SELECT p.id, p.sku, p.name, s.on_hand FROM shop_products p JOIN shop_stock s ON s.product_id = p.id
           WHERE p.brand = :b AND p.category = 'Computing' AND p.active ORDER BY p.sku""",
        b=brand,
    )


def ratings(world: World, product_id: int) -> list[int]:
    return [r["rating"] for r in world.rows("shop_reviews", product_id=product_id)]


def bullet_ok(text: str, sku: str, name: str, rating: float) -> bool:
    """One product's line: its SKU, its name and its average rating (two decimals or one)."""
    if sku not in text or name.lower() not in text.lower():
        return False
    rest = text.replace(sku, " ").lower().replace(name.lower(), " ")
    return any(close_enough(n, rating, 0.051) for n in re.findall(r"\d+(?:\.\d+)?", rest))


def others_changed(world: World) -> list[str]:
    """Changes to the world's records: the task only reads them (and sends mail)."""
    return world.changes(
        "shop",
        "web",
        "mail",
        allow=SENDING_MAIL,
    )


def check(world: World) -> list[Criterion]:
    doc = world.docx("Keyforge_Brief.docx")
    if doc is None:
        return [Criterion("brief", False, "Keyforge_Brief.docx is missing or unreadable")]
    texts = [p.text for p in doc.paragraphs]
    full = "\n".join(texts).lower()
    out = [
        Criterion.of(
            "support contact", "support@keyforge.example" in full, "the brief lacks support@keyforge.example"
        ),
        Criterion.of(
            "quality claim",
            re.search(r"\b(?:ten|10)[\s-]*million|\b10-?m\b|\b10,000,000\b|\b10000000\b", full) is not None,
            "the brief lacks the ten-million-keystroke claim",
        ),
    ]
    tables = [[[c.text.strip() for c in row.cells] for row in t.rows] for t in doc.tables]
    table = next((t for t in tables if t and [h.lower() for h in t[0][:5]] == HEADER), None)
    weak: list[tuple[str, str, float]] = []
    strong: list[str] = []
    for brand in BRANDS:
        items = products(world, brand)
        all_ratings: list[int] = []
        for p in items:
            mine = ratings(world, p["id"])
            all_ratings += mine
            if mine and sum(mine) / len(mine) < 3:
                weak.append((p["sku"], p["name"], sum(mine) / len(mine)))
            elif mine:
                strong.append(p["sku"])
        want = (len(items), sum(p["on_hand"] for p in items), sum(all_ratings) / len(all_ratings))
        low = sum(r <= 2 for r in all_ratings)
        row = next((r for r in table[1:] if r and r[0].lower() == brand.lower()), None) if table else None
        ok = (
            row is not None
            and len(row) >= 5
            and close_enough(row[1], want[0])
            and close_enough(row[2], want[1])
            and close_enough(row[3], want[2], 0.006)
            and close_enough(row[4], low)
        )
        out.append(
            Criterion.of(
                f"{brand} row",
                ok,
                f"table row for {brand} is {row}; expected {want[0]}, {want[1]}, {want[2]:.2f}, {low}"
                if table
                else "no table with the columns " + ", ".join(HEADER),
            )
        )
    heading = next(
        (i for i, t in enumerate(texts) if t.strip().rstrip(":").strip().lower() == "products to discuss"),
        None,
    )
    tail = texts[heading + 1 :] if heading is not None else []
    listed = [t for t in tail if any(s in t for s, _, _ in weak) or any(s in t for s in strong)]
    missing = [s for s, name, rating in weak if not any(bullet_ok(t, s, name, rating) for t in tail)]
    out.append(
        Criterion.of(
            "products to discuss",
            heading is not None and not missing and not any(s in t for t in listed for s in strong),
            f"after the heading 'Products to discuss' expected exactly {[(s, n, round(r, 2)) for s, n, r in weak]}"
            f", each with SKU, name and average rating (wrong or missing: {missing})",
        )
    )
    mails = [
        m
        for m in sent_mail(world.engine, to=YUSUF, subject_contains="Keyforge vendor brief")
        if world.sent_as_final(m.id, "Keyforge_Brief.docx")
    ]
    out.append(
        Criterion.of(
            "brief mailed",
            bool(mails),
            f"no mail to {YUSUF} with the subject 'Keyforge vendor brief' and Keyforge_Brief.docx (as it is now) attached",
        )
    )
    out.append(nothing_else_changed(others_changed(world)))
    out.append(no_one_else_mailed(world, MAILED))
    return out
