"""Profiles (SPEC §7): main-agent variants and sub-agent roles, as Markdown with YAML front matter.

The front-matter keys are Kimi Code's (name, description, whenToUse, tools, disallowedTools,
subagents, override) plus `mode`, `maxSteps` and, for variants, `delegation`. The Markdown body
is the principles: the system prompt. Built-in profiles live in `subagent_profiles/`; a user's
folder may add profiles, and replace a built-in one only with `override: true`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, ValidationError

from contracts.errors import InputError, Problem
from contracts.numbers import Int
from contracts.paths import folder_problem
from contracts.textio import read_text
from contracts.yamlio import read_yaml, validation_problems
from harness.budgets import MAX_STEPS

BUILTIN_DIR = Path(__file__).resolve().parent.parent / "subagent_profiles"
Delegation = Literal["none", "autonomous", "plan-first", "oracle"]
PLANNER = "planner"
_NAME = r"^[a-z][a-z0-9-]*$"


class ProfileHeader(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(pattern=_NAME)
    description: str = Field(min_length=1)
    whenToUse: str | None = None
    mode: Literal["read-only", "writable"] = "writable"
    tools: tuple[str, ...] = Field(min_length=1)
    disallowedTools: tuple[str, ...] = ()
    maxSteps: Int | None = Field(default=None, ge=1, le=MAX_STEPS)
    subagents: tuple[str, ...] | None = None
    delegation: Delegation | None = None
    override: StrictBool = False


@dataclass(frozen=True)
class Profile:
    header: ProfileHeader
    principles: str
    source: Path
    lines: dict[tuple[str | int, ...], int]
    text: str
    # front-matter keys that failed validation: the header holds placeholders for them, and the
    # profile is read only to check the rest of it (a partial profile is never loaded)
    invalid: frozenset[str] = frozenset()

    @property
    def partial(self) -> bool:
        return bool(self.invalid)

    @property
    def name(self) -> str:
        return self.header.name

    @property
    def is_variant(self) -> bool:
        return self.header.delegation is not None

    @property
    def read_only(self) -> bool:
        return self.header.mode == "read-only"

    @property
    def delegates(self) -> bool:
        return self.header.delegation not in (None, "none")

    def line(self, *key: str | int) -> int | None:
        return self.lines.get(key)


_FRONT = re.compile(r"\A---[ \t]*\n(.*?)\n---[ \t]*\n?(.*)\Z", re.DOTALL)


def parse_profile(path: Path, text: str | None = None) -> Profile:
    """One profile file; `InputError` naming file and line for every problem."""
    profile, problems = read_profile(path, text)
    if problems or profile is None:
        raise InputError(problems)
    return profile


def read_profile(path: Path, text: str | None = None) -> tuple[Profile | None, list[Problem]]:
    """One profile file and its problems: no profile when it cannot be read as one (not YAML, no
    front matter, not a mapping); a profile and its problems otherwise, so a loader can still
    check its sub-agents and globs and report every problem at once. When fields fail validation
    (missing, of the wrong type or value) the profile is partial: `invalid` names those keys, its
    header holds placeholders for them, and only the checks that need none of them are made."""
    try:
        return _read_profile(path, text)
    except InputError as exc:
        return None, exc.problems


def _read_profile(path: Path, text: str | None) -> tuple[Profile, list[Problem]]:
    file = str(path)
    if text is None:
        text = read_text(path)
    # A byte-order mark and Windows line ends (CRLF), as some editors write; lines keep their numbers.
    normalized = text.removeprefix("\ufeff").replace("\r\n", "\n")
    m = _FRONT.match(normalized)
    if m is None:
        raise InputError.one(file, 1, "a profile starts with YAML front matter between '---' lines")
    try:
        data, lines = read_yaml(path, m.group(1))
    except InputError as exc:  # lines counted from the front matter: the opening '---' is line 1
        raise InputError([replace(p, line=p.line + 1 if p.line else None) for p in exc.problems]) from None
    lines = {k: v + 1 for k, v in lines.items()}  # the opening '---' is line 1
    if not isinstance(data, dict):
        raise InputError.one(file, 2, "the front matter must be a mapping")
    problems: list[Problem] = []
    invalid: frozenset[str] = frozenset()
    try:
        header = ProfileHeader.model_validate(data)
    except ValidationError as exc:
        problems += validation_problems(file, exc, lines)
        invalid = frozenset(str(e["loc"][0]) for e in exc.errors() if e["loc"])
        header = _partial_header(data, invalid)

    def valid(*keys: str) -> bool:
        return invalid.isdisjoint(keys)

    if valid("name") and header.name != path.stem:
        problems.append(
            Problem(
                file, lines.get(("name",)), f"name {header.name!r} must match the file name {path.stem!r}"
            )
        )
    principles = m.group(2).strip()
    if not principles:
        closing = normalized.count("\n", 0, m.end(1)) + 2  # the '---' the principles follow
        problems.append(
            Problem(file, closing, "the principles (the Markdown after the front matter) are empty")
        )
    if valid("delegation", "subagents") and header.delegation is None and header.subagents is not None:
        problems.append(
            Problem(file, lines.get(("subagents",)), "'subagents' belongs to a variant: add 'delegation'")
        )
    if valid("delegation", "whenToUse") and header.delegation is None and not header.whenToUse:
        problems.append(Problem(file, 2, "missing field 'whenToUse' (a sub-agent role says when to use it)"))
    if valid("delegation", "subagents") and header.delegation is not None:
        subs = header.subagents or ()
        if header.delegation == "none" and subs:
            problems.append(
                Problem(file, lines.get(("subagents",)), "delegation 'none' offers no sub-agents")
            )
        if header.delegation != "none" and not subs:
            problems.append(
                Problem(
                    file, lines.get(("delegation",)), f"delegation {header.delegation!r} needs 'subagents'"
                )
            )
        for i, sub in enumerate(subs):
            if sub in subs[:i]:  # offered twice, the model would see one role listed two ways
                problems.append(
                    Problem(
                        file,
                        lines.get(("subagents", i)) or lines.get(("subagents",)),
                        f"sub-agent {sub!r} is listed twice in 'subagents'; list it once",
                    )
                )
        if header.delegation == "plan-first" and PLANNER not in subs:
            problems.append(
                Problem(file, lines.get(("subagents",)), f"plan-first needs the {PLANNER!r} sub-agent")
            )
    profile = Profile(
        header=header, principles=principles, source=path, lines=lines, text=text, invalid=invalid
    )
    return profile, problems


# what a partial header holds in place of a required key that failed validation
_PLACEHOLDERS: dict[str, object] = {"name": "invalid", "description": "invalid", "tools": ("*",)}


def _partial_header(data: dict[object, object], invalid: frozenset[str]) -> ProfileHeader:
    """The header of the keys that passed validation, placeholders for the others (a missing or
    invalid optional key takes its default): every field validates on its own, so this does."""
    kept = {k: v for k, v in data.items() if k in ProfileHeader.model_fields and k not in invalid}
    header = ProfileHeader.model_validate({**_PLACEHOLDERS, **kept})
    # no tool globs to check where 'tools' was invalid
    return header if "tools" not in invalid else header.model_copy(update={"tools": ()})


@dataclass(frozen=True)
class ProfileSet:
    profiles: dict[str, Profile]

    def variant(self, name: str) -> Profile:
        p = self.profiles.get(name)
        if p is not None and not p.is_variant:
            raise InputError.one(
                "--variant",
                None,
                f"{name!r} is a sub-agent role ({p.source}), not a variant: a variant's front matter "
                "has 'delegation' and 'subagents' (docs/authoring-profiles.md, Variants)",
            )
        if p is None:
            known = ", ".join(sorted(n for n, q in self.profiles.items() if q.is_variant))
            raise InputError.one("--variant", None, f"unknown variant {name!r}; known: {known}")
        return p

    def roles(self, variant: Profile) -> dict[str, Profile]:
        return {n: self.profiles[n] for n in variant.header.subagents or ()}

    @property
    def variants(self) -> list[Profile]:
        return [p for p in self.profiles.values() if p.is_variant]


def load_profiles(
    extra_dirs: Sequence[Path] = (),
    builtin: Path = BUILTIN_DIR,
    more_problems: Callable[[list[Profile]], list[Problem]] | None = None,
) -> ProfileSet:
    """Built-in profiles plus those of `extra_dirs`; every problem of every file at once, with
    `more_problems` of the profiles read (their tool globs), even of those with problems (and of
    partial ones, whose fields failed validation: their sub-agents are checked too). A
    folder given twice (the same once resolved, the built-in one too) is read once: read again,
    each of its profiles was told to set 'override: true' to replace itself."""
    problems: list[Problem] = []
    profiles: dict[str, Profile] = {}
    partial: list[Profile] = []  # read to be checked, never loaded
    builtins: set[str] = set()
    read: set[Path] = set()
    for folder, is_builtin in [(builtin, True), *((d, False) for d in extra_dirs)]:
        if said := folder_problem(folder, "profiles"):
            problems.append(Problem(str(folder), None, said))
            continue
        if folder.resolve() in read:
            continue
        read.add(folder.resolve())
        for path in sorted(folder.glob("*.md")):
            p, found = read_profile(path)
            problems.extend(found)
            if p is None:
                continue
            if p.partial:
                # never loaded, but its other keys are checked, those against the built-ins too
                partial.append(p)
                if {"name", "override"} & p.invalid:
                    continue
            if p.name in profiles and not (p.header.override and not is_builtin):
                problems.append(
                    Problem(
                        str(path),
                        p.line("name"),
                        f"profile {p.name!r} exists; set 'override: true' to replace it",
                    )
                )
                continue
            if p.header.override and not is_builtin and p.name not in builtins:
                problems.append(
                    Problem(
                        str(path),
                        p.line("override"),
                        f"override: true, but there is no built-in profile {p.name!r} to replace; remove it",
                    )
                )
            replaced = profiles.get(p.name)
            if replaced is not None and "delegation" not in p.invalid and replaced.is_variant != p.is_variant:
                kind, other = ("variant", "role") if replaced.is_variant else ("role", "variant")
                problems.append(
                    Problem(
                        str(path),
                        p.line("override") or p.line("name"),
                        f"{p.name!r} overrides a {kind} with a {other}; an override keeps the kind "
                        f"({'add' if replaced.is_variant else 'remove'} 'delegation')",
                    )
                )
                continue
            if p.partial:
                continue
            profiles[p.name] = p
            if is_builtin:
                builtins.add(p.name)
    # a partial profile may be the role a variant names: its own problems are told, not this one
    maybe_roles = {
        p.name
        for p in partial
        if "name" not in p.invalid and not (p.is_variant and "delegation" not in p.invalid)
    }
    for p in [*profiles.values(), *partial]:
        for i, sub in enumerate(p.header.subagents or ()):
            target = profiles.get(sub)
            if (target is None or target.is_variant) and sub not in maybe_roles:
                problems.append(
                    Problem(
                        str(p.source),
                        p.line("subagents", i) or p.line("subagents"),
                        f"unknown sub-agent {sub!r}",
                    )
                )
    if more_problems is not None:
        problems += more_problems([*profiles.values(), *partial])
    if problems:
        raise InputError(sorted(problems, key=lambda p: (p.file, p.line or 0)))
    return ProfileSet(profiles)


def glob_problems(profiles: Iterable[Profile], tool_modes: dict[str, bool]) -> list[Problem]:
    """Tool globs that match no known tool, and read-only profiles that name write tools.

    `tool_modes` maps every known qualified tool name to its read-only flag. A read-only
    profile's wildcard globs are filtered to read-only tools at run time; naming a write tool
    exactly, or a glob that matches only write tools, is a mistake and reported.
    """
    import fnmatch

    problems = []
    for p in profiles:
        for key in ("tools", "disallowedTools"):
            for i, glob in enumerate(getattr(p.header, key)):
                hits = [n for n in tool_modes if fnmatch.fnmatchcase(n, glob)]
                line = p.line(key, i) or p.line(key)
                if not hits:
                    problems.append(
                        Problem(str(p.source), line, f"{key} glob {glob!r} matches no known tool")
                    )
                elif key == "tools" and p.read_only and all(not tool_modes[n] for n in hits):
                    problems.append(
                        Problem(
                            str(p.source),
                            line,
                            f"read-only profile reaches write tool(s) {hits[:3]} by {glob!r}",
                        )
                    )
    return problems


LABEL_TYPES_FILE = BUILTIN_DIR / "label_types.yaml"


def label_types(path: Path = LABEL_TYPES_FILE) -> dict[str, dict[str, str]]:
    """label -> {"gen": type, "spec": type}: the built-in type that fits each function label."""
    from contracts.labels import LABELS

    data, lines = read_yaml(path)
    problems = [
        Problem(str(path), lines.get((k,)), f"unknown function label {k!r}") for k in data if k not in LABELS
    ]
    problems += [Problem(str(path), None, f"label {k!r} has no entry") for k in LABELS if k not in data]
    if problems:
        raise InputError(problems)
    return {k: dict(v) for k, v in data.items()}
