"""The menu 'Greenmarsh Vegan Lunch' has the lowest-calorie vegan soup, main and dessert without
gluten, nuts or peanuts; the school has a quote on it for 60 guests and a mail with its price."""

import re

from sqlmodel import Session, select

from harness.checks import (
    SENDING_MAIL,
    Criterion,
    World,
    close_enough,
    new_rows,
    no_one_else_mailed,
    nothing_else_changed,
)
from mcp_servers.kitchen.nutrition import Catalog
from mcp_servers.kitchen.schema import KitchenRecipe
from mcp_servers.mail.schema import sent_mail

COURSES = ("soup", "main", "dessert")
BANNED = {"gluten", "nuts", "peanuts"}

MAILED = {"office@greenmarsh-school.example"}  # the only recipients the task has


def best_recipes(world: World) -> dict[str, int]:
    """The qualifying recipe with the fewest kcal per serving, per course."""
    with Session(world.engine) as s:
        cat = Catalog.load(s)
        best = {}
        for course in COURSES:
            fits = [
                (cat.per_serving(r)["kcal"], r.id)
                for r in s.execute(select(KitchenRecipe).where(KitchenRecipe.course == course)).scalars()
                if r.diet == "vegan" and not BANNED & set(cat.allergens_of(r))
            ]
            best[course] = min(fits)[1]
    return best


def numbers(text: str) -> list[float]:
    """The numbers written in a text, each whole ('390.00' is not in '1390.00'; 1,390 reads 1390)."""
    found = re.findall(r"(?<![\d.,])(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)(?![\d]|[.,]\d)", text)
    return [float(n.replace(",", "")) for n in found]


def others_changed(world: World) -> list[str]:
    """Changes other than the new menu, its dishes and the school's quote, besides the mail."""
    menus = world.ids_named("kitchen_menu", "greenmarsh vegan lunch", column="name")
    return world.changes(
        "kitchen",
        "mail",
        allow={
            "kitchen_menu": new_rows("id", menus),
            "kitchen_menu_item": new_rows("menu_id", menus),
            # the quote; another new one only cancelled (a wrong first try undone)
            "kitchen_catering_order": lambda seeded, final: (
                seeded is None
                and final is not None
                and final["client"] == "Greenmarsh Primary School"
                and (final["event_date"] == "2026-12-09" or final["status"] == "cancelled")
            ),
            **SENDING_MAIL,
        },
    )


def check(world: World) -> list[Criterion]:
    menus = world.query("SELECT id FROM kitchen_menu WHERE lower(trim(name)) = 'greenmarsh vegan lunch'")
    if not menus:
        return [Criterion("menu", False, "no menu 'Greenmarsh Vegan Lunch'")]
    menu = menus[0]["id"]
    items = world.query(
        """SELECT r.id, r.course FROM kitchen_menu_item i JOIN kitchen_recipe r ON r.id = i.recipe_id
           WHERE i.menu_id = :m""",
        m=menu,
    )
    best = best_recipes(world)
    orders = world.query(
        "SELECT * FROM kitchen_catering_order WHERE client = 'Greenmarsh Primary School' AND event_date = '2026-12-09'"
    )
    order = orders[0] if len(orders) == 1 else None
    mails = sent_mail(
        world.engine, to="office@greenmarsh-school.example", subject_contains="vegan lunch quote"
    )
    body = " ".join(m.body for m in mails)
    written = numbers(body)
    quoted = order is not None and all(
        any(close_enough(w, x) for w in written) for x in (order["price_per_guest"], order["total"])
    )
    return [
        Criterion.of(
            "menu dishes",
            sorted(i["id"] for i in items) == sorted(best.values()),
            f"menu recipes {[i['id'] for i in items]}, expected {best}",
        ),
        Criterion.of(
            "order",
            order is not None
            and order["menu_id"] == menu
            and order["guests"] == 60
            and order["status"] == "quote",
            f"expected one quote for 60 guests on the menu on 2026-12-09; found {len(orders)} orders",
        ),
        Criterion.of(
            "contact",
            order is not None and order["contact_email"] == "office@greenmarsh-school.example",
            "wrong contact address",
        ),
        Criterion.of(
            "quote mailed", bool(mails) and quoted, "no mail to the school with the price per guest and total"
        ),
        nothing_else_changed(others_changed(world)),
        no_one_else_mailed(world, MAILED),
    ]
