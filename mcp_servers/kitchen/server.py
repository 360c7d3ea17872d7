"""The `kitchen` server: search recipes and read their nutrition per serving, ingredients,
menus and catering orders (recipe-catalog-lookup); create menus, change their items, and
create or update catering orders (record-update) (SPEC §5, scenario FC)."""

from __future__ import annotations

import uuid
from datetime import date, timedelta

from mcp.server.mcpserver import MCPServer
from sqlalchemy import func
from sqlmodel import Session, col, select

from mcp_servers.common.paging import MAX_PAGE_SIZE, page_window, paginate
from mcp_servers.common.readonce import ReadOnce
from mcp_servers.common.spec import ServerContext, ServerSpec
from mcp_servers.common.tooling import ToolError, as_json, fields, reader, writer
from mcp_servers.common.values import LIKE_ESCAPE, iso_date, like_pattern, one_of, one_of_any_case
from mcp_servers.kitchen import records as rec
from mcp_servers.kitchen.catalog import ALLERGENS
from mcp_servers.kitchen.nutrition import Catalog, menu_summary
from mcp_servers.kitchen.schema import (
    TABLES,
    TODAY,
    KitchenCateringOrder,
    KitchenIngredient,
    KitchenMenu,
    KitchenMenuItem,
    KitchenRecipe,
    KitchenRecipeIngredient,
)
from mcp_servers.kitchen.seed import seed

READ = "recipe-catalog-lookup"
WRITE = "record-update"


def build(ctx: ServerContext) -> MCPServer:
    app = MCPServer(
        "kitchen",
        instructions=f"A catering kitchen: recipes, nutrition, menus and catering orders. Today is {TODAY}.",
    )

    catalog = ReadOnce(Catalog.load)  # this instance's: its world's catalog, read once

    def session() -> Session:
        return Session(ctx.engine)

    @reader(app, READ)
    def search_recipes(
        query: str = "", cuisine: str | None = None, course: str | None = None, diet: str | None = None,
        max_calories: float | None = None, exclude_allergens: list[str] | None = None,
        max_total_minutes: int | None = None, page: int = 1, page_size: int = 20,
    ) -> str:  # fmt: skip
        """Recipes matching every filter: words of `query` in the name, cuisine (Italian, Mexican,
        Indian, Japanese, Thai, French, Mediterranean, American), course (starter, soup, salad, main,
        side, dessert), diet (vegan, vegetarian, pescatarian, omnivore; vegetarian includes vegan),
        max kcal per serving, allergens to exclude (gluten, dairy, egg, fish, shellfish, peanuts,
        nuts, soy, sesame, celery, mustard, sulphites), max prep + cook minutes. Paged, by name."""
        bad = sorted(set(exclude_allergens or []) - set(ALLERGENS))
        if bad:
            raise ToolError(f"unknown allergen(s) {bad}; known: {', '.join(ALLERGENS)}")
        if course and course not in rec.COURSES:
            raise ToolError(f"course must be one of {', '.join(rec.COURSES)}")
        if diet and diet not in rec.DIETS:
            raise ToolError(f"diet must be one of {', '.join(rec.DIETS)}")
        if page < 1 or not 1 <= page_size <= MAX_PAGE_SIZE:
            raise ToolError(f"page starts at 1; page_size is 1..{MAX_PAGE_SIZE}")
        with session() as s:
            stmt = select(KitchenRecipe).order_by(KitchenRecipe.name)
            for word in query.lower().split():
                stmt = stmt.where(func.lower(KitchenRecipe.name).like(like_pattern(word), escape=LIKE_ESCAPE))
            if cuisine:
                cuisines = s.execute(select(KitchenRecipe.cuisine).distinct()).scalars()
                stmt = stmt.where(
                    func.lower(KitchenRecipe.cuisine) == one_of_any_case(cuisine, cuisines, "cuisine")
                )
            if course:
                stmt = stmt.where(KitchenRecipe.course == course)
            if diet:
                ok = {"vegan": ["vegan"], "vegetarian": ["vegan", "vegetarian"]}.get(diet, [diet])
                stmt = stmt.where(col(KitchenRecipe.diet).in_(ok))
            cat = catalog.get(s)
            hits = []
            for r in s.execute(stmt).scalars():
                serving, allergens = cat.per_serving(r), cat.allergens_of(r)
                if max_calories is not None and serving["kcal"] > max_calories:
                    continue
                if set(allergens) & set(exclude_allergens or []):
                    continue
                if max_total_minutes is not None and r.prep_minutes + r.cook_minutes > max_total_minutes:
                    continue
                hits.append({"id": r.id, "name": r.name, "cuisine": r.cuisine, "course": r.course, "diet": r.diet,
                             "kcal_per_serving": serving["kcal"], "total_minutes": r.prep_minutes + r.cook_minutes,
                             "allergens": allergens})  # fmt: skip
            window, meta = page_window(hits, page, page_size)
            return as_json({**meta, "items": window})

    @reader(app, READ)
    def get_recipe(recipe: str) -> str:
        """A recipe by name or id: servings, times, ingredients in grams with allergens, steps, and
        per serving the kcal, protein, fat, carbohydrate and ingredient cost."""
        with session() as s:
            r, cat = rec.recipe(s, recipe), catalog.get(s)
            return as_json({
                **fields(r, exclude={"steps"}), "steps": r.steps.splitlines(), "ingredients": cat.ingredient_lines(r),
                "allergens": cat.allergens_of(r), "per_serving": cat.per_serving(r),
            })  # fmt: skip

    @reader(app, READ)
    def get_ingredient(name: str) -> str:
        """An ingredient by name: category, nutrition per 100 g, cost per kg, allergens, and the recipes using it."""
        with session() as s:
            ing = s.execute(
                select(KitchenIngredient).where(func.lower(KitchenIngredient.name) == name.strip().lower())
            ).scalar_one_or_none()
            if ing is None:
                near = (
                    s.execute(
                        select(KitchenIngredient.name).where(
                            func.lower(KitchenIngredient.name).like(
                                like_pattern(name.strip().lower()), escape=LIKE_ESCAPE
                            )
                        )
                    )
                    .scalars()
                    .all()
                )
                raise ToolError(
                    f"no ingredient {name!r}" + (f"; did you mean {', '.join(near)}?" if near else "")
                )
            cat = catalog.get(s)
            used = s.execute(
                select(KitchenRecipe.name)
                .join(KitchenRecipeIngredient, col(KitchenRecipeIngredient.recipe_id) == KitchenRecipe.id)
                .where(KitchenRecipeIngredient.ingredient_id == ing.id)
                .order_by(KitchenRecipe.name)
            ).scalars().all()  # fmt: skip
            return as_json(
                {
                    **fields(ing, exclude={"id"}),
                    "allergens": sorted(cat.allergens.get(ing.id or 0, frozenset())),
                    "used_in": used,
                }
            )

    @reader(app, READ)
    def list_menus() -> str:
        """Menus with their description, number of items and price per guest."""
        with session() as s:
            cat = catalog.get(s)
            out = []
            for m in s.execute(select(KitchenMenu).order_by(col(KitchenMenu.id))).scalars():
                summary = menu_summary(s, cat, m.id or 0)
                out.append({"id": m.id, "name": m.name, "description": m.description, "items": len(summary["items"]),
                            "price_per_guest": summary["price_per_guest"], "allergens": summary["allergens"]})  # fmt: skip
            return as_json(out)

    @reader(app, READ)
    def get_menu(menu: str) -> str:
        """A menu by name or id: its items (portions per guest), per-guest nutrition, food cost,
        price per guest, the allergens it contains, and whether it is all vegetarian / vegan."""
        with session() as s:
            m = rec.menu(s, menu)
            return as_json(
                {
                    "id": m.id,
                    "name": m.name,
                    "description": m.description,
                    **menu_summary(s, catalog.get(s), m.id or 0),
                }
            )

    @reader(app, READ)
    def shopping_list(guests: int, menu: str | None = None, recipe: str | None = None) -> str:
        """Ingredients to buy for `guests` people, for a whole menu or one recipe: grams per
        ingredient summed over the dishes, and the cost. Computes only; nothing is saved."""
        if (menu is None) == (recipe is None):
            raise ToolError("give either menu or recipe")
        if guests < 1:
            raise ToolError("guests must be at least 1")
        with session() as s:
            cat = catalog.get(s)
            if menu is not None:
                m = rec.menu(s, menu)
                dishes = [(s.get(KitchenRecipe, i.recipe_id), i.portions_per_guest)
                          for i in s.execute(select(KitchenMenuItem).where(KitchenMenuItem.menu_id == m.id)).scalars()]  # fmt: skip
            else:
                dishes = [(rec.recipe(s, recipe or ""), 1.0)]
            need: dict[str, float] = {}
            for r, portions in dishes:
                assert r is not None
                for line in cat.ingredient_lines(r, guests * portions / r.servings):
                    need[line["ingredient"]] = need.get(line["ingredient"], 0.0) + line["grams"]
            prices = {i.name: i.cost_per_kg for i in cat.ingredients.values()}
            costs = {n: round(prices[n] * g / 1000, 2) for n, g in need.items()}
            items = [{"ingredient": n, "grams": round(g), "cost": costs[n]} for n, g in sorted(need.items())]
            return as_json({"guests": guests, "items": items, "total_cost": round(sum(costs.values()), 2)})

    @reader(app, READ)
    def list_catering_orders(
        status: str | None = None, date_from: str | None = None, date_to: str | None = None,
        client: str | None = None, page: int = 1, page_size: int = 20,
    ) -> str:  # fmt: skip
        """Catering orders by event date, one page at a time; filter by status (quote, confirmed,
        in_preparation, delivered, cancelled), event date range (YYYY-MM-DD) and client name fragment."""
        with session() as s:
            stmt = select(KitchenCateringOrder).order_by(
                KitchenCateringOrder.event_date, KitchenCateringOrder.reference
            )
            if status:
                stmt = stmt.where(KitchenCateringOrder.status == one_of(status, rec.ORDER_STATUSES, "status"))
            if date_from:
                stmt = stmt.where(KitchenCateringOrder.event_date >= iso_date(date_from, "date_from"))
            if date_to:
                stmt = stmt.where(KitchenCateringOrder.event_date <= iso_date(date_to, "date_to"))
            if client:
                stmt = stmt.where(
                    func.lower(KitchenCateringOrder.client).like(
                        like_pattern(client.strip().lower()), escape=LIKE_ESCAPE
                    )
                )
            menus = {m.id: m for m in s.execute(select(KitchenMenu)).scalars()}
            return as_json(
                paginate(
                    s, stmt, page, page_size, lambda row: rec.render_order(row[0], menus.get(row[0].menu_id))
                )
            )

    @reader(app, READ)
    def get_catering_order(reference: str) -> str:
        """One catering order by reference (CO-1001): client, event date, guests, menu, status, price."""
        with session() as s:
            o = rec.order(s, reference)
            return as_json(rec.render_order(o, s.get(KitchenMenu, o.menu_id)))

    @writer(app, WRITE)
    def create_menu(name: str, recipes: list[str], description: str = "") -> str:
        """Create a menu from recipe names or ids (starters, soups, salads and sides count as half a
        portion per guest, other courses one). Returns the menu with its price per guest."""
        if not name.strip():
            raise ToolError("a menu needs a name")
        if not recipes:
            raise ToolError("a menu needs at least one recipe (names or ids; search_recipes finds them)")
        with session() as s:
            if s.execute(
                select(KitchenMenu).where(func.lower(KitchenMenu.name) == name.strip().lower())
            ).first():
                raise ToolError(f"a menu named {name!r} exists already")
            dishes = [rec.recipe(s, r) for r in recipes]
            if len({d.id for d in dishes}) != len(dishes):
                raise ToolError("a recipe appears twice in the menu")
            m = KitchenMenu(name=name.strip(), description=description, created_on=TODAY)
            s.add(m)
            s.flush()
            for d in dishes:
                s.add(
                    KitchenMenuItem(
                        menu_id=m.id or 0,
                        recipe_id=d.id or 0,
                        portions_per_guest=0.5 if d.course in {"starter", "soup", "salad", "side"} else 1.0,
                    )
                )
            s.commit()
            return as_json({"id": m.id, "name": m.name, **menu_summary(s, catalog.get(s), m.id or 0)})

    @writer(app, WRITE)
    def add_menu_item(menu: str, recipe: str, portions_per_guest: float = 1.0) -> str:
        """Add a recipe to a menu with the portions each guest gets (0.25 to 3)."""
        if not 0.25 <= portions_per_guest <= 3:
            raise ToolError("portions_per_guest must be between 0.25 and 3")
        with session() as s:
            m, r = rec.menu(s, menu), rec.recipe(s, recipe)
            if s.execute(
                select(KitchenMenuItem).where(
                    KitchenMenuItem.menu_id == m.id, KitchenMenuItem.recipe_id == r.id
                )
            ).first():
                raise ToolError(f"{r.name} is already on {m.name}")
            s.add(
                KitchenMenuItem(menu_id=m.id or 0, recipe_id=r.id or 0, portions_per_guest=portions_per_guest)
            )
            s.commit()
            return f"Added {r.name} to {m.name}; price per guest is now {menu_summary(s, catalog.get(s), m.id or 0)['price_per_guest']:.2f}."

    @writer(app, WRITE, destructive=True)
    def remove_menu_item(menu: str, recipe: str) -> str:
        """Remove a recipe from a menu."""
        with session() as s:
            m, r = rec.menu(s, menu), rec.recipe(s, recipe)
            item = s.execute(
                select(KitchenMenuItem).where(
                    KitchenMenuItem.menu_id == m.id, KitchenMenuItem.recipe_id == r.id
                )
            ).scalar_one_or_none()
            if item is None:
                raise ToolError(f"{r.name} is not on {m.name}")
            s.delete(item)
            s.commit()
            return f"Removed {r.name} from {m.name}."

    @writer(app, WRITE)
    def create_catering_order(
        client: str, contact_email: str, event_date: str, guests: int, menu: str, notes: str = ""
    ) -> str:
        """Open a catering order as a quote: the price per guest is the menu's current price;
        events need three days' notice; 10 to 500 guests."""
        if not client.strip() or "@" not in contact_email:
            raise ToolError("give a client name and a valid contact e-mail")
        day, n = rec.event_date(event_date), rec.guests(guests)
        with session() as s:
            m = rec.menu(s, menu)
            price = menu_summary(s, catalog.get(s), m.id or 0)["price_per_guest"]
            o = KitchenCateringOrder(
                reference=f"tmp-{uuid.uuid4().hex}", client=client.strip(), contact_email=contact_email.strip(), event_date=day,
                guests=n, menu_id=m.id or 0, status="quote", price_per_guest=price, total=round(price * n, 2),
                notes=notes, created_on=TODAY,
            )  # fmt: skip
            s.add(o)
            s.flush()
            o.reference = f"CO-{1000 + (o.id or 0)}"  # the seed numbers its orders the same way
            s.commit()
            s.refresh(o)
            return as_json(rec.render_order(o, m))

    @writer(app, WRITE)
    def update_catering_order(
        reference: str, guests: int | None = None, status: str | None = None, event_date: str | None = None,
        notes: str | None = None,
    ) -> str:  # fmt: skip
        """Change an order: guest count or event date (quote or confirmed orders, three days'
        notice; the total follows the guest count), notes, or status along quote -> confirmed ->
        in_preparation -> delivered, or to cancelled from any open state."""
        with session() as s:
            o = rec.order(s, reference)
            if guests is not None or event_date is not None:
                if o.status not in {"quote", "confirmed"}:
                    raise ToolError(
                        f"{o.reference} is {o.status}; only quote or confirmed orders can change guests or date"
                    )
                if date.fromisoformat(o.event_date) < date.fromisoformat(TODAY) + timedelta(
                    days=rec.LEAD_DAYS
                ):
                    raise ToolError(
                        f"{o.reference} is less than {rec.LEAD_DAYS} days away; guests and date are fixed"
                    )
            if guests is not None:
                o.guests = rec.guests(guests)
                o.total = round(o.price_per_guest * o.guests, 2)
            if event_date is not None:
                o.event_date = rec.event_date(event_date)
            if status is not None and status != o.status:
                if status not in rec.TRANSITIONS:
                    raise ToolError(f"status must be one of {', '.join(rec.TRANSITIONS)}")
                if status not in rec.TRANSITIONS[o.status]:
                    allowed = ", ".join(sorted(rec.TRANSITIONS[o.status])) or "none (final)"
                    raise ToolError(f"{o.reference} is {o.status}; it can move to: {allowed}")
                o.status = status
            if notes is not None:
                o.notes = notes
            s.add(o)
            s.commit()
            s.refresh(o)
            return as_json(rec.render_order(o, s.get(KitchenMenu, o.menu_id)))

    return app


SPEC = ServerSpec(
    name="kitchen",
    description="Food and catering: recipes, ingredients, nutrition, allergens, menus, catering orders",
    build=build,
    tables=TABLES,
    seed=seed,
    scenario="FC",
)
