"""Winter stock check: a shared cloud spreadsheet per category, a deck of low-cover products, a mail."""

from harness.checks import (
    SENDING_MAIL,
    Criterion,
    World,
    close_enough,
    no_one_else_mailed,
    nothing_else_changed,
)
from mcp_servers.mail.schema import sent_mail

CATEGORIES = ["Outdoor", "Fitness", "Home"]
TITLE = "Winter Stock Check 2026"
YUSUF = "yusuf.andersen@company.example"
LOW = 50


def catalogue(world: World, category: str) -> list[dict]:
    rows = world.query(
        """SELECT p.sku, p.name, p.price, s.on_hand,
                  (SELECT AVG(r.rating) FROM shop_reviews r WHERE r.product_id = p.id) AS rating
           FROM shop_products p JOIN shop_stock s ON s.product_id = p.id
           WHERE p.category = :c AND p.active ORDER BY p.sku""",
        c=category,
    )
    # AVG is a Decimal on PostgreSQL, a float on SQLite
    return [r | {"rating": None if r["rating"] is None else round(float(r["rating"]), 2)} for r in rows]


def grid(world: World, spreadsheet_id: int, sheet: str) -> list[list[object]]:
    tab = world.query(
        "SELECT id FROM sheets_sheet WHERE spreadsheet_id = :s AND title = :t", s=spreadsheet_id, t=sheet
    )
    cells = world.sheet_cells(tab[0]["id"]) if tab else {}
    if not cells:
        return []
    rows = max(r for r, _ in cells)
    cols = max(c for _, c in cells)
    out: list[list[object]] = [[None] * cols for _ in range(rows)]
    for (r, c), value in cells.items():
        out[r - 1][c - 1] = value
    return out


def same_name(cell: object, name: str) -> bool:
    return str(cell or "").strip().lower() == name.lower()


def sheet_rows_ok(rows: list[list[object]], expected: list[dict]) -> tuple[bool, str]:
    if not rows:
        return False, "the sheet is empty"
    header = [str(h or "").strip().lower() for h in rows[0][:5]]
    if header != ["sku", "name", "price", "on hand", "rating"]:
        return False, f"header is {rows[0]}"
    body = [r + [None] * (5 - len(r)) for r in rows[1:] if any(v not in (None, "") for v in r)]
    if [str(r[0]) for r in body] != [p["sku"] for p in expected]:
        return False, f"SKUs are {[r[0] for r in body]}; expected {[p['sku'] for p in expected]}"
    for r, p in zip(body, expected, strict=True):
        rating_ok = r[4] in (None, "") if p["rating"] is None else close_enough(r[4], p["rating"], 0.006)
        if not (
            same_name(r[1], p["name"])
            and close_enough(r[2], p["price"])
            and close_enough(r[3], p["on_hand"])
            and rating_ok
        ):
            return (
                False,
                f"row {r} does not match name {p['name']!r}, price {p['price']}, on hand {p['on_hand']},"
                f" rating {p['rating']}",
            )
    return True, ""


def others_changed(world: World) -> list[str]:
    """Changes other than the stock-check spreadsheet and its share with Yusuf, besides the mail."""
    return world.changes(
        "shop",
        "sheets",
        "mail",
        allow={
            **world.new_spreadsheet(TITLE, [YUSUF]),
            **SENDING_MAIL,
        },
    )


def check(world: World) -> list[Criterion]:
    out: list[Criterion] = []
    expected = {c: catalogue(world, c) for c in CATEGORIES}
    books = world.query(
        "SELECT id FROM sheets_spreadsheet WHERE lower(title) = lower(:t) ORDER BY id DESC", t=TITLE
    )
    if not books:
        out.append(Criterion("spreadsheet", False, f"no cloud spreadsheet titled {TITLE!r}"))
    else:
        book = books[0]["id"]
        for c in CATEGORIES:
            ok, why = sheet_rows_ok(grid(world, book, c), expected[c])
            out.append(Criterion.of(f"sheet {c}", ok, why or f"sheet {c} is wrong"))
        shared = world.query(
            "SELECT role FROM sheets_permission WHERE spreadsheet_id = :s AND email = :e", s=book, e=YUSUF
        )
        out.append(
            Criterion.of(
                "shared with Yusuf",
                bool(shared) and shared[0]["role"] == "writer",
                f"permission for {YUSUF} is {shared}",
            )
        )
    deck = world.pptx("Winter_Stock.pptx")
    if deck is None:
        out.append(Criterion("deck", False, "Winter_Stock.pptx is missing or unreadable"))
    else:
        slides = list(deck.slides)
        titles = [s.shapes.title.text.strip().lower() if s.shapes.title is not None else "" for s in slides]
        wanted_titles = [f"{c}: under 50 units".lower() for c in CATEGORIES]
        first = slides[0] if slides else None
        out.append(
            Criterion.of(
                "title slide",
                first is not None
                and titles[0] not in wanted_titles
                and not any(sh.has_table for sh in first.shapes)
                and any(sh.has_text_frame and sh.text_frame.text.strip() for sh in first.shapes),
                "the deck must open with a title slide",
            )
        )
        at = [titles.index(t) for t in wanted_titles if t in titles]
        out.append(
            Criterion.of(
                "category order",
                len(at) == len(CATEGORIES) and at == sorted(at),
                f"the table slides must come in the order {', '.join(CATEGORIES)}",
            )
        )
        for c in CATEGORIES:
            low = [p for p in expected[c] if p["on_hand"] < LOW]
            tables = [
                [[cell.text.strip() for cell in row.cells] for row in shape.table.rows]
                for s, title in zip(slides, titles, strict=True)
                if title == f"{c}: under 50 units".lower()
                for shape in s.shapes
                if shape.has_table
            ]
            table = tables[0] if tables else []
            header_ok = bool(table) and [h.lower() for h in table[0][:3]] == ["sku", "name", "on hand"]
            rows = {r[0]: r for r in table[1:] if len(r) >= 3}
            ok = (
                header_ok
                and len(table) - 1 == len(low) == len(rows)
                and all(
                    p["sku"] in rows
                    and same_name(rows[p["sku"]][1], p["name"])
                    and close_enough(rows[p["sku"]][2], p["on_hand"])
                    for p in low
                )
            )
            want = [(p["sku"], p["name"], p["on_hand"]) for p in low]
            out.append(
                Criterion.of(
                    f"slide {c}",
                    ok,
                    f"table slide '{c}: under 50 units' is {table}; expected the columns SKU, Name, On Hand"
                    f" and the rows {want} (any order)",
                )
            )
    mails = [
        m
        for m in sent_mail(world.engine, to=YUSUF, subject_contains=TITLE)
        if world.sent_as_final(m.id, "Winter_Stock.pptx")
    ]
    out.append(
        Criterion.of(
            "deck mailed",
            bool(mails),
            f"no mail to {YUSUF} with the subject {TITLE!r} and Winter_Stock.pptx (as it is now) attached",
        )
    )
    out.append(nothing_else_changed(others_changed(world)))
    out.append(no_one_else_mailed(world, {YUSUF}))
    return out
