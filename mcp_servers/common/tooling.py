"""Registering tools: every tool gets `readOnlyHint` and a function label (SPEC §5, §6).

`readOnlyHint` is true exactly when the tool changes nothing; the label's mode must agree with
it, so a write tool can never carry a read-only label (and the other way round).
"""

from __future__ import annotations

import functools
import inspect
import json
import math
import re
import threading
import weakref
from collections.abc import Callable
from typing import Any, TypeVar

import anyio
import anyio.to_thread
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.tools.base import Tool
from mcp.types import ToolAnnotations
from pydantic import ConfigDict
from sqlalchemy.exc import OperationalError

from contracts.labels import label_mode

F = TypeVar("F", bound=Callable[..., Any])

# The range of a database integer (SQLite INTEGER, PostgreSQL BIGINT): an id argument past it
# cannot name a row, and the driver would fail with an overflow instead of "no such row".
INT_RANGE = (-(2**63), 2**63 - 1)

LABEL_META_KEY = "label"
BOOKKEEPING_META_KEY = "bookkeeping"
# The calling agent's id, which the harness puts in every tool call's `_meta`.
CALLER_META_KEY = "mseval/agent"

__all__ = [
    "BOOKKEEPING_META_KEY",
    "CALLER_META_KEY",
    "LABEL_META_KEY",
    "ToolError",
    "as_json",
    "caller",
    "fields",
    "json_number",
    "reader",
    "tool",
    "writer",
]


def tool(
    app: MCPServer,
    *,
    label: str,
    read_only: bool,
    destructive: bool = False,
    name: str | None = None,
    bookkeeping: bool = False,
) -> Callable[[F], F]:
    """Decorator: register `fn` on `app` with its annotations and function label.

    `bookkeeping` marks an agent's own scratch state (the todo list): it writes, so it is not
    read-only, yet it does nothing to the world, so its label says what it is for (planning)
    and taggers skip it when they label a sub-agent by its writes.
    """
    mode = label_mode(label)
    if (mode == "read-only") != read_only and not bookkeeping:
        raise ValueError(f"tool label {label!r} is {mode}, but the tool says read_only={read_only}")
    meta: dict[str, Any] = {LABEL_META_KEY: label}
    if bookkeeping:
        meta[BOOKKEEPING_META_KEY] = True

    def decorate(fn: F) -> F:
        if not fn.__doc__:
            raise ValueError(f"tool {fn.__name__} needs a docstring: it is the description the model reads")
        annotations = ToolAnnotations(
            readOnlyHint=read_only, destructiveHint=None if read_only else destructive, openWorldHint=False
        )
        wrapped = _ints_in_range(_text_results(fn))
        if not read_only and not bookkeeping and not inspect.iscoroutinefunction(fn):
            wrapped = _one_writer_at_a_time(app, wrapped)
        _register(app, fn, wrapped, name, annotations, meta)
        return fn

    return decorate


# Building a Tool (argument model + JSON schema) costs ~2.5 ms; every episode builds fresh
# server instances, but a tool's schema depends only on its function's code, so it is built
# once per process and copied with the new closure. Keyed by code object (the closures made by
# each `build(ctx)` call share it) and by the description, which a build may write from what it
# was given (python_execute's limit on timeout_s).
_TOOL_CACHE: dict[tuple[Any, str | None, str | None], Tool] = {}


# One lock per server instance for its sync write tools. Most of them read, then write: the next
# free row of a sheet, a seat's inventory, whether a grade exists. Sub-agents' calls overlap
# (sync tools run in worker threads), and two doing that at once both read the state before
# either wrote: the second failed (30 concurrent append_rows to one sheet: 5-26 failed on a
# UNIQUE constraint, as a bare "Error executing tool") or undid the first. The lock is taken in
# the event loop before the call goes to a thread, so a call that times out while it waits is
# never run, and waiting holds no thread. Read tools never take it; async tools (the local
# server's todo list and python_execute) are not serialised.
class _WriteTurn:
    """A server instance's turn to write: an anyio lock, made at its first use (inside the event
    loop that serves the instance), and a thread lock that the write holds while it runs: a
    caller cancelled mid-write (asyncio's timeout cancels the task, which anyio's shield around
    the thread does not stop) gives up the turn while its thread still writes, and the next write
    then waits for that one in its own thread."""

    def __init__(self) -> None:
        self._lock: anyio.Lock | None = None
        self.running = threading.Lock()

    @property
    def lock(self) -> anyio.Lock:
        if self._lock is None:
            self._lock = anyio.Lock()
        return self._lock


_WRITE_TURNS: weakref.WeakKeyDictionary[MCPServer, _WriteTurn] = weakref.WeakKeyDictionary()


def _one_writer_at_a_time(app: MCPServer, fn: Callable[..., Any]) -> Callable[..., Any]:
    turn = _WRITE_TURNS.setdefault(app, _WriteTurn())

    @functools.wraps(fn)
    async def serialized(*args: Any, **kwargs: Any) -> Any:
        async with turn.lock:
            return await anyio.to_thread.run_sync(
                functools.partial(_while_held, turn.running, fn, args, kwargs)
            )

    return serialized


def _while_held(lock: threading.Lock, fn: Callable[..., Any], args: Any, kwargs: Any) -> Any:
    with lock:
        return fn(*args, **kwargs)


def _out_of_range(value: Any) -> bool:
    if isinstance(value, int) and not isinstance(value, bool):
        return not INT_RANGE[0] <= value <= INT_RANGE[1]
    if isinstance(value, list | tuple):
        return any(_out_of_range(v) for v in value)
    if isinstance(value, dict):
        return any(_out_of_range(v) for v in value.values())
    return False


def _ints_in_range(fn: Callable[..., Any]) -> Callable[..., Any]:
    """`fn`, refusing integer arguments a database cannot hold with a ToolError that says so."""

    def check(kwargs: dict[str, Any]) -> None:
        for key, value in kwargs.items():
            if _out_of_range(value):
                raise ToolError(f"{key}: a number past {INT_RANGE[1]} names nothing here; check the value")

    if inspect.iscoroutinefunction(fn):

        @functools.wraps(fn)
        async def guarded_async(*args: Any, **kwargs: Any) -> Any:
            check(kwargs)
            try:
                return await fn(*args, **kwargs)
            except OperationalError as exc:
                raise _search_too_long(exc) from None
            except ToolError as exc:
                raise _shortened(exc) from None

        return guarded_async

    @functools.wraps(fn)
    def guarded(*args: Any, **kwargs: Any) -> Any:
        check(kwargs)
        try:
            return fn(*args, **kwargs)
        except OperationalError as exc:
            raise _search_too_long(exc) from None
        except ToolError as exc:
            raise _shortened(exc) from None

    return guarded


MAX_ERROR_CHARS = 4_000
"""The longest tool error message: one quoting a huge argument back (a 200,000-character sku
gave a 200 KB error) is cut in the middle, keeping what is wrong and the hint after it."""


def _shortened(exc: ToolError) -> ToolError:
    """`exc`, or when its message is over `MAX_ERROR_CHARS` one saying it cut to that, a marker
    telling how much was left out."""
    message = str(exc)
    if len(message) <= MAX_ERROR_CHARS:
        return exc
    head, tail = message[: MAX_ERROR_CHARS * 3 // 4], message[-(MAX_ERROR_CHARS // 4) :]
    return ToolError(f"{head}[… {len(message) - len(head) - len(tail):,} characters cut …]{tail}")


# A lone surrogate: how Python names a byte of a file name that is not UTF-8 (os.listdir of a
# file the agent's code made). No JSON or UTF-8 can carry one: a child server could not send such
# a result (the call never answered), and an in-process one ended the episode as harness_error.
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def _valid_text(text: Any) -> Any:
    """`text` with each lone surrogate shown as U+FFFD, as a terminal shows a byte it cannot decode
    (every tool returns text; anything else as it is)."""
    if not isinstance(text, str) or text.isascii():
        return text
    return _LONE_SURROGATE.sub("\ufffd", text)


def _text_results(fn: Callable[..., Any]) -> Callable[..., Any]:
    """`fn`, its text result made valid UTF-8 (`_valid_text`)."""
    if inspect.iscoroutinefunction(fn):

        @functools.wraps(fn)
        async def valid_async(*args: Any, **kwargs: Any) -> Any:
            return _valid_text(await fn(*args, **kwargs))

        return valid_async

    @functools.wraps(fn)
    def valid_sync(*args: Any, **kwargs: Any) -> Any:
        return _valid_text(fn(*args, **kwargs))

    return valid_sync


def _search_too_long(exc: OperationalError) -> Exception:
    """SQLite's refusal of a LIKE pattern over 50,000 bytes as a tool error the model can act
    on; any other database error as it was."""
    if "pattern too complex" in str(exc.orig):
        return ToolError("a search text that long cannot be matched; give a shorter one")
    return exc


def _register(
    app: MCPServer,
    original: Callable[..., Any],
    fn: Callable[..., Any],
    name: str | None,
    annotations: ToolAnnotations,
    meta: dict[str, Any],
) -> None:
    key = (original.__code__, name, original.__doc__)  # a description a build writes (limits it was given)
    cached = _TOOL_CACHE.get(key)
    tools = getattr(getattr(app, "_tool_manager", None), "_tools", None)
    if cached is None or not isinstance(tools, dict):
        # Python 3.11 keeps a docstring's indentation ("\n        "); models should not read it.
        description = inspect.cleandoc(fn.__doc__ or "")
        app.add_tool(
            fn,
            name=name,
            description=description,
            annotations=annotations,
            meta=meta,
            structured_output=False,
        )
        built = tools.get(name or fn.__name__) if isinstance(tools, dict) else None
        if built is not None:
            _forbid_unknown_arguments(built)
            _TOOL_CACHE[key] = built
        return
    if cached.name in tools:
        raise ValueError(f"tool {cached.name!r} is registered twice")
    tools[cached.name] = cached.model_copy(update={"fn": fn})


def _forbid_unknown_arguments(built: Tool) -> None:
    """Make `built` refuse an argument it does not take, and say so in its input schema
    (`additionalProperties: false`). The SDK's argument model ignores one: python_execute called
    with `timeout` for `timeout_s` ran with the default limit, and a misspelt optional argument
    of any tool was dropped without a word, so the model never learned its call did less than it
    asked. Refused, it is a tool error naming the argument (SPEC §12: arguments that break the
    schema go back to the model)."""
    loose = built.fn_metadata.arg_model
    strict = type(
        loose.__name__, (loose,), {"model_config": ConfigDict(extra="forbid"), "__module__": loose.__module__}
    )
    built.fn_metadata.arg_model = strict
    built.parameters = {**built.parameters, "additionalProperties": False}


def caller(ctx: Context[Any, Any]) -> str:
    """Which agent made this call: its id from the request's `_meta`, "" when the client gave none
    (any MCP client other than the harness)."""
    value = (ctx.request_context.meta or {}).get(CALLER_META_KEY)
    return value if isinstance(value, str) else ""


def reader(app: MCPServer, label: str) -> Callable[[F], F]:
    """Shorthand for a read-only tool."""
    return tool(app, label=label, read_only=True)


def writer(app: MCPServer, label: str, *, destructive: bool = False) -> Callable[[F], F]:
    """Shorthand for a tool that changes the world."""
    return tool(app, label=label, read_only=False, destructive=destructive)


def fields(obj: Any, exclude: set[str] | None = None) -> dict[str, Any]:
    """A row's columns in declaration order (an ORM-loaded object's model_dump order is arbitrary,
    and after a commit it is empty until refreshed)."""
    return {k: getattr(obj, k) for k in type(obj).model_fields if not exclude or k not in exclude}


_RESULT_ENCODER = json.JSONEncoder(ensure_ascii=False, default=str, separators=(",", ":"), allow_nan=False)


def json_number(value: float) -> float | str:
    """A float as strict JSON can carry it: itself when finite, else its name ("Infinity",
    "-Infinity", "NaN").

    JSON has no such numbers (Python writes a bare `Infinity`, which strict parsers refuse); null
    would read as a missing value (SQL NULL), while the name keeps what the value was, reads
    back with `float()`, and is what a `Decimal` infinity or NaN already becomes (`default=str`)."""
    if math.isfinite(value):
        return value
    if math.isnan(value):
        return "NaN"
    return "Infinity" if value > 0 else "-Infinity"


def _finite(value: Any) -> Any:
    """`value` with every non-finite float in it (in lists, tuples and dicts) by its name."""
    if isinstance(value, float):
        return json_number(value)
    if isinstance(value, dict):
        return {_finite(k) if isinstance(k, float) else k: _finite(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_finite(v) for v in value]
    return value


def as_json(value: Any) -> str:
    """Tool results are compact, strict JSON text, readable by a model and by a check; a
    non-finite float is written as its name (`json_number`)."""
    try:
        return _RESULT_ENCODER.encode(value)
    except ValueError:  # a non-finite float somewhere: walked only then, not on every result
        return _RESULT_ENCODER.encode(_finite(value))
