"""The task catalog (SPEC §6): tasks, their gold solutions and checks, and delegation priors.

`tasks/<scenario>/<task-id>/` holds task.yaml, check.py and solution.yaml; the prior is
`delegation_priors/<task-id>.yaml`. Loading validates everything and reports every problem of
every file at once (file and line), so a malformed catalog never starts a run.
"""

from __future__ import annotations

import fnmatch
import hashlib
import importlib.util
import inspect
import os
import sys
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from types import FrameType, ModuleType
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from contracts.errors import InputError, Problem
from contracts.jsonvalue import JsonObject
from contracts.labels import LABELS, label_mode
from contracts.paths import unreadable_folder
from contracts.prior import DelegationPrior
from contracts.scenarios import SCENARIOS
from contracts.yamlio import read_yaml, validate_data
from harness.budgets import BudgetOverrides
from harness.catalog_rules import (
    ID_PATTERN,
    TOOL_PATTERN,
    Lines,
    SolutionView,
    TaskView,
    check_file_problems,
    cross_file_problems,
    duplicate_id_problems,
    setup_problems,
)

PROJECT_ROOT = Path(__file__).resolve().parent.parent
# MSEVAL_TASKS / MSEVAL_PRIORS point the catalog elsewhere (a team's own task collection); set
# but empty counts as unset, as in `mseval score`, not as the current folder.
TASKS_DIR = Path(os.environ.get("MSEVAL_TASKS") or PROJECT_ROOT / "tasks")
PRIORS_DIR = Path(os.environ.get("MSEVAL_PRIORS") or PROJECT_ROOT / "delegation_priors")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class SetupStep(_Strict):
    """One change to the seeded world before the episode: a row insert/update/delete or a file."""

    insert: str | None = None
    update: str | None = None
    delete: str | None = None
    rows: list[dict[str, Any]] | None = None
    where: dict[str, Any] | None = None
    values: dict[str, Any] | None = None
    file: str | None = None
    content: str | None = None

    @model_validator(mode="after")
    def _one_action(self) -> SetupStep:
        actions = [a for a in ("insert", "update", "delete", "file") if getattr(self, a) is not None]
        if len(actions) != 1:
            raise ValueError("a setup step is exactly one of insert, update, delete, file")
        need = {"insert": ["rows"], "update": ["where", "values"], "delete": ["where"], "file": ["content"]}[
            actions[0]
        ]
        missing = [k for k in need if getattr(self, k) is None]
        if missing:
            raise ValueError(f"{actions[0]} needs {', '.join(missing)}")
        if self.where == {}:  # it matched every row of the table
            raise ValueError(f"{actions[0]} needs a non-empty where (an empty one matches every row)")
        columns = [*(self.rows or ()), self.where or {}, self.values or {}]
        if any(isinstance(v, list | dict) for row in columns for v in row.values()):
            raise ValueError("a column's value is one value, not a list or a mapping")
        return self


class TaskSpec(_Strict):
    id: str = Field(pattern=ID_PATTERN)
    scenario: str
    title: str = Field(min_length=1)
    prompt: str = Field(min_length=1)
    servers: list[str] = Field(min_length=1)
    budgets: BudgetOverrides | None = None
    setup: list[SetupStep] = Field(default_factory=list)


class SolutionCall(_Strict):
    tool: str = Field(pattern=TOOL_PATTERN)
    arguments: JsonObject = Field(default_factory=dict)  # sent to the tool as JSON


class Subtask(_Strict):
    id: str = Field(pattern=r"^[A-Za-z0-9_-]+$")
    description: str = Field(min_length=1)
    label: str
    calls: list[SolutionCall] = Field(min_length=1)

    @property
    def mode(self) -> Literal["read-only", "writable"]:
        return label_mode(self.label)

    @field_validator("label")
    @classmethod
    def _label(cls, label: str) -> str:  # a field's check: its problem has the label's line
        if label not in LABELS:
            raise ValueError(f"unknown function label {label!r}")
        return label


class Solution(_Strict):
    task: str
    subtasks: list[Subtask] = Field(min_length=1)

    def subtask(self, sid: str) -> Subtask:
        return next(s for s in self.subtasks if s.id == sid)


CheckFn = Callable[[Any], list[Any]]
M = TypeVar("M", bound=BaseModel)


@dataclass(frozen=True)
class Task:
    spec: TaskSpec
    folder: Path
    solution: Solution
    prior: DelegationPrior | None
    check_path: Path
    digest: str
    prior_path: Path | None = None

    @property
    def id(self) -> str:
        return self.spec.id

    @property
    def servers(self) -> list[str]:
        return list(self.spec.servers)

    @property
    def need_delegation(self) -> bool | None:
        return None if self.prior is None else self.prior.need_delegation

    def load_check(self) -> CheckFn:
        return _load_check(self.check_path)


CHECK_IMPORT_TIMEOUT_S = 60.0
"""How long importing a task's check.py may take (as long as running it may): one that loops at
import is bad input, not a run or `tasks validate` that never ends."""


def _load_check(path: Path) -> CheckFn:
    name = "mseval_check_" + hashlib.sha1(str(path).encode()).hexdigest()[:12]
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise InputError.one(path, None, "cannot load check.py")
    loader = spec.loader
    module: ModuleType = importlib.util.module_from_spec(spec)
    failed: list[BaseException | None] = []

    def work() -> None:
        try:
            loader.exec_module(module)
            failed.append(None)
        except BaseException as exc:  # SystemExit too: told as check.py's problem
            failed.append(exc)

    # a daemon thread, left running when given up on (a thread cannot be stopped)
    importing = threading.Thread(target=work, name=f"import {path}", daemon=True)
    importing.start()
    importing.join(CHECK_IMPORT_TIMEOUT_S)
    if not failed:
        frame = sys._current_frames().get(importing.ident or -1)
        line = _line_in_stack(frame, path)
        limit = f"{CHECK_IMPORT_TIMEOUT_S:g}"
        raise InputError.one(path, line, f"importing check.py did not finish within {limit} s")
    exc = failed[0]
    if isinstance(exc, SyntaxError):
        raise InputError.one(path, exc.lineno, f"syntax error: {exc.msg}") from None
    if isinstance(exc, Exception | SystemExit):
        line = _line_in(exc, path)
        raise InputError.one(path, line, f"importing check.py failed: {exc!r}") from None
    if exc is not None:
        raise exc
    fn = getattr(module, "check", None)
    if not callable(fn):
        raise InputError.one(path, None, "check.py must define check(world) -> list[Criterion]")
    try:  # one that cannot take the world failed every episode's check, a task failure each
        inspect.signature(fn).bind(None)
    except TypeError:
        code = getattr(fn, "__code__", None)
        line = code.co_firstlineno if code is not None and code.co_filename == str(path) else None
        raise InputError.one(
            path, line, "check must take one argument, the world: check(world) -> list[Criterion]"
        ) from None
    except ValueError:  # no signature to read (a builtin): what it does is told when it runs
        pass
    return fn  # type: ignore[no-any-return]


def _line_in(exc: BaseException, path: Path) -> int | None:
    """The line of `path` that raised `exc` last (a call in check.py, not the module it called)."""
    tb, line = exc.__traceback__, None
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == str(path):
            line = tb.tb_lineno
        tb = tb.tb_next
    return line


def _line_in_stack(frame: FrameType | None, path: Path) -> int | None:
    """The line of `path` a running thread is at (its innermost frame in check.py)."""
    while frame is not None:
        if frame.f_code.co_filename == str(path):
            return frame.f_lineno
        frame = frame.f_back
    return None


def _digest(paths: Iterable[Path]) -> str:
    h = hashlib.sha256()
    for p in paths:
        if p.exists():
            h.update(p.name.encode())
            h.update(p.read_bytes())
    return h.hexdigest()[:16]


def _load(
    path: Path, model: type[M], problems: list[Problem], required: bool = True
) -> tuple[M | None, Lines, Any]:
    """The file as `model`, the line of each key and the data read (None when not YAML);
    problems are added to `problems`."""
    if not path.exists():
        if required:
            problems.append(Problem(str(path), None, "missing file"))
        return None, {}, None
    lines: Lines = {}
    data: Any = None
    try:
        data, lines = read_yaml(path)
        return validate_data(model, data, str(path), lines), lines, data
    except InputError as exc:
        problems.extend(exc.problems)
        # the data and lines of a file that is YAML but not valid, for the checks across files
        return None, lines, data


def load_task(folder: Path, priors_dir: Path = PRIORS_DIR) -> Task:
    problems: list[Problem] = []
    prior_path = priors_dir / f"{folder.name}.yaml"
    spec, tlines, tdata = _load(folder / "task.yaml", TaskSpec, problems)
    solution, slines, sdata = _load(folder / "solution.yaml", Solution, problems)
    prior, plines, _ = _load(prior_path, DelegationPrior, problems, required=False)
    if (yml := prior_path.with_suffix(".yml")).exists():
        # never read: alone, its task ran without a prior and `oracle` was refused for want of
        # one; beside the .yaml, an edit to it changed nothing
        todo = "remove this file or merge it into that one" if prior_path.exists() else "rename this file"
        problems.append(Problem(str(yml), None, f"a prior is read from {prior_path.name} only: {todo}"))
    check_path = folder / "check.py"
    problems += check_file_problems(check_path)
    # a file with problems of its own is still checked as far as its valid parts go (all at once)
    task_view, solution_view = TaskView.of(spec, tdata), SolutionView.of(solution, sdata)
    problems += setup_problems(task_view.setup, str(folder / "task.yaml"), tlines)
    problems += cross_file_problems(
        task_view, solution_view, prior, folder, prior_path, (tlines, slines, plines)
    )
    if problems:
        raise InputError(problems)
    assert spec is not None and solution is not None
    digest = _digest([folder / "task.yaml", folder / "solution.yaml", check_path, prior_path])
    return Task(
        spec=spec, folder=folder, solution=solution, prior=prior, check_path=check_path, digest=digest,
        prior_path=prior_path if prior is not None else None,
    )  # fmt: skip


def _from_env(name: str) -> str:
    return f" (from {name})" if os.environ.get(name) else ""


def task_folders(tasks_dir: Path = TASKS_DIR) -> list[Path]:
    return sorted(p.parent for p in tasks_dir.glob("*/*/task.yaml"))


def readable_folder(folder: Path) -> None:
    """`InputError` naming `folder` when it is there but cannot be listed (its permissions)."""
    try:
        with os.scandir(folder):
            pass
    except FileNotFoundError:
        return  # said elsewhere, in the words of the folder's kind
    except OSError as exc:
        raise InputError.one(folder, None, unreadable_folder(exc)) from None


def _selects(selector: str, folder: Path) -> bool:
    if selector == "all":
        return True
    if selector in SCENARIOS:
        return folder.parent.name == selector
    return fnmatch.fnmatchcase(folder.name, selector)


def incomplete_folders(tasks_dir: Path = TASKS_DIR) -> list[Path]:
    """Folders that hold a task's check.py or solution.yaml but no task.yaml (renamed, say):
    named as problems instead of being passed over."""
    return sorted(
        p
        for p in tasks_dir.glob("*/*")
        if p.is_dir()
        and not (p / "task.yaml").exists()  # a task.yaml that is a folder is read, and told
        and any((p / n).exists() for n in ("check.py", "solution.yaml"))
    )


def select(selector: str, tasks_dir: Path = TASKS_DIR, *, option: str | None = None) -> list[Path]:
    """`all`, a scenario, a task id, or a glob over task ids (SPEC §10). A selector that matches
    nothing is told as a problem of `option` (`--tasks`), or of the selector itself."""
    if not tasks_dir.is_dir():
        raise InputError.one(tasks_dir, None, f"no such folder of tasks{_from_env('MSEVAL_TASKS')}")
    chosen = [f for f in task_folders(tasks_dir) if _selects(selector, f)]
    if not chosen:
        raise InputError.one(
            option or selector, None, f"no task matches {selector!r} (all, a scenario, a task id or a glob)"
        )
    return chosen


def load_tasks(
    selector: str = "all",
    tasks_dir: Path = TASKS_DIR,
    priors_dir: Path = PRIORS_DIR,
    *,
    option: str | None = None,
) -> list[Task]:
    """Every selected task, validated; all problems of all files at once (`option`: see `select`)."""
    if not priors_dir.is_dir():
        raise InputError.one(
            priors_dir, None, f"no such folder of delegation priors{_from_env('MSEVAL_PRIORS')}"
        )
    for folder in (priors_dir, tasks_dir):
        readable_folder(folder)
    problems = [
        Problem(str(f), None, "a task folder without task.yaml")
        for f in incomplete_folders(tasks_dir)
        if _selects(selector, f)
    ]
    try:
        chosen = select(selector, tasks_dir, option=option)
    except InputError:
        if problems:  # what was meant is there, but broken: say that
            raise InputError(problems) from None
        raise
    problems += duplicate_id_problems(chosen, task_folders(tasks_dir))
    tasks: list[Task] = []
    for folder in chosen:
        try:
            tasks.append(load_task(folder, priors_dir))
        except InputError as exc:
            problems.extend(exc.problems)
    if problems:
        raise InputError(problems)
    return tasks


def catalog_hash(tasks: Iterable[Task]) -> str:
    h = hashlib.sha256()
    for t in sorted(tasks, key=lambda t: t.id):
        h.update(f"{t.id}:{t.digest}".encode())
    return h.hexdigest()[:16]
