"""Per-serving nutrition, cost and allergens of recipes and menus, computed from the catalog
in the database (a few hundred rows, loaded per call so writes are always reflected)."""

from __future__ import annotations

from dataclasses import dataclass, field
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


@dataclass
class Catalog:
    ingredients: dict[int, KitchenIngredient]
    allergens: dict[int, set[str]]
    items: dict[int, list[tuple[int, float]]] = field(default_factory=dict)

    @classmethod
    def load(cls, s: Session) -> Catalog:
        names = {a.id: a.name for a in s.execute(select(KitchenAllergen)).scalars()}
        allergens: dict[int, set[str]] = {}
        for link in s.execute(select(KitchenIngredientAllergen)).scalars():
            allergens.setdefault(link.ingredient_id, set()).add(names[link.allergen_id])
        ingredients = {i.id or 0: i for i in s.execute(select(KitchenIngredient)).scalars()}
        cat = cls(ingredients, allergens)
        for ri in s.execute(
            select(KitchenRecipeIngredient).order_by(col(KitchenRecipeIngredient.id))
        ).scalars():
            cat.items.setdefault(ri.recipe_id, []).append((ri.ingredient_id, ri.grams))
        return cat

    def per_serving(self, r: KitchenRecipe) -> dict[str, float]:
        """kcal, protein_g, fat_g, carbs_g and cost of one serving."""
        out = dict.fromkeys((*NUTRIENTS, "cost"), 0.0)
        for ing_id, grams in self.items.get(r.id or 0, []):
            ing = self.ingredients[ing_id]
            for n in NUTRIENTS:
                out[n] += getattr(ing, n) * grams / 100
            out["cost"] += ing.cost_per_kg * grams / 1000
        return {k: round(v / r.servings, 2 if k == "cost" else 1) for k, v in out.items()}

    def allergens_of(self, r: KitchenRecipe) -> list[str]:
        found: set[str] = set()
        for ing_id, _g in self.items.get(r.id or 0, []):
            found |= self.allergens.get(ing_id, set())
        return sorted(found)

    def ingredient_lines(self, r: KitchenRecipe, factor: float = 1.0) -> list[dict[str, Any]]:
        return [
            {"ingredient": self.ingredients[i].name, "grams": round(g * factor, 1),
             "allergens": sorted(self.allergens.get(i, set()))}
            for i, g in self.items.get(r.id or 0, [])
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
