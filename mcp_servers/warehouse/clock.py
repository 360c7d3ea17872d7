"""The world's clock: a warehouse query may not read the computer's clock or time zone.

The world stands still at `TODAY` (every server's date; the tasks say "today"), but SQL reads
the host's clock: SQLite's `date('now')`, `date()` and the 'localtime'/'utc' modifiers,
PostgreSQL's now(), CURRENT_DATE, 'today'::date, one-argument age(). An answer built on them
depends on when and where the run happens (a salary effective next year counts once the host's
clock passes it), so every such query is refused with a tool error that says what today is.

- Both dialects: the keywords CURRENT_DATE, CURRENT_TIME, CURRENT_TIMESTAMP, LOCALTIME and
  LOCALTIMESTAMP, outside strings and comments (`refuse_clock_words`).
- SQLite: while a query runs, its date and time functions are overridden on the connection by
  ones that refuse a clock argument ('now', 'localtime', 'utc', or no time value at all) and
  otherwise compute what the built-in computes (`sqlite_world_clock`): however the argument is
  built (`lower('NOW')`, a column), the value is what is checked. After the query they stay
  registered but disarmed (they then compute what the built-in computes, clock included).
- PostgreSQL: the clock functions are not on the allow-list (`access.PG_FUNCTIONS`); the text
  is read for them, for age() with one argument and for the special date strings ('now',
  'today', 'tomorrow', 'yesterday') that PostgreSQL reads as the clock when it casts them
  (`pg_refuse_clock`). A cast of text assembled at run time ('n' || 'ow')::date still reads it;
  only a query written to evade the check does that.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

from mcp_servers.common.tooling import ToolError
from mcp_servers.warehouse import pg_calls
from mcp_servers.warehouse.schema import TODAY

# SQL keywords that stand for the clock (no parentheses needed).
CLOCK_KEYWORDS = frozenset(
    {"current_date", "current_time", "current_timestamp", "localtime", "localtimestamp"}
)
# PostgreSQL functions that read the clock.
PG_CLOCK_FUNCTIONS = (
    frozenset({"now", "clock_timestamp", "statement_timestamp", "transaction_timestamp", "timeofday"})
    | CLOCK_KEYWORDS
)
# Strings PostgreSQL reads as the clock when cast to a date or time.
PG_CLOCK_STRINGS = frozenset({"now", "today", "tomorrow", "yesterday"})
# SQLite's date and time functions, with how many arguments come before the time value.
SQLITE_DATE_FUNCTIONS = {
    "date": 0, "time": 0, "datetime": 0, "julianday": 0, "unixepoch": 0, "strftime": 1, "timediff": 0,
}  # fmt: skip
# SQLite time values and modifiers that read the clock ('now') or the host's time zone.
SQLITE_CLOCK_ARGUMENTS = frozenset({"now", "localtime", "utc"})


def clock_refusal(what: str) -> str:
    """The tool error for a query that reads the computer's clock."""
    return (
        f"refused: {what} reads the computer's clock, not the warehouse's; today is {TODAY} here: "
        f"write the date itself, e.g. '{TODAY}'"
    )


def refuse_clock_words(words: Iterable[str]) -> None:
    """Refuse a query whose words (lower-cased, outside strings and comments) name the clock."""
    for w in words:
        if w in CLOCK_KEYWORDS:
            raise ToolError(clock_refusal(w.upper()))


class ClockRefused(Exception):
    """Raised inside an overridden SQLite function; the query then fails with `clock_refusal`."""


_builtins = threading.local()


def _builtin(name: str, args: tuple[Any, ...]) -> Any:
    """What SQLite's own `name` gives for `args` (on a private in-memory connection: on the
    query's connection the name is overridden)."""
    conn = getattr(_builtins, "conn", None)
    if conn is None:
        conn = _builtins.conn = sqlite3.connect(":memory:")
    return conn.execute(f"SELECT {name}({', '.join('?' * len(args))})", args).fetchone()[0]


def _sqlite_override(name: str, before: int, refused: list[str], armed: threading.Event) -> Any:
    def call(*args: Any) -> Any:
        clock = len(args) <= before or any(
            isinstance(a, str) and a.strip().lower() in SQLITE_CLOCK_ARGUMENTS for a in args[before:]
        )
        if clock and armed.is_set():
            shown = ", ".join(repr(a) for a in args)
            refused.append(f"{name}({shown})")
            raise ClockRefused(refused[-1])
        return _builtin(name, args)

    return call


@contextmanager
def sqlite_world_clock(raw: sqlite3.Connection) -> Iterator[list[str]]:
    """Override SQLite's date and time functions on `raw` for the duration; yields the list of
    refused calls (empty unless the query read the clock).

    Leaving disarms the overrides instead of unregistering them, and so never touches `raw`:
    SQLite refuses to change a function while a statement is still active ("Error creating
    function"), which would turn the query's good result into an error, and Python 3.11's
    `create_function(name, n, None)` registers a function that fails rather than the built-in."""
    refused: list[str] = []
    armed = threading.Event()
    armed.set()
    for name, before in SQLITE_DATE_FUNCTIONS.items():
        raw.create_function(name, -1, _sqlite_override(name, before, refused, armed), deterministic=True)
    try:
        yield refused
    finally:
        armed.clear()


def _string_value(token: pg_calls.Token) -> str:
    """The text of a string token ('x', E'x', U&'x'), quotes and prefix removed."""
    return token.text[token.text.index("'") + 1 : -1]


def pg_refuse_clock(statement: str, backslash_escapes: bool = False) -> None:
    """Refuse a PostgreSQL query whose text calls a clock function, age() with one argument, or
    casts a clock string ('now', 'today', ...)."""
    toks = pg_calls.tokens(statement, backslash_escapes)
    for i, tok in enumerate(toks):
        following = toks[i + 1] if i + 1 < len(toks) else None
        opens = following is not None and following.kind == "op" and following.text == "("
        if tok.kind == "name" and (tok.text in CLOCK_KEYWORDS or (opens and tok.text in PG_CLOCK_FUNCTIONS)):
            raise ToolError(clock_refusal(f"{tok.text}()" if opens else tok.text.upper()))
        if tok.kind == "name" and tok.text == "age" and opens and _one_argument(toks, i + 1):
            raise ToolError(clock_refusal("age() with one argument (the age at today's date)"))
        if tok.kind == "string" and _string_value(tok).strip().lower() in PG_CLOCK_STRINGS:
            raise ToolError(clock_refusal(f"the date string {tok.text}"))


def _one_argument(toks: list[pg_calls.Token], open_at: int) -> bool:
    """Whether the parenthesis opened at `open_at` holds one argument (no comma at its level)."""
    depth = 0
    for tok in toks[open_at:]:
        if tok.kind != "op":
            continue
        if tok.text in "([":
            depth += 1
        elif tok.text in ")]":
            depth -= 1
            if depth == 0:
                return True
        elif tok.text == "," and depth == 1:
            return False
    return True
