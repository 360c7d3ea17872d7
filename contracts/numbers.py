"""Number fields of input files that refuse `true` and `false`.

pydantic's lax mode reads a boolean as 1 or 0 in an int or float field, so `max_steps: true`
ran with one step and `rpm: yes` with one request a minute, without a word. Every other lax
conversion is kept: 1 for 1.0, "50" for 50 (`--budget max_steps=50` is text), 5.0 for 5.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BeforeValidator


def _not_a_boolean(value: Any) -> Any:
    if value is True or value is False:
        raise ValueError(f"give a number, not {str(value).lower()}")
    return value


NotBool = BeforeValidator(_not_a_boolean)
"""The check itself, for an `Annotated` type of its own (one with bounds, say)."""

Int = Annotated[int, NotBool]
"""A whole number; `true`/`false` refused."""

Float = Annotated[float, NotBool]
"""A number (a whole one too); `true`/`false` refused."""
