"""`mseval runs list | delete`: what a store holds, and removing whole runs from it.

A store keeps every run (SPEC §8: nothing is lost), so it only grows; `delete` is the one way
to give space back. It removes whole runs only: their episodes, events and claim in one
transaction, then their workspaces under `--runs-dir`, and with `--db` the episode schemas
they left on that PostgreSQL server. A run a live process holds is refused.
"""

from __future__ import annotations

import json
import re
import shutil
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from harness.cli.common import DEFAULT_STORE, STORE_HELP, MetavarCommand, check_out_path, path_option

if TYPE_CHECKING:
    from harness.store import Store
    from harness.store_runs import RunSummary

runs_app = typer.Typer(
    help="What a store holds: list its runs, delete whole runs.", no_args_is_help=True, rich_markup_mode=None
)

MATRIX_WIDTH = 28  # the table's matrix column
# Run ids are 12 hex digits; a name outside this pattern is never turned into a folder to delete.
_SAFE_RUN_ID = re.compile(r"[A-Za-z0-9_-]{1,80}")


def _open(store: str) -> Store:
    from contracts.errors import InputError
    from harness.store import Store, StoreError
    from harness.store_urls import check_url

    check_url(store, must_exist=True)
    try:
        return Store(store)
    except StoreError as exc:
        raise InputError.one("--store", None, str(exc)) from None


def _superseded(runs: list[RunSummary]) -> set[str]:
    """Runs of which nothing is in use and nothing is left to run: every finished episode has a
    newer run's in its place (scoring and export take that one), and every planned episode
    finished (none `running` or never started, waiting for `--resume`). A run with work left
    counts only when a newer run of the same matrix exists, which `--resume` would take instead."""
    newest = _newest(runs)
    return {
        r.run_id
        for r in runs
        if not r.busy
        and r.in_use == 0
        and not r.episodes.get("running")
        and (_complete(r) or newest[r.matrix_key] != r.run_id)
    }


def _newest(runs: list[RunSummary]) -> dict[str, str]:
    """The newest run of each matrix: the one `--resume` with those settings takes."""
    newest: dict[str, str] = {}
    for r in runs:  # oldest first
        newest[r.matrix_key] = r.run_id
    return newest


def _complete(run: RunSummary) -> bool:
    """Whether every planned episode of the run has a record (episode rows are made only when an
    episode starts, so one never started leaves none: `--resume` would still run it)."""
    planned = _planned(run)
    return planned is not None and _finished(run) >= planned


def _planned(run: RunSummary) -> int | None:
    """How many episodes the run planned (matrix × tasks × seeds); None when its identity lacks them."""
    tasks, matrix, seeds = (run.identity.get(k) for k in ("tasks", "matrix", "seeds"))
    if not (isinstance(tasks, list) and isinstance(matrix, list) and isinstance(seeds, int)):
        return None
    return len(tasks) * len(matrix) * seeds


def _finished(run: RunSummary) -> int:
    return run.episodes.get("completed", 0) + run.episodes.get("absent", 0)


def _stopped(run: RunSummary, newest: dict[str, str]) -> bool:
    """A run that `mseval run --resume` with its settings would complete: no live process holds
    it, it is the newest of its matrix, and it has work left (an episode it started and never
    finished, counted `running`, or a planned episode it never started)."""
    planned = _planned(run)
    left = bool(run.episodes.get("running")) or (planned is not None and _finished(run) < planned)
    return not run.busy and newest[run.matrix_key] == run.run_id and left


def _row(r: RunSummary, superseded: set[str], newest: dict[str, str]) -> dict[str, Any]:
    identity = r.identity
    tasks = identity.get("tasks")
    return {
        "run_id": r.run_id,
        "created_at": r.created_at,
        "matrix": identity.get("matrix") or [],
        "tasks": len(tasks) if isinstance(tasks, list) else None,
        "seeds": identity.get("seeds"),
        "completed": r.episodes.get("completed", 0),
        "absent": r.episodes.get("absent", 0),
        "running": r.episodes.get("running", 0),
        "in_use": r.in_use,
        "event_rows": r.events,
        "state": _state(r, superseded, newest),
    }


def _state(r: RunSummary, superseded: set[str], newest: dict[str, str]) -> str:
    if r.busy:
        return "busy"
    if r.run_id in superseded:
        return "superseded"
    return "stopped" if _stopped(r, newest) else ""


@runs_app.command("list")
def runs_list(
    store: Annotated[str, typer.Option(metavar="URL", help=STORE_HELP)] = DEFAULT_STORE,
    as_json: Annotated[bool, typer.Option("--json", help="print one JSON document")] = False,
) -> None:
    """Every run of the store, oldest first: its matrix, its episodes (done: completed; absent;
    running: started, not finished; in use: those no newer run replaces, which scoring and export
    take), its event rows, and its state: busy (a live process holds it), superseded (newer runs
    replace all its episodes; none is left to run) or stopped (no process holds it and it has
    episodes left: `mseval run --resume` with its settings completes it).

    Event rows count every attempt: an episode that `--resume` ran again keeps the rows of its
    interrupted attempt, which `mseval view` does not show and `runs delete` removes."""
    from harness.store import StoreError

    s = _open(store)
    try:
        runs = s.runs()
    except StoreError as exc:
        from contracts.errors import InputError

        raise InputError.one("--store", None, str(exc)) from None
    finally:
        s.close()
    superseded, newest = _superseded(runs), _newest(runs)
    rows = [_row(r, superseded, newest) for r in runs]
    if as_json:
        print(json.dumps({"schema": "mseval.runs/1", "runs": rows}, indent=2))
        return
    if not rows:
        print(f"no runs in {s.shown}")
        return
    print(
        f"{'run':12}  {'created':20} {'matrix':{MATRIX_WIDTH}} tasks seeds  done absent running in use  event rows  state"
    )
    for row in rows:
        print(
            f"{row['run_id']:12}  {row['created_at'][:19]:20} {_matrix_cell(row['matrix']):{MATRIX_WIDTH}} {row['tasks'] or '?':>5} "
            f"{row['seeds'] if row['seeds'] is not None else '?':>5} {row['completed']:>5} {row['absent']:>6} "
            f"{row['running']:>7} {row['in_use']:>6} {row['event_rows']:>10}  {row['state']}"
        )


def _matrix_cell(matrix: list[str], width: int = MATRIX_WIDTH) -> str:
    """The first setting and how many more, within `width`: a long first name is cut (with "…")
    rather than the count of the others."""
    if not matrix:
        return "?"
    more = f" +{len(matrix) - 1}" if len(matrix) > 1 else ""
    first = matrix[0]
    if len(first) + len(more) > width:
        first = first[: width - len(more) - 1] + "…"
    return first + more


@runs_app.command("delete", cls=MetavarCommand)
def runs_delete(
    run_ids: Annotated[
        list[str] | None,
        typer.Argument(metavar="RUN_ID", help="runs to delete (ids as `mseval runs list` shows)"),
    ] = None,
    superseded: Annotated[
        bool, typer.Option("--superseded", help="also delete every run `mseval runs list` marks superseded")
    ] = False,
    store: Annotated[str, typer.Option(metavar="URL", help=STORE_HELP)] = DEFAULT_STORE,
    runs_dir: Annotated[
        Path,
        path_option(
            metavar="DIR", help="where the runs' episode workspaces are kept (as given to `mseval run`)"
        ),
    ] = Path("runs"),
    db: Annotated[
        str | None,
        typer.Option(
            metavar="URL",
            help="the PostgreSQL server the runs' worlds were made in (`mseval run --db`): also drop the "
            "episode schemas and roles they left there (a killed episode's, or one whose check did not finish)",
        ),
    ] = None,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="do not ask for confirmation")] = False,
) -> None:
    """Delete whole runs: their episodes, events and claim (one transaction), then their
    workspaces `DIR/episodes/RUN_ID/` (DIR is --runs-dir) and, with --db, their episode schemas left on
    that server. A SQLite store is vacuumed so the file shrinks.
    Refused, with nothing deleted, for an unknown run or one a live process holds."""
    from contracts.errors import InputError, Problem
    from harness.store import RunBusy, StoreError

    if runs_dir.exists():  # a file given: the rows went, the workspaces stayed
        check_out_path(runs_dir, "--runs-dir", folder=True)
    if db is not None:
        _check_world_server(db)
    s = _open(store)
    try:
        runs = s.runs()
        known = {r.run_id: r for r in runs}
        unknown = [
            Problem("RUN_ID", None, f"no run {i!r} in {s.shown}") for i in run_ids or [] if i not in known
        ]
        if unknown:
            raise InputError(unknown)
        if not run_ids and not superseded:
            raise InputError.one("RUN_ID", None, "name the runs to delete, or give --superseded")
        chosen = list(dict.fromkeys([*(run_ids or []), *(sorted(_superseded(runs)) if superseded else [])]))
        if not chosen:
            print("no superseded runs: nothing to delete")
            return
        busy = [
            Problem("RUN_ID", None, f"run {i} is busy (a live process holds it)")
            for i in chosen
            if known[i].busy
        ]
        if busy:
            raise InputError(busy)
        episodes = sum(sum(known[i].episodes.values()) for i in chosen)
        schemas = _left_schemas(db, chosen) if db is not None else []
        # The store does not know where a run kept its workspaces: say so before deleting.
        elsewhere = [i for i in chosen if known[i].episodes and _workspace(runs_dir, i) is None]
        unseen = (
            f"no workspace folder under {runs_dir / 'episodes'} for {_n(len(elsewhere), 'run')} "
            f"{', '.join(elsewhere)}: if `mseval run` was given another --runs-dir, remove "
            f"DIR/episodes/<run_id> yourself"
        )
        if not yes:
            if not sys.stdin.isatty():
                raise InputError.one("--yes", None, "not on a terminal: give --yes to delete without asking")
            if elsewhere:
                print(unseen)
            on_db = f" and {_n(len(schemas), 'episode schema')} from --db" if schemas else ""
            typer.confirm(
                f"Delete {_n(len(chosen), 'run')} ({_n(episodes, 'episode')}) from {s.shown}{on_db}?",
                abort=True,
            )
        elif elsewhere:
            print(f"warning: {unseen}", file=sys.stderr)
        before = s.file.stat().st_size if s.file is not None and s.file.exists() else None
        try:
            gone_episodes, gone_events = s.delete_runs(chosen)
        except RunBusy as exc:  # taken between the listing and the delete
            raise InputError.one("RUN_ID", None, f"{exc}; nothing was deleted") from None
        except StoreError as exc:
            raise InputError.one("--store", None, str(exc)) from None
        removed = _remove_workspaces(runs_dir, chosen)
        print(
            f"deleted {_n(len(chosen), 'run')} ({', '.join(chosen)}): {_n(gone_episodes, 'episode')}, "
            f"{_n(gone_events, 'event')}; {_n(removed, 'workspace folder')} removed from {runs_dir / 'episodes'}"
        )
        if db is not None:
            _drop_left_schemas(db, schemas)
        if before is not None and s.file is not None:
            not_done = s.vacuum()  # after the workspaces: a failure here loses nothing
            if not_done is None:
                print(f"{s.file}: {before / 1e6:.1f} MB -> {s.file.stat().st_size / 1e6:.1f} MB")
            else:
                print(
                    f"warning: {s.file} not shrunk ({not_done}); its freed pages are reused by later runs",
                    file=sys.stderr,
                )
    finally:
        s.close()


def _check_world_server(db: str) -> None:
    """--db must be a PostgreSQL server that answers (SQLite worlds live in the workspaces)."""
    from contracts.errors import InputError
    from harness.db_text import shown
    from harness.store_urls import url_problems

    if not db.startswith("postgresql"):
        said = f"give the PostgreSQL URL the runs were made with (postgresql+psycopg://…), not {shown(db)!r}"
        raise InputError.one("--db", None, f"{said}: SQLite worlds are in the workspaces, removed with them")
    if problems := url_problems(db, "--db", store=False):
        raise InputError(problems)


def _left_schemas(db: str, run_ids: list[str]) -> list[str]:
    from contracts.errors import InputError
    from harness.db_text import first_line
    from mcp_servers.common.worldstate import run_schemas

    try:
        return [schema for run_id in run_ids for schema in run_schemas(db, run_id)]
    except Exception as exc:  # the server answered the pre-flight and then refused the listing
        raise InputError.one("--db", None, f"could not list the runs' schemas: {first_line(exc)}") from None


def _drop_left_schemas(db: str, schemas: list[str]) -> None:
    """Drop the runs' schemas found on --db; the ones left are named in a warning (the runs'
    records are gone either way, and a schema left behind loses nothing)."""
    from harness.db_text import first_line
    from mcp_servers.common.worldstate import drop_schemas

    failed = drop_schemas(db, schemas)
    print(f"dropped {_n(len(schemas) - len(failed), 'episode schema')} (with their roles) from --db")
    for schema, exc in failed:
        print(f"warning: --db: schema {schema} not dropped: {first_line(exc)}", file=sys.stderr)


def _n(count: int, noun: str) -> str:
    return f"{count} {noun}" + ("" if count == 1 else "s")


def _workspace(runs_dir: Path, run_id: str) -> Path | None:
    """The run's workspace folder that `delete` removes, if there is one it may remove."""
    folder = runs_dir / "episodes" / run_id
    safe = _SAFE_RUN_ID.fullmatch(run_id) and folder.is_dir() and not folder.is_symlink()
    return folder if safe else None


def _remove_workspaces(runs_dir: Path, run_ids: list[str]) -> int:
    """Remove `runs_dir/episodes/<run_id>` of each run that has one; how many were removed."""
    removed = 0
    for run_id in run_ids:
        if (folder := _workspace(runs_dir, run_id)) is not None:
            shutil.rmtree(folder)
            removed += 1
    return removed


def register(app: typer.Typer) -> None:
    app.add_typer(runs_app, name="runs")
