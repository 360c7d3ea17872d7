"""JSON values: what an input file may give to be sent over the wire or stored as it is.

YAML reads more than JSON holds: an unquoted `2026-01-01` is a date, `.inf` an infinite float,
`!!binary` bytes, `!!set` a set. Sent as a request field or a tool argument, such a value failed
late, in the middle of a run (a date "is not JSON serializable", an infinity "out of range").
`JsonObject` refuses them at load, each at its own key, so the problem names its file and line.
"""

from __future__ import annotations

import datetime
import math
from collections.abc import Iterator
from typing import Annotated, Any

from pydantic import AfterValidator, ValidationError
from pydantic_core import InitErrorDetails, PydanticCustomError

_JSON_KINDS = "give a string, a finite number, true/false, null, a list or a mapping"


def _not_json(value: Any, loc: tuple[str | int, ...]) -> Iterator[tuple[tuple[str | int, ...], Any, str]]:
    """(where, value, why) for each part of `value` that is not a JSON value."""
    if isinstance(value, dict):
        for key, item in value.items():
            if isinstance(key, str):
                yield from _not_json(item, (*loc, key))
            else:
                quote = (
                    "; quote it (YAML reads yes, no, on and off as true or false)"
                    if isinstance(key, bool)
                    else ""
                )
                yield (*loc, str(key)), key, f"key {key!r} is not a string; JSON keys are strings{quote}"
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _not_json(item, (*loc, i))
    elif isinstance(value, float) and not math.isfinite(value):
        yield loc, value, f"{value} is not a JSON value; give a finite number"
    elif isinstance(value, datetime.date):  # a datetime is a date too
        yield loc, value, f"{value} is read as a date, not a JSON value; quote it to give text"
    elif not (value is None or isinstance(value, str | int | float)):  # bool is an int
        yield loc, value, f"a value of type {type(value).__name__} is not a JSON value; {_JSON_KINDS}"


def json_object(value: dict[str, Any]) -> dict[str, Any]:
    """`value` if it is all JSON values; otherwise one error per part that is not, at its key."""
    errors: list[InitErrorDetails] = [
        {"type": PydanticCustomError("json_value", why), "loc": where, "input": part}
        for where, part, why in _not_json(value, ())
    ]
    if errors:
        raise ValidationError.from_exception_data("JSON value", errors)
    return value


# A mapping of JSON values (request fields, tool arguments), checked key by key.
JsonObject = Annotated[dict[str, Any], AfterValidator(json_object)]
