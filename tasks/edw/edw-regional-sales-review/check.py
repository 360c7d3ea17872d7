"""RegionalReview.xlsx (summary and monthly sheets), RegionalReview.pptx (top customers), mail to Sales."""

import json
import re
from typing import Any

from harness.checks import SENDING_MAIL, Criterion, World, no_one_else_mailed, nothing_else_changed

REGIONS = ["NA-EAST", "NA-WEST", "EMEA-C", "EMEA-S"]
SCOPE = """FROM warehouse_sales_orders o JOIN warehouse_sales_lines l ON l.order_id = o.id
           JOIN warehouse_regions r ON r.id = o.region_id JOIN warehouse_products p ON p.id = l.product_id
           JOIN warehouse_customers c ON c.id = o.customer_id
           WHERE r.code = :code AND o.status = 'closed' AND o.order_date BETWEEN '2026-01-01' AND '2026-10-31'"""

MAILED = {"maya.wagner@company.example"}  # the only recipients the task has


def money(value: Any) -> float | None:
    """A number from a cell or a slide's text ('1,234.50', '$1234.5', 1234.5)."""
    try:
        return float(re.sub(r"[,$\s]|USD", "", str(value)))
    except ValueError:
        return None


def same_money(value: Any, expected: float) -> bool:
    """To the cent, as the prompt asks."""
    got = money(value)
    return got is not None and abs(got - expected) <= 0.005 + 1e-9


def facts(world: World, code: str) -> dict[str, Any]:
    months = world.query(
        f"SELECT substr(o.order_date, 1, 7) AS month, COUNT(DISTINCT o.id) AS orders, SUM(l.line_total) AS revenue "
        f"{SCOPE} GROUP BY month ORDER BY month",
        code=code,
    )
    categories = {
        r["category"]: float(r["revenue"])
        for r in world.query(
            f"SELECT p.category, SUM(l.line_total) AS revenue {SCOPE} GROUP BY p.category", code=code
        )
    }
    top = world.query(
        f"SELECT c.name, c.segment, SUM(l.line_total) AS revenue {SCOPE} GROUP BY c.id ORDER BY revenue DESC LIMIT 5",
        code=code,
    )
    return {"months": months, "categories": categories, "top": top}


CATEGORIES = ("Hardware", "Software", "Services")


def check_workbook(world: World, data: dict[str, dict[str, Any]]) -> list[Criterion]:
    wb = world.xlsx("RegionalReview.xlsx")
    if wb is None:
        return [Criterion("workbook", False, "RegionalReview.xlsx is missing or unreadable")]
    out = []
    if "Summary" not in wb.sheetnames:
        out.append(Criterion("summary sheet", False, f"no Summary sheet; sheets are {wb.sheetnames}"))
    else:
        rows = [r for r in wb["Summary"].iter_rows(values_only=True) if r and r[0] is not None]
        header = [str(v).strip().lower() for v in rows[0][:6]] if rows else []
        body = rows[1:]
        bad = (
            [] if header == ["region", "orders", "revenue", "hardware", "software", "services"] else [header]
        )
        # a total row below the regions is not asked for, but harmless when its sums are right
        if body and str(body[-1][0]).strip().lower() in ("total", "totals", "all regions", "grand total"):
            total, body = body[-1], body[:-1]
            sums = [
                sum(m["orders"] for d in data.values() for m in d["months"]),
                round(sum(float(m["revenue"]) for d in data.values() for m in d["months"]), 2),
                *(round(sum(d["categories"].get(k, 0.0) for d in data.values()), 2) for k in CATEGORIES),
            ]
            if not (
                len(total) >= 6
                and money(total[1]) == sums[0]
                and all(same_money(v, x) for v, x in zip(total[2:6], sums[1:], strict=True))
            ):
                bad.append(f"the Total row {total} does not hold the sums {sums}")
        order = [str(r[0]).strip().upper() for r in body]
        if order != REGIONS:
            bad.append(f"the rows are {order}, not {REGIONS} in that order")
        for code, r in zip(REGIONS, body + [None] * len(REGIONS), strict=False):
            d = data[code]
            cats = [d["categories"].get(k, 0.0) for k in CATEGORIES]
            if not (
                r
                and len(r) >= 6
                and money(r[1]) == sum(m["orders"] for m in d["months"])
                and same_money(r[2], sum(float(m["revenue"]) for m in d["months"]))
                and all(same_money(v, c) for v, c in zip(r[3:6], cats, strict=True))
            ):
                bad.append(f"{code}: {r}")
        out.append(Criterion.of("summary sheet", not bad, f"wrong Summary rows: {bad}"))
    for code in REGIONS:
        if code not in wb.sheetnames:
            out.append(Criterion(f"{code} months", False, f"no sheet {code}"))
            continue
        rows = [r for r in wb[code].iter_rows(values_only=True) if r and r[0] is not None]
        header = [str(v).strip().lower() for v in rows[0][:3]] if rows else []
        want = data[code]["months"]
        got = rows[1:]
        good = (
            header == ["month", "orders", "revenue"]
            and len(got) == len(want)
            and all(
                str(g[0]).strip() == w["month"]
                and money(g[1]) == w["orders"]
                and same_money(g[2], float(w["revenue"]))
                for g, w in zip(got, want, strict=True)
            )
        )
        out.append(
            Criterion.of(
                f"{code} months", good, f"sheet {code} should list 2026-01..2026-10 with orders and revenue"
            )
        )
    return out


def check_deck(world: World, data: dict[str, dict[str, Any]]) -> list[Criterion]:
    deck = world.pptx("RegionalReview.pptx")
    if deck is None:
        return [Criterion("deck", False, "RegionalReview.pptx is missing or unreadable")]
    titles = [s.shapes.title.text.strip() if s.shapes.title is not None else "" for s in deck.slides]
    out = [
        Criterion.of(
            "title slide",
            bool(titles) and titles[0].lower() == "regional sales review 2026",
            f"first slide is {titles[:1]}",
        )
    ]
    # the region slides, in deck order: every slide whose title starts with a region code
    shown = []
    for slide, title in zip(deck.slides, titles, strict=True):
        code = next((c for c in REGIONS if title.upper().startswith(c)), None)
        if code is None:
            continue
        table = None
        for shape in slide.shapes:
            if shape.has_table:
                table = [[c.text.strip() for c in row.cells] for row in shape.table.rows]
        shown.append((code, title, table))
    out.append(
        Criterion.of(
            "region slides in order",
            [c for c, _, _ in shown] == REGIONS,
            f"the region slides are {[t for _, t, _ in shown]}; expected one each for {REGIONS}, in that order",
        )
    )
    for code in REGIONS:
        table = next(
            (
                t
                for c, title, t in shown
                if c == code and title.lower() == f"{code.lower()} top customers" and t is not None
            ),
            None,
        )
        want = data[code]["top"]
        good = (
            table is not None
            and [h.lower() for h in table[0][:3]] == ["customer", "segment", "revenue"]
            and len(table) - 1 == len(want)
            and all(
                g[0].lower() == w["name"].lower()
                and g[1].lower() == w["segment"].lower()
                and same_money(g[2], float(w["revenue"]))
                for g, w in zip(table[1:], want, strict=True)
            )
        )
        out.append(
            Criterion.of(
                f"{code} top customers",
                good,
                f"slide '{code} top customers' should list {[w['name'] for w in want]} with segment and revenue",
            )
        )
    return out


def others_changed(world: World) -> list[str]:
    """Changes to the world's records: the task only reads them (and sends mail)."""
    return world.changes(
        "warehouse",
        "mail",
        allow=SENDING_MAIL,
    )


def check(world: World) -> list[Criterion]:
    data = {code: facts(world, code) for code in REGIONS}
    director = world.rows("mail_contact", title="Sales Director")[0]["email"].lower()
    sent = world.sent_mail()
    mailed = [
        m
        for m in sent
        if director in m["to_addrs"].split(", ")
        and m["subject"].strip().lower() == "regional sales review 2026"
        and {"RegionalReview.xlsx", "RegionalReview.pptx"}
        <= {a.removeprefix("./") for a in json.loads(m["attachments"])}
        and all(world.sent_as_final(m["id"], f) for f in ("RegionalReview.xlsx", "RegionalReview.pptx"))
    ]
    return [
        *check_workbook(world, data),
        *check_deck(world, data),
        Criterion.of(
            "mail to the Sales Director",
            bool(mailed),
            f"no mail to {director} titled 'Regional sales review 2026' with both files (as they are now) attached",
        ),
        nothing_else_changed(others_changed(world)),
        no_one_else_mailed(world, MAILED),
    ]
