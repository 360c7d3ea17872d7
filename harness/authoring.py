"""Authoring tools: a task skeleton that validates, a prior drafted from a recorded episode, a
profile skeleton (SPEC §6, §7; `docs/authoring-tasks.md`, `docs/annotating-priors.md`)."""

from __future__ import annotations

import contextlib
import math
import os
import re
import shutil
import tempfile
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml

from contracts.episode import EpisodeRecord, SubagentRecord
from contracts.errors import InputError, Problem
from contracts.prior import DelegationPrior
from contracts.scenarios import SCENARIO_SERVERS, SCENARIOS
from contracts.yamlio import load_yaml_model
from harness.catalog import PRIORS_DIR, TASKS_DIR, Subtask, load_task
from harness.profiles import label_types, load_profiles

_ID = re.compile(r"^[a-z0-9][a-z0-9-]*$")

CHECK_TEMPLATE = '''"""Check of {name}: replace these criteria with the task's own."""

from harness.checks import Criterion, World


def check(world: World) -> list[Criterion]:
    notes = world.read_text("NOTES.md")
    return [
        Criterion.of(
            "notes written",
            notes is not None and "notes for {name}" in notes,
            "NOTES.md is missing or does not say 'notes for {name}'",
        )
    ]
'''


def _first_simple_read_tool(server: str) -> tuple[str, str]:
    """A read tool of `server` that needs no arguments, and its label."""
    from harness.servers_catalog import tool_catalog

    for t in tool_catalog():
        if t.server == server and t.read_only and not t.spec.input_schema.get("required") and t.label:
            return t.name, t.label
    raise InputError.one(
        server, None, f"server {server!r} has no read tool without required arguments for a skeleton"
    )


def _yaml_text(data: Any) -> str:
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=110)


def _dump(path: Path, data: Any, header: str = "") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(header + _yaml_text(data), encoding="utf-8")


def _refuse_a_used_task_id(name: str, tasks_dir: Path, prior_path: Path) -> None:
    """A task id is one folder across all scenarios (the catalog refuses a second) and the
    name of its prior: `InputError` naming whichever of them exists already."""
    if used := sorted(tasks_dir.glob(f"*/{name}")):
        raise InputError.one(
            str(used[0]), None, "exists already: a task id is used once, across all scenarios"
        )
    if prior_path.exists() or prior_path.is_symlink():  # a link to nothing would be written through
        raise InputError.one(
            str(prior_path),
            None,
            f"exists already: the prior of a task {name!r}; remove it or choose another id",
        )


def check_priors_beside_tasks() -> None:
    """`InputError` when `MSEVAL_TASKS` is set and `MSEVAL_PRIORS` is not: the tasks are the
    user's collection, but a prior written now would go into the project's priors folder, where
    no one looks for it beside those tasks (docs/authoring-tasks.md: point both at the collection)."""
    if os.environ.get("MSEVAL_TASKS") and not os.environ.get("MSEVAL_PRIORS"):
        raise InputError.one(
            "MSEVAL_PRIORS",
            None,
            f"not set while MSEVAL_TASKS is: the prior would go into the project's {PRIORS_DIR}, "
            "away from your tasks; point MSEVAL_PRIORS at your collection's priors folder too",
        )


def new_task(
    name: str, scenario: str, tasks_dir: Path = TASKS_DIR, priors_dir: Path = PRIORS_DIR
) -> list[Path]:
    """A task skeleton that validates (task.yaml, solution.yaml, check.py) in `scenario`, and
    its skeleton prior."""
    if not _ID.match(name):
        raise InputError.one(name, None, "a task id is lower-case letters, digits and dashes")
    if scenario not in SCENARIOS:
        raise InputError.one(
            "--scenario", None, f"unknown scenario {scenario!r}; known: {', '.join(SCENARIOS)}"
        )
    if len(name) > MAX_ID_CHARS:  # it names a folder and a file (≤ 255 bytes on most disks)
        raise InputError.one(name, None, f"a task id is at most {MAX_ID_CHARS} characters")
    for where in (tasks_dir, tasks_dir / scenario, priors_dir):
        if where.exists() and not where.is_dir():
            raise InputError.one(where, None, "is not a folder: the new task's files go in it")
    folder = tasks_dir / scenario / name
    prior_path = priors_dir / f"{name}.yaml"
    _refuse_a_used_task_id(name, tasks_dir, prior_path)
    made = [d for d in (tasks_dir, tasks_dir / scenario, priors_dir) if not d.exists()]
    try:
        _write_skeleton(name, scenario, folder, prior_path)
        load_task(folder, priors_dir)  # the skeleton must load
    except BaseException as exc:  # nothing half-made is left: neither folder nor prior existed
        shutil.rmtree(folder, ignore_errors=True)
        prior_path.unlink(missing_ok=True)
        for created in reversed(made):  # the folders made on the way, deepest first
            with contextlib.suppress(OSError):
                created.rmdir()
        if isinstance(exc, OSError):
            raise InputError.one(exc.filename or folder, None, f"cannot write it: {exc.strerror}") from None
        raise
    return [folder / "task.yaml", folder / "solution.yaml", folder / "check.py", prior_path]


MAX_ID_CHARS = 100


def _write_skeleton(name: str, scenario: str, folder: Path, prior_path: Path) -> None:
    server = SCENARIO_SERVERS[scenario]
    read_tool, read_label = _first_simple_read_tool(server)
    # A small task that is whole as it stands (no placeholder text that validation would let
    # through to the agents): its prompt asks for what its check checks.
    _dump(folder / "task.yaml", {
        "id": name, "scenario": scenario, "title": f"Notes on the {server} system",
        "prompt": f"Look around the {server} system, then write NOTES.md with the line 'notes for {name}'.",
        "servers": [server],
    }, SKELETON_HEADER)  # fmt: skip
    _dump(folder / "solution.yaml", {"task": name, "subtasks": [
        {"id": "s1", "description": f"look around the {server} system", "label": read_label,
         "calls": [{"tool": read_tool, "arguments": {}}]},
        {"id": "s2", "description": "write NOTES.md", "label": "file-build",
         "calls": [{"tool": "mcp__local__python_execute",
                    "arguments": {"code": f"open('NOTES.md', 'w').write('notes for {name}')"}}]},
    ]})  # fmt: skip
    (folder / "check.py").write_text(CHECK_TEMPLATE.format(name=name), encoding="utf-8")
    _dump(prior_path, _skeleton_prior(name), SKELETON_PRIOR_HEADER)


SKELETON_HEADER = "# A skeleton that validates: make it your task (docs/authoring-tasks.md).\n"
SKELETON_PRIOR_HEADER = (
    "# A skeleton: annotate it (docs/annotating-priors.md). `mseval priors draft` replaces this\n"
    "# file without --force only while it is unchanged.\n"
)


def _skeleton_prior(task_id: str) -> dict[str, Any]:
    return {"task": task_id, "need_delegation": False, "waves": []}


def _replaceable(path: Path, task_id: str) -> bool:
    """A prior `draft_prior` may write over without --force: none yet, or the untouched
    skeleton of `mseval tasks new` (nothing an annotator wrote is lost)."""
    if not path.exists():
        return True
    skeleton = SKELETON_PRIOR_HEADER + yaml.safe_dump(
        _skeleton_prior(task_id), sort_keys=False, allow_unicode=True, width=110
    )
    try:
        return path.read_text(encoding="utf-8") == skeleton
    except (OSError, UnicodeDecodeError):
        return False


def _find_record(episode_id: str, store_url: str) -> EpisodeRecord:
    from harness.store import Store

    store = Store(store_url)
    try:
        # `records()` gives each (task, model, variant, seed) once, its newest run's: an episode
        # of an older run is found in its own run, whose id starts the episode's (then anywhere,
        # for records of other origins).
        for run_id in (episode_id.split("-", 1)[0], None):
            for r in store.records(run_id):
                if r.episode_id == episode_id:
                    return r
    finally:
        store.close()
    raise InputError.one(
        "--from-episode", None, f"no finished episode {episode_id!r} in {store_url} (see `mseval export`)"
    )


_WORD = re.compile(r"[a-z0-9]+")


def _text_scores(texts: list[str], descriptions: list[str]) -> list[list[float]]:
    """The TF-IDF cosine similarity of each text with each sub-task description, from 0 to 1.
    The IDF is over the descriptions: the words that tell sub-tasks apart (CS101, CS201) weigh
    more than the words they share (read, roster)."""
    docs = [Counter(_WORD.findall(d.lower())) for d in descriptions]
    seen_in = Counter(word for doc in docs for word in doc)

    def vector(words: Counter[str]) -> dict[str, float]:
        return {w: n * (math.log((1 + len(docs)) / (1 + seen_in[w])) + 1) for w, n in words.items()}

    def cosine(a: dict[str, float], b: dict[str, float]) -> float:
        norm = math.hypot(*a.values()) * math.hypot(*b.values())
        return sum(v * b.get(w, 0.0) for w, v in a.items()) / norm if norm else 0.0

    gold = [vector(doc) for doc in docs]
    return [[cosine(vector(Counter(_WORD.findall(t.lower()))), g) for g in gold] for t in texts]


def _match(
    subs: Sequence[SubagentRecord], subtasks: Sequence[Subtask]
) -> tuple[list[int | None], list[int | None]]:
    """Each sub-agent's sub-task, one to one (None: left out), and the sub-task it matches best,
    whether free or not (None: it shares no tool with any).

    A sub-agent matches the sub-tasks that share a tool with it, scored by the overlap of their
    tools (Jaccard, 0 to 1) plus the similarity of its description and prompt with the sub-task's
    description (0 to 1). Pairs are taken best score first (ties: the earlier sub-agent, then the
    earlier sub-task), each sub-agent and each sub-task once."""
    text = _text_scores(
        [f"{s.description}\n{s.prompt or ''}" for s in subs], [st.description for st in subtasks]
    )
    pairs: list[tuple[float, int, int]] = []
    for i, sub in enumerate(subs):
        used = set(sub.tools)
        for j, st in enumerate(subtasks):
            gold = {c.tool for c in st.calls}
            if used & gold:
                pairs.append((len(used & gold) / len(used | gold) + text[i][j], i, j))
    pairs.sort(key=lambda p: (-p[0], p[1], p[2]))
    drafted: list[int | None] = [None] * len(subs)
    best: list[int | None] = [None] * len(subs)
    taken: set[int] = set()
    for _, i, j in pairs:
        if best[i] is None:
            best[i] = j
        if drafted[i] is None and j not in taken:
            drafted[i] = j
            taken.add(j)
    return drafted, best


def _said(sub: SubagentRecord, wave: int) -> str:
    """A sub-agent as a draft's comment names it: id, wave (its index in the record, as the
    viewer's `w0`), type and its description in brief."""
    words = " ".join((sub.description or sub.prompt or "").split())
    brief = words if len(words) <= 70 else words[:69] + "…"
    return f"{sub.id} (episode wave w{wave}, {sub.type}) {brief!r}"


def _outcome_notes(record: EpisodeRecord, drafted: bool) -> str:
    """Comment lines on an episode whose waves may be no plan to copy: absent, failed, or with
    no unit drafted (`priors draft` repeats each `# Check` line on stderr)."""
    notes = ""
    if record.status == "absent":
        notes += f"# Check: the episode is absent ({record.termination}): it stopped before its end, so its waves may be incomplete\n"
    elif not record.success:
        failing = [c.name for c in record.checks or () if not c.passed]
        why = f"criteria failing: {', '.join(failing)}" if failing else f"termination {record.termination}"
        notes += f"# Check: the episode failed ({why}), so its delegation may be part of why\n"
    if not drafted:
        notes += (
            "# Check: no sub-agent became a unit (none ran, or none matched), hence need_delegation: false\n"
        )
    return notes


def draft_prior(
    task_id: str, episode_id: str, store_url: str, out: Path | None = None, force: bool = False
) -> Path:
    """The waves of a recorded episode as a prior: each sub-agent becomes a unit on the gold
    sub-task it matches best among those still free (`_match`), in its wave. A sub-agent that
    no free sub-task matches is named in a comment at the top of the draft, as is one placed on
    a sub-task other than the one it matches best (taken by another)."""
    from harness.catalog import select

    folders = [f for f in select(task_id) if f.name == task_id] if _ID.match(task_id) else []
    if len(folders) != 1:
        raise InputError.one(task_id, None, "give exactly one task id (not a scenario, a glob or 'all')")
    folder = folders[0]
    task = load_task(folder)
    path = out or PRIORS_DIR / f"{task.id}.yaml"
    if out is not None and out.exists() and not force:
        raise InputError.one(str(out), None, "exists already; pass --force to replace it")
    if out is None and not force and not _replaceable(path, task.id):
        raise InputError.one(str(path), None, "a prior exists; pass --force to replace it")
    record = _find_record(episode_id, store_url)
    if record.task_id != task.id:
        raise InputError.one(
            "--from-episode", None, f"episode {episode_id} is of task {record.task_id}, not {task.id}"
        )
    types = label_types()
    spec_roles = set(load_profiles().variant("spec").header.subagents or ())
    subtasks = task.solution.subtasks
    placed = [(wave.index, sub) for wave in record.waves for sub in wave.subagents]
    drafted, best = _match([sub for _, sub in placed], subtasks)
    owner = {j: placed[i][1].id for i, j in enumerate(drafted) if j is not None}
    left_out: list[str] = []
    elsewhere: list[str] = []
    units_of: dict[int, list[dict[str, Any]]] = {}
    for (w, sub), j, b in zip(placed, drafted, best, strict=True):
        if j is None:
            if b is None:
                why = "called no tool" if not sub.tools else "shares no tool with any sub-task"
            else:
                why = f"the sub-tasks sharing its tools are taken; it matches {subtasks[b].id} best ({owner[b]}'s)"
            left_out.append(f"#   {_said(sub, w)}: {why}\n")
            continue
        st = subtasks[j]
        if b is not None and b != j:
            elsewhere.append(
                f"#   {_said(sub, w)} is on {st.id}, but matches {subtasks[b].id} better ({owner[b]}'s)\n"
            )
        label = sub.label or st.label
        family = "spec" if sub.type in spec_roles else "gen"
        other = "gen" if family == "spec" else "spec"
        unit = {
            "subtask": st.id,
            "description": sub.description or st.description,
            "label": label,
            "mode": sub.mode,
        }
        unit[family] = sub.type
        unit[other] = types[label][other]
        units_of.setdefault(w, []).append(
            {k: unit[k] for k in ("subtask", "description", "label", "mode", "gen", "spec")}
        )
    waves = [units_of[w] for w in sorted(units_of)]
    data = {"task": task.id, "need_delegation": bool(waves), "waves": waves}
    header = f"# Drafted from episode {episode_id} ({record.model}, {record.variant}); review every unit before use.\n"
    header += _outcome_notes(record, bool(waves))
    if left_out:
        header += "# Left out, as no free sub-task matches them (add a unit by hand where one belongs):\n"
        header += "".join(left_out)
    if elsewhere:
        header += "# Check: on a sub-task other than the one they match best, which another took:\n"
        header += "".join(elsewhere)
    # Checked before it is written: a draft that would not load (a unit whose recorded mode its
    # label does not allow, say) replaces no prior and leaves no file.
    text = header + _yaml_text(data)
    load_yaml_model(path, DelegationPrior, text)
    with tempfile.TemporaryDirectory() as tmp:
        trial = Path(tmp) / f"{task.id}.yaml"
        trial.write_text(text, encoding="utf-8")
        try:
            load_task(folder, trial.parent)
        except InputError as exc:
            raise InputError(
                [Problem(str(path), p.line, p.message) if p.file == str(trial) else p for p in exc.problems]
            ) from None
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


PROFILE_TEMPLATE = """---
# A role skeleton that validates: make its description, tools and principles your role's.
name: {name}{override}
description: "{description}"
whenToUse: "{when}"
mode: {mode}
tools: ["mcp__*"]
disallowedTools: []
# maxSteps: 40   # fewer steps than the run's step budget (which applies when this is not set)
---
## Core responsibilities
- Do the sub-task your prompt gives you with the tools you are offered.

## Visible boundary
- {boundary}
- File tools work inside the episode workspace; give relative paths. You see nothing of the main agent's history: your prompt is all you know.

## Return contract
- End with one plain-text answer and no tool call: {returns}

## Completion protocol
- You cannot end the task; your text answer ends your sub-task.
"""
# A skeleton's text by mode: whole sentences, not placeholders that validation would let through
# to the main agent (which reads description and whenToUse) and the sub-agent (the principles).
_ROLE_TEXT = {
    "read-only": {
        "description": "Reads what its prompt asks for and reports it.",
        "when": "When information must be gathered without filling the main context.",
        "boundary": "You are offered only tools that change nothing: never pretend you wrote, sent or updated anything.",
        "returns": "what you found, with exact figures, ids and names, and what you could not find.",
    },
    "writable": {
        "description": "Makes the changes its prompt asks for and reports them.",
        "when": "When a deliverable must be made or a record changed apart from the main context.",
        "boundary": "Change only what your prompt asks for.",
        "returns": "what you made or changed, where, and what you could not do.",
    },
}


def new_profile(
    name: str, folder: Path, mode: str | None = None, override: bool = False, like: str | None = None
) -> Path:
    """A role skeleton in `folder` (`mode` default read-only); replacing a built-in profile
    takes `override` (which the file then declares, as `mseval profiles validate` requires).
    A built-in variant's name gives a copy of that variant to edit, not a role: a role of its
    name would make the variant unknown to `mseval run --variant`. `like` (a built-in variant)
    gives a new variant: a copy of that one under `name`."""
    from harness.profiles import BUILTIN_DIR, parse_profile

    if not _ID.match(name):
        raise InputError.one(name, None, "a profile name is lower-case letters, digits and dashes")
    if len(name) > MAX_ID_CHARS:  # it names a file (NAME.md): a name over 255 bytes raised OSError
        raise InputError.one(name, None, f"a profile name is at most {MAX_ID_CHARS} characters")
    if mode not in (None, "read-only", "writable"):
        raise InputError.one("--mode", None, "mode is read-only or writable")
    builtin = BUILTIN_DIR / f"{name}.md"
    if builtin.exists() and not override:
        raise InputError.one(name, None, "a built-in profile has this name; pass --override to replace it")
    if override and not builtin.exists():  # it wrote `override: true`, which validate refuses
        raise InputError.one(name, None, "no built-in profile has this name to replace; leave out --override")
    if like is not None:  # one of the names listed, never a path: `../README` read a file outside
        variants = sorted(p.stem for p in BUILTIN_DIR.glob("*.md") if parse_profile(p).is_variant)
        if like not in variants:
            known = ", ".join(variants)
            raise InputError.one("--like", None, f"{like!r} is not a built-in variant; give one of {known}")
    source = BUILTIN_DIR / f"{like}.md" if like is not None else builtin
    original = parse_profile(source) if source.exists() else None
    path = folder / f"{name}.md"
    if path.exists():
        raise InputError.one(str(path), None, "exists already")
    if original is not None and original.is_variant:
        header = original.header.model_dump(exclude_none=True) | {"name": name}
        text = _variant_copy(header, original.principles, mode, override=builtin.exists(), source=source.stem)
    else:
        mode = mode or "read-only"
        text = PROFILE_TEMPLATE.format(
            name=name, mode=mode, override="\noverride: true" if override else "", **_ROLE_TEXT[mode]
        )
    folder.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def _variant_copy(
    header: dict[str, Any], principles: str, mode: str | None, *, override: bool, source: str
) -> str:
    """A built-in variant's file, its delegation and sub-agents kept: with `override: true`
    when it replaces the built-in one of its name, else a new variant."""
    header.pop("override", None)
    header = {"name": header.pop("name"), **({"override": True} if override else {}), **header}
    if mode is not None:
        header["mode"] = mode
    front = yaml.safe_dump(header, sort_keys=False, allow_unicode=True, width=110, default_flow_style=None)
    does = "it replaces the built-in one" if override else f"run it with --variant {header['name']}"
    note = f"# A copy of the built-in variant {source!r}: edit it; {does}.\n"
    return f"---\n{note}{front}---\n{principles}\n"
