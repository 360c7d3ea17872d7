"""Menu_Comparison.xlsx has each menu's dishes with nutrition and allergens as the kitchen computes
them, a Summary of price, kcal and allergens per guest, and went to the client by mail."""

from sqlmodel import Session

from harness.checks import (
    SENDING_MAIL,
    Criterion,
    World,
    close_enough,
    no_one_else_mailed,
    nothing_else_changed,
)
from mcp_servers.kitchen.nutrition import Catalog, menu_summary
from mcp_servers.kitchen.schema import KitchenRecipe
from mcp_servers.mail.schema import sent_mail

MENUS = ["Mediterranean Corporate Lunch", "Vegan Tasting Menu", "Indian Banquet"]
HEADER = ["dish", "course", "portions per guest", "kcal per serving", "protein per serving (g)", "allergens"]
SUMMARY = ["menu", "price per guest", "kcal per guest", "allergens"]
WORKBOOK = "Menu_Comparison.xlsx"
# The kitchen reports kcal and protein to one decimal and the prompt asks no rounding: kcal may be
# given whole (±0.5), protein to the tenth of a gram (±0.05); portions and prices as they are.
KCAL_TOL, PROTEIN_TOL = 0.5, 0.05

MAILED = {"catering@kestrelbay.example"}  # the only recipients the task has


def allergens(cell: object) -> set[str]:
    text = str(cell or "").strip().lower()
    return set() if text in ("", "none") else {a.strip() for a in text.split(",")}


def expected(world: World) -> dict[str, dict]:
    out = {}
    with Session(world.engine) as s:
        cat = Catalog.load(s)
        for name in MENUS:
            menu = world.rows("kitchen_menu", name=name)[0]
            summary = menu_summary(s, cat, menu["id"])
            dishes = []
            for item in summary["items"]:
                r = s.get(KitchenRecipe, item["recipe_id"])
                serving = cat.per_serving(r)
                dishes.append((r.name, r.course, item["portions_per_guest"], serving["kcal"], serving["protein_g"],
                               set(cat.allergens_of(r))))  # fmt: skip
            out[name] = {"dishes": dishes, "price": summary["price_per_guest"],
                         "kcal": summary["per_guest"]["kcal"], "allergens": set(summary["allergens"])}  # fmt: skip
    return out


def dish_ok(row: list[object], want: tuple) -> bool:
    name, course, portions, kcal, protein, alls = want
    return (
        str(row[0] or "").strip().lower() == name.lower()
        and str(row[1] or "").strip().lower() == course
        and close_enough(row[2], portions)
        and close_enough(row[3], kcal, KCAL_TOL)
        and close_enough(row[4], protein, PROTEIN_TOL)
        and allergens(row[5]) == alls
    )


def others_changed(world: World) -> list[str]:
    """Changes to the world's records: the task only reads them (and sends mail)."""
    return world.changes(
        "kitchen",
        "mail",
        allow=SENDING_MAIL,
    )


def check(world: World) -> list[Criterion]:
    wb = world.xlsx(WORKBOOK)
    if wb is None:
        return [Criterion("workbook", False, f"{WORKBOOK} is missing or unreadable")]
    want = expected(world)
    out = [
        Criterion.of("sheets", set(MENUS + ["Summary"]) <= set(wb.sheetnames), f"sheets are {wb.sheetnames}")
    ]
    for name in MENUS:
        if name not in wb.sheetnames:
            continue
        rows = [
            list(r) + [None] * 6
            for r in wb[name].iter_rows(values_only=True)
            if any(v is not None for v in r)
        ]
        header = [str(h or "").strip().lower() for h in (rows[0][:6] if rows else [])]
        dishes = want[name]["dishes"]
        bad = [d[0] for i, d in enumerate(dishes) if i + 1 >= len(rows) or not dish_ok(rows[i + 1], d)]
        out += [
            Criterion.of(f"{name} header", header == HEADER, f"header is {rows[:1]}"),
            Criterion.of(
                f"{name} dishes",
                not bad and len(rows) - 1 == len(dishes),
                f"{len(rows) - 1} dish rows; wrong or missing: {', '.join(bad)}",
            ),
        ]
    if "Summary" in wb.sheetnames:
        body = [
            r for r in wb["Summary"].iter_rows(min_row=2, values_only=True) if any(v is not None for v in r)
        ]
        # a total row is not asked for, but harmless when its sums are right (or left blank)
        price = sum(w["price"] for w in want.values())
        kcal = sum(w["kcal"] for w in want.values())
        body = [
            r for r in body
            if not (
                str(r[0] or "").strip().lower() in ("total", "totals", "all menus")
                and (len(r) < 2 or r[1] in (None, "") or close_enough(r[1], price))
                and (len(r) < 3 or r[2] in (None, "") or close_enough(r[2], kcal, len(want) * KCAL_TOL))
            )
        ]  # fmt: skip
        got = {str(r[0]).strip().lower(): list(r) + [None] * 4 for r in body if r[0]}
        head = next(wb["Summary"].iter_rows(max_row=1, values_only=True), ())
        head = [str(h or "").strip().lower() for h in head[:4]]
        out.append(Criterion.of("Summary header", head == SUMMARY, f"Summary header is {head}"))
        out.append(
            Criterion.of(
                "Summary rows",
                len(body) == len(MENUS),
                f"{len(body)} rows below the header besides a right Total row; expected one per menu",
            )
        )
        for name in MENUS:
            r, w = got.get(name.lower(), [None] * 4), want[name]
            ok = (
                close_enough(r[1], w["price"])
                and close_enough(r[2], w["kcal"], KCAL_TOL)
                and allergens(r[3]) == w["allergens"]
            )
            out.append(
                Criterion.of(
                    f"Summary of {name}",
                    ok,
                    f"row is {r[:4]}; expected {w['price']}, {w['kcal']}, {sorted(w['allergens'])}",
                )
            )
    else:
        out.append(Criterion("Summary", False, "no Summary sheet"))
    mails = [
        m
        for m in sent_mail(world.engine, to="catering@kestrelbay.example", subject_contains="menu comparison")
        if world.sent_as_final(m.id, WORKBOOK)
    ]
    out.append(
        Criterion.of("mailed", bool(mails), f"no mail to the client with {WORKBOOK} (as it is now) attached")
    )
    out.append(nothing_else_changed(others_changed(world)))
    out.append(no_one_else_mailed(world, MAILED))
    return out
