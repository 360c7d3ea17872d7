"""Parsing a spreadsheet formula (formula.py computes it): tokens, A1 references and ranges
(whole columns `B:D` and rows `2:5` too), and a recursive-descent parser whose tree is nested
tuples."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

MAX_ROWS, MAX_COLS = 1_048_576, 16_384  # a reference beyond these is #REF!, as in Excel

_SHEET = r"(?:'(?:[^']|'')+'|[A-Za-z_][A-Za-z0-9_.]*)!"
_TOKEN = re.compile(
    rf"""\s*(?:
      (?P<cols>(?:{_SHEET})?\$?[A-Za-z]{{1,3}}:\$?[A-Za-z]{{1,3}}(?![\w.(]))
    | (?P<rows>(?:{_SHEET})?\$?\d+:\$?\d+(?![\w.]))
    | (?P<num>\d+(?:\.\d*)?(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?)
    | (?P<str>"(?:[^"]|"")*")
    | (?P<ref>(?:{_SHEET})?\$?[A-Za-z]{{1,3}}\$?\d+)
    | (?P<name>[A-Za-z_][A-Za-z0-9_.]*)
    | (?P<op><>|<=|>=|[-+*/^&=<>%(),:])
    )""",
    re.VERBOSE,
)


class FormulaError(Exception):
    """An error value (`#DIV/0!`, ...): the cell shows `code`."""

    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code


@dataclass(frozen=True)
class Ref:
    sheet: str | None
    row: int
    col: int


@dataclass(frozen=True)
class Area:
    start: Ref
    end: Ref


def _tokens(text: str) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    pos = 0
    text = text.rstrip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None or m.end() == pos:
            raise FormulaError("#ERROR!")
        kind = m.lastgroup or ""
        out.append((kind, m.group(kind)))
        pos = m.end()
    return out


def column_number(letters: str) -> int:
    """A1 column letters to a 1-based number: A = 1, Z = 26, AA = 27."""
    n = 0
    for ch in letters.upper():
        n = n * 26 + ord(ch) - 64
    return n


def _sheet_and_rest(text: str) -> tuple[str | None, str]:
    if "!" not in text:
        return None, text
    sheet, _, rest = text.rpartition("!")
    if sheet.startswith("'"):
        sheet = sheet[1:-1].replace("''", "'")
    return sheet, rest


def _ref(text: str) -> Ref:
    sheet, text = _sheet_and_rest(text)
    m = re.fullmatch(r"\$?([A-Za-z]{1,3})\$?(\d+)", text)
    assert m is not None  # the tokenizer matched this shape
    row, col = int(m.group(2)), column_number(m.group(1))
    if not (1 <= row <= MAX_ROWS and 1 <= col <= MAX_COLS):
        raise FormulaError("#REF!")
    return Ref(sheet, row, col)


def _whole(kind: str, text: str) -> Area:
    """Whole columns `B:D` (kind "cols") or rows `2:5` ("rows"): every cell of them; the
    evaluator reads only the part the sheet uses."""
    sheet, text = _sheet_and_rest(text)
    first, _, last = text.replace("$", "").partition(":")
    if kind == "cols":
        c1, c2 = column_number(first), column_number(last)
        if max(c1, c2) > MAX_COLS:
            raise FormulaError("#REF!")
        return Area(Ref(sheet, 1, c1), Ref(sheet, MAX_ROWS, c2))
    r1, r2 = int(first), int(last)
    if min(r1, r2) < 1 or max(r1, r2) > MAX_ROWS:
        raise FormulaError("#REF!")
    return Area(Ref(sheet, r1, 1), Ref(sheet, r2, MAX_COLS))


class Parser:
    """Recursive descent over the tokens; the tree is nested tuples evaluated by formula.py."""

    def __init__(self, text: str) -> None:
        self.toks = _tokens(text)
        self.i = 0

    def peek(self) -> tuple[str, str]:
        return self.toks[self.i] if self.i < len(self.toks) else ("end", "")

    def take(self, value: str | None = None) -> tuple[str, str]:
        tok = self.peek()
        if tok[0] == "end" or (value is not None and tok[1] != value):
            raise FormulaError("#ERROR!")
        self.i += 1
        return tok

    def parse(self) -> Any:
        tree = self.compare()
        if self.peek()[0] != "end":
            raise FormulaError("#ERROR!")
        return tree

    def _binary(self, ops: tuple[str, ...], inner: Callable[[], Any]) -> Any:
        left = inner()
        while self.peek()[0] == "op" and self.peek()[1] in ops:
            op = self.take()[1]
            left = ("bin", op, left, inner())
        return left

    def compare(self) -> Any:
        return self._binary(("=", "<>", "<", "<=", ">", ">="), self.concat)

    def concat(self) -> Any:
        return self._binary(("&",), self.additive)

    def additive(self) -> Any:
        return self._binary(("+", "-"), self.term)

    def term(self) -> Any:
        return self._binary(("*", "/"), self.power)

    def power(self) -> Any:
        return self._binary(("^",), self.unary)

    def unary(self) -> Any:
        if self.peek() in (("op", "-"), ("op", "+")):
            op = self.take()[1]
            return ("neg", self.unary()) if op == "-" else self.unary()
        node = self.primary()
        while self.peek() == ("op", "%"):
            self.take()
            node = ("pct", node)
        return node

    def primary(self) -> Any:
        kind, value = self.take()
        if kind == "num":
            return ("lit", float(value))
        if kind == "str":
            return ("lit", value[1:-1].replace('""', '"'))
        if kind == "ref":
            start = _ref(value)
            if self.peek() == ("op", ":"):
                self.take()
                kind2, value2 = self.take()
                if kind2 != "ref":
                    raise FormulaError("#ERROR!")
                end = _ref(value2)
                return ("area", Area(start, Ref(start.sheet, end.row, end.col)))
            return ("ref", start)
        if kind in ("cols", "rows"):
            return ("area", _whole(kind, value))
        if kind == "name":
            upper = value.upper()
            if self.peek() == ("op", "("):
                self.take()
                args: list[Any] = []
                if self.peek() != ("op", ")"):
                    args.append(self.compare())
                    while self.peek() == ("op", ","):
                        self.take()
                        args.append(self.compare())
                self.take(")")
                return ("call", upper, args)
            if upper in ("TRUE", "FALSE"):
                return ("lit", upper == "TRUE")
            raise FormulaError("#NAME?")
        if (kind, value) == ("op", "("):
            inner = self.compare()
            self.take(")")
            return inner
        raise FormulaError("#ERROR!")
