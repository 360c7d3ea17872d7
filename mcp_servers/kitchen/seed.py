"""Deterministic kitchen data: 93 ingredients with nutrition and allergens, 123 recipes in eight
cuisines, 9 menus, and 151 catering orders from September 2026 to February 2027 (150 generated,
one taken today)."""

from __future__ import annotations

import random
from datetime import date, timedelta
from typing import Any

from sqlalchemy import insert
from sqlmodel import Session

from mcp_servers.kitchen.catalog import (
    ALLERGENS,
    CLIENTS,
    INGREDIENTS,
    LATER_RECIPES,
    MENUS,
    NEW_MENUS,
    PORTION_G,
    RECIPES,
)
from mcp_servers.kitchen.nutrition import Catalog, diet_of, menu_summary
from mcp_servers.kitchen.schema import (
    TODAY,
    KitchenAllergen,
    KitchenCateringOrder,
    KitchenIngredient,
    KitchenIngredientAllergen,
    KitchenMenu,
    KitchenMenuItem,
    KitchenRecipe,
    KitchenRecipeIngredient,
)

N_ORDERS = 150
# Orders taken today, after the generated ones (so those keep their references): a quote
# Northam asked for, for an event before their next confirmed one, so "their next confirmed
# event" is not simply their next event. (client, contact, event date, guests, menu, status)
TODAYS_ORDERS = [
    ("Northam Institute of Technology", "hospitality@nit.example", "2026-12-03", 30, "Mediterranean Corporate Lunch", "quote"),
]  # fmt: skip
NEW_MENU_DATE = "2026-11-16"
HALF_PORTION = {"starter", "side", "soup", "salad"}
METHOD = {
    "starter": "Assemble {main} with {rest} and serve at once.",
    "soup": "Simmer {main} with {rest} for {cook} minutes, then blend or season to taste.",
    "salad": "Toss {main} with {rest}; dress just before serving.",
    "main": "Cook {main} until done, add {rest}, and cook together for {cook} minutes.",
    "side": "Roast or steam {main} with {rest} for {cook} minutes.",
    "dessert": "Combine {main} with {rest}; bake or chill for {cook} minutes until set.",
}


def _steps(course: str, names: list[str], servings: int, cook: int) -> str:
    main, rest = names[0], ", ".join(names[1:]) or "the seasoning"
    return "\n".join([
        f"1. Weigh out the ingredients for {servings} servings.",
        f"2. Prepare the {', '.join(names[:3])}: wash, peel and chop as needed.",
        f"3. {METHOD[course].format(main=main, rest=rest, cook=cook)}",
        "4. Check the seasoning, portion, and label any allergens before service.",
    ])  # fmt: skip


def seed(session: Session) -> None:
    """Fill the kitchen tables (deterministic)."""
    rng = random.Random(2611)
    later = random.Random(2612)  # for LATER_RECIPES, so the other recipes keep their numbers
    allergens = [KitchenAllergen(name=a) for a in ALLERGENS]
    session.add_all(allergens)
    ingredients: dict[str, KitchenIngredient] = {}
    tags: dict[str, list[str]] = {}
    for line in INGREDIENTS.strip().splitlines():
        name, category, animal, kcal, protein, fat, carbs, cost, alls = line.split("|")
        ingredients[name] = KitchenIngredient(
            name=name, category=category, animal=animal, kcal=float(kcal), protein_g=float(protein),
            fat_g=float(fat), carbs_g=float(carbs), cost_per_kg=float(cost),
        )  # fmt: skip
        tags[name] = [a for a in alls.split(",") if a]
    session.add_all(ingredients.values())
    session.flush()
    allergen_id = {a.name: a.id for a in allergens}
    session.execute(
        insert(KitchenIngredientAllergen),
        [
            {"ingredient_id": ingredients[n].id, "allergen_id": allergen_id[a]}
            for n, alls in tags.items()
            for a in alls
        ],
    )

    recipes: list[tuple[KitchenRecipe, list[str]]] = []
    for cuisine, block in RECIPES.items():
        for line in block.strip().splitlines():
            name, course, parts = line.split("|")
            names = [p.strip() for p in parts.split(",")]
            draw = later if name in LATER_RECIPES else rng
            servings, cook = draw.choice((2, 4, 4, 4, 6, 8)), draw.choice((10, 15, 20, 25, 30, 45, 60, 90))
            r = KitchenRecipe(
                name=name, cuisine=cuisine, course=course, servings=servings, prep_minutes=draw.choice((5, 10, 15, 20, 30)),
                cook_minutes=cook, diet=diet_of({ingredients[n].animal for n in names}) ,
                steps=_steps(course, names, servings, cook),
            )  # fmt: skip
            recipes.append((r, names))
    session.add_all([r for r, _ in recipes])
    session.flush()
    lines: list[dict[str, Any]] = []
    for r, names in recipes:
        draw = later if r.name in LATER_RECIPES else rng
        for n in names:
            ing = ingredients[n]
            per = PORTION_G.get(n, PORTION_G[ing.category])
            grams = (
                max(1.0, round(per * r.servings * draw.uniform(0.8, 1.2) / 5) * 5)
                if per >= 5
                else float(per * r.servings)
            )
            lines.append({"recipe_id": r.id, "ingredient_id": ing.id, "grams": grams})
    session.execute(insert(KitchenRecipeIngredient), lines)

    by_name = {r.name: r for r, _ in recipes}
    menus: list[KitchenMenu] = []
    for name, description, dishes in MENUS:
        m = KitchenMenu(
            name=name,
            description=description,
            created_on=NEW_MENU_DATE if name in NEW_MENUS else "2026-08-15",
        )
        session.add(m)
        session.flush()
        menus.append(m)
        session.add_all([
            KitchenMenuItem(menu_id=m.id or 0, recipe_id=by_name[d].id or 0,
                            portions_per_guest=0.5 if by_name[d].course in HALF_PORTION else 1.0)
            for d in dishes
        ])  # fmt: skip
    session.flush()

    cat = Catalog.load(session)
    prices = {m.id: menu_summary(session, cat, m.id or 0)["price_per_guest"] for m in menus}
    today = date.fromisoformat(TODAY)
    orders: list[dict[str, Any]] = []
    ordered = [m for m in menus if m.name not in NEW_MENUS]
    for i in range(N_ORDERS):
        client, email = rng.choice(CLIENTS)
        menu = rng.choice(ordered)
        event = today + timedelta(days=rng.randint(-80, 90))
        guests = rng.choice((20, 25, 30, 40, 45, 60, 80, 120, 150, 200))
        days = (event - today).days
        if days < 0:
            status = "cancelled" if rng.random() < 0.07 else "delivered"
        elif days <= 3:
            status = "in_preparation"
        else:
            status = rng.choice(
                ("quote", "confirmed", "confirmed", "cancelled" if rng.random() < 0.2 else "confirmed")
            )
        created = event - timedelta(days=rng.randint(10, 60))
        price = prices[menu.id]
        orders.append({
            "reference": f"CO-{1001 + i}", "client": client, "contact_email": email, "event_date": event.isoformat(),
            "guests": guests, "menu_id": menu.id, "status": status, "price_per_guest": price,
            "total": round(price * guests, 2), "notes": "", "created_on": min(created, today).isoformat(),
        })  # fmt: skip
    by_menu = {m.name: m for m in menus}
    for client, email, on, guests, name, status in TODAYS_ORDERS:
        price = prices[by_menu[name].id]
        orders.append({
            "reference": f"CO-{1001 + len(orders)}", "client": client, "contact_email": email, "event_date": on,
            "guests": guests, "menu_id": by_menu[name].id, "status": status, "price_per_guest": price,
            "total": round(price * guests, 2), "notes": "", "created_on": TODAY,
        })  # fmt: skip
    orders.sort(key=lambda o: (o["created_on"], o["reference"]))
    for i, o in enumerate(orders):
        o["reference"] = f"CO-{1001 + i}"
    session.execute(insert(KitchenCateringOrder), orders)
