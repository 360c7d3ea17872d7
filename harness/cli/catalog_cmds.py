"""`mseval tasks ...` and `mseval priors ...`: list, validate, create, draft."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from harness.cli.common import DEFAULT_STORE, STORE_HELP, MetavarCommand, path_option

# A prior or a solution may name the roles of a team's own profile folders, as `run --profiles` has them.
PROFILES_HELP = (
    "extra profile folder whose roles priors may name, as given to `mseval run --profiles` (repeatable)"
)

tasks_app = typer.Typer(help="List, validate and create tasks.", no_args_is_help=True, rich_markup_mode=None)
priors_app = typer.Typer(
    help="Validate and draft delegation priors.", no_args_is_help=True, rich_markup_mode=None
)


@tasks_app.command("list", cls=MetavarCommand)
def tasks_list(
    selector: Annotated[
        str, typer.Argument(metavar="SEL", help="all, a scenario, a task id, or a glob")
    ] = "all",
) -> None:
    """One line per task: id, scenario, split, servers, title."""
    from harness.catalog import load_tasks

    for t in load_tasks(selector):
        split = {True: "D_need", False: "D_no-need", None: "no prior"}[t.need_delegation]
        print(f"{t.id:40} {t.spec.scenario:4} {split:10} {','.join(t.servers):28} {t.spec.title}")


@tasks_app.command("validate", cls=MetavarCommand)
def tasks_validate(
    selector: Annotated[
        str, typer.Argument(metavar="SEL", help="all, a scenario, a task id, or a glob")
    ] = "all",
    concurrency: Annotated[int, typer.Option(min=1, metavar="N", help="tasks validated at once")] = 4,
    profiles: Annotated[list[Path], path_option(metavar="DIR", help=PROFILES_HELP)] = [],  # noqa: B006
) -> None:
    """Gold solution passes each check, doing nothing fails it, priors fit solutions; with `all`, splits are populated.

    Malformed files exit 2 before anything runs; a task that fails validation exits 1."""
    import asyncio

    from contracts.errors import InputError, Problem
    from harness.catalog import PRIORS_DIR, load_tasks
    from harness.cli.common import check_cache_dir
    from harness.profiles import load_profiles
    from harness.validate import validate_tasks

    tasks = load_tasks(selector)
    unloadable: list[Problem] = []
    try:  # the worlds are copied from a template built in the cache
        check_cache_dir()
    except InputError as exc:
        unloadable += exc.problems
    for task in tasks:  # a check.py that cannot be imported is bad input, as for `run`
        try:
            task.load_check()
        except InputError as exc:
            unloadable += exc.problems
    if unloadable:
        raise InputError(unloadable)
    reports = asyncio.run(validate_tasks(tasks, load_profiles(list(profiles)), concurrency))
    bad = lines = 0
    for r in reports:
        print(f"{'ok ' if r.ok else 'BAD'} {r.task}")
        for p in r.problems:
            print(f"    {p}")
        bad += not r.ok
        lines += len(r.problems)
    if selector == "all":
        # Each scenario the catalog covers needs both splits (a team's catalog may cover one).
        for code in dict.fromkeys(t.spec.scenario for t in tasks):
            splits = [t.need_delegation for t in tasks if t.spec.scenario == code]
            need, no_need = splits.count(True), splits.count(False)
            if not (need and no_need):
                print(
                    f"BAD scenario {code}\n    {PRIORS_DIR}: both splits must be populated "
                    f"(D_need {need}, D_no-need {no_need}, no prior {splits.count(None)})"
                )
                bad += 1
                lines += 1
    print(
        f"{len(reports)} tasks, {bad} failing ({lines} problems)"
        if bad
        else f"{len(reports)} tasks, 0 problems"
    )
    if bad:
        raise typer.Exit(1)


@tasks_app.command("new", cls=MetavarCommand)
def tasks_new(
    name: Annotated[str, typer.Argument(metavar="NAME", help="the task id, e.g. lms-late-report")],
    scenario: Annotated[str, typer.Option(metavar="SCENARIO", help="lms, edw, ec, sm, vp, rs, ar or fc")],
) -> None:
    """Create a task skeleton (task.yaml, check.py, solution.yaml, prior) that validates.

    The task goes into $MSEVAL_TASKS (else the tasks/ folder of mseval's own source tree, whatever
    the current folder), its prior into $MSEVAL_PRIORS (else that tree's delegation_priors/); with
    MSEVAL_TASKS set, MSEVAL_PRIORS must be set too."""
    from harness.authoring import check_priors_beside_tasks, new_task

    check_priors_beside_tasks()
    for path in new_task(name, scenario):
        print(f"created {path}")


@priors_app.command("validate", cls=MetavarCommand)
def priors_validate(
    profiles: Annotated[list[Path], path_option(metavar="DIR", help=PROFILES_HELP)] = [],  # noqa: B006
) -> None:
    """Every prior parses, uses the 24 labels, refers to its task's solution sub-tasks and to known sub-agent types."""
    from contracts.errors import InputError, Problem
    from harness.catalog import PRIORS_DIR, TASKS_DIR, load_tasks, task_folders
    from harness.catalog_rules import prior_file_type_problems
    from harness.profiles import load_profiles

    # every problem at once: those of tasks that do not load do not hide the priors' types
    problems: list[Problem] = []
    try:
        task_ids = {t.id for t in load_tasks("all")}
    except InputError as exc:
        if any(p.file in (str(TASKS_DIR), str(PRIORS_DIR)) for p in exc.problems):
            raise  # a folder missing or unreadable: nothing to check the priors against
        problems += exc.problems
        task_ids = {f.name for f in task_folders(TASKS_DIR)}
    priors = sorted(PRIORS_DIR.glob("*.yaml"))
    problems += [
        Problem(str(p), None, f"no task {p.stem!r} for this prior") for p in priors if p.stem not in task_ids
    ]
    problems += [  # never read (a task's own is told by its loading, above)
        Problem(str(p), None, f"no task {p.stem!r} for this prior, and a prior is read from .yaml files only")
        for p in sorted(PRIORS_DIR.glob("*.yml"))
        if p.stem not in task_ids
    ]
    roles = {name for name, p in load_profiles(list(profiles)).profiles.items() if not p.is_variant}
    for path in priors:
        if path.stem in task_ids:
            problems += prior_file_type_problems(path, roles)
    if problems:
        raise InputError(problems)
    with_prior = sum(1 for p in priors if p.stem in task_ids)
    print(f"{with_prior} priors valid; {len(task_ids) - with_prior} tasks have none")


@priors_app.command("draft", cls=MetavarCommand)
def priors_draft(
    task: Annotated[str, typer.Argument(metavar="TASK", help="the task id")],
    from_episode: Annotated[
        str,
        typer.Option(
            "--from-episode", metavar="ID", help="episode id (see `mseval export`) whose waves to copy"
        ),
    ],
    store: Annotated[str, typer.Option(metavar="URL", help=STORE_HELP)] = DEFAULT_STORE,
    out: Annotated[
        Path | None,
        path_option(
            metavar="FILE",
            help="write here instead of TASK.yaml in the priors folder ($MSEVAL_PRIORS, else the "
            "delegation_priors/ of mseval's source tree)",
        ),
    ] = None,
    force: Annotated[bool, typer.Option(help="replace an existing prior or --out file")] = False,
) -> None:
    """Draft a prior from the waves of a recorded episode, for an annotator to edit."""
    from harness.authoring import check_priors_beside_tasks, draft_prior
    from harness.cli.common import check_out_path
    from harness.store_urls import check_url

    if out is not None:
        check_out_path(out, "--out", folder=False)
    else:
        check_priors_beside_tasks()
    check_url(store, must_exist=True)
    path = draft_prior(task, from_episode, store, out, force)
    print(f"drafted {path}; edit it, then run `mseval priors validate`")
    notes = [
        line
        for line in path.read_text(encoding="utf-8").splitlines()
        if line.startswith(("# Left out", "# Check"))
    ]
    for note in notes:  # sub-agents left out or placed off their best match: named atop the draft
        print(f"{path}: {note.removeprefix('# ').rstrip(':')} (see the comment at its top)", file=sys.stderr)


def register(app: typer.Typer) -> None:
    app.add_typer(tasks_app, name="tasks")
    app.add_typer(priors_app, name="priors")
