"""`mseval runs list | delete`: what a store holds, and giving its space back run by run."""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

import pytest

from contracts.episode import EpisodeRecord
from harness.claims import Owner
from harness.store import Store, episode_key
from tests.harness.cli_support import mseval
from tests.harness.support import pg_store_in_schema
from tests.mcp_servers.support import PG_URL_ENV


def _record(run_id: str, task: str, status: str = "completed") -> EpisodeRecord:
    return EpisodeRecord.model_validate({
        "task_id": task, "model": "sim:oracle", "variant": "spec", "status": status,
        "success": True if status == "completed" else None, "critical_steps": 3 if status == "completed" else None,
        "episode_id": f"{run_id}-{task}", "run_id": run_id,
    })  # fmt: skip


def _episode(store: Store, run_id: str, task: str, status: str = "completed", events: int = 2) -> None:
    key = episode_key(run_id, task, "sim:oracle", "spec", 0)
    attempt = store.start_episode(key, run_id, task, "sim:oracle", "spec", 0)
    store.write_events([
        {"episode_key": key, "attempt": attempt, "seq": n, "t": n / 10, "kind": "model_call", "agent": "main",
         "data": {}}
        for n in range(events)
    ])  # fmt: skip
    if status != "running":
        store.finish_episode(key, attempt, _record(run_id, task, status))


def _store(tmp_path: Path) -> str:
    """Runs, oldest first:
    - old: tasks a, b (3 events each), both redone by `new` -> nothing in use, superseded;
    - mixed: a, c (2 events each); a redone by `new`, c not -> 1 in use;
    - new: a, b, and d absent (2 events each) -> 3 in use;
    - stopped: e still running (1 event) -> waiting for --resume, not superseded."""
    url = f"sqlite:///{tmp_path / 'store.db'}"
    store = Store(url)
    for run_id, matrix, episodes in (
        ("old", "m1", [("a", "completed", 3), ("b", "completed", 3)]),
        ("mixed", "m2", [("a", "completed", 2), ("c", "completed", 2)]),
        ("new", "m1", [("a", "completed", 2), ("b", "completed", 2), ("d", "absent", 2)]),
        ("stopped", "m3", [("e", "running", 1)]),
    ):
        store.create_run(run_id, matrix, {"matrix": ["sim:oracle/spec"], "tasks": ["a", "b"], "seeds": 1})
        for task, status, events in episodes:
            _episode(store, run_id, task, status, events)
    store.close()
    for run_id in ("old", "mixed", "new", "stopped"):
        (tmp_path / "runs" / "episodes" / run_id / "ep").mkdir(parents=True)
    return url


def test_the_list_counts_each_runs_episodes_and_what_is_in_use(tmp_path: Path) -> None:
    url = _store(tmp_path)
    result = mseval("runs", "list", "--store", url, "--json")
    assert result.returncode == 0, result.stderr
    runs = {r["run_id"]: r for r in json.loads(result.stdout)["runs"]}
    assert list(runs) == ["old", "mixed", "new", "stopped"]
    assert [
        (r["completed"], r["absent"], r["running"], r["in_use"], r["event_rows"]) for r in runs.values()
    ] == [
        (2, 0, 0, 0, 6),
        (2, 0, 0, 1, 4),
        (2, 1, 0, 3, 6),
        (0, 0, 1, 0, 1),
    ]
    assert [r["state"] for r in runs.values()] == ["superseded", "", "", "stopped"]
    assert runs["old"]["tasks"] == 2 and runs["old"]["seeds"] == 1
    table = mseval("runs", "list", "--store", url).stdout
    assert "old " in table and "superseded" in table and "sim:oracle/spec" in table


def test_a_stopped_run_is_marked_until_resume_completes_it(tmp_path: Path) -> None:
    """A run stopped by Ctrl-C or SIGTERM was listed with its cut-off episodes as `running` and an
    empty state, as if they still ran. It is `stopped` while `--resume` with its settings would
    complete it: not once a newer run of its matrix exists (`--resume` takes that one), nor while
    a live process holds it (`busy`), nor once the resume has finished it."""
    url = _store(tmp_path)

    def states() -> dict[str, str]:
        listed = json.loads(mseval("runs", "list", "--store", url, "--json").stdout)["runs"]
        return {r["run_id"]: r["state"] for r in listed}

    assert states()["stopped"] == "stopped"
    table = mseval("runs", "list", "--store", url).stdout.splitlines()
    assert [line.split()[-1] for line in table if line.startswith("stopped ")] == ["stopped"]
    store = Store(url)
    owner = Owner(pid=os.getpid())
    store.claim_run("stopped", owner)  # a --resume is going on
    assert states()["stopped"] == "busy"
    _episode(store, "stopped", "e")  # ... reruns e as attempt 2 and finishes it
    store.release_claim("stopped", owner)
    # tasks a and b were planned and never started: --resume would still run them
    assert states()["stopped"] == "stopped"
    _episode(store, "stopped", "a")
    _episode(store, "stopped", "b")
    assert states()["stopped"] == ""
    plan = {"matrix": ["sim:oracle/spec"], "tasks": ["x", "y"], "seeds": 1}
    store.create_run("partial", "m4", plan)
    _episode(store, "partial", "x")  # y never started
    assert states()["partial"] == "stopped"
    store.create_run("again", "m4", plan)  # the same settings without --resume: a new run
    store.close()
    # --resume now takes `again`, and would leave `partial` as it is
    assert states()["partial"] == "" and states()["again"] == "stopped"


def test_event_rows_count_every_attempt_of_a_resumed_episode(tmp_path: Path) -> None:
    """The `events` column counted the rows of every attempt of an episode that `--resume` ran
    again, so a resumed run showed more events than the same run made in one go (3662 against
    3384 for 56 lms episodes, 4 of them run twice) and than `mseval view` shows. It is named and
    explained as what it is: the event rows `runs delete` removes."""
    url = f"sqlite:///{tmp_path / 'store.db'}"
    store = Store(url)
    store.create_run("resumed", "m1", {"matrix": ["sim:oracle/spec"], "tasks": ["a"], "seeds": 1})
    _episode(store, "resumed", "a", "running", events=3)  # interrupted after 3 events
    _episode(store, "resumed", "a", "completed", events=2)  # attempt 2, run by --resume
    key = episode_key("resumed", "a", "sim:oracle", "spec", 0)
    assert store.event_count(key) == 2  # what the viewer shows: the last attempt's
    store.close()
    runs = json.loads(mseval("runs", "list", "--store", url, "--json").stdout)["runs"]
    assert [(r["completed"], r["running"], r["event_rows"]) for r in runs] == [(1, 0, 5)]
    header, row = mseval("runs", "list", "--store", url).stdout.splitlines()
    assert header.split()[-3:] == ["event", "rows", "state"] and row.split()[-1] == "5"
    help_text = " ".join(mseval("runs", "list", "--help").stdout.split())
    assert "Event rows count every attempt" in help_text and "`runs delete` removes" in help_text


def test_deleting_a_run_removes_its_rows_and_workspace_and_nothing_else(tmp_path: Path) -> None:
    url = _store(tmp_path)
    before = Store(url)
    kept_records = sorted(r.episode_id for r in before.records())
    before.close()
    result = mseval("runs", "delete", "mixed", "--store", url, "--runs-dir", str(tmp_path / "runs"), "--yes")
    assert result.returncode == 0, result.stderr
    assert "deleted 1 run (mixed): 2 episodes, 4 events; 1 workspace folder removed" in result.stdout
    assert sorted(p.name for p in (tmp_path / "runs" / "episodes").iterdir()) == ["new", "old", "stopped"]
    with sqlite3.connect(tmp_path / "store.db") as conn:
        assert conn.execute("SELECT count(*) FROM mseval_event").fetchone()[0] == 6 + 6 + 1
        assert conn.execute("SELECT count(*) FROM mseval_episode WHERE run_id = 'mixed'").fetchone()[0] == 0
        assert [r[0] for r in conn.execute("SELECT run_id FROM mseval_run ORDER BY created_at")] == [
            "old", "new", "stopped"
        ]  # fmt: skip
    after = Store(url)
    # mixed's c was in use; mixed's a had been replaced by new's a already.
    assert sorted(r.episode_id for r in after.records()) == [e for e in kept_records if e != "mixed-c"]
    after.close()


def test_superseded_runs_are_deleted_on_request(tmp_path: Path) -> None:
    url = _store(tmp_path)
    result = mseval(
        "runs", "delete", "--superseded", "--store", url, "--runs-dir", str(tmp_path / "runs"), "-y"
    )
    assert result.returncode == 0, result.stderr
    assert "deleted 1 run (old): 2 episodes, 6 events" in result.stdout
    assert not (tmp_path / "runs" / "episodes" / "old").exists()
    again = mseval("runs", "delete", "--superseded", "--store", url, "-y")
    assert again.returncode == 0 and "no superseded runs: nothing to delete" in again.stdout


def test_a_run_whose_workspaces_are_not_under_runs_dir_is_named(tmp_path: Path) -> None:
    """Deleting a run made with another --runs-dir removed its rows and said only "0 workspace
    folders removed from runs/episodes": its workspaces were left with no word of where."""
    url = _store(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    result = mseval(
        "runs", "delete", "mixed", "stopped", "--store", url, "--runs-dir", str(elsewhere), "--yes"
    )
    assert result.returncode == 0, result.stderr
    assert result.stderr.splitlines() == [
        f"warning: no workspace folder under {elsewhere / 'episodes'} for 2 runs mixed, stopped: if `mseval run` "
        "was given another --runs-dir, remove DIR/episodes/<run_id> yourself"
    ]
    assert (
        "deleted 2 runs (mixed, stopped): 3 episodes, 5 events; 0 workspace folders removed" in result.stdout
    )
    quiet = mseval("runs", "delete", "old", "--store", url, "--runs-dir", str(tmp_path / "runs"), "--yes")
    assert quiet.returncode == 0 and quiet.stderr == "" and "1 workspace folder removed" in quiet.stdout
    # a workspace folder that is a link is not removed (its target may be anything): named too
    linked = tmp_path / "runs" / "episodes" / "new"
    target = tmp_path / "kept"
    linked.rename(target)
    linked.symlink_to(target)
    result = mseval("runs", "delete", "new", "--store", url, "--runs-dir", str(tmp_path / "runs"), "--yes")
    assert result.returncode == 0 and "for 1 run new:" in result.stderr
    assert target.is_dir() and linked.is_symlink()


def test_refusals_delete_nothing(tmp_path: Path) -> None:
    """An unknown run, a run a live process holds, no --yes off a terminal and a file as
    --runs-dir: exit 2, one line each, the store and workspaces untouched."""
    url = _store(tmp_path)
    store = Store(url)
    store.claim_run("new", Owner(pid=os.getpid()))  # this live process holds `new`
    store.close()
    runs_dir = str(tmp_path / "runs")
    cases = {
        ("old", "nope", "--yes"): ["RUN_ID: no run 'nope' in"],
        ("old", "new", "--yes"): ["RUN_ID: run new is busy (a live process holds it)"],
        ("old",): ["--yes: not on a terminal: give --yes to delete without asking"],
        ("--yes",): ["RUN_ID: name the runs to delete, or give --superseded"],
    }
    # a file as --runs-dir: the rows were deleted, the workspaces left where they were
    (tmp_path / "file").write_text("")
    cases[("old", "--yes", "--runs-dir", str(tmp_path / "file"))] = [
        f"--runs-dir: {tmp_path / 'file'} is a file; give a folder"
    ]
    for args, lines in cases.items():
        result = mseval("runs", "delete", "--store", url, "--runs-dir", runs_dir, *args)
        assert result.returncode == 2, (args, result.stderr)
        assert [line.split(" sqlite:")[0] for line in result.stderr.splitlines()] == [
            line.split(" sqlite:")[0] for line in lines
        ], args
    with sqlite3.connect(tmp_path / "store.db") as conn:
        assert conn.execute("SELECT count(*) FROM mseval_run").fetchone()[0] == 4
        assert conn.execute("SELECT count(*) FROM mseval_event").fetchone()[0] == 17
    assert len(list((tmp_path / "runs" / "episodes").iterdir())) == 4


def test_a_missing_store_is_bad_input(tmp_path: Path) -> None:
    result = mseval("runs", "list", "--store", f"sqlite:///{tmp_path / 'none.db'}")
    assert result.returncode == 2 and "no store at" in result.stderr
    assert not (tmp_path / "none.db").exists()


@pytest.mark.skipif(not os.environ.get(PG_URL_ENV), reason=f"${PG_URL_ENV} not set")
def test_listing_and_deleting_runs_on_postgresql() -> None:
    """The same counts and the same delete on a PostgreSQL store (a schema of its own)."""
    with pg_store_in_schema("runs_test") as url:
        store = Store(url)
        for run_id in ("old", "new"):
            store.create_run(run_id, "m1", {"matrix": ["sim:oracle/spec"]})
            _episode(store, run_id, "a", "completed", 3)
        _episode(store, "new", "b", "absent", 2)
        assert [(r.run_id, r.in_use, r.events, r.episodes) for r in store.runs()] == [
            ("old", 0, 3, {"completed": 1}),
            ("new", 2, 5, {"completed": 1, "absent": 1}),
        ]
        assert store.delete_runs(["old"]) == (1, 3)
        assert [(r.run_id, r.events) for r in store.runs()] == [("new", 5)]
        store.close()


def test_a_run_created_while_the_list_is_read_does_not_break_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The runs were read in one statement and their episodes in the next: a run started in
    between (its episode counted, the run not listed) raised a bare KeyError."""
    from sqlalchemy.engine import Connection

    url = _store(tmp_path)
    store = Store(url)
    execute, calls = Connection.execute, []

    def meanwhile(self: Connection, *args: object, **kwargs: object) -> object:
        result = execute(self, *args, **kwargs)  # type: ignore[arg-type]
        calls.append(1)
        if len(calls) == 2:  # the episodes, read after the runs: one of a run started since
            return [*result, ("late", "completed", "z", "sim:oracle", "spec", 0)]
        return result

    monkeypatch.setattr(Connection, "execute", meanwhile)
    listed = [r.run_id for r in store.runs()]
    monkeypatch.undo()
    store.close()
    assert listed == ["old", "mixed", "new", "stopped"]


def test_a_run_being_deleted_cannot_be_resumed_meanwhile(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The claim was checked, then the rows deleted: a --resume that claimed the run in between
    had its run deleted under it and left orphan episodes. The deleter now holds the claim."""
    from harness.store import RunBusy

    url = _store(tmp_path)
    store = Store(url)
    begin, refused, began = store.engine.begin, [], []

    def deleting() -> object:
        began.append(1)
        if len(began) == 2:  # the deleter has taken the claim; its delete is about to begin
            try:
                Store(url).claim_run("old", Owner(pid=os.getpid()))
            except RunBusy as exc:
                refused.append(str(exc))
        return begin()

    monkeypatch.setattr(store.engine, "begin", deleting)
    assert store.delete_runs(["old"]) == (2, 6)
    store.close()
    assert refused and "old" in refused[0]
    with sqlite3.connect(tmp_path / "store.db") as conn:
        assert conn.execute("SELECT count(*) FROM mseval_claim WHERE run_id = 'old'").fetchone()[0] == 0


def test_a_store_in_use_is_not_vacuumed_but_the_delete_is_complete(tmp_path: Path) -> None:
    """VACUUM ran after the delete and before the workspaces went: when it failed (a lock, a
    full disk) the command said it failed, and the workspaces of the deleted runs stayed for ever."""
    url = _store(tmp_path)
    store = Store(url)
    store.claim_run("new", Owner(pid=os.getpid()))  # a live run writes to this store
    store.close()
    result = mseval("runs", "delete", "old", "--store", url, "--runs-dir", str(tmp_path / "runs"), "--yes")
    assert result.returncode == 0, result.stderr
    assert "deleted 1 run (old)" in result.stdout and "MB ->" not in result.stdout
    assert "not shrunk (a run is going on in it" in result.stderr
    assert not (tmp_path / "runs" / "episodes" / "old").exists()


def test_a_run_whose_planned_episodes_did_not_all_start_is_not_superseded(tmp_path: Path) -> None:
    """Episode rows are made when an episode starts: a run stopped before starting some looked
    finished, and deleting it as superseded made `--resume` start its whole matrix again."""
    url = f"sqlite:///{tmp_path / 'store.db'}"
    store = Store(url)
    plan = {"matrix": ["sim:oracle/spec"], "tasks": ["a", "b", "c"], "seeds": 1}
    store.create_run("stopped", "m5", plan)  # a and b ran, c never started
    store.create_run("other", "m6", plan)  # another matrix (other budgets) redid a and b
    for run_id in ("stopped", "other"):
        for task in ("a", "b"):
            _episode(store, run_id, task)
    store.close()
    runs = {
        r["run_id"]: r for r in json.loads(mseval("runs", "list", "--store", url, "--json").stdout)["runs"]
    }
    assert runs["stopped"]["in_use"] == 0 and runs["stopped"]["running"] == 0
    assert runs["stopped"]["state"] == "stopped"  # `--resume` of m5 would still run c in it


def test_the_matrix_column_keeps_the_count_of_other_settings(tmp_path: Path) -> None:
    """The matrix cell was the first setting and ` +N`, cut at 28 characters: a long first name
    (`sim:oracle?latency=0.05/sa +3`, 29) lost the count and showed `… /sa +`. The name is cut instead."""
    url = f"sqlite:///{tmp_path / 'store.db'}"
    store = Store(url)
    matrix = [f"sim:oracle?latency=0.05/{v}" for v in ("sa", "spec")] + ["sim:eager/sa", "sim:eager/spec"]
    store.create_run("long", "m1", {"matrix": matrix, "tasks": ["a"], "seeds": 1})
    store.create_run("short", "m2", {"matrix": ["sim:oracle/spec"], "tasks": ["a"], "seeds": 1})
    store.close()
    header, long, short = mseval("runs", "list", "--store", url).stdout.splitlines()
    assert long.split()[2:4] == ["sim:oracle?latency=0.05/…", "+3"]
    assert short.split()[2] == "sim:oracle/spec" and short.split()[3] == "1"  # then its tasks
    assert long.index("+3") + 2 == header.index("matrix") + 28  # the column keeps its width


def test_a_db_that_is_not_a_postgresql_server_answering_deletes_nothing(tmp_path: Path) -> None:
    """--db names where the runs' PostgreSQL worlds are: 'sqlite' or a server that does not answer
    is one line, exit 2, before anything is deleted."""
    url = _store(tmp_path)
    runs_dir = str(tmp_path / "runs")
    for db, said in (
        ("sqlite", "--db: give the PostgreSQL URL the runs were made with"),
        ("postgresql+psycopg://nobody@127.0.0.1:1/none", "--db: "),
    ):
        result = mseval("runs", "delete", "old", "--store", url, "--runs-dir", runs_dir, "--db", db, "--yes")
        assert result.returncode == 2 and len(result.stderr.splitlines()) == 1, result.stderr
        assert result.stderr.startswith(said), result.stderr
    with sqlite3.connect(tmp_path / "store.db") as conn:
        assert conn.execute("SELECT count(*) FROM mseval_run").fetchone()[0] == 4
    assert len(list((tmp_path / "runs" / "episodes").iterdir())) == 4


@pytest.mark.skipif(not os.environ.get(PG_URL_ENV), reason=f"${PG_URL_ENV} not set")
def test_deleting_runs_with_db_drops_the_episode_schemas_they_left_there(tmp_path: Path) -> None:
    """Two episodes of one run left their worlds on the server (killed, say), and one of another
    run: `runs delete RUN --db URL` drops the run's two schemas and their roles, not the other's."""
    from sqlalchemy import create_engine, text

    from mcp_servers.common.worldstate import create_episode_db, drop_schemas, pg_schema_name

    base = os.environ[PG_URL_ENV]
    run, other = "0123456789ab", "ba9876543210"
    url = f"sqlite:///{tmp_path / 'store.db'}"
    store = Store(url)
    for run_id in (run, other):
        store.create_run(run_id, run_id, {"matrix": ["sim:oracle/spec"]})
        _episode(store, run_id, "a")
    store.close()
    left = {
        f"{run}-lms-due-reminder-sim_oracle-spec-0": run,
        f"{run}-ec-refund-sim_oracle-spec-1": run,
        f"{other}-lms-due-reminder-sim_oracle-spec-0": other,
    }
    for episode_id in left:
        create_episode_db(base, episode_id, tmp_path / episode_id)
    engine = create_engine(base)

    def on_server(names: list[str]) -> list[str]:
        with engine.connect() as conn:
            schemas = conn.execute(text("SELECT nspname FROM pg_namespace")).scalars().all()
            roles = conn.execute(text("SELECT rolname FROM pg_roles")).scalars().all()
        return sorted(n for n in names if n in schemas or any(r.startswith(n) for r in roles))

    schemas = [pg_schema_name(e) for e in left]
    try:
        assert on_server(schemas) == sorted(schemas)
        result = mseval(
            "runs", "delete", run, "--store", url, "--runs-dir", str(tmp_path / "runs"), "--db", base, "--yes"
        )
        assert result.returncode == 0, result.stderr
        assert "dropped 2 episode schemas (with their roles) from --db" in result.stdout
        assert on_server(schemas) == [pg_schema_name(f"{other}-lms-due-reminder-sim_oracle-spec-0")]
    finally:
        assert drop_schemas(base, schemas) == []
        engine.dispose()
