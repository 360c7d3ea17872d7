"""A key given twice in one object of a record's line, which pydantic's JSON parser takes without
a word (its last value): found cheaply for the lines that may have one, then named by its path."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from contracts import EpisodeRecord


def may_repeat_a_key(line: str, record: EpisodeRecord) -> bool:
    """Whether the line may give a key twice in one object, which the record read takes without
    a word (its last value). Only such lines are parsed again: parsing each line again with
    `json` took 1.4 s for bench/scoring.py's 10,000 records, twice their read; this count 0.08 s.

    A line repeats no key when it has as many keys as the record has fields set (one per distinct
    key, in every object). Its keys are counted by their `":` (a key's closing quote and its
    colon, as JSON writers put them), less the `\\":` inside its strings. A line written with
    spaces before its colons counts fewer and is parsed again; one whose spaces exactly make up
    for its repeated keys would go unnoticed.
    """
    given = _keys_given(record)
    colons = line.count('":')
    return colons != given and colons - line.count('\\":') != given


def _keys_given(record: EpisodeRecord) -> int:
    """How many distinct keys the record's line gave: one per field set, in every object."""
    given = record.__pydantic_fields_set__
    count = len(given)
    if "main" in given:  # else `main` is the default, from no key of the line
        main = record.main
        count += len(main.__pydantic_fields_set__)
        if main.usage is not None:
            count += len(main.usage.__pydantic_fields_set__)
        for turn in main.turns or ():
            count += len(turn.__pydantic_fields_set__)
    for wave in record.waves:
        count += len(wave.__pydantic_fields_set__)
        for sub in wave.subagents:
            count += len(sub.__pydantic_fields_set__) + len(sub.usage.__pydantic_fields_set__)
    for check in record.checks or ():
        count += len(check.__pydantic_fields_set__)
    return count + len(record.usage.__pydantic_fields_set__)


class _Members(dict[str, Any]):
    """A JSON object, with the keys its text gives more than once."""

    repeated: tuple[str, ...] = ()


def _members(pairs: list[tuple[str, Any]]) -> _Members:
    found = _Members(pairs)
    if len(found) < len(pairs):
        found.repeated = tuple(key for key, n in Counter(key for key, _ in pairs).items() if n > 1)
    return found


def repeated_keys(line: str) -> list[str]:
    """A problem for each key given twice in one object of the line, named by its path: the
    record read takes the last value of such a key without a word (pydantic's JSON parser)."""
    try:
        data = json.loads(line, object_pairs_hook=_members)
    except (ValueError, RecursionError):  # not JSON after all: told as such by the record read
        return []
    found: list[str] = []
    stack: list[tuple[tuple[str, ...], Any]] = [((), data)]  # a walk without recursion: any depth
    while stack:
        path, value = stack.pop()
        if isinstance(value, _Members):
            found += [".".join((*path, key)) for key in value.repeated]
            stack += reversed([((*path, key), v) for key, v in value.items()])
        elif isinstance(value, list):
            stack += reversed([((*path, str(n)), v) for n, v in enumerate(value)])
    return [f"duplicate key {where!r}" for where in found]
