"""Kitchen tables. Nutrition is per 100 g of an ingredient; a recipe lists grams for all its
servings, so per-serving figures are computed (`nutrition.py`). A menu item serves
`portions_per_guest` servings of a recipe to every guest; an order keeps the price per guest it
was quoted at."""

from __future__ import annotations

from sqlalchemy import UniqueConstraint
from sqlmodel import Field, SQLModel

TODAY = "2026-11-20"
ORDER_STATUSES = ("quote", "confirmed", "in_preparation", "delivered", "cancelled")


class KitchenAllergen(SQLModel, table=True):
    __tablename__ = "kitchen_allergen"
    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(unique=True)


class KitchenIngredient(SQLModel, table=True):
    __tablename__ = "kitchen_ingredient"
    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(unique=True, index=True)
    category: str
    animal: str  # "" (plant) | dairy | egg | meat | fish
    kcal: float
    protein_g: float
    fat_g: float
    carbs_g: float
    cost_per_kg: float


class KitchenIngredientAllergen(SQLModel, table=True):
    __tablename__ = "kitchen_ingredient_allergen"
    __table_args__ = (UniqueConstraint("ingredient_id", "allergen_id"),)
    id: int | None = Field(default=None, primary_key=True)
    ingredient_id: int = Field(foreign_key="kitchen_ingredient.id", index=True)
    allergen_id: int = Field(foreign_key="kitchen_allergen.id", index=True)


class KitchenRecipe(SQLModel, table=True):
    __tablename__ = "kitchen_recipe"
    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(unique=True, index=True)
    cuisine: str = Field(index=True)
    course: str = Field(index=True)  # starter | soup | salad | main | side | dessert
    diet: str  # vegan | vegetarian | pescatarian | omnivore
    servings: int
    prep_minutes: int
    cook_minutes: int
    steps: str  # numbered steps, one per line


class KitchenRecipeIngredient(SQLModel, table=True):
    __tablename__ = "kitchen_recipe_ingredient"
    __table_args__ = (UniqueConstraint("recipe_id", "ingredient_id"),)
    id: int | None = Field(default=None, primary_key=True)
    recipe_id: int = Field(foreign_key="kitchen_recipe.id", index=True)
    ingredient_id: int = Field(foreign_key="kitchen_ingredient.id", index=True)
    grams: float


class KitchenMenu(SQLModel, table=True):
    __tablename__ = "kitchen_menu"
    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(unique=True)
    description: str = ""
    created_on: str


class KitchenMenuItem(SQLModel, table=True):
    __tablename__ = "kitchen_menu_item"
    __table_args__ = (UniqueConstraint("menu_id", "recipe_id"),)
    id: int | None = Field(default=None, primary_key=True)
    menu_id: int = Field(foreign_key="kitchen_menu.id", index=True)
    recipe_id: int = Field(foreign_key="kitchen_recipe.id", index=True)
    portions_per_guest: float = 1.0


class KitchenCateringOrder(SQLModel, table=True):
    __tablename__ = "kitchen_catering_order"
    id: int | None = Field(default=None, primary_key=True)
    reference: str = Field(unique=True, index=True)  # "CO-1001"
    client: str = Field(index=True)
    contact_email: str
    event_date: str = Field(index=True)
    guests: int
    menu_id: int = Field(foreign_key="kitchen_menu.id", index=True)
    status: str = Field(index=True)
    price_per_guest: float
    total: float
    notes: str = ""
    created_on: str


TABLES = (
    KitchenAllergen,
    KitchenIngredient,
    KitchenIngredientAllergen,
    KitchenRecipe,
    KitchenRecipeIngredient,
    KitchenMenu,
    KitchenMenuItem,
    KitchenCateringOrder,
)
