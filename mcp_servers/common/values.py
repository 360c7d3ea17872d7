"""Checking the values a model passes to a tool: one place for the rules every server shares.

Each helper returns the value in the form the server stores or queries with, or raises a
`ToolError` that says what is expected. They exist because the obvious checks are subtly wrong:
`"²".isdigit()` is true yet `int("²")` fails; `date.fromisoformat` accepts `20261201` and
`2026-W49-1`, stored as typed; `float("nan")` passes every comparison test by failing it; and a
text searched with LIKE treats `%` and `_` as wildcards.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from datetime import date, datetime

from mcp_servers.common.tooling import ToolError

# The largest id a database integer column holds (SQLite and PostgreSQL BIGINT).
MAX_ID = 2**63 - 1
LIKE_ESCAPE = "\\"

_ASCII_DIGITS = re.compile(r"[0-9]+")
_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
_DATETIME = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}[T ][0-9]{2}:[0-9]{2}(:[0-9]{2})?")


def numeric_id(value: str | int) -> int | None:
    """`value` as a row id when it is one (ASCII digits, 1 to 2^63-1, surrounding spaces
    ignored); None when it is not, so the caller can look it up as a code or a name instead."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if 1 <= value <= MAX_ID else None
    text = value.strip()
    if not _ASCII_DIGITS.fullmatch(text) or len(text) > 19:
        return None
    n = int(text)
    return n if 1 <= n <= MAX_ID else None


def like_pattern(text: str) -> str:
    """A LIKE pattern matching `text` anywhere, its `%`, `_` and `\\` taken literally; use it
    with `escape=LIKE_ESCAPE` (e.g. `col(X.name).ilike(like_pattern(q), escape=LIKE_ESCAPE)`)."""
    escaped = text.replace(LIKE_ESCAPE, LIKE_ESCAPE * 2).replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def iso_date(value: str, name: str = "date") -> str:
    """`value` as YYYY-MM-DD (a real calendar date), refusing the other forms ISO allows."""
    text = value.strip()
    if not _DATE.fullmatch(text):
        raise ToolError(f"{name} must be a date written YYYY-MM-DD, e.g. 2026-12-01; got {value!r}")
    try:
        date.fromisoformat(text)
    except ValueError:
        raise ToolError(f"{name} {value!r} is not a calendar date") from None
    return text


def iso_datetime(value: str, name: str = "time") -> datetime:
    """`value` as a local date and time written YYYY-MM-DDTHH:MM (seconds optional), no zone."""
    text = value.strip()
    if not _DATETIME.fullmatch(text):
        raise ToolError(
            f"{name}: {value!r} is not an ISO date-time like 2026-12-01T14:30 (local time "
            "YYYY-MM-DDTHH:MM, without a zone or offset)"
        )
    try:
        return datetime.fromisoformat(text.replace(" ", "T"))
    except ValueError:
        raise ToolError(f"{name} {value!r} is not a real date and time") from None


def finite(value: float, name: str) -> float:
    """`value` when it is a finite number (not NaN or infinity)."""
    if not math.isfinite(value):
        raise ToolError(f"{name} must be a finite number; got {value!r}")
    return value


def one_of(value: str, allowed: Iterable[str], name: str) -> str:
    """`value` when it is one of `allowed` (compared as given); else an error listing them."""
    options = list(allowed)
    if value not in options:
        raise ToolError(f"unknown {name} {value!r}: use one of {', '.join(options)}")
    return value


def one_of_any_case(value: str, allowed: Iterable[str], name: str) -> str:
    """`value` stripped and lower-cased when it is one of `allowed` in any case; else an error
    listing them, so a misspelt filter is not taken for a search that found nothing."""
    options = sorted(allowed)
    wanted = value.strip().lower()
    if wanted not in {o.lower() for o in options}:
        raise ToolError(f"unknown {name} {value!r}: use one of {', '.join(options)}")
    return wanted
