"""Load a YAML file into a pydantic model, naming the file and line of every problem.

PyYAML's composer keeps the position of every node; we walk that tree once to map each key
path to its line, so a pydantic error at `waves.0.1.label` is reported at the line of that
label. Duplicate keys (which PyYAML would silently overwrite) are reported too.
"""

from __future__ import annotations

import math
import re
from datetime import date, datetime
from pathlib import Path
from typing import Any, TypeVar

import yaml
from pydantic import BaseModel, ValidationError

from contracts.errors import InputError, Problem
from contracts.textio import read_text

M = TypeVar("M", bound=BaseModel)
KeyPath = tuple[str | int, ...]

# The longest part of a value quoted back in a problem (a 5,000-digit integer is not shown whole).
MAX_SHOWN_CHARS = 40

# The most nodes a file may stand for once its aliases are expanded: a few lines of nested
# aliases (a "billion laughs") stand for billions, which validating would walk one by one.
MAX_EXPANDED_NODES = 100_000


if yaml.__with_libyaml__:  # libyaml scans and parses: 7x faster than PyYAML's Python code
    from yaml._yaml import CParser as _Parser
else:  # pragma: no cover - PyYAML built without libyaml

    class _Parser(yaml.reader.Reader, yaml.scanner.Scanner, yaml.parser.Parser):  # type: ignore[no-redef]
        def __init__(self, stream: str) -> None:
            yaml.reader.Reader.__init__(self, stream)
            yaml.scanner.Scanner.__init__(self)
            yaml.parser.Parser.__init__(self)


_BOOL_TAG = "tag:yaml.org,2002:bool"


class _Resolver(yaml.resolver.Resolver):
    """PyYAML's resolver with YAML 1.2's booleans: only true/false (True, TRUE, False, FALSE) are
    read as a yes-or-no; YAML 1.1's yes, no, on, off, y and n stay text, so a field that takes
    true or false refuses them instead of reading `override: no` as false."""

    yaml_implicit_resolvers = {
        first: [(tag, regexp) for tag, regexp in resolvers if tag != _BOOL_TAG]
        for first, resolvers in yaml.resolver.Resolver.yaml_implicit_resolvers.items()
    }


_Resolver.add_implicit_resolver(
    _BOOL_TAG, re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF")
)


class _Loader(yaml.composer.Composer, _Parser, yaml.constructor.SafeConstructor, _Resolver):  # type: ignore[misc]
    """The safe loader, naming the line of a value it cannot build.

    PyYAML's own constructors fail on some values with bare Python errors that carry no
    position, or crash: `!!bool maybe` (KeyError), `!!int ""` (IndexError), `!!timestamp x`
    (AttributeError), a date `2026-13-45` or an integer of over 4,300 digits (ValueError).

    The events come from libyaml's parser when PyYAML has it; the nodes are composed here, in
    Python, so that every value is counted as it is composed.
    """

    def __init__(self, stream: str) -> None:
        _Parser.__init__(self, stream)
        yaml.composer.Composer.__init__(self)
        yaml.constructor.SafeConstructor.__init__(self)
        _Resolver.__init__(self)
        self._values = 0  # how many values composed so far, aliases expanded
        self._aliased = False
        self._sizes: dict[int, int] = {}

    def compose_node(self, parent: yaml.Node | None, index: Any) -> yaml.Node | None:
        """PyYAML's, counting values as they are composed: past `MAX_EXPANDED_NODES` the file
        is refused at the line of the value (or alias) that passes it, before the rest is read."""
        event = self.peek_event()
        node = super().compose_node(parent, index)
        alias = isinstance(event, yaml.AliasEvent)
        self._aliased = self._aliased or alias
        self._values += _expanded_size(node, self._sizes) if alias and node is not None else 1
        if self._values > MAX_EXPANDED_NODES:
            raise yaml.composer.ComposerError(
                None, None, _too_many(self._aliased), getattr(event, "start_mark", None)
            )
        return node

    def construct_object(self, node: yaml.Node, deep: bool = False) -> Any:
        try:
            return super().construct_object(node, deep)
        except (ValueError, LookupError, AttributeError, TypeError, OverflowError) as exc:
            kind = str(node.tag).replace("tag:yaml.org,2002:", "!!")
            what = f"this {kind}"
            if isinstance(node, yaml.ScalarNode):
                value = str(node.value)
                what = repr(value if len(value) <= MAX_SHOWN_CHARS else value[:MAX_SHOWN_CHARS] + "…")
            reason = f": {exc}" if isinstance(exc, ValueError) else ""
            raise yaml.constructor.ConstructorError(
                None, None, f"cannot read {what} as {kind}{reason}", node.start_mark
            ) from None


def _too_many(aliased: bool) -> str:
    if aliased:
        return f"its aliases expand to more than {MAX_EXPANDED_NODES:,} values"
    return f"more than {MAX_EXPANDED_NODES:,} values, more than any input of mseval holds"


def _expanded_size(node: yaml.Node, sizes: dict[int, int]) -> int:
    """How many nodes `node` stands for with its aliases expanded (each shared node once counted
    per use, computed once)."""
    known = sizes.get(id(node))
    if known is not None:
        return known
    size = 1
    if isinstance(node, yaml.MappingNode):
        size += sum(_expanded_size(k, sizes) + _expanded_size(v, sizes) for k, v in node.value)
    elif isinstance(node, yaml.SequenceNode):
        size += sum(_expanded_size(item, sizes) for item in node.value)
    sizes[id(node)] = size
    return size


def _walk(node: yaml.Node, path: KeyPath, lines: dict[KeyPath, int], dupes: list[Problem], file: str) -> None:
    lines[path] = node.start_mark.line + 1
    if isinstance(node, yaml.MappingNode):
        seen: set[str] = set()
        for key_node, value_node in node.value:
            key = str(key_node.value)
            if key in seen:
                dupes.append(Problem(file, key_node.start_mark.line + 1, f"duplicate key {key!r}"))
            seen.add(key)
            lines[(*path, key)] = key_node.start_mark.line + 1
            _walk(value_node, (*path, key), lines, dupes, file)
            lines[(*path, key)] = key_node.start_mark.line + 1
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            _walk(item, (*path, i), lines, dupes, file)


def _line_at(text: str, position: int) -> int:
    """The line of a reader error's offset: into the text's UTF-8 bytes when libyaml read it."""
    if not yaml.__with_libyaml__:  # pragma: no cover
        return text.count("\n", 0, position) + 1
    return text.encode("utf-8").count(b"\n", 0, position) + 1


def line_of(lines: dict[KeyPath, int], loc: tuple[Any, ...]) -> int | None:
    """The line of the longest prefix of `loc` that the file has."""
    path: KeyPath = tuple(p for p in loc if isinstance(p, (str, int)))
    while path:
        if path in lines:
            return lines[path]
        path = path[:-1]
    return lines.get(())


def read_yaml(path: Path, text: str | None = None) -> tuple[Any, dict[KeyPath, int]]:
    """Parse a YAML file; return the data and a map from key paths to line numbers."""
    file = str(path)
    if text is None:
        text = read_text(path)
    loader: _Loader | None = None
    try:
        loader = _Loader(text)  # reads the text through: a control character raises here
        node = loader.get_single_node()  # parsed once: the data is built from these nodes
        # Counted again whole: an alias of a node still being composed (`&a [*a]`) was counted short.
        if node is not None and _expanded_size(node, {}) > MAX_EXPANDED_NODES:
            raise InputError.one(file, None, f"invalid YAML: {_too_many(aliased=True)}")
        data = loader.construct_document(node) if node is not None else None
        lines: dict[KeyPath, int] = {}
        dupes: list[Problem] = []
        if node is not None:
            _walk(node, (), lines, dupes, file)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark else None
        problem = exc.problem or str(exc)
        if problem == "exceeded maximum nesting depth":  # libyaml's words for a RecursionError
            problem = "nested too deeply"
        raise InputError.one(file, line, f"invalid YAML: {problem}") from None
    except yaml.reader.ReaderError as exc:  # a control character: an offset, not a line
        line = _line_at(text, exc.position)
        char = exc.character
        shown = f"U+{char:04X}" if isinstance(char, int) else repr(char)
        raise InputError.one(file, line, f"invalid YAML: {exc.reason} ({shown})") from None
    except UnicodeEncodeError as exc:  # libyaml reads UTF-8; no text read from a file holds one
        line = text.count("\n", 0, exc.start) + 1
        shown = f"U+{ord(text[exc.start]):04X}"
        raise InputError.one(file, line, f"invalid YAML: a lone surrogate is not allowed ({shown})") from None
    except yaml.YAMLError as exc:
        raise InputError.one(file, None, f"invalid YAML: {exc}") from None
    except RecursionError:
        raise InputError.one(file, None, "invalid YAML: nested too deeply") from None
    finally:
        if loader is not None:
            loader.dispose()
    if dupes:
        raise InputError(dupes)
    return data, lines


def validation_problems(file: str, exc: ValidationError, lines: dict[KeyPath, int]) -> list[Problem]:
    problems = []
    for err in exc.errors():
        loc = err["loc"]
        where = ".".join(str(p) for p in loc)
        msg = err["msg"].removeprefix("Value error, ").removeprefix("Assertion failed, ")
        if err["type"] == "extra_forbidden":
            msg = f"unknown key {loc[-1]!r}"
        elif err["type"] == "missing":
            msg = f"missing field {loc[-1]!r}"
        elif where:
            msg = f"{where}: {msg}"
        if err["type"] == "string_type" and isinstance(err["input"], (date, datetime)):
            msg += f" ({_as_date(err['input'])})"
        elif err["type"] == "int_parsing" and (whole := _whole_number(err["input"])) is not None:
            yaml_file = file.endswith((".yaml", ".yml"))
            msg += (
                f" (YAML reads {err['input']} as text; write {whole})" if yaml_file else f" (write {whole})"
            )
        problems.append(Problem(file, line_of(lines, loc), msg))
    return problems


def _as_date(value: date) -> str:
    """The hint for text that YAML read as a date or a time (`title: 2024-01-02`): to quote it."""
    shown = value.isoformat(sep=" ") if isinstance(value, datetime) else value.isoformat()
    kind = "a date and time" if isinstance(value, datetime) else "a date"
    return f"YAML reads {shown} as {kind}; quote it for text: '{shown}'"


def _whole_number(value: Any) -> int | None:
    """The whole number that text such as `1e5` stands for: YAML 1.1 reads an exponent without
    a dot and a sign (`1e5`) as text, which an integer field then refuses as "unable to parse"."""
    if not isinstance(value, str):
        return None
    try:
        number = float(value)
    except ValueError:
        return None
    return int(number) if math.isfinite(number) and number.is_integer() else None


def validate_data(model: type[M], data: Any, file: str, lines: dict[KeyPath, int]) -> M:
    if not isinstance(data, dict):
        raise InputError.one(file, 1, f"expected a mapping at the top, found {type(data).__name__}")
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise InputError(validation_problems(file, exc, lines)) from None


def load_yaml_model(path: Path, model: type[M], text: str | None = None) -> M:
    """Read `path` (or `text`, reported as `path`) as YAML and validate it as `model`."""
    data, lines = read_yaml(path, text)
    return validate_data(model, data, str(path), lines)
