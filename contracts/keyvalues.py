"""`KEY=VALUE` items from the command line (`--budget`, `--server-option`, `servers serve --option`)."""

from __future__ import annotations

from collections.abc import Collection, Iterable

from contracts.errors import Problem


def key_values(
    items: Iterable[str], flag: str, keys: Collection[str], *, example: str, noun: str, nouns: str
) -> tuple[dict[str, str], list[Problem]]:
    """The items as {key: value} (both stripped), and one problem naming `flag` for each item
    that is not KEY=VALUE (`example` shows one), has a key not in `keys` (a `noun`; the `nouns`
    are listed), or repeats a key. The good items are returned even then."""
    out: dict[str, str] = {}
    problems: list[Problem] = []
    for item in items:
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or not key:
            problems.append(Problem(flag, None, f"{item!r} is not KEY=VALUE (e.g. {example})"))
        elif key not in keys:
            problems.append(Problem(flag, None, f"unknown {noun} {key!r}; the {nouns} are {', '.join(keys)}"))
        elif key in out:
            problems.append(Problem(flag, None, f"{key} is given twice; give it once"))
        else:
            out[key] = value.strip()
    return out, problems
