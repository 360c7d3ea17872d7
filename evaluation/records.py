"""Reading what evaluation scores: episode records (`.jsonl`), run identities, delegation priors.

Every problem in an input file is reported with its file and line through `contracts.InputError`,
all problems of a file at once, so `mseval score` exits 2 with one line each (SPEC §12); a key
given twice in one object of a record's line is one of them.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from contracts import DelegationPrior, EpisodeRecord, InputError, Problem
from contracts.episode import MAX_PLANNED_EPISODES, MAX_SEEDS, gc_paused
from contracts.jsonio import read_json
from contracts.paths import unreadable_folder
from contracts.textio import open_input, read_text
from contracts.yamlio import KeyPath, line_of, read_yaml, validate_data
from evaluation.json_keys import may_repeat_a_key, repeated_keys

EpisodeKey = tuple[str, str, str, int]
"""(model, variant, task_id, seed): one trial of one setting."""

Setting = tuple[str, str]
"""(model, variant)."""


def episode_key(record: EpisodeRecord) -> EpisodeKey:
    """The identity of an episode within a score table."""
    return (record.model, record.variant, record.task_id, record.seed)


# A value of the wrong kind, as records are read strictly: `"seed": true` or `"success": "yes"`,
# which pydantic's lax mode took as 1 and true.
_KIND_ERRORS = {
    "int_type": "must be a whole number",
    "bool_type": "must be true or false",
    "string_type": "must be a string",
    "float_type": "must be a number",
    "list_type": "must be a list",
    "model_type": "must be an object",
    "dict_type": "must be an object",
}


def _validation_message(exc: ValidationError) -> list[str]:
    messages = []
    for err in exc.errors():
        where = ".".join(str(p) for p in err["loc"])
        msg = err["msg"].removeprefix("Value error, ")
        if err["type"] == "json_invalid":
            msg = f"invalid JSON: {err.get('ctx', {}).get('error', msg)}"
        elif err["type"] == "extra_forbidden":
            msg = f"unknown key {where!r}"
        elif err["type"] == "missing":
            msg = f"missing field {where!r}"
        elif err["type"] == "model_type" and not where:  # the line is `[…]`, `3`, `"…"` or `null`
            msg = f"a record must be a JSON object, not {json.dumps(err['input'])[:40]}"
        elif err["type"] in _KIND_ERRORS:
            msg = f"{where}: {_KIND_ERRORS[err['type']]}, not {json.dumps(err['input'])[:40]}"
        elif where:
            msg = f"{where}: {msg}"
        messages.append(msg)
    return messages


def _is_json_error(exc: ValidationError, saying: str = "") -> bool:
    """The line is not JSON (and its parser's message has `saying`), rather than a bad record."""
    return any(
        err["type"] == "json_invalid" and saying in str(err.get("ctx", {}).get("error", ""))
        for err in exc.errors()
    )


ONE_PER_LINE = (
    "a JSON document over several lines: an episodes file holds one mseval.episode/1 object per "
    "line, as `mseval export` writes it (FILE.runs.json beside it holds the run identities)"
)


def parse_episode_lines(lines: Iterable[str], file: str) -> list[EpisodeRecord]:
    """Validate `mseval.episode/1` JSON lines; blank lines are skipped."""
    records: list[EpisodeRecord] = []
    problems: list[Problem] = []
    opened: int | None = None  # the first line, when it opens a JSON value it does not close
    with gc_paused():
        for number, line in enumerate(lines, start=1):
            if number == 1:
                line = line.removeprefix("\ufeff")  # a byte-order mark, as some editors write
            if not line.strip():
                continue
            if not records and not problems and line.strip() in ("[", "{"):
                # A JSON document laid over lines (a FILE.runs.json, a pretty-printed record):
                # one problem, not one per line of it.
                raise InputError.one(file, number, ONE_PER_LINE)
            try:
                record = EpisodeRecord.model_validate_json(line, strict=True)
            except ValidationError as exc:
                if opened is not None and len(problems) == 1 and _is_json_error(exc):
                    # ...and so is a record laid out as SPEC §8 shows it, whose first line opens
                    # the object and goes on (`{"schema": …, "task_id": …,`)
                    raise InputError.one(file, opened, ONE_PER_LINE) from None
                if not records and not problems and _is_json_error(exc, "EOF while parsing"):
                    opened = number
                problems.extend(Problem(file, number, msg) for msg in _validation_message(exc))
                if not _is_json_error(exc):
                    problems.extend(Problem(file, number, msg) for msg in repeated_keys(line))
                continue
            if may_repeat_a_key(line, record):
                problems.extend(Problem(file, number, msg) for msg in repeated_keys(line))
            records.append(record)
    if problems:
        raise InputError(problems)
    return records


def load_episodes(path: Path) -> list[EpisodeRecord]:
    """Read a `.jsonl` file of episode records (what `mseval export` writes)."""
    try:
        # A link to /dev/zero was one endless line; a pipe waited for a writer.
        with open(open_input(path), encoding="utf-8") as handle:
            return parse_episode_lines(handle, str(path))
    except OSError as exc:
        raise InputError.one(path, None, f"cannot read: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        read_text(path, max_bytes=None)  # names the line and column of the first byte that is not UTF-8
        raise


# The run-identity keys scoring reads, by the kind of value each must have when given (null is
# "not given"). Other keys, as a foreign harness may write, are kept and not read.
_IDENTITY_TEXT = (
    "run_id", "mseval", "mseval_version", "version", "git", "git_rev", "git_revision", "tasks_hash",
    "priors_hash", "profiles_hash", "price_version", "prices_version", "scorer", "scorer_version",
    "created_at", "model",
)  # fmt: skip
_IDENTITY_TEXT_LISTS = ("tasks", "variants", "matrix")


def _finite(value: Any) -> bool:
    """No NaN or Infinity anywhere in a JSON value (a walk without recursion: any depth)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, float) and not math.isfinite(item):
            return False
        if isinstance(item, dict):
            stack += item.values()
        elif isinstance(item, list):
            stack += item
    return True


def _identity_problem(run: dict[str, Any]) -> str | None:
    """What is wrong with the value of a key scoring reads, if anything; and NaN or Infinity in
    any key (not JSON, which Python's parser takes): kept, it went out as `null` in the score's
    `identity.runs`."""
    for key, value in run.items():
        if value is None:
            continue
        texts = isinstance(value, list) and all(isinstance(v, str) for v in value)
        shown = json.dumps(value)[:40]
        if not _finite(value):
            return f"{key!r} holds NaN or Infinity, which are not JSON numbers: {shown}"
        if key in _IDENTITY_TEXT and not isinstance(value, str):
            return f"{key!r} must be a string, not {shown}"
        if key in _IDENTITY_TEXT_LISTS and not texts:
            return f"{key!r} must be a list of strings, not {shown}"
        if key == "models" and not (texts or isinstance(value, str)):
            return f"'models' must be a string or a list of strings, not {shown}"
        if key == "seeds" and (type(value) is not int or not 1 <= value <= MAX_SEEDS):
            return f"'seeds' must be a whole number from 1 to {MAX_SEEDS:,}, not {shown}"
    matrix, tasks, seeds = run.get("matrix"), run.get("tasks"), run.get("seeds")
    if isinstance(matrix, list) and isinstance(tasks, list) and type(seeds) is int:
        planned = len(matrix) * len(tasks) * seeds  # what `unfinished` enumerates
        if planned > MAX_PLANNED_EPISODES:
            return (
                f"its 'matrix' ({len(matrix)}) × 'tasks' ({len(tasks)}) × 'seeds' ({seeds:,}) plan "
                f"{planned:,} episodes; a run plans at most {MAX_PLANNED_EPISODES:,}"
            )
    return None


NOT_RUN = (
    "not run: its run stopped before this planned episode finished "
    "(mseval run --resume with the same settings runs it)"
)
"""The reason given to a planned episode that has no record."""


def planned_keys(run: Mapping[str, Any]) -> list[EpisodeKey]:
    """The episodes a run identity plans: its `matrix` ("model/variant") × `tasks` × `seeds`;
    none when it does not say (a foreign identity)."""
    matrix, tasks, seeds = run.get("matrix"), run.get("tasks"), run.get("seeds")
    if not isinstance(matrix, list) or not isinstance(tasks, list) or type(seeds) is not int:
        return []
    settings = [entry.rsplit("/", 1) for entry in matrix if isinstance(entry, str) and "/" in entry]
    return [(m, v, t, s) for m, v in settings for t in tasks if isinstance(t, str) for s in range(seeds)]


def unfinished(records: Sequence[EpisodeRecord], runs: Sequence[Mapping[str, Any]]) -> list[EpisodeRecord]:
    """An absent record for each episode the runs planned that has no record: a run stopped
    part way must not score as a complete one over the episodes that happened to finish
    (SPEC §9: missing counts as a failure, coverage = completed / total)."""
    have = {episode_key(r) for r in records}
    missing: dict[EpisodeKey, str | None] = {}
    for run in runs:
        planned = planned_keys(run)
        seeds = {seed for *_, seed in planned}
        cells = {key[:3] for key in planned}
        if any(key[:3] in cells and key[3] not in seeds for key in have):
            continue  # its records use other seed values: `seeds` is not mseval's count from 0
        for key in planned:
            if key not in have:
                missing.setdefault(key, run.get("run_id"))
    return [
        EpisodeRecord(
            task_id=task,
            model=model,
            variant=variant,
            seed=seed,
            status="absent",
            success=None,
            reason=NOT_RUN,
            run_id=run_id,
        )  # fmt: skip
        for (model, variant, task, seed), run_id in missing.items()
    ]


def load_run_identities(path: Path) -> list[dict[str, Any]]:
    """Read a JSON list of run-identity objects; the keys scoring reads must have values of
    their kind (a string, a list of strings), each wrong one a problem naming its line."""
    document = read_json(path)
    data = document.data
    if not isinstance(data, list) or not all(isinstance(item, dict) for item in data):
        raise InputError.one(path, 1, "expected a JSON list of run-identity objects")
    found: list[tuple[int, KeyPath, str]] = [
        (n, (n,), problem) for n, run in enumerate(data) if (problem := _identity_problem(run))
    ]
    found += _repeated_runs(data)
    if found:
        raise InputError(
            [
                Problem(str(path), line_of(document.lines, where), f"run identity {n + 1}: {problem}")
                for n, where, problem in sorted(found, key=lambda item: item[0])
            ]
        )
    return data


def _repeated_runs(runs: list[dict[str, Any]]) -> list[tuple[int, KeyPath, str]]:
    """Each identity whose `run_id` an earlier one gives: the table's footer counted one run
    listed twice as two (`runs 2`). Identities without a `run_id` (foreign ones) are not compared."""
    first: dict[str, int] = {}
    found: list[tuple[int, KeyPath, str]] = []
    for n, run in enumerate(runs):
        run_id = run.get("run_id")
        if not isinstance(run_id, str):
            continue
        if run_id in first:
            repeat = f"run {run_id!r} is listed twice (first as run identity {first[run_id] + 1})"
            found.append((n, (n, "run_id"), repeat))
        else:
            first[run_id] = n
    return found


def load_priors(folder: Path) -> dict[str, DelegationPrior]:
    """Read `delegation_priors/<task-id>.yaml`; a missing folder gives no priors.

    All problems of all files are reported together. A file whose `task` differs from its
    name, or a task given twice, is a problem too, reported with the file's other problems.
    """
    if not folder.exists():
        return {}
    if not folder.is_dir():
        raise InputError.one(folder, None, "not a folder of delegation priors")
    priors: dict[str, DelegationPrior] = {}
    problems: list[Problem] = []
    try:
        paths = prior_files(folder)
    except OSError as exc:
        raise InputError.one(folder, None, unreadable_folder(exc)) from None
    for path in paths:
        try:
            data, lines = read_yaml(path)
        except InputError as exc:
            problems.extend(exc.problems)
            continue
        # a `task` that is not the file's name, on its line, whatever else is wrong with the file
        # (a `task` that is no name is a problem of its own)
        named = data.get("task") if isinstance(data, dict) else None
        misnamed = []
        if isinstance(named, str) and named and named != path.stem:
            line = line_of(lines, ("task",))
            misnamed.append(Problem(str(path), line, f"task {named!r} does not match the file name"))
        try:
            prior = validate_data(DelegationPrior, data, str(path), lines)
        except InputError as exc:
            problems.extend(exc.problems + misnamed)
            continue
        if misnamed:
            problems.extend(misnamed)
        elif prior.task in priors:
            problems.append(Problem(str(path), 1, f"a second prior for task {prior.task!r}"))
        else:
            priors[prior.task] = prior
    if problems:
        raise InputError(problems)
    return priors


def prior_files(folder: Path) -> list[Path]:
    """The prior files of a folder, sorted by name (the order the priors hash uses)."""
    return sorted(p for p in folder.iterdir() if p.suffix in (".yaml", ".yml") and p.is_file())


@dataclass(frozen=True)
class Deduplicated:
    records: list[EpisodeRecord]
    duplicates: int


def deduplicate(records: Sequence[EpisodeRecord]) -> Deduplicated:
    """Keep the first record of each (model, variant, task, seed); count the others.

    A resumed run stores each episode exactly once, so a duplicate means two exports were
    concatenated: it is left out and reported rather than counted twice.
    """
    seen: set[EpisodeKey] = set()
    kept: list[EpisodeRecord] = []
    for record in records:
        key = episode_key(record)
        if key in seen:
            continue
        seen.add(key)
        kept.append(record)
    return Deduplicated(kept, len(records) - len(kept))


def group_by_setting(records: Iterable[EpisodeRecord]) -> dict[Setting, list[EpisodeRecord]]:
    """Records grouped by (model, variant), in first-seen order."""
    groups: dict[Setting, list[EpisodeRecord]] = {}
    for record in records:
        groups.setdefault((record.model, record.variant), []).append(record)
    return groups


def is_simulated(model: str) -> bool:
    """Simulated agents (`sim:*`) are labelled as such in every report."""
    return model.startswith("sim:")
