"""Task validation (SPEC §6): replaying the gold solution passes the check; doing nothing fails it.

Also checked here, beyond what loading checks: every gold tool call succeeds, and each gold
sub-task can be carried out by the sub-agent type a delegating run would give it (its prior
unit's gen/spec type, or the label's default type) — the type's allowlist reaches its tools.
"""

from __future__ import annotations

import asyncio
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from contracts.errors import InputError, Problem
from contracts.yamlio import KeyPath, read_yaml
from harness.catalog import Task
from harness.checks import Criterion
from harness.mcp_client import ServerPool
from harness.profiles import ProfileSet, label_types
from harness.task_check import bounded_check
from harness.tools import ToolInfo, allowlist
from harness.world import create_world_in_thread


@dataclass
class TaskReport:
    task: str
    problems: list[Problem] = field(default_factory=list)
    gold: list[Criterion] = field(default_factory=list)
    empty: list[Criterion] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


@dataclass(frozen=True)
class CallFailure:
    """A gold call that failed: sub-task index, call index, and what happened."""

    subtask: int
    call: int
    message: str


async def replay(
    task: Task, root: Path, *, gold: bool
) -> tuple[list[Criterion], list[CallFailure], list[ToolInfo]]:
    """Run the gold calls (or none) on a fresh world; return the check, call failures, and the tool catalog."""
    world = await create_world_in_thread(task, f"{task.id}-{'gold' if gold else 'empty'}", root)
    failures: list[CallFailure] = []
    finished = True
    try:
        async with ServerPool([*task.servers, "local"], world.access()) as pool:
            catalog = list(pool.catalog)
            names = {t.name: t for t in catalog}
            for i, st in enumerate(task.solution.subtasks if gold else []):
                for j, c in enumerate(st.calls):
                    info = names.get(c.tool)
                    if info is None:
                        failures.append(CallFailure(i, j, f"sub-task {st.id}: no tool {c.tool}"))
                        continue
                    outcome = await pool.call(info.server, info.tool, c.arguments)
                    if outcome.is_error:
                        failures.append(
                            CallFailure(i, j, f"sub-task {st.id}: {c.tool} failed: {outcome.text[:300]}")
                        )
        checks, finished = await bounded_check(task, world)
    finally:
        world.close(keep_database=not finished)
    return checks, failures, catalog


def _lines(path: Path | None) -> dict[KeyPath, int]:
    try:
        return read_yaml(path)[1] if path is not None else {}
    except InputError:
        return {}


def delegation_problems(task: Task, catalog: Sequence[ToolInfo], profiles: ProfileSet) -> list[Problem]:
    """Gold sub-tasks that the sub-agent type of a delegating run (the prior unit's, else the
    label's default) does not know or cannot reach; named at the prior unit, else the sub-task."""
    problems = []
    defaults = label_types()
    units = {
        u.subtask: (u, ("waves", w, i))
        for w, wave in enumerate(task.prior.waves if task.prior else [])
        for i, u in enumerate(wave)
    }
    sfile = task.folder / "solution.yaml"
    slines, plines = _lines(sfile), _lines(task.prior_path)
    known = {t.name for t in catalog}
    for k, st in enumerate(task.solution.subtasks):
        unit, where = units.get(st.id, (None, ()))
        for family in ("gen", "spec"):
            type_name = getattr(unit, family) if unit else defaults[st.label][family]
            file, line = (
                (str(task.prior_path), plines.get((*where, family)))
                if unit
                else (str(sfile), slines.get(("subtasks", k, "label")))
            )
            role = profiles.profiles.get(type_name)
            if role is None or role.is_variant:
                problems.append(
                    Problem(file, line, f"sub-task {st.id}: unknown {family} sub-agent type {type_name!r}")
                )
                continue
            h = role.header
            reach = allowlist(
                catalog,
                tools=h.tools,
                disallowed=h.disallowedTools,
                read_only=role.read_only,
                servers=task.servers,
                subagent=True,
            )
            # a tool no server offers is told once, as its gold call's problem
            missing = sorted({c.tool for c in st.calls if c.tool in known} - set(reach))
            if missing:
                problems.append(
                    Problem(
                        file, line, f"sub-task {st.id}: {family} type {type_name!r} cannot call {missing}"
                    )
                )
    return problems


async def validate_task(task: Task, profiles: ProfileSet, root: Path) -> TaskReport:
    report = TaskReport(task.id)
    sfile, check = task.folder / "solution.yaml", str(task.check_path)
    try:
        report.gold, failures, catalog = await replay(task, root, gold=True)
    except InputError as exc:  # its setup cannot be applied: nothing to replay on
        report.problems += exc.problems
        return report
    slines = _lines(sfile) if failures else {}
    report.problems += [
        Problem(str(sfile), slines.get(("subtasks", f.subtask, "calls", f.call, "tool")), f.message)
        for f in failures
    ]
    if not all(c.passed for c in report.gold):
        failed = [f"{c.name}: {c.message}" for c in report.gold if not c.passed]
        report.problems.append(
            Problem(check, None, f"the gold solution fails the check: {'; '.join(failed)}")
        )
    report.empty, _, _ = await replay(task, root, gold=False)
    if all(c.passed for c in report.empty):
        report.problems.append(Problem(check, None, "doing nothing passes the check"))
    report.problems += delegation_problems(task, catalog, profiles)
    return report


async def validate_tasks(
    tasks: Sequence[Task], profiles: ProfileSet, concurrency: int = 4
) -> list[TaskReport]:
    slots = asyncio.Semaphore(concurrency)
    with tempfile.TemporaryDirectory(prefix="mseval-validate-") as tmp:

        async def one(task: Task) -> TaskReport:
            async with slots:
                return await validate_task(task, profiles, Path(tmp))

        return list(await asyncio.gather(*(one(t) for t in tasks)))
