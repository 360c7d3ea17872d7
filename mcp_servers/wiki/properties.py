"""Database properties: the typed schema of a wiki database, value validation against it, and
row filters. A database has exactly one `title` property (its rows' names), as in Notion."""

from __future__ import annotations

import re
from datetime import date, datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from mcp_servers.common.tooling import ToolError
from mcp_servers.common.values import one_of_any_case

PropertyType = Literal[
    "title", "text", "number", "select", "multi_select", "date", "checkbox", "email", "url"
]
_EMAIL = re.compile(r"^[A-Za-z0-9._%+'-]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}$")


class PropertySpec(BaseModel):
    """One property (column) of a database."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=60)
    type: PropertyType
    options: list[str] = Field(
        default_factory=list, description="the allowed values of select and multi_select"
    )


class RowFilter(BaseModel):
    """A condition on one property; rows must meet every filter."""

    model_config = ConfigDict(extra="forbid")

    property: str
    op: Literal["eq", "ne", "gt", "gte", "lt", "lte", "contains", "is_empty", "is_not_empty"] = "eq"
    value: str | float | bool | None = None


# A row is shown as {"id", <properties>, "updated_at"} and add_row/update_row answer with
# "created"/"updated": a property with one of these names would overwrite them.
RESERVED_NAMES = frozenset({"id", "updated_at", "created", "updated"})


def check_schema(props: list[PropertySpec]) -> list[dict[str, Any]]:
    """The schema as stored, or a ToolError naming what is wrong."""
    names = [p.name for p in props]
    if len({n.lower() for n in names}) != len(names):
        raise ToolError("property names must be distinct")
    taken = sorted({n for n in names if n.strip().lower() in RESERVED_NAMES})
    if taken:
        raise ToolError(
            f"property names {taken} are taken by the row's own fields ({', '.join(sorted(RESERVED_NAMES))}); "
            "choose other names"
        )
    if [p.type for p in props].count("title") != 1:
        raise ToolError("a database needs exactly one property of type 'title' (the row name)")
    for p in props:
        if p.type in ("select", "multi_select"):
            if not p.options or len(set(p.options)) != len(p.options):
                raise ToolError(f"property {p.name!r} ({p.type}) needs a list of distinct options")
        elif p.options:
            raise ToolError(f"property {p.name!r}: options are only for select and multi_select")
    return [p.model_dump() for p in props]


def _value(prop: dict[str, Any], value: Any) -> Any:
    name, kind = prop["name"], prop["type"]
    if value is None:
        return None
    bad = f"property {name!r} is {kind}"
    if kind in ("title", "text"):
        if not isinstance(value, str):
            raise ToolError(f"{bad}: give a string")
        return value
    if kind == "number":
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ToolError(f"{bad}: give a number, e.g. 1200 or 3.5")
        return value
    if kind == "checkbox":
        if not isinstance(value, bool):
            raise ToolError(f"{bad}: give true or false")
        return value
    if kind == "select":
        if value not in prop["options"]:
            raise ToolError(f"{bad}: {value!r} is not one of {prop['options']}")
        return value
    if kind == "multi_select":
        items = [value] if isinstance(value, str) else value
        if not isinstance(items, list) or any(v not in prop["options"] for v in items):
            raise ToolError(f"{bad}: give a list of values from {prop['options']}")
        return list(dict.fromkeys(items))
    if kind == "date":
        # Written out: fromisoformat alone takes 20261201 and 2026-W49-1, stored as typed.
        written = isinstance(value, str) and re.fullmatch(
            r"[0-9]{4}-[0-9]{2}-[0-9]{2}(T[0-9]{2}:[0-9]{2})?", value
        )
        try:
            if not written:
                raise ValueError
            (date if len(value) == 10 else datetime).fromisoformat(value)
        except ValueError:
            raise ToolError(f"{bad}: give an ISO date like 2026-12-01 (or 2026-12-01T14:00)") from None
        return value
    if kind == "email":
        if not isinstance(value, str) or not _EMAIL.match(value.strip()):
            raise ToolError(f"{bad}: give an e-mail address")
        return value.strip().lower()
    if kind == "url":
        if not isinstance(value, str) or not re.match(r"^https?://\S+$", value.strip()):
            raise ToolError(f"{bad}: give an http(s) URL")
        return value.strip()
    raise ToolError(f"{bad}: unknown type")  # pragma: no cover - schemas are checked on creation


def check_values(schema: list[dict[str, Any]], values: dict[str, Any], *, new: bool) -> dict[str, Any]:
    """`values` typed against `schema`; a new row must name its title property."""
    by_name = {p["name"]: p for p in schema}
    unknown = [k for k in values if k not in by_name]
    if unknown:
        raise ToolError(f"unknown properties {unknown}; the database has {list(by_name)}")
    out = {k: _value(by_name[k], v) for k, v in values.items()}
    title = next(p["name"] for p in schema if p["type"] == "title")
    if new and not (isinstance(out.get(title), str) and out[title].strip()):
        raise ToolError(f"a new row needs its title property {title!r}")
    if not new and title in out and not (isinstance(out[title], str) and out[title].strip()):
        raise ToolError(f"the title property {title!r} cannot be emptied")
    return out


def _compare(kind: str, have: Any, want: Any) -> tuple[Any, Any]:
    if kind == "number":
        try:
            return float(have), float(want)
        except (TypeError, ValueError):
            raise ToolError(f"compare a number property with a number, not {want!r}") from None
    if kind in ("title", "text", "email", "url", "select"):
        return str(have).lower(), str(want).lower()
    return have, want


def _property(schema: list[dict[str, Any]], name: str) -> dict[str, Any]:
    prop = next((p for p in schema if p["name"] == name), None)
    if prop is None:
        raise ToolError(f"no property {name!r}; the database has {[p['name'] for p in schema]}")
    return prop


def check_filters(schema: list[dict[str, Any]], filters: list[RowFilter]) -> None:
    """Refuse a filter that would match no row by mistake: an option its select or multi_select
    does not have, a date not written YYYY-MM-DD (it would be compared as text)."""
    for f in filters:
        prop = _property(schema, f.property)
        if f.value is None or f.op in ("is_empty", "is_not_empty"):
            continue
        if prop["type"] == "multi_select" or (prop["type"] == "select" and f.op != "contains"):
            one_of_any_case(str(f.value), prop["options"], f"{f.property!r} option")
        elif prop["type"] == "date" and f.op != "contains":
            _value(prop, f.value)


def matches(schema: list[dict[str, Any]], row: dict[str, Any], f: RowFilter) -> bool:
    """Whether a row's values meet filter `f` (checked first with `check_filters`)."""
    prop = _property(schema, f.property)
    have = row.get(f.property)
    empty = have is None or have == "" or have == []
    if f.op in ("is_empty", "is_not_empty"):
        return empty == (f.op == "is_empty")
    if f.value is None:
        raise ToolError(f"filter op {f.op!r} needs a value")
    if prop["type"] == "multi_select":
        if f.op not in ("contains", "eq", "ne"):
            raise ToolError("multi_select supports contains, eq, ne, is_empty, is_not_empty")
        inside = str(f.value).strip().lower() in {str(v).lower() for v in have or []}
        return not inside if f.op == "ne" else inside
    if empty:
        return f.op == "ne"
    if f.op == "contains":
        return str(f.value).lower() in str(have).lower()
    a, b = _compare(prop["type"], have, f.value)
    try:
        return {
            "eq": a == b, "ne": a != b, "gt": a > b, "gte": a >= b, "lt": a < b, "lte": a <= b,
        }[f.op]  # fmt: skip
    except TypeError:
        raise ToolError(f"cannot compare {f.property!r} ({prop['type']}) with {f.value!r}") from None


def sort_key(schema: list[dict[str, Any]], name: str) -> Any:
    """A key function ordering rows by property `name`, empty values last."""
    prop = next((p for p in schema if p["name"] == name), None)
    if prop is None:
        raise ToolError(f"cannot sort by {name!r}; the database has {[p['name'] for p in schema]}")

    def key(row: dict[str, Any]) -> tuple[int, Any]:
        v = row.get(name)
        if v is None or v == "" or v == []:
            return (1, "")
        if prop["type"] == "number":
            return (0, float(v))
        if prop["type"] == "checkbox":
            return (0, int(v))
        return (0, str(v).lower())

    return key
