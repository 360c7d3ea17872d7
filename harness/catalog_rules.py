"""What loading the catalog checks beyond each file's own schema (SPEC §6, §12).

Across a task's files (ids, scenario, servers, sub-task ids, the prior's units), across the
catalog (a task id in one folder only), and without running anything: check.py compiles and
defines `check`, setup steps name real tables and columns, prior units name known sub-agent
types. Every problem names its file and, where the YAML gives it, the line.
"""

from __future__ import annotations

import ast
import contextlib
import re
from collections.abc import Container, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from contracts.errors import InputError, Problem
from contracts.scenarios import SCENARIO_SERVERS, SCENARIOS
from contracts.textio import read_bytes
from contracts.yamlio import KeyPath, read_yaml

if TYPE_CHECKING:
    from contracts.prior import DelegationPrior
    from harness.catalog import SetupStep, Solution, Task, TaskSpec

Lines = dict[KeyPath, int]
# A task id and a gold call's tool, as task.yaml and solution.yaml must write them (the models in
# catalog.py hold their fields to these; the views below, to the same when a file has problems).
ID_PATTERN = r"^[a-z0-9][a-z0-9-]*$"
TOOL_PATTERN = r"^mcp__[a-z0-9_]+__[A-Za-z0-9_]+$"
_ID, _TOOL = re.compile(ID_PATTERN), re.compile(TOOL_PATTERN)


def _text(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _items(value: object) -> list[Any]:
    return value if isinstance(value, list) else []


@dataclass(frozen=True)
class TaskView:
    """What the checks across files need of task.yaml: from the valid spec, or, when it has
    problems of its own, the values of the data read that are valid (None: not known)."""

    id: str | None
    scenario: str | None
    servers: list[str] | None
    setup: list[tuple[int, SetupStep]]  # (index in `setup`, step): the steps that are valid

    @classmethod
    def of(cls, spec: TaskSpec | None, data: object) -> TaskView:
        if spec is not None:
            return cls(spec.id, spec.scenario, list(spec.servers), list(enumerate(spec.setup)))
        from pydantic import ValidationError

        from harness.catalog import SetupStep

        d = data if isinstance(data, dict) else {}
        task_id = _text(d.get("id"))
        servers = d.get("servers")
        setup: list[tuple[int, SetupStep]] = []
        for i, step in enumerate(_items(d.get("setup"))):
            with contextlib.suppress(ValidationError):
                setup.append((i, SetupStep.model_validate(step)))
        return cls(
            id=task_id if task_id and _ID.match(task_id) else None,
            scenario=_text(d.get("scenario")),
            servers=servers
            if isinstance(servers, list) and servers and all(isinstance(s, str) for s in servers)
            else None,
            setup=setup,
        )


@dataclass(frozen=True)
class SolutionView:
    """What the checks across files need of solution.yaml, likewise: the task it names, the
    sub-task ids (with their index), whether every sub-task's id is known, and the tool calls."""

    task: str | None
    ids: list[tuple[int, str]]
    all_ids: bool
    calls: list[tuple[int, int, str, str]]  # (sub-task index, call index, sub-task id, tool)

    @classmethod
    def of(cls, solution: Solution | None, data: object) -> SolutionView:
        if solution is not None:
            return cls(
                solution.task,
                [(i, s.id) for i, s in enumerate(solution.subtasks)],
                True,
                [
                    (i, j, s.id, c.tool)
                    for i, s in enumerate(solution.subtasks)
                    for j, c in enumerate(s.calls)
                ],
            )
        d = data if isinstance(data, dict) else {}
        subtasks = _items(d.get("subtasks"))
        ids: list[tuple[int, str]] = []
        calls: list[tuple[int, int, str, str]] = []
        for i, sub in enumerate(subtasks):
            sub = sub if isinstance(sub, dict) else {}
            if (sid := _text(sub.get("id"))) is not None:
                ids.append((i, sid))
            for j, call in enumerate(_items(sub.get("calls"))):
                tool = _text(call.get("tool")) if isinstance(call, dict) else None
                if tool is not None and _TOOL.match(tool):
                    calls.append((i, j, sid or f"#{i + 1}", tool))
        return cls(_text(d.get("task")), ids, bool(subtasks) and len(ids) == len(subtasks), calls)


def cross_file_problems(
    spec: TaskView, solution: SolutionView, prior: DelegationPrior | None, folder: Path,
    prior_path: Path, lines: tuple[Lines, Lines, Lines],
) -> list[Problem]:  # fmt: skip
    """What the task's files say of each other, each as far as the files' valid parts tell: a
    task.yaml with problems still has its scenario, servers and id checked, and its solution's
    ids and its prior's references too (SPEC §12: all problems at once)."""
    tlines, slines, plines = lines
    problems = _spec_problems(spec, folder, tlines)
    sfile = str(folder / "solution.yaml")
    ids = [sid for _, sid in solution.ids]
    for n, (i, sid) in enumerate(solution.ids):
        if sid in ids[:n]:
            problems.append(
                Problem(
                    sfile,
                    slines.get(("subtasks", i, "id")),
                    f"sub-task id {sid!r} is used twice; ids must be unique",
                )
            )
    if spec.id is not None and solution.task is not None and solution.task != spec.id:
        problems.append(
            Problem(
                sfile,
                slines.get(("task",), 1),
                f"solution is for task {solution.task!r}, not {spec.id!r}",
            )
        )
    if spec.servers is not None:
        allowed = set(spec.servers) | {"local"}
        for i, j, sid, tool in solution.calls:
            if tool.split("__")[1] not in allowed:
                problems.append(
                    Problem(
                        sfile,
                        slines.get(("subtasks", i, "calls", j, "tool")),
                        f"sub-task {sid}: {tool} is not on the task's servers {sorted(allowed)}",
                    )
                )
    refs = _prior_refs(prior, prior_path)
    if refs is not None:
        pfile, (task, units) = str(prior_path), refs
        task_id = spec.id or folder.name
        if isinstance(task, str) and task != task_id:
            problems.append(
                Problem(pfile, plines.get(("task",), 1), f"prior is for task {task!r}, not {task_id!r}")
            )
        seen: set[str] = set()
        for w, u, subtask in units:
            line = plines.get(("waves", w, u, "subtask"))
            if solution.all_ids and subtask not in ids:
                problems.append(Problem(pfile, line, f"sub-task {subtask!r} is not in {task_id}'s solution"))
            if subtask in seen:
                problems.append(Problem(pfile, line, f"sub-task {subtask!r} is delegated twice"))
            seen.add(subtask)
    return problems


def _spec_problems(spec: TaskView, folder: Path, tlines: Lines) -> list[Problem]:
    """task.yaml against its place in the catalog and the servers there are."""
    from mcp_servers.common import registry

    problems = []
    tfile = str(folder / "task.yaml")
    scenario_line = tlines.get(("scenario",))
    if spec.scenario is None:
        pass  # missing or not text: said already
    elif spec.scenario not in SCENARIOS:
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
    elif spec.servers is not None and SCENARIO_SERVERS[spec.scenario] not in spec.servers:
        problems.append(
            Problem(
                tfile,
                tlines.get(("servers",)),
                f"a {spec.scenario} task uses the {SCENARIO_SERVERS[spec.scenario]} server",
            )
        )
    if spec.id is not None and folder.name != spec.id:
        problems.append(
            Problem(tfile, tlines.get(("id",)), f"id {spec.id!r} must match the folder name {folder.name!r}")
        )
    for i, server in enumerate(spec.servers or ()):
        if server not in registry.names():
            problems.append(
                Problem(
                    tfile,
                    tlines.get(("servers", i)),
                    f"unknown server {server!r}; known: {', '.join(registry.names())}",
                )
            )
    return problems


def _prior_refs(
    prior: DelegationPrior | None, path: Path
) -> tuple[object, list[tuple[int, int, str]]] | None:
    """The task a prior names and the sub-task of each unit (wave, unit, id). From its YAML where
    the prior has problems of its own (a bad label), so its references to the solution are
    checked in the same go (SPEC §12: all problems at once); None without a prior."""
    if prior is not None:
        units = [(w, u, unit.subtask) for w, wave in enumerate(prior.waves) for u, unit in enumerate(wave)]
        return prior.task, units
    if not path.is_file():
        return None
    try:
        data = read_yaml(path)[0]
    except InputError:
        return None  # not YAML: said already
    if not isinstance(data, dict):
        return None
    waves = data.get("waves")
    units = [
        (w, u, unit["subtask"])
        for w, wave in enumerate(waves if isinstance(waves, list) else [])
        if isinstance(wave, list)
        for u, unit in enumerate(wave)
        if isinstance(unit, dict) and isinstance(unit.get("subtask"), str)
    ]
    return data.get("task"), units


def check_file_problems(path: Path) -> list[Problem]:
    """check.py compiles and defines `check` at the top level (read, never imported, at load)."""
    if not path.exists():
        return [Problem(str(path), None, "missing file")]
    try:
        # a pipe waited for a writer, and a link to /dev/zero never ended: refused, as any input
        # file of a task is; a folder of that name is "cannot read", as solution.yaml's problem is
        source = read_bytes(path)
        tree = ast.parse(source, filename=str(path))
        compile(tree, str(path), "exec")
    except InputError as exc:
        return exc.problems
    except SyntaxError as exc:
        return [Problem(str(path), exc.lineno, f"syntax error: {exc.msg}")]
    except ValueError as exc:
        return [Problem(str(path), None, f"cannot read check.py: {exc}")]
    except (RecursionError, MemoryError) as exc:  # e.g. one expression of 200,000 terms
        return [Problem(str(path), None, f"cannot compile check.py: {str(exc) or 'out of memory'}")]
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


def setup_problems(steps: Iterable[tuple[int, SetupStep]], file: str, lines: Lines) -> list[Problem]:
    """Setup steps (index, step) naming a table no server has, or columns the table lacks, or a
    file outside the workspace (absolute, `~`, `..`: the rules of the file tools, checked
    without a workspace)."""
    from mcp_servers.common import registry
    from mcp_servers.common.pathrules import path_problem  # the file tools' rules and words

    problems = []
    for i, step in steps:
        if step.file is not None and (problem := path_problem(step.file)) is not None:
            problems.append(Problem(file, lines.get(("setup", i, "file")), f"setup step {i + 1}: {problem}"))
        elif step.file is not None and step.file.rstrip().endswith(
            ("/", "\\")
        ):  # it wrote `inbox` for `inbox/`
            said = f"setup step {i + 1}: {step.file!r} names a folder; give the file's name"
            problems.append(Problem(file, lines.get(("setup", i, "file")), said))
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


def prior_type_problems(task: Task, roles: Container[str]) -> list[Problem]:
    """Prior units naming a gen or spec sub-agent type that is no sub-agent role."""
    if task.prior is None or task.prior_path is None:
        return []
    return prior_file_type_problems(task.prior_path, roles)


def prior_file_type_problems(path: Path, roles: Container[str]) -> list[Problem]:
    """The same of a prior file as written, whether it loads or not (a unit's bad mode, say, does
    not hide its unknown type): every unit's `gen` and `spec` that is text; nothing when the file
    is not YAML (said by loading it)."""
    try:
        data, lines = read_yaml(path)
    except InputError:
        return []
    waves = data.get("waves") if isinstance(data, dict) else None
    problems = []
    for w, wave in enumerate(_items(waves)):
        for u, unit in enumerate(_items(wave)):
            for family in ("gen", "spec"):
                name = unit.get(family) if isinstance(unit, dict) else None
                if isinstance(name, str) and name not in roles:
                    subtask = unit.get("subtask")
                    problems.append(
                        Problem(
                            str(path),
                            lines.get(("waves", w, u, family)),
                            f"sub-task {subtask if isinstance(subtask, str) else '?'}: "
                            f"unknown {family} sub-agent type {name!r}",
                        )
                    )
    return problems


def solution_tool_problems(task: Task, known: Container[str]) -> list[Problem]:
    """Gold solution calls naming a tool that no registered server offers."""
    unknown = [
        (i, j, s.id, c.tool)
        for i, s in enumerate(task.solution.subtasks)
        for j, c in enumerate(s.calls)
        if c.tool not in known
    ]
    if not unknown:
        return []
    sfile = task.folder / "solution.yaml"
    lines = read_yaml(sfile)[1]
    return [
        Problem(str(sfile), lines.get(("subtasks", i, "calls", j, "tool")), f"sub-task {sid}: no tool {tool}")
        for i, j, sid, tool in unknown
    ]


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
