"""Read a JSON file given to mseval: every way it can be unreadable is one problem line, a key
given twice in one object is a problem on its line (JSON parsers keep the last one silently),
and each value's line is known, so a problem found later can name where its value stands."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from json.decoder import scanstring  # type: ignore[attr-defined]
from pathlib import Path
from typing import Any

from contracts.errors import InputError, Problem
from contracts.textio import read_text
from contracts.yamlio import KeyPath

_SPACE = re.compile(r"[ \t\n\r]*")


@dataclass(frozen=True)
class JsonDocument:
    data: Any
    lines: dict[KeyPath, int]
    """The line each value starts on, by its path of keys and indexes (`yamlio.line_of` finds
    the line of a problem's path in it, as for YAML files)."""


def read_json(path: Path) -> JsonDocument:
    """The parsed contents of `path` and its values' lines; `InputError` naming the file (and
    line) otherwise. A leading byte-order mark (as some editors write) is read past, as in
    profiles and exports."""
    file = str(path)
    text = read_text(path, "utf-8-sig")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError.one(file, exc.lineno, f"invalid JSON: {exc.msg}") from None
    except RecursionError:
        raise InputError.one(file, None, "invalid JSON: nested too deeply") from None
    except ValueError as exc:  # a value Python refuses, e.g. an integer of over 4,300 digits
        raise InputError.one(file, None, f"invalid JSON: {exc}") from None
    try:
        lines, repeated = _Locator(text).document()
    except RecursionError:  # as deep as json.loads allows, but with the walk's frames too
        lines, repeated = {}, []
    if repeated:
        raise InputError([Problem(file, line, message) for line, message in repeated])
    return JsonDocument(data, lines)


class _Locator:
    """Walks a document json.loads has accepted, noting where each value starts."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.counted, self.counted_line = 0, 1  # the walk only moves forward: count as it goes
        self.lines: dict[KeyPath, int] = {}
        self.repeated: list[tuple[int, str]] = []

    def document(self) -> tuple[dict[KeyPath, int], list[tuple[int, str]]]:
        self.value(0, ())
        return self.lines, self.repeated

    def line(self, at: int) -> int:
        self.counted_line += self.text.count("\n", self.counted, at)
        self.counted = at
        return self.counted_line

    def skip(self, at: int) -> int:
        return _SPACE.match(self.text, at).end()  # type: ignore[union-attr]

    def value(self, at: int, path: KeyPath) -> int:
        """Note the value starting at (or after spaces from) `at`; the index just past it."""
        text, at = self.text, self.skip(at)
        self.lines[path] = self.line(at)
        if text[at] == "{":
            return self.members(at + 1, path)
        if text[at] == "[":
            end = text.find("]", at)
            if not any(c in text[at + 1 : end] for c in '[{"'):  # numbers, true, false, null
                return end + 1  # a matrix row: its entries are told at the row's line
            at, index = self.skip(at + 1), 0
            while text[at] != "]":
                at = self.skip(self.value(at, (*path, index)))
                index += 1
                at = self.skip(at + 1) if text[at] == "," else at
            return at + 1
        return _DECODER.raw_decode(text, at)[1]

    def members(self, at: int, path: KeyPath) -> int:
        text, seen = self.text, dict[str, int]()
        at = self.skip(at)
        while text[at] != "}":
            line = self.line(at)
            key, at = scanstring(text, at + 1)
            if key in seen:
                self.repeated.append((line, f"duplicate key {key!r} (first at line {seen[key]})"))
            seen[key] = line
            at = self.skip(self.value(self.skip(at) + 1, (*path, key)))  # past the ':'
            at = self.skip(at + 1) if text[at] == "," else at
        return at + 1


_DECODER = json.JSONDecoder()
