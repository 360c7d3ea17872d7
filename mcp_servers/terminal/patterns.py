"""Compiling a grep pattern within bounds: the pattern is the model's, so it is hostile.

`regex` compiles a counted repeat by copying its body: `a{99999999}` took 24 GB and the OOM
killer ended the server, all before the search timeout starts. So before compiling, a static
scan estimates the size of the compiled pattern (about 260-800 bytes and 0.4-3 us per unit,
measured on regex 2026.11): every character counts one unit, a group one more, and a
quantifier with minimum m makes m + 1 copies of what it repeats (`+`, `{1,}` and `{2}` copy
their body; `*`, `?` and `{0,n}` do not), so nested repeats multiply. The scan mirrors how
`regex` (version 0) splits a pattern into escapes, sets, groups, inline flags and, in verbose
mode, whitespace and comments, so a quantifier is charged to what it really repeats. Full
case folding, `(?f)` or `(?V1)`, is refused: with it one set like `[[:alpha:]ß]` costs ~28 KB a copy
and 1.5 ms to compile, which no count of characters foresees.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import regex

from mcp_servers.common.tooling import ToolError

# Parsing costs up to ~30 us per character (`\R`, a line break); 5,000 keep it under ~0.15 s.
MAX_PATTERN_CHARS = 5_000
# Expansion costs at most ~800 bytes per unit (`\R`); 50,000 units stay under ~40 MB, 0.1 s.
MAX_UNITS = 50_000
# `regex` parses groups recursively: `(?:` nested 200 deep raises RecursionError.
MAX_NESTING = 50

_FLAGS = frozenset("abefiLmprsuwx") | {"V0", "V1"}
# After "(?", these start a group that is not an inline-flags group.
_NOT_FLAGS = frozenset("<=!P#(>|&R0123456789")
_POSIX_CLASS = re.compile(r"\[:\^?[A-Za-z0-9 &_\-.]*(?:[:=][A-Za-z0-9 &_\-./]*)?:\]")


@dataclass
class _Level:
    """A group being scanned: its units so far and those of the element a quantifier would repeat."""

    verbose: bool
    units: int = 0
    last: int | None = None


def compile_pattern(pattern: str, *, ignore_case: bool, fixed_strings: bool) -> regex.Pattern[str]:
    """The grep pattern compiled, or a ToolError when it is malformed or too costly to compile."""
    if len(pattern) > MAX_PATTERN_CHARS:
        raise ToolError(
            f"the pattern is {len(pattern):,} characters long, more than the {MAX_PATTERN_CHARS:,} "
            "allowed; search for a shorter one"
        )
    source = regex.escape(pattern) if fixed_strings else pattern
    _Scan(source).check()
    try:
        # cache_pattern=False: the module cache would keep up to 500 compiled patterns alive.
        return regex.compile(source, (regex.IGNORECASE if ignore_case else 0) | regex.V0, cache_pattern=False)
    except regex.error as exc:
        raise ToolError(f"bad pattern {pattern!r}: {exc}; use fixed_strings=true for plain text") from None


def _too_costly() -> ToolError:
    return ToolError(
        "the pattern is too costly to compile: a counted repeat copies what it repeats (a{1000} is "
        "1,000 copies of a, and nested repeats multiply) and this one would come to more than "
        f"{MAX_UNITS:,} elements; use smaller counts, or + and * where any number will do"
    )


class _Scan:
    """One pass over a pattern, summing the units of each group it is in."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.levels = [_Level(verbose=False)]

    def check(self) -> None:
        """Refuse the pattern (a ToolError) if compiling it would cost too much."""
        text, pos = self.text, 0
        while True:
            level = self.levels[-1]
            pos = self._skip(pos, level.verbose)
            if pos >= len(text):
                break
            ch = text[pos]
            if ch == "\\":
                self._element(len(text[pos : pos + 2]))
                pos += 2
            elif ch == "[":
                end = self._set_end(pos)
                self._element(end - pos)
                pos = end
            elif ch == "(":
                pos = self._open(pos)
            elif ch == ")" and len(self.levels) > 1:
                self._close()
                pos += 1
            elif ch == "|":
                self._element(1)
                level.last = None
                pos += 1
            elif ch in "*?+":
                self._repeat(0 if ch != "+" else 1)
                pos += 1
            elif ch == "{" and (counted := self._count(pos + 1, level.verbose)) is not None:
                self._repeat(counted[0])
                pos = counted[1]
            else:
                self._element(1)
                pos += 1
        while len(self.levels) > 1:  # unclosed: `regex` refuses it, but count it all the same
            self._close()

    def _element(self, units: int) -> None:
        level = self.levels[-1]
        level.units += units
        level.last = units
        self._check(level.units)

    def _repeat(self, minimum: int) -> None:
        """A quantifier: m + 1 copies of the element before it (`regex` refuses a second one)."""
        level = self.levels[-1]
        if level.last is None:
            return
        level.units += level.last * minimum + 1
        level.last = None
        self._check(level.units)

    def _check(self, units: int) -> None:
        if units > MAX_UNITS:
            raise _too_costly()

    def _close(self) -> None:
        group = self.levels.pop()
        self._element(group.units + 1)

    def _open(self, pos: int) -> int:
        """Past the "(" at pos: a group pushed, or a comment or inline flags (which a following
        quantifier skips over, as in `regex`)."""
        text, level = self.text, self.levels[-1]
        kind = text[pos + 2 : pos + 3] if text.startswith("(?", pos) else ""
        if kind == "#":
            end = pos + 3
            while end < len(text) and text[end] != ")":
                end += 2 if text[end] == "\\" else 1
            return end + 1
        relative_call = kind in ("+", "-") and self._peek(pos + 3, level.verbose).isdigit()
        if kind in ("R", "&") or kind.isdigit() or relative_call or text.startswith("(?P>", pos):
            # Each level of recursion is kept while it matches: `(a(?R)?)` took 380 MB on a line
            # of a million characters, well inside the search's time limit.
            raise ToolError(
                "grep does not take recursion or subroutine calls ((?R), (?1), (?&name), (?P>name)): "
                "on a long line one can take gigabytes; write the group out"
            )
        if not kind or kind in _NOT_FLAGS:
            self._push(level.verbose)
            return pos + 1
        on, end = self._flags(pos + 2, level.verbose)
        off: set[str] = set()
        if self._peek(end, level.verbose) == "-":
            off, end = self._flags(self._skip(end, level.verbose) + 1, level.verbose)
        if "f" in on or "V1" in on:
            raise ToolError(
                "the (?f) and (?V1) flags (full case folding) are not supported by grep: they can make "
                "a small pattern take gigabytes to compile; use ignore_case=true"
            )
        verbose = "x" in on or (level.verbose and "x" not in off)
        end = self._skip(end, level.verbose)
        if text[end : end + 1] == ")":  # flags from here to the end of the group
            level.verbose = verbose
            return end + 1
        self._push(verbose)
        return end + 1

    def _push(self, verbose: bool) -> None:
        if len(self.levels) > MAX_NESTING:
            raise ToolError(f"the pattern nests groups more than {MAX_NESTING} deep; flatten it")
        self.levels.append(_Level(verbose=verbose))

    def _flags(self, pos: int, verbose: bool) -> tuple[set[str], int]:
        """The inline flags from pos, as `regex` reads them, and where they end."""
        found: set[str] = set()
        while True:
            start = self._skip(pos, verbose)
            name = self.text[start : start + 1]
            end = start + 1
            if name == "V":
                end = self._skip(end, verbose)
                name += self.text[end : end + 1]
                end += 1
            if name not in _FLAGS:
                return found, pos
            found.add(name)
            pos = end

    def _count(self, pos: int, verbose: bool) -> tuple[int, int] | None:
        """The minimum of a counted repeat `{m}`, `{m,}`, `{,n}` or `{m,n}` whose "{" is just
        before pos, and where it ends; None when the "{" is a literal."""
        low, pos = self._digits(pos, verbose)
        high = ""
        if self._peek(pos, verbose) == ",":
            high, pos = self._digits(self._skip(pos, verbose) + 1, verbose)
        elif not low:
            return None
        if self._peek(pos, verbose) != "}":
            return None
        if len(low) > 10 or len(high) > 10:  # `regex` reads 4,300 digits into an int, then refuses
            raise _too_costly()
        return int(low or "0"), self._skip(pos, verbose) + 1

    def _digits(self, pos: int, verbose: bool) -> tuple[str, int]:
        digits = []
        while (ch := self._peek(pos, verbose)) and ch in "0123456789":
            digits.append(ch)
            pos = self._skip(pos, verbose) + 1
        return "".join(digits), pos

    def _set_end(self, pos: int) -> int:
        """Just past the set `[...]` starting at pos; a first "]" is a member, as in `regex`."""
        text = self.text
        end = pos + 1 + text.startswith("^", pos + 1)
        first = True
        while end < len(text) and (first or text[end] != "]"):
            if text[end] == "\\":
                end += 2
            elif posix := _POSIX_CLASS.match(text, end):
                end = posix.end()
            else:
                end += 1
            first = False
        return min(end + 1, len(text))

    def _peek(self, pos: int, verbose: bool) -> str:
        pos = self._skip(pos, verbose)
        return self.text[pos : pos + 1]

    def _skip(self, pos: int, verbose: bool) -> int:
        """Past whitespace and `#` comments, which verbose mode ignores."""
        text = self.text
        while verbose and pos < len(text):
            if text[pos].isspace():
                pos += 1
            elif text[pos] == "#":
                newline = text.find("\n", pos)
                pos = len(text) if newline < 0 else newline
            else:
                break
        return pos
