"""Finding kitchen records from what a model types, and the validation rules of the write tools
(event notice, guest limits, order status transitions)."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

from sqlalchemy import func
from sqlmodel import Session, select

from mcp_servers.common.tooling import ToolError, fields
from mcp_servers.common.values import iso_date, numeric_id
from mcp_servers.kitchen.schema import TODAY, KitchenCateringOrder, KitchenMenu, KitchenRecipe

COURSES = ("starter", "soup", "salad", "main", "side", "dessert")
DIETS = ("vegan", "vegetarian", "pescatarian", "omnivore")
LEAD_DAYS = 3  # the kitchen needs three days' notice to book or change an event
MIN_GUESTS, MAX_GUESTS = 10, 500
# Allowed status changes of a catering order.
ORDER_STATUSES = ("quote", "confirmed", "in_preparation", "delivered", "cancelled")
TRANSITIONS = {
    "quote": {"confirmed", "cancelled"},
    "confirmed": {"in_preparation", "cancelled"},
    "in_preparation": {"delivered", "cancelled"},
    "delivered": set(),
    "cancelled": set(),
}


def recipe(s: Session, key: str | int) -> KitchenRecipe:
    k = str(key).strip()
    if (n := numeric_id(k)) is not None:
        found = s.get(KitchenRecipe, n)
    else:
        found = s.execute(
            select(KitchenRecipe).where(func.lower(KitchenRecipe.name) == k.lower())
        ).scalar_one_or_none()
    if found is None:
        raise ToolError(f"no recipe {key!r}; search_recipes gives names and ids")
    return found


def menu(s: Session, key: str) -> KitchenMenu:
    k = key.strip()
    n = numeric_id(k)
    stmt = (
        select(KitchenMenu).where(KitchenMenu.id == n)
        if n is not None
        else select(KitchenMenu).where(func.lower(KitchenMenu.name) == k.lower())
    )
    found = s.execute(stmt).scalar_one_or_none()
    if found is None:
        raise ToolError(f"no menu {key!r}; list_menus shows names and ids")
    return found


def order(s: Session, reference: str) -> KitchenCateringOrder:
    found = s.execute(
        select(KitchenCateringOrder).where(KitchenCateringOrder.reference == reference.strip().upper())
    ).scalar_one_or_none()
    if found is None:
        raise ToolError(
            f"no catering order {reference!r}; list_catering_orders shows references like CO-1001"
        )
    return found


def event_date(value: str) -> str:
    day = date.fromisoformat(iso_date(value, "event_date"))
    earliest = date.fromisoformat(TODAY) + timedelta(days=LEAD_DAYS)
    if day < earliest:
        raise ToolError(
            f"events need {LEAD_DAYS} days' notice: the earliest event date is {earliest.isoformat()}"
        )
    return day.isoformat()


def guests(n: int) -> int:
    if not MIN_GUESTS <= n <= MAX_GUESTS:
        raise ToolError(f"guests must be between {MIN_GUESTS} and {MAX_GUESTS}")
    return n


def render_order(o: KitchenCateringOrder, menu: KitchenMenu | None) -> dict[str, Any]:
    return {
        **fields(o, exclude={"id", "menu_id"}),
        "menu": menu.name if menu else None,
        "menu_id": o.menu_id,
    }
