"""Why an episode ended short, in one line: a budget's breach, a task group's first failure, or a
lost database server (which no episode can do anything about: it stops the run instead)."""

from __future__ import annotations

import re

from harness.db_text import first_line
from harness.events import EventLog


def breach_reason(events: EventLog, termination: str, agent: str = "main") -> str:
    """Why `agent` stopped short, in one line, from its budget_breach event (e.g. the API error)."""
    breach = next(
        (e for e in reversed(events.events) if e.kind == "budget_breach" and e.agent == agent), None
    )
    if breach is None:
        return termination
    details = {k: v for k, v in breach.data.items() if k != "reason"}
    error = details.pop("error", None)
    said = ", ".join(f"{k} {v}" for k, v in details.items())
    if error is None:
        return f"{termination}: {said}" if said else termination
    return f"{termination}: {error}" + (f" ({said})" if said else "")


# SQLSTATEs of a server out of reach: none (the client could not connect: refused, no such
# host), connection exceptions (08…), the server shut down or starting (57P01-57P03), too many
# connections (53300). Not a deadlock or a statement timeout, which are the episode's.
CONNECTION_STATE = re.compile(r"^(|08...|57P0[123]|53300)$")


def server_lost(exc: BaseException) -> str | None:
    """The first line of a lost or refused database connection in `exc` (its causes and groups
    included), which no episode can do anything about; None for any other fault."""
    from sqlalchemy.exc import DBAPIError, OperationalError

    seen: set[int] = set()
    todo = [exc]
    while todo:
        e = todo.pop()
        if id(e) in seen:
            continue
        seen.add(id(e))
        if (
            isinstance(e, OperationalError)
            and CONNECTION_STATE.match(getattr(e.orig, "sqlstate", None) or "")
        ) or (isinstance(e, DBAPIError) and e.connection_invalidated):
            return first_line(e) or type(e).__name__
        if isinstance(e, BaseExceptionGroup):
            todo += e.exceptions
        todo += [c for c in (e.__cause__, e.__context__) if c is not None]
    return None


def first_cause(exc: BaseException) -> BaseException:
    """The first exception inside (nested) exception groups: what a task group's failure was."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    return exc
