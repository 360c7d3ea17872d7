"""Shared pieces of the command line: options, the help of commands with arguments, the
progress bar, the settings table.

Every option and argument that takes a value has a metavar saying what to type (N, URL, FILE,
DIR, NAME, `local|ray`), never typer's label of its Python type (`<int range>`, `<path>`).
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from typer.core import TyperCommand

if TYPE_CHECKING:
    from typer._click import Context, HelpFormatter

    from contracts.episode import EpisodeRecord
    from contracts.errors import Problem

DEFAULT_STORE = "sqlite:///runs/mseval.db"
STORE_HELP = "SQLAlchemy URL of the run store: sqlite:///PATH (a file) or postgresql+psycopg://…"


class MetavarCommand(TyperCommand):
    """A typer command whose help names an argument by its metavar alone, as it names an option:
    typer follows an argument's metavar with its Python type (`RUN_ID <list[str]>`). The class
    (`cls=`) of every command that takes arguments."""

    def format_options(self, ctx: Context, formatter: HelpFormatter) -> None:
        arguments: list[tuple[str, str]] = []
        options: list[tuple[str, str]] = []
        for param in self.get_params(ctx):
            record = param.get_help_record(ctx)
            if record is None:
                continue
            if param.param_type_name == "argument":
                arguments.append((param.metavar, record[1]) if param.metavar else record)
            else:
                options.append(record)
        for title, records in (("Arguments", arguments), ("Options", options)):
            if records:
                with formatter.section(title):
                    formatter.write_dl(records)


def budget_overrides(items: Iterable[str]) -> tuple[dict[str, Any], list[Problem]]:
    """`--budget max_steps=50` → {"max_steps": "50"} (values validated by the Budgets model), and
    a problem for each malformed, unknown or repeated item (the others are still returned)."""
    from contracts.keyvalues import key_values
    from harness.budgets import Budgets

    out, problems = key_values(
        items, "--budget", list(Budgets.model_fields), example="max_steps=50", noun="budget", nouns="budgets"
    )
    return dict(out), list(dict.fromkeys(problems))


def path_value(value: str | Path) -> Path:
    """A path given on the command line (the `parser` of every path option and argument). An
    empty one is refused, naming the option (exit 2): `Path("")` is `.`, so `--runs-dir ""` (an
    unset shell variable, say) silently meant the current folder. So is `-`, which no command
    reads as standard input or output."""
    import typer

    if isinstance(value, str) and not value:
        raise typer.BadParameter("an empty path names no file or folder (give . for the current folder)")
    if value == "-":  # taken as a file named '-': `export --out -` wrote ./- and ./-.runs.json
        raise typer.BadParameter(
            "'-' does not mean standard input or output here; give a path (./- for a file named -)"
        )
    return Path(value)


def path_option(*names: str, metavar: str, **options: Any) -> Any:
    """`typer.Option` for a path, read by `path_value`; `metavar` is FILE or DIR (or FILE.jsonl)."""
    import typer

    return typer.Option(*names, parser=path_value, metavar=metavar, **options)


def path_argument(*, metavar: str, **options: Any) -> Any:
    """`typer.Argument` for a path, read by `path_value`."""
    import typer

    return typer.Argument(parser=path_value, metavar=metavar, **options)


def check_out_path(path: Path, option: str, *, folder: bool) -> None:
    """An output `path` that can be written: a folder (`folder`) or a file, whose nearest
    existing ancestor is a folder we may create files in. `InputError` naming `option`
    otherwise, before any work."""
    from contracts.errors import InputError

    if problem := _out_path_problem(path, folder=folder):
        raise InputError.one(option, None, problem)


def check_cache_dir() -> None:
    """The cache folder ($MSEVAL_CACHE, default ~/.cache/mseval) can be written: each episode's
    world is copied from a template built there. A file at that path failed every episode
    (`run`, `demo`) or printed a traceback (`tasks validate`)."""
    from mcp_servers.common.codehash import default_cache_dir

    check_out_path(default_cache_dir(), "MSEVAL_CACHE", folder=True)


def _out_path_problem(path: Path, *, folder: bool) -> str | None:
    """Why `path` cannot be written as a folder or a file, or None. Creating (and at once
    removing) a nameless file is the one check that holds for root, read-only mounts and /sys."""
    import tempfile

    from contracts.paths import lookup_problem

    if reason := lookup_problem(path, file=not folder):
        return f"cannot use {path}: {reason}"
    if path.exists():
        if folder and not path.is_dir():
            return f"{path} is a file; give a folder"
        if not folder and path.is_dir():
            return f"{path} is a folder; give a file"
    parent = path if folder and path.is_dir() else next((p for p in path.parents if p.exists()), None)
    if parent is None:
        return None
    if not parent.is_dir():
        return f"cannot create {path}: {parent} is a file, not a folder"
    try:
        if path.is_file():
            path.open("ab").close()  # appends nothing: the file is left as it was
        else:
            tempfile.TemporaryFile(dir=parent).close()
    except OSError as exc:
        where = path if path.exists() else f"{path} ({parent})"
        return f"cannot write {where}: {exc.strerror or exc}"
    return None


@contextmanager
def progress(total: int, description: str) -> Iterator[Any]:
    """A progress bar on stderr when it is a terminal; nothing otherwise. Yields `advance(record)`."""
    if not sys.stderr.isatty() or total == 0:
        yield lambda _record: None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    with Progress(
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        transient=True,
        console=Console(stderr=True),  # where the terminal was looked for: stdout may be a file
    ) as bar:
        task = bar.add_task(description, total=total)
        yield lambda _record: bar.advance(task)


def settings_table(records: list[EpisodeRecord]) -> Any:
    """Per (model, variant): tasks, episodes, absent, success rate, mean critical steps, waves, sub-agents."""
    from rich.table import Table

    table = Table(title="mseval — per setting (simulated models are marked sim:)")
    for col in (
        "model",
        "variant",
        "tasks",
        "episodes",
        "absent",
        "success rate",
        "mean CSteps",
        "waves",
        "sub-agents",
        "cost USD",
    ):
        table.add_column(col, justify="left" if col in ("model", "variant") else "right")
    groups: dict[tuple[str, str], list[EpisodeRecord]] = {}
    for r in records:
        groups.setdefault((r.model, r.variant), []).append(r)
    for (model, variant), rs in sorted(groups.items()):
        done = [r for r in rs if r.status == "completed"]
        successes = sum(1 for r in rs if r.success)
        csteps = [r.critical_steps for r in done if r.critical_steps is not None]
        cost = [r.cost_usd for r in done if r.cost_usd is not None]
        table.add_row(
            model, variant, str(len({r.task_id for r in rs})), str(len(rs)), str(len(rs) - len(done)),
            f"{successes / len(rs):.2f}", f"{sum(csteps) / len(csteps):.1f}" if csteps else "-",
            str(sum(len(r.waves) for r in done)), str(sum(len(r.subagents) for r in done)),
            f"{sum(cost):.4f}" if cost else "-",
        )  # fmt: skip
    return table


def print_table(table: Any) -> None:
    from rich.console import Console

    Console(width=140).print(table)
