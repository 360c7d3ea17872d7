"""Per-serving nutrition, cost and allergens of recipes and menus, computed from the catalog
in the database: ingredients, their allergens, and each recipe's ingredients in grams.

A `Catalog` is plain values, tied to no session. A server keeps one per instance
(`ReadOnce(Catalog.load)`), read at its first use: no kitchen tool writes the catalog's tables (the seed
and a task's setup fill them before a server starts; `tests/mcp_servers/test_kitchen.py` pins
it), and the menus, orders and recipes around it are still read per call, so writes show."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from sqlmodel import Session, col, select

from mcp_servers.kitchen.schema import (
    KitchenAllergen,
    KitchenIngredient,
    KitchenIngredientAllergen,
    KitchenMenuItem,
    KitchenRecipe,
    KitchenRecipeIngredient,
)

NUTRIENTS = ("kcal", "protein_g", "fat_g", "carbs_g")
# Catering price per guest = food cost x this markup (labour, service, margin), rounded to 0.50.
MARKUP = 3.2


@dataclass(frozen=True, slots=True)
class Ingredient:
    """What the catalog keeps of an ingredient (per 100 g, and its cost per kg)."""

    name: str
    kcal: float
    protein_g: float
    fat_g: float
    carbs_g: float
    cost_per_kg: float


@dataclass(frozen=True)
class Catalog:
    ingredients: Mapping[int, Ingredient]
    allergens: Mapping[int, frozenset[str]]  # by ingredient id
    items: Mapping[int, tuple[tuple[int, float], ...]]  # by recipe id: (ingredient id, grams)

    @classmethod
    def load(cls, s: Session) -> Catalog:
        names = dict(s.execute(select(KitchenAllergen.id, KitchenAllergen.name)).all())
        allergens: dict[int, set[str]] = {}
        links = select(KitchenIngredientAllergen.ingredient_id, KitchenIngredientAllergen.allergen_id)
        for ingredient_id, allergen_id in s.execute(links):
            allergens.setdefault(ingredient_id, set()).add(names[allergen_id])
        columns = (
            KitchenIngredient.name,
            *(getattr(KitchenIngredient, n) for n in NUTRIENTS),
            KitchenIngredient.cost_per_kg,
        )
        ingredients = {
            ingredient_id or 0: Ingredient(*values)
            for ingredient_id, *values in s.execute(select(KitchenIngredient.id, *columns))
        }
        items: dict[int, list[tuple[int, float]]] = {}
        uses = select(
            KitchenRecipeIngredient.recipe_id,
            KitchenRecipeIngredient.ingredient_id,
            KitchenRecipeIngredient.grams,
        ).order_by(col(KitchenRecipeIngredient.id))
        for recipe_id, ingredient_id, grams in s.execute(uses):
            items.setdefault(recipe_id, []).append((ingredient_id, grams))
        return cls(
            MappingProxyType(ingredients),
            MappingProxyType({i: frozenset(found) for i, found in allergens.items()}),
            MappingProxyType({r: tuple(used) for r, used in items.items()}),
        )

    def per_serving(self, r: KitchenRecipe) -> dict[str, float]:
        """kcal, protein_g, fat_g, carbs_g and cost of one serving."""
        out = dict.fromkeys((*NUTRIENTS, "cost"), 0.0)
        for ing_id, grams in self.items.get(r.id or 0, ()):
            ing = self.ingredients[ing_id]
            for n in NUTRIENTS:
                out[n] += getattr(ing, n) * grams / 100
            out["cost"] += ing.cost_per_kg * grams / 1000
        return {k: round(v / r.servings, 2 if k == "cost" else 1) for k, v in out.items()}

    def allergens_of(self, r: KitchenRecipe) -> list[str]:
        found: set[str] = set()
        for ing_id, _g in self.items.get(r.id or 0, ()):
            found |= self.allergens.get(ing_id, frozenset())
        return sorted(found)

    def ingredient_lines(self, r: KitchenRecipe, factor: float = 1.0) -> list[dict[str, Any]]:
        return [
            {"ingredient": self.ingredients[i].name, "grams": round(g * factor, 1),
             "allergens": sorted(self.allergens.get(i, frozenset()))}
            for i, g in self.items.get(r.id or 0, ())
        ]  # fmt: skip


def menu_summary(s: Session, cat: Catalog, menu_id: int) -> dict[str, Any]:
    """Items of a menu with per-guest nutrition and cost, the allergens, and the price per guest."""
    rows = s.execute(
        select(KitchenMenuItem, KitchenRecipe)
        .join(KitchenRecipe, col(KitchenRecipe.id) == KitchenMenuItem.recipe_id)
        .where(KitchenMenuItem.menu_id == menu_id)
        .order_by(col(KitchenMenuItem.id))
    ).all()
    totals = dict.fromkeys((*NUTRIENTS, "cost"), 0.0)
    items, allergens, diets = [], set(), set()
    for item, r in rows:
        serving = cat.per_serving(r)
        for k in totals:
            totals[k] += serving[k] * item.portions_per_guest
        allergens |= set(cat.allergens_of(r))
        diets.add(r.diet)
        items.append({"recipe_id": r.id, "recipe": r.name, "course": r.course, "diet": r.diet,
                      "portions_per_guest": item.portions_per_guest, "kcal_per_portion": serving["kcal"]})  # fmt: skip
    cost = round(totals.pop("cost"), 2)
    return {
        "items": items, "allergens": sorted(allergens),
        "per_guest": {k: round(v, 1) for k, v in totals.items()}, "food_cost_per_guest": cost,
        "price_per_guest": price_per_guest(cost),
        "all_vegetarian": bool(items) and diets <= {"vegan", "vegetarian"}, "all_vegan": bool(items) and diets == {"vegan"},
    }  # fmt: skip


def price_per_guest(food_cost: float) -> float:
    return round(food_cost * MARKUP * 2) / 2


def diet_of(animals: set[str]) -> str:
    if "meat" in animals:
        return "omnivore"
    if "fish" in animals:
        return "pescatarian"
    return "vegetarian" if animals & {"dairy", "egg"} else "vegan"
