"""Text crossing the wire to and from a model service, made safe for the other end.

- In: a service's JSON may carry `\\ud800` escapes, which decode to lone UTF-16 surrogates in a
  Python `str`; no UTF-8 encoder takes them, so the store, the JSON export and the next request
  (which replays the answer) would all fail on them. `without_lone_surrogates` replaces each
  with U+FFFD in everything parsed from an answer, keys included: the whole answer where the
  SDK hands it over (`provider_common.answer_object`: text, reasoning, tool names, Anthropic's
  tool input), tool-argument text when it is parsed (`openai_wire.parse_arguments`), and error
  messages (`provider_common.error_text`).
- Out: the APIs accept only tool names matching `^[a-zA-Z0-9_-]{1,64}$`, in replayed history
  too, and refuse the whole request otherwise. A name the model invented is replayed as
  `api_tool_name` makes it; the call's id, which pairs it with its result, is untouched.
"""

from __future__ import annotations

import re
from typing import Any, TypeVar, cast

J = TypeVar("J")

_SURROGATE = re.compile("[\ud800-\udfff]")
TOOL_NAME = re.compile(r"[a-zA-Z0-9_-]{1,64}")  # `^…$` as the APIs write it; used with fullmatch
_NOT_IN_TOOL_NAME = re.compile(r"[^a-zA-Z0-9_-]")
MAX_TOOL_NAME = 64


def without_lone_surrogates(value: J) -> J:
    """`value` (a JSON value: str, dict, list or scalar) with every lone surrogate in its strings,
    keys too, replaced by U+FFFD; a high and low surrogate side by side become their character."""
    return cast(J, _clean(value))


def _clean(value: Any) -> Any:
    if isinstance(value, str):
        if not _SURROGATE.search(value):
            return value
        return value.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    if isinstance(value, dict):
        return {_clean(k): _clean(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_clean(v) for v in value]
    return value


def api_tool_name(name: str) -> str:
    """`name` as the APIs accept it in a request: every character outside `[a-zA-Z0-9_-]`
    replaced by `_`, cut to 64 characters, `_` for an empty name. A valid name is kept as it is."""
    if TOOL_NAME.fullmatch(name):
        return name
    return _NOT_IN_TOOL_NAME.sub("_", name)[:MAX_TOOL_NAME] or "_"
