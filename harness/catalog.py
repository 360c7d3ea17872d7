"""The task catalog (SPEC §6): tasks, their gold solutions and checks, and delegation priors.

`tasks/<scenario>/<task-id>/` holds task.yaml, check.py and solution.yaml; the prior is
`delegation_priors/<task-id>.yaml`. Loading validates everything and reports every problem of
every file at once (file and line), so a malformed catalog never starts a run.
"""

from __future__ import annotations

import ast
import fnmatch
import hashlib
import importlib.util
import os
from collections.abc import Callable, Container, Iterable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, model_validator

from contracts.errors import InputError, Problem
from contracts.labels import LABELS, label_mode
from contracts.prior import DelegationPrior
from contracts.scenarios import SCENARIO_SERVERS, SCENARIOS
from contracts.yamlio import KeyPath, read_yaml, validate_data
from harness.budgets import BudgetOverrides

PROJECT_ROOT = Path(__file__).resolve().parent.parent
# MSEVAL_TASKS / MSEVAL_PRIORS point the catalog elsewhere (a team's own task collection).
TASKS_DIR = Path(os.environ.get("MSEVAL_TASKS", PROJECT_ROOT / "tasks"))
PRIORS_DIR = Path(os.environ.get("MSEVAL_PRIORS", PROJECT_ROOT / "delegation_priors"))
_ID = r"^[a-z0-9][a-z0-9-]*$"


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
        return self


class TaskSpec(_Strict):
    id: str = Field(pattern=_ID)
    scenario: str
    title: str = Field(min_length=1)
    prompt: str = Field(min_length=1)
    servers: list[str] = Field(min_length=1)
    budgets: BudgetOverrides | None = None
    setup: list[SetupStep] = Field(default_factory=list)


class SolutionCall(_Strict):
    tool: str = Field(pattern=r"^mcp__[a-z0-9_]+__[A-Za-z0-9_]+$")
    arguments: dict[str, Any] = Field(default_factory=dict)


class Subtask(_Strict):
    id: str = Field(pattern=r"^[A-Za-z0-9_-]+$")
    description: str = Field(min_length=1)
    label: str
    calls: list[SolutionCall] = Field(min_length=1)

    @property
    def mode(self) -> Literal["read-only", "writable"]:
        return label_mode(self.label)

    @model_validator(mode="after")
    def _label(self) -> Subtask:
        if self.label not in LABELS:
            raise ValueError(f"unknown function label {self.label!r}")
        return self


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


def _load_check(path: Path) -> CheckFn:
    name = "mseval_check_" + hashlib.sha1(str(path).encode()).hexdigest()[:12]
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise InputError.one(path, None, "cannot load check.py")
    module: ModuleType = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except SyntaxError as exc:
        raise InputError.one(path, exc.lineno, f"syntax error: {exc.msg}") from None
    except Exception as exc:
        raise InputError.one(path, None, f"importing check.py failed: {exc!r}") from None
    fn = getattr(module, "check", None)
    if not callable(fn):
        raise InputError.one(path, None, "check.py must define check(world) -> list[Criterion]")
    return fn  # type: ignore[no-any-return]


def _digest(paths: Iterable[Path]) -> str:
    h = hashlib.sha256()
    for p in paths:
        if p.exists():
            h.update(p.name.encode())
            h.update(p.read_bytes())
    return h.hexdigest()[:16]


Lines = dict[KeyPath, int]


def _cross_checks(
    spec: TaskSpec, solution: Solution, prior: DelegationPrior | None, folder: Path, prior_path: Path,
    lines: tuple[Lines, Lines, Lines],
) -> list[Problem]:  # fmt: skip
    from mcp_servers.common import registry

    tlines, slines, plines = lines
    problems = []
    tfile, sfile = str(folder / "task.yaml"), str(folder / "solution.yaml")
    scenario_line = tlines.get(("scenario",))
    if spec.scenario not in SCENARIOS:
        problems.append(
            Problem(
                tfile, scenario_line, f"unknown scenario {spec.scenario!r}; known: {', '.join(SCENARIOS)}"
            )
        )
    elif folder.parent.name != spec.scenario:
        problems.append(
            Problem(
                tfile,
                scenario_line,
                f"scenario {spec.scenario!r} but the task lives under tasks/{folder.parent.name}/",
            )
        )
    elif SCENARIO_SERVERS[spec.scenario] not in spec.servers:
        problems.append(
            Problem(
                tfile,
                tlines.get(("servers",)),
                f"a {spec.scenario} task uses the {SCENARIO_SERVERS[spec.scenario]} server",
            )
        )
    if folder.name != spec.id:
        problems.append(
            Problem(tfile, tlines.get(("id",)), f"id {spec.id!r} must match the folder name {folder.name!r}")
        )
    for i, server in enumerate(spec.servers):
        if server not in registry.names():
            problems.append(
                Problem(
                    tfile,
                    tlines.get(("servers", i)),
                    f"unknown server {server!r}; known: {', '.join(registry.names())}",
                )
            )
    if solution.task != spec.id:
        problems.append(
            Problem(
                sfile, slines.get(("task",), 1), f"solution is for task {solution.task!r}, not {spec.id!r}"
            )
        )
    ids = [s.id for s in solution.subtasks]
    for i, sid in enumerate(ids):
        if sid in ids[:i]:
            problems.append(
                Problem(
                    sfile,
                    slines.get(("subtasks", i, "id")),
                    f"sub-task id {sid!r} is used twice; ids must be unique",
                )
            )
    allowed = set(spec.servers) | {"local"}
    for i, s in enumerate(solution.subtasks):
        for j, c in enumerate(s.calls):
            server = c.tool.split("__")[1]
            if server not in allowed:
                problems.append(
                    Problem(
                        sfile,
                        slines.get(("subtasks", i, "calls", j, "tool")),
                        f"sub-task {s.id}: {c.tool} is not on the task's servers {sorted(allowed)}",
                    )
                )
    if prior is not None:
        pfile = str(prior_path)
        if prior.task != spec.id:
            problems.append(
                Problem(pfile, plines.get(("task",), 1), f"prior is for task {prior.task!r}, not {spec.id!r}")
            )
        seen: set[str] = set()
        for w, wave in enumerate(prior.waves):
            for u, unit in enumerate(wave):
                line = plines.get(("waves", w, u, "subtask"))
                if unit.subtask not in ids:
                    problems.append(
                        Problem(pfile, line, f"sub-task {unit.subtask!r} is not in {spec.id}'s solution")
                    )
                if unit.subtask in seen:
                    problems.append(Problem(pfile, line, f"sub-task {unit.subtask!r} is delegated twice"))
                seen.add(unit.subtask)
    return problems


def _load(
    path: Path, model: type[M], problems: list[Problem], required: bool = True
) -> tuple[M | None, Lines]:
    """The file as `model` and the line of each key; problems are added to `problems`."""
    if not path.exists():
        if required:
            problems.append(Problem(str(path), None, "missing file"))
        return None, {}
    try:
        data, lines = read_yaml(path)
        return validate_data(model, data, str(path), lines), lines
    except InputError as exc:
        problems.extend(exc.problems)
        return None, {}


def check_file_problems(path: Path) -> list[Problem]:
    """check.py compiles and defines `check` at the top level (read, never imported, at load)."""
    if not path.is_file():
        return [Problem(str(path), None, "missing file")]
    try:
        tree = ast.parse(path.read_bytes(), filename=str(path))
        compile(tree, str(path), "exec")
    except SyntaxError as exc:
        return [Problem(str(path), exc.lineno, f"syntax error: {exc.msg}")]
    except (OSError, ValueError) as exc:
        return [Problem(str(path), None, f"cannot read check.py: {exc}")]
    if not any(_binds_check(node) for node in tree.body):
        return [Problem(str(path), None, "check.py must define check(world) -> list[Criterion]")]
    return []


def _binds_check(node: ast.stmt) -> bool:
    if isinstance(node, ast.FunctionDef):
        return node.name == "check"
    if isinstance(node, ast.Assign):
        return any(isinstance(t, ast.Name) and t.id == "check" for t in node.targets)
    if isinstance(node, ast.ImportFrom):
        return any((a.asname or a.name) == "check" for a in node.names)
    return False


def setup_problems(spec: TaskSpec, file: str, lines: Lines) -> list[Problem]:
    """Setup steps naming a table no server has, or columns the table lacks."""
    from mcp_servers.common import registry

    problems = []
    for i, step in enumerate(spec.setup):
        table_name = step.insert or step.update or step.delete
        if table_name is None:
            continue
        action = "insert" if step.insert else "update" if step.update else "delete"
        table = registry.table(table_name)
        if table is None:
            problems.append(
                Problem(
                    file, lines.get(("setup", i, action)), f"setup step {i + 1}: unknown table {table_name!r}"
                )
            )
            continue
        columns = set(table.c.keys())
        used = [("where", k) for k in step.where or {}] + [("values", k) for k in step.values or {}]
        used += [("rows", k) for row in step.rows or [] for k in row]
        for key, column in dict.fromkeys(used):
            if column not in columns:
                problems.append(
                    Problem(
                        file,
                        lines.get(("setup", i, key)),
                        f"setup step {i + 1}: table {table_name!r} has no column {column!r}",
                    )
                )
    return problems


def load_task(folder: Path, priors_dir: Path = PRIORS_DIR) -> Task:
    problems: list[Problem] = []
    prior_path = priors_dir / f"{folder.name}.yaml"
    spec, tlines = _load(folder / "task.yaml", TaskSpec, problems)
    solution, slines = _load(folder / "solution.yaml", Solution, problems)
    prior, plines = _load(prior_path, DelegationPrior, problems, required=False)
    check_path = folder / "check.py"
    problems += check_file_problems(check_path)
    if spec is not None and spec.setup:
        problems += setup_problems(spec, str(folder / "task.yaml"), tlines)
    if spec is not None and solution is not None:
        problems += _cross_checks(spec, solution, prior, folder, prior_path, (tlines, slines, plines))
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


def prior_type_problems(task: Task, roles: Container[str]) -> list[Problem]:
    """Prior units naming a gen or spec sub-agent type that is no sub-agent role."""
    if task.prior is None or task.prior_path is None:
        return []
    lines: Lines = {}
    problems = []
    for w, wave in enumerate(task.prior.waves):
        for u, unit in enumerate(wave):
            for family in ("gen", "spec"):
                name = getattr(unit, family)
                if name not in roles:
                    lines = lines or read_yaml(task.prior_path)[1]
                    problems.append(
                        Problem(
                            str(task.prior_path),
                            lines.get(("waves", w, u, family)),
                            f"sub-task {unit.subtask}: unknown {family} sub-agent type {name!r}",
                        )
                    )
    return problems


def task_folders(tasks_dir: Path = TASKS_DIR) -> list[Path]:
    return sorted(p.parent for p in tasks_dir.glob("*/*/task.yaml"))


def select(selector: str, tasks_dir: Path = TASKS_DIR) -> list[Path]:
    """`all`, a scenario, a task id, or a glob over task ids (SPEC §10)."""
    if not tasks_dir.is_dir():
        raise InputError.one(tasks_dir, None, f"no such folder of tasks{_from_env('MSEVAL_TASKS')}")
    folders = task_folders(tasks_dir)
    if selector == "all":
        chosen = folders
    elif selector in SCENARIOS:
        chosen = [f for f in folders if f.parent.name == selector]
    else:
        chosen = [f for f in folders if fnmatch.fnmatchcase(f.name, selector)]
    if not chosen:
        raise InputError.one(
            selector, None, f"no task matches {selector!r} (all, a scenario, a task id or a glob)"
        )
    return chosen


def duplicate_id_problems(chosen: Iterable[Path], folders: Iterable[Path]) -> list[Problem]:
    """A task id (its folder's name) may live in one scenario folder only."""
    by_id: dict[str, list[Path]] = {}
    for f in folders:
        by_id.setdefault(f.name, []).append(f)
    ids = dict.fromkeys(f.name for f in chosen)
    return [
        Problem(
            str(other / "task.yaml"),
            None,
            f"task id {i!r} is also used by {by_id[i][0]}/; ids must be unique",
        )
        for i in ids
        for other in by_id[i][1:]
    ]


def load_tasks(
    selector: str = "all", tasks_dir: Path = TASKS_DIR, priors_dir: Path = PRIORS_DIR
) -> list[Task]:
    """Every selected task, validated; all problems of all files at once."""
    if not priors_dir.is_dir():
        raise InputError.one(
            priors_dir, None, f"no such folder of delegation priors{_from_env('MSEVAL_PRIORS')}"
        )
    chosen = select(selector, tasks_dir)
    problems = duplicate_id_problems(chosen, task_folders(tasks_dir))
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
