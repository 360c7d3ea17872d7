from __future__ import annotations

from typing import Any

import pytest
from sqlmodel import Session, SQLModel, col, select

from mcp_servers.kitchen.nutrition import Catalog
from mcp_servers.kitchen.schema import KitchenCateringOrder, KitchenMenu, KitchenMenuItem
from tests.mcp_servers.support import World, as_data, check_contract, check_no_tool_writes, serve, text


def _order(world: World, status: str, after: str = "2026-11-24") -> str:
    with Session(world.engine) as s:
        o = s.execute(
            select(KitchenCateringOrder)
            .where(KitchenCateringOrder.status == status, KitchenCateringOrder.event_date >= after)
            .order_by(col(KitchenCateringOrder.id))
        ).scalars().first()  # fmt: skip
        assert o is not None
        return o.reference


def _calls(world: World) -> dict[str, dict[str, Any]]:
    """Valid arguments for every kitchen tool, writers after readers (they build on each other)."""
    confirmed = _order(world, "confirmed")
    return {
        "search_recipes": {"cuisine": "Italian", "course": "main", "exclude_allergens": ["dairy"]},
        "get_recipe": {"recipe": "Pad Thai"},
        "get_ingredient": {"name": "Tofu"},
        "list_menus": {},
        "get_menu": {"menu": "Vegan Tasting Menu"},
        "shopping_list": {"menu": "Indian Banquet", "guests": 40},
        "list_catering_orders": {"status": "confirmed"},
        "get_catering_order": {"reference": confirmed},
        "create_menu": {"name": "Board Lunch", "recipes": ["Greek Salad", "Falafel", "Baklava"], "description": "lunch"},
        "add_menu_item": {"menu": "Board Lunch", "recipe": "Hummus", "portions_per_guest": 0.5},
        "remove_menu_item": {"menu": "Board Lunch", "recipe": "Baklava"},
        "create_catering_order": {"client": "Larkspur Labs", "contact_email": "people@larkspurlabs.example",
                                  "event_date": "2026-12-12", "guests": 35, "menu": "Board Lunch"},
        "update_catering_order": {"reference": confirmed, "guests": 70, "notes": "two more tables"},
    }  # fmt: skip


async def test_kitchen_contract(world: World) -> None:
    calls = _calls(world)
    confirmed = calls["get_catering_order"]["reference"]
    async with serve("kitchen", world) as client:
        await check_contract(client, world, calls)
        menu = as_data(await client.call_tool("get_menu", {"menu": "board lunch"}))
        assert [i["recipe"] for i in menu["items"]] == ["Greek Salad", "Falafel", "Hummus"]
        assert [i["portions_per_guest"] for i in menu["items"]] == [0.5, 1.0, 0.5]
        order = as_data(await client.call_tool("get_catering_order", {"reference": confirmed}))
        assert order["guests"] == 70 and order["total"] == round(order["price_per_guest"] * 70, 2)
    with Session(world.engine) as s:
        new = s.execute(select(KitchenCateringOrder).where(KitchenCateringOrder.client == "Larkspur Labs",
                                                           KitchenCateringOrder.event_date == "2026-12-12", KitchenCateringOrder.guests == 35)).scalar_one()  # fmt: skip
        board = s.execute(select(KitchenMenu).where(KitchenMenu.name == "Board Lunch")).scalar_one()
        assert (
            new.status == "quote"
            and new.menu_id == board.id
            and new.reference == f"CO-{1000 + (new.id or 0)}"
        )
        assert new.total == round(new.price_per_guest * 35, 2) > 0


async def test_nutrition_per_serving_is_computed_from_ingredients(world: World) -> None:
    async with serve("kitchen", world) as client:
        r = as_data(await client.call_tool("get_recipe", {"recipe": "Greek Salad"}))
        grams = {i["ingredient"]: i["grams"] for i in r["ingredients"]}
        facts = {n: as_data(await client.call_tool("get_ingredient", {"name": n})) for n in grams}
        kcal = sum(facts[n]["kcal"] * g / 100 for n, g in grams.items()) / r["servings"]
        cost = sum(facts[n]["cost_per_kg"] * g / 1000 for n, g in grams.items()) / r["servings"]
        assert r["per_serving"]["kcal"] == round(kcal, 1)
        assert r["per_serving"]["cost"] == round(cost, 2)
        assert r["allergens"] == ["dairy"] and r["diet"] == "vegetarian"


async def test_search_filters(world: World) -> None:
    async with serve("kitchen", world) as client:
        safe = as_data(await client.call_tool("search_recipes", {
            "exclude_allergens": ["peanuts", "nuts", "gluten"], "max_calories": 500, "page_size": 50}))  # fmt: skip
        assert safe["total"] > 10
        for hit in safe["items"]:
            assert (
                not {"peanuts", "nuts", "gluten"} & set(hit["allergens"]) and hit["kcal_per_serving"] <= 500
            )
        vegetarian = as_data(
            await client.call_tool("search_recipes", {"diet": "vegetarian", "page_size": 50})
        )
        assert {h["diet"] for h in vegetarian["items"]} == {"vegan", "vegetarian"}
        pages = [
            as_data(await client.call_tool("search_recipes", {"page": p, "page_size": 50}))["items"]
            for p in (1, 2, 3)
        ]
        names = [h["name"] for page in pages for h in page]
        assert len(names) == len(set(names)) == 123


async def test_shopping_list_scales_the_recipe(world: World) -> None:
    async with serve("kitchen", world) as client:
        r = as_data(await client.call_tool("get_recipe", {"recipe": "Mushroom Risotto"}))
        shop = as_data(
            await client.call_tool(
                "shopping_list", {"recipe": "Mushroom Risotto", "guests": r["servings"] * 5}
            )
        )
        assert {i["ingredient"]: i["grams"] for i in shop["items"]} == {
            i["ingredient"]: round(i["grams"] * 5) for i in r["ingredients"]
        }
        assert shop["total_cost"] == round(sum(i["cost"] for i in shop["items"]), 2)


async def test_order_rules(world: World) -> None:
    quote, delivered = _order(world, "quote"), _order(world, "delivered", after="2026-01-01")
    async with serve("kitchen", world) as client:
        ok = as_data(
            await client.call_tool("update_catering_order", {"reference": quote, "status": "confirmed"})
        )
        assert ok["status"] == "confirmed"
        for tool, args, expected in [
            ("update_catering_order", {"reference": quote, "status": "delivered"}, "can move to: cancelled, in_preparation"),
            ("update_catering_order", {"reference": delivered, "status": "cancelled"}, "none (final)"),
            ("update_catering_order", {"reference": delivered, "guests": 50}, "only quote or confirmed"),
            ("update_catering_order", {"reference": quote, "guests": 5}, "between 10 and 500"),
            ("update_catering_order", {"reference": quote, "status": "shipped"}, "status must be one of"),
            ("create_catering_order", {"client": "A", "contact_email": "a@b.example", "event_date": "2026-11-21",
                                       "guests": 20, "menu": "Indian Banquet"}, "earliest event date is 2026-11-23"),
            ("create_catering_order", {"client": "A", "contact_email": "a@b.example", "event_date": "2026-12-21",
                                       "guests": 20, "menu": "Nope"}, "no menu"),
            ("create_menu", {"name": "Winter Wedding Buffet", "recipes": ["Hummus"]}, "exists already"),
            ("create_menu", {"name": "X", "recipes": ["Hummus", "Unicorn Stew"]}, "no recipe"),
            ("add_menu_item", {"menu": "Indian Banquet", "recipe": "Naan"}, "already on"),
            ("remove_menu_item", {"menu": "Indian Banquet", "recipe": "Hummus"}, "not on"),
            ("search_recipes", {"exclude_allergens": ["kryptonite"]}, "unknown allergen"),
            ("shopping_list", {"guests": 10}, "either menu or recipe"),
            ("get_catering_order", {"reference": "CO-1"}, "no catering order"),
            ("get_ingredient", {"name": "chick"}, "did you mean"),
        ]:  # fmt: skip
            result = await client.call_tool(tool, args)
            assert result.is_error and expected in text(result), (tool, text(result))
    with Session(world.engine) as s:
        assert (
            len(
                s.execute(
                    select(KitchenMenuItem).join(KitchenMenu).where(KitchenMenu.name == "Indian Banquet")
                ).all()
            )
            == 6
        )


async def test_filters_dates_and_empty_menus_are_checked(world: World) -> None:
    """Regressions: an unknown status or a compact date_from filtered wrongly without a word; a
    menu with no recipes was created; '%' in a recipe search matched every recipe."""
    async with serve("kitchen", world) as client:
        for tool, args, expected in [
            ("list_catering_orders", {"status": "pending"}, "quote, confirmed, in_preparation"),
            ("list_catering_orders", {"date_from": "20261201"}, "YYYY-MM-DD"),
            ("list_catering_orders", {"date_to": "2026-W50-1"}, "YYYY-MM-DD"),
            ("create_menu", {"name": "Empty", "recipes": []}, "at least one recipe"),
        ]:
            result = await client.call_tool(tool, args)
            assert result.is_error and expected in text(result), (tool, args, text(result))
        assert as_data(await client.call_tool("search_recipes", {"query": "%"}))["total"] == 0
        assert as_data(await client.call_tool("list_menus", {})) and "Empty" not in text(
            await client.call_tool("list_menus", {})
        )


async def test_unknown_cuisine_is_a_tool_error_not_no_recipes(world: World) -> None:
    """Regression: course and diet were checked, but a cuisine the catalogue does not have
    ('Greek') answered an empty page, as if no recipe matched the other filters."""
    async with serve("kitchen", world) as client:
        result = await client.call_tool("search_recipes", {"cuisine": "Greek"})
        assert result.is_error and "Mediterranean" in text(result), text(result)
        thai = as_data(await client.call_tool("search_recipes", {"cuisine": "thai", "page_size": 50}))
        assert thai["total"] > 0 and {r["cuisine"] for r in thai["items"]} == {"Thai"}


# What a kitchen server keeps (mcp_servers/kitchen/server.py: ReadOnce(Catalog.load)).
CATALOG_TABLES = (
    "kitchen_allergen",
    "kitchen_ingredient",
    "kitchen_ingredient_allergen",
    "kitchen_recipe_ingredient",
)


async def test_the_catalog_is_read_once_per_server_not_on_every_call(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every kitchen tool loaded the whole ingredient catalog (ORM objects for every ingredient,
    allergen link and recipe line) again, ~16 ms of a ~22 ms call. A server instance now reads
    it once; another instance (another episode's) reads its own."""
    loads: list[int] = []
    load = Catalog.load.__func__  # type: ignore[attr-defined]

    def counted(cls: type[Catalog], s: Session) -> Catalog:
        loads.append(1)
        return load(cls, s)  # type: ignore[no-any-return]

    monkeypatch.setattr(Catalog, "load", classmethod(counted))
    calls = _calls(world)
    catalog_tools = (
        "search_recipes",
        "get_recipe",
        "get_ingredient",
        "list_menus",
        "get_menu",
        "shopping_list",
    )
    async with serve("kitchen", world) as client:
        first = as_data(await client.call_tool("get_recipe", calls["get_recipe"]))
        for name in catalog_tools:
            as_data(await client.call_tool(name, calls[name]))
        assert as_data(await client.call_tool("get_recipe", calls["get_recipe"])) == first
    assert len(loads) == 1
    async with serve("kitchen", world) as client:
        as_data(await client.call_tool("get_recipe", calls["get_recipe"]))
    assert len(loads) == 2


async def test_no_kitchen_tool_writes_the_catalog_a_server_keeps(world: World) -> None:
    """A server keeps its catalog for its lifetime: safe only while no tool writes those tables.
    A new write tool is run here too (every tool not marked read-only)."""
    await check_no_tool_writes("kitchen", world, _calls(world), CATALOG_TABLES)


def test_a_catalog_holds_plain_values_that_outlive_its_session(world: World) -> None:
    """A kept catalog must not hold ORM objects: they belong to the session they were read in."""
    from mcp_servers.kitchen.nutrition import Ingredient

    with Session(world.engine) as s:
        cat = Catalog.load(s)
    assert cat.ingredients and all(type(i) is Ingredient for i in cat.ingredients.values())
    assert not any(isinstance(v, SQLModel) for v in (*cat.ingredients.values(), *cat.allergens.values()))
    tofu = next(i for i in cat.ingredients.values() if i.name == "tofu")
    assert (tofu.kcal, tofu.protein_g, tofu.cost_per_kg) == (76, 8, 5.0)  # catalog.py's row
    assert any("soy" in found for found in cat.allergens.values())
