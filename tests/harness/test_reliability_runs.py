"""What a run does when things go wrong around its episodes (SPEC §12), in one process.

Regression tests, each named after the defect it pins: two processes on one run, a check.py
that exits or never returns, an API error recorded without its reason, a store that fails mid-run.
"""

from __future__ import annotations

import asyncio
import re
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from contracts.errors import InputError
from harness.catalog import load_tasks
from harness.claims import CLAIM_STALE_S, Owner
from harness.event_stream import EventStreamer
from harness.events import Event
from harness.models.base import ModelAPIError
from harness.models.registry import ModelFactory
from harness.models.scripted import ScriptedModel
from harness.profiles import load_profiles
from harness.runner import Runner, RunPlan
from harness.store import ClaimLost, ClaimRow, Store, StoreError
from harness.store import episode_key as key_of

TASKS = ("lms-due-reminder", "lms-missing-work-zeros")


def _plan(tmp_path: Path, *, resume: bool = False, tasks: tuple[str, ...] = TASKS) -> RunPlan:
    return RunPlan(
        settings_matrix=[("sim:oracle", "sa")], tasks=[t for name in tasks for t in load_tasks(name)],
        profiles=load_profiles(), store_url=f"sqlite:///{tmp_path / 's.db'}", runs_dir=tmp_path, resume=resume,
    )  # fmt: skip


def _start_run(tmp_path: Path, owner: Owner) -> str:
    """A run of the plan, created and claimed by `owner`, none of its episodes finished."""
    runner = Runner(_plan(tmp_path))
    try:
        run_id, jobs, _ = runner.prepare(owner)
    finally:
        runner.store.close()
    assert len(jobs) == len(TASKS)
    return run_id


def _claim(tmp_path: Path, run_id: str, **changes: Any) -> None:
    store = Store(f"sqlite:///{tmp_path / 's.db'}")
    try:
        with store.engine.begin() as conn:
            table = ClaimRow.__table__  # type: ignore[attr-defined]
            conn.execute(table.update().where(table.c.run_id == run_id).values(**changes))
    finally:
        store.close()


def _exited_pid() -> int:
    """The pid of a process that has exited (and been reaped)."""
    child = subprocess.Popen(["true"])
    child.wait()
    return child.pid


def test_a_second_resume_of_a_run_in_progress_is_refused_not_run_twice(tmp_path: Path) -> None:
    """Two `--resume` of one run both ran its pending episodes, in the same world folders; the
    later one to finish an episode died with a RuntimeError traceback."""
    run_id = _start_run(tmp_path, Owner())  # this process: alive
    with pytest.raises(InputError) as caught:
        asyncio.run(Runner(_plan(tmp_path, resume=True)).run())
    (problem,) = caught.value.problems
    assert problem.file == "--resume"
    assert f"run {run_id} is being run by another mseval process" in problem.message
    assert "let it finish" in problem.message
    store = Store(f"sqlite:///{tmp_path / 's.db'}")
    try:
        assert store.finished_keys(run_id) == set()  # nothing was run
    finally:
        store.close()


def test_the_look_for_a_busy_resume_refuses_only_a_live_claim_and_writes_nothing(tmp_path: Path) -> None:
    """`refuse_busy_resume` (told before Ray starts) says what the claim would: a live holder is
    refused, an abandoned claim or a run of other settings is not; a store not there stays so."""
    from harness.runner import refuse_busy_resume

    refuse_busy_resume(_plan(tmp_path, resume=True))
    assert not (tmp_path / "s.db").exists()
    run_id = _start_run(tmp_path, Owner(host="another-machine", pid=1))
    with pytest.raises(InputError, match=f"run {run_id} is being run by another mseval process \\(pid 1 on"):
        refuse_busy_resume(_plan(tmp_path, resume=True))
    refuse_busy_resume(_plan(tmp_path, resume=True, tasks=TASKS[:1]))  # another matrix: not that run
    refuse_busy_resume(_plan(tmp_path))  # no --resume: a new run
    _claim(tmp_path, run_id, heartbeat_at=time.time() - CLAIM_STALE_S - 1)
    refuse_busy_resume(_plan(tmp_path, resume=True))


def test_the_look_for_a_finished_resume_finds_only_a_run_with_nothing_left(tmp_path: Path) -> None:
    """`finished_resume` (told before Ray starts) gives a result only when every episode of the
    run to be resumed is finished; a store not there stays so."""
    from harness.runner import finished_resume

    assert finished_resume(_plan(tmp_path, resume=True)) is None
    assert not (tmp_path / "s.db").exists()
    _start_run(tmp_path, Owner(pid=_exited_pid()))  # interrupted: its claim is left, abandoned
    assert finished_resume(_plan(tmp_path, resume=True)) is None  # both episodes left to run
    asyncio.run(Runner(_plan(tmp_path, resume=True)).run())
    assert finished_resume(_plan(tmp_path)) is None  # no --resume: a new run
    assert finished_resume(_plan(tmp_path, resume=True, tasks=TASKS[:1])) is None  # another matrix
    done = finished_resume(_plan(tmp_path, resume=True))
    assert done is not None and (done.records, done.skipped, done.resumed) == ([], len(TASKS), True)


def test_the_claim_of_a_process_that_died_is_taken_over_by_resume(tmp_path: Path) -> None:
    run_id = _start_run(tmp_path, Owner(pid=_exited_pid()))
    result = asyncio.run(Runner(_plan(tmp_path, resume=True)).run())
    assert result.run_id == run_id and len(result.records) == len(TASKS)
    assert all(r.status == "completed" for r in result.records)


def test_a_claim_from_another_machine_holds_until_it_goes_stale(tmp_path: Path) -> None:
    run_id = _start_run(tmp_path, Owner(host="another-machine", pid=1))
    with pytest.raises(InputError, match="pid 1 on another-machine"):
        asyncio.run(Runner(_plan(tmp_path, resume=True)).run())
    _claim(tmp_path, run_id, heartbeat_at=time.time() - CLAIM_STALE_S - 1)
    result = asyncio.run(Runner(_plan(tmp_path, resume=True)).run())
    assert result.run_id == run_id and len(result.records) == len(TASKS)


def test_a_finished_run_releases_its_claim(tmp_path: Path) -> None:
    (record,) = asyncio.run(Runner(_plan(tmp_path, tasks=TASKS[:1])).run()).records
    assert record.status == "completed"
    store = Store(f"sqlite:///{tmp_path / 's.db'}")
    try:
        with store.engine.connect() as conn:
            assert conn.execute(ClaimRow.__table__.select()).all() == []  # type: ignore[attr-defined]
    finally:
        store.close()


def test_a_process_whose_claim_was_taken_over_stops_with_claim_lost(tmp_path: Path) -> None:
    """It went on, and finish_episode raised a bare RuntimeError (a traceback) for an episode
    the other process had started again."""
    owner = Owner()
    run_id = _start_run(tmp_path, owner)
    store = Store(f"sqlite:///{tmp_path / 's.db'}")
    try:
        key = key_of(run_id, TASKS[0], "sim:oracle", "sa", 0)
        first = store.start_episode(key, run_id, TASKS[0], "sim:oracle", "sa", 0)
        store.start_episode(key, run_id, TASKS[0], "sim:oracle", "sa", 0)  # the other process's attempt
        record: Any = None
        with pytest.raises(ClaimLost, match="run again by another mseval process"):
            store.finish_episode(key, first, record)
        _claim(tmp_path, run_id, token="someone-else")
        with pytest.raises(ClaimLost, match=f"run {run_id} was taken over"):
            store.renew_claim(run_id, owner)
    finally:
        store.close()


def test_a_check_that_calls_sys_exit_fails_its_check_instead_of_ending_the_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`sys.exit()` in a check.py ended `mseval run` silently with that exit code, its episode
    left `running`."""
    from harness.catalog import Task

    def exits(_world: Any) -> list[Any]:
        raise SystemExit(3)

    monkeypatch.setattr(Task, "load_check", lambda self: exits)
    records = asyncio.run(Runner(_plan(tmp_path)).run()).records
    assert len(records) == len(TASKS)
    for record in records:
        assert (record.status, record.success) == ("completed", False)
        assert record.checks is not None and "SystemExit(3)" in record.checks[0].message


def test_an_episode_whose_record_cannot_be_built_is_recorded_as_a_harness_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A record that failed validation (a NaN cost from a bad price table) ended the run with a
    traceback, its episode left `running` in the store."""
    import harness.runner as runner_module

    real_build = runner_module.build_record

    def fails_with_a_runtime(rt: Any, **fields: Any) -> Any:
        if rt is not None:
            raise ValueError("cost_usd: Input should be a finite number")
        return real_build(rt, **fields)

    monkeypatch.setattr(runner_module, "build_record", fails_with_a_runtime)
    records = asyncio.run(Runner(_plan(tmp_path)).run()).records
    assert len(records) == len(TASKS)
    for record in records:
        assert (record.status, record.termination) == ("absent", "harness_error")
        assert record.reason == (
            "the episode's record could not be built: ValueError: cost_usd: Input should be a finite number"
        )
    store = Store(f"sqlite:///{tmp_path / 's.db'}")
    try:
        assert sorted(r.task_id for r in store.records()) == sorted(TASKS)  # finished, each once
    finally:
        store.close()


def test_a_check_that_returns_no_criteria_fails(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A check.py returning an empty list made every episode a success (all of nothing passed)."""
    from harness.catalog import Task

    monkeypatch.setattr(Task, "load_check", lambda self: lambda _world: [])
    records = asyncio.run(Runner(_plan(tmp_path)).run()).records
    assert len(records) == len(TASKS)
    for record in records:
        assert (record.status, record.success) == ("completed", False)
        assert record.checks is not None
        assert [(c.name, c.passed, c.message) for c in record.checks] == [
            ("check", False, "check.py returned no criteria")
        ]


def test_a_check_that_never_returns_fails_its_check_instead_of_holding_the_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A check.py stuck in a loop held `mseval run` (and `tasks validate`) for ever."""
    import harness.task_check as task_check
    from harness.catalog import Task

    release = threading.Event()

    def hangs(_world: Any) -> list[Any]:
        release.wait()  # until the test ends: the check never returns while the run waits
        return []

    monkeypatch.setattr(Task, "load_check", lambda self: hangs)
    monkeypatch.setattr(task_check, "CHECK_TIMEOUT_S", 0.05)
    try:
        result = asyncio.run(Runner(_plan(tmp_path)).run())
    finally:
        release.set()
    assert len(result.records) == len(TASKS)
    for record in result.records:
        assert (record.status, record.success) == ("completed", False)
        assert record.checks is not None
        assert [(c.name, c.passed, c.message) for c in record.checks] == [
            ("check", False, "check.py did not finish within 0.05 s")
        ]
        # The check may still be using the episode's database: it is kept, not pulled away.
        assert (tmp_path / "episodes" / result.run_id / record.episode_id / "db").is_dir()  # type: ignore[operator]


def test_an_api_error_is_recorded_with_its_reason(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An episode that ended `api_error` (a wrong key, an unknown model) had `reason: null`: the
    record never said what the API answered. (A refused key makes the episode absent: no verdict
    on the model.)"""

    def refuses(*_args: Any) -> Any:
        raise ModelAPIError("authentication", "invalid API key (HTTP 401)", status=401)

    monkeypatch.setattr(ModelFactory, "for_episode", lambda self, *a: ScriptedModel(refuses))
    (record,) = asyncio.run(Runner(_plan(tmp_path, tasks=TASKS[:1])).run()).records
    assert (record.status, record.termination) == ("absent", "api_error")
    assert record.reason is not None and record.reason.startswith("api_error: ")
    assert "invalid API key (HTTP 401)" in record.reason


def test_a_store_deleted_mid_run_stops_the_run_with_one_store_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The run died with an ExceptionGroup of OperationalError and the SQL of a batch of events."""
    import harness.task_check as task_check

    real_check = task_check.run_check

    def check_then_delete_the_store(task: Any, world: Any) -> Any:
        (tmp_path / "s.db").unlink()
        return real_check(task, world)

    monkeypatch.setattr(task_check, "run_check", check_then_delete_the_store)
    with pytest.raises(StoreError) as caught:
        asyncio.run(Runner(_plan(tmp_path, tasks=TASKS[:1])).run())
    message = str(caught.value)
    assert "\n" not in message and message.startswith(f"the store sqlite:///{tmp_path / 's.db'} could not")


def test_a_world_database_server_that_stops_answering_stops_the_run_for_resume(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """With `--db` on a PostgreSQL server that went away mid-run, every episode left was
    recorded absent ('OperationalError: connection refused', 44 of 48 in the audit's run), and
    `--resume` runs no absent episode: the outage cost them all. The run now stops as for a
    failing store; its episodes stay `running`, for `--resume` once the server is back. (Here
    the server is gone from the start: the run's own check of --db is the command line's.)"""
    from dataclasses import replace

    import typer

    from harness.cli.run import _execute
    from harness.store import WorldServerLost

    plan = replace(_plan(tmp_path), db_base="postgresql+psycopg://mseval:x@127.0.0.1:1/mseval")
    with pytest.raises(WorldServerLost) as caught:
        asyncio.run(Runner(plan).run())
    message = str(caught.value)
    assert "\n" not in message and message.startswith("the database server of --db stopped answering: ")
    assert "127.0.0.1" in message and "port 1" in message, message
    store = Store(plan.store_url)
    try:
        [run] = store.runs()
        assert store.finished_keys(run.run_id) == set()  # nothing recorded absent: all left to --resume
    finally:
        store.close()
    # the command line says what to do, in one line, exit 1
    with pytest.raises(typer.Exit) as ended:
        _execute(replace(plan, resume=True), "local", None)
    assert ended.value.exit_code == 1
    said = capsys.readouterr().err.strip().splitlines()
    assert len(said) == 1 and said[0].endswith(
        "; the run stopped: once it answers again, run the same command with --resume"
    ), said


@pytest.mark.parametrize(
    ("sqlstate", "lost"),
    [(None, True), ("08006", True), ("57P01", True), ("53300", True), ("40P01", False), ("57014", False)],
    ids=[
        "refused",
        "connection-failure",
        "admin-shutdown",
        "too-many-connections",
        "deadlock",
        "statement-timeout",
    ],
)
def test_only_a_server_out_of_reach_stops_the_run(sqlstate: str | None, lost: bool) -> None:
    """A deadlock or a statement timeout is the episode's fault (recorded, absent); a refused or
    lost connection is the server's, which stops the run. Checked inside a chain and a group, as
    the runner's task groups and the SQLAlchemy wrappers nest them."""
    from sqlalchemy.exc import OperationalError

    from harness.faults import server_lost

    class Orig(Exception):
        pass

    orig = Orig(f"server said {sqlstate}\nDETAIL: more")
    orig.sqlstate = sqlstate  # type: ignore[attr-defined]
    try:
        try:
            raise OperationalError("SELECT 1", {}, orig)
        except OperationalError as db_error:
            raise RuntimeError("the check failed") from db_error
    except RuntimeError as wrapped:
        group = ExceptionGroup("episode", [wrapped])
    assert server_lost(group) == (f"server said {sqlstate}" if lost else None)


class _HeldStore:
    """A store whose first `write_events` waits until `release` is set (from a timer thread)."""

    def __init__(self) -> None:
        self.started, self.release = threading.Event(), threading.Event()
        self.order: list[str] = []

    def write_events(self, batch: list[dict[str, Any]]) -> None:
        if not self.started.is_set():
            self.started.set()
            self.release.wait(10)
        self.order.append("wrote " + ",".join(str(e["seq"]) for e in batch))


async def test_a_flush_returns_only_once_the_batch_the_background_loop_is_writing_is_in_too() -> None:
    """An episode's outcome is written after its flush: the flush must not return while events
    put before it are still on their way in the background loop's batch (a kill -9 then would
    leave an outcome without all its events)."""
    store = _HeldStore()
    async with EventStreamer(store) as streamer:  # type: ignore[arg-type]
        put = streamer.sink("ep", 1)
        put(Event(1, 0.0, "model_call", "main", {}))
        streamer._wake.set()  # the background loop takes event 1 and is held writing it
        await asyncio.to_thread(store.started.wait, 10)
        put(Event(2, 0.1, "termination", "", {}))
        threading.Timer(0.2, store.release.set).start()
        await streamer.flush()
        store.order.append("flush returned")
    assert store.order == ["wrote 1", "wrote 2", "flush returned"]


def test_episodes_of_long_or_look_alike_model_ids_never_share_an_id() -> None:
    """Episode ids were cut to 80 characters: past that the seed and then the variant fell off,
    and episodes shared one world (workspace and database) and each other's verdicts. Model ids
    that differ only in characters unsafe in a folder name shared one too."""
    from harness.runner import Job, _episode_id

    (task,) = load_tasks("lms-late-homework-followup")
    long_model = "openai-compatible:Qwen/Qwen3-235B-A22B-Instruct-2507"
    jobs = [Job(task, long_model, v, s) for v in ("sa", "gen") for s in range(4)]
    jobs += [Job(task, "openai:gpt/x", "sa", 0), Job(task, "openai:gpt:x", "sa", 0)]
    ids = [_episode_id("0123456789ab", job) for job in jobs]
    assert len(set(ids)) == len(ids) and all(len(i) <= 80 for i in ids)
    assert all(i.startswith("0123456789ab-lms-late-homework-followup-openai") for i in ids)
    # readable, and a hash of the exact settings ends it (':' and '_' would otherwise meet)
    sim = _episode_id("r1", Job(task, "sim:oracle", "spec", 0))
    assert re.fullmatch(r"r1-lms-late-homework-followup-sim_oracle-spec-0-[0-9a-f]{10}", sim)


def test_a_store_url_with_an_escaped_name_opens_the_file_sqlalchemy_opens(tmp_path: Path) -> None:
    """`sqlite:///…/sub%20dir/s.db` made the folder `sub%20dir` (the URL cut by its prefix), while
    SQLAlchemy opened `sub dir/s.db`, whose folder was never made: the store failed to open."""
    store = Store(f"sqlite:///{tmp_path}/sub%20dir/s.db")
    try:
        assert store.file == tmp_path / "sub dir" / "s.db"
        assert store.runs() == []
    finally:
        store.close()
    assert (tmp_path / "sub dir" / "s.db").is_file() and not (tmp_path / "sub%20dir").exists()
