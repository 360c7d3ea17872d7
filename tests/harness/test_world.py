"""An episode's world (harness/world.py): what is left of it when its task's setup fails, or
when the run is cancelled while the world is being made."""

from __future__ import annotations

import asyncio
import dataclasses
import os
import threading
import uuid
from collections.abc import Coroutine
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text

from harness.catalog import SetupStep, Task, load_tasks
from harness.profiles import load_profiles
from harness.records import EpisodeRecord
from harness.runner import Runner, RunPlan
from harness.store import Store
from mcp_servers.common import worldstate
from mcp_servers.common.db import make_engine
from tests.mcp_servers.support import PG_URL_ENV

# a row the schema refuses: lms_course.instructor is NOT NULL
REFUSED_ROW = SetupStep(insert="lms_course", rows=[{"id": 1, "code": "X", "title": "T", "term": "F"}])


def _refused_setup_task() -> Task:
    (task,) = load_tasks("lms-due-reminder")
    return dataclasses.replace(task, spec=task.spec.model_copy(update={"setup": [REFUSED_ROW]}))


def _run(tmp_path: Path, db_base: str) -> tuple[EpisodeRecord, list[EpisodeRecord]]:
    plan = RunPlan(
        settings_matrix=[("sim:oracle", "sa")], tasks=[_refused_setup_task()], profiles=load_profiles(),
        store_url=f"sqlite:///{tmp_path / 's.db'}", runs_dir=tmp_path / "runs", db_base=db_base,
    )  # fmt: skip
    (record,) = asyncio.run(Runner(plan).run()).records
    store = Store(plan.store_url)
    try:
        return record, store.records()
    finally:
        store.close()


def _assert_recorded_once_with_its_reason(record: EpisodeRecord, stored: list[EpisodeRecord]) -> None:
    assert (record.status, record.termination) == ("absent", "harness_error")
    assert record.reason is not None
    assert record.reason.startswith("InputError: ") and "setup step 1 cannot be applied" in record.reason
    assert [r.episode_id for r in stored] == [record.episode_id]


def _left_on_postgres(base: str, schema: str) -> list[Any]:
    """The episode's schema and login role (both named `schema`) still on the server."""
    admin = make_engine(base)
    try:
        with admin.connect() as conn:
            return list(
                conn.execute(
                    text("SELECT nspname FROM pg_namespace WHERE nspname = :s UNION ALL "
                         "SELECT rolname FROM pg_roles WHERE rolname = :s"),
                    {"s": schema},
                ).all()
            )  # fmt: skip
    finally:
        admin.dispose()


@pytest.mark.postgres
@pytest.mark.skipif(not os.environ.get(PG_URL_ENV), reason=f"no PostgreSQL: set {PG_URL_ENV}")
def test_a_failed_setup_drops_its_postgresql_schema(tmp_path: Path) -> None:
    """A setup step the world refused left the episode's schema (and role) behind on PostgreSQL:
    create_world only disposed of its engine on the way out, and nothing else knew the schema."""
    base = os.environ[PG_URL_ENV]
    record, stored = _run(tmp_path, base)
    _assert_recorded_once_with_its_reason(record, stored)
    schema = worldstate.pg_schema_name(record.episode_id)
    assert _left_on_postgres(base, schema) == []


def test_a_failed_setup_removes_its_sqlite_world_file(tmp_path: Path) -> None:
    """The SQLite equivalent: the world file goes as it does after any episode (the workspace
    stays, as after any episode)."""
    record, stored = _run(tmp_path, "sqlite")
    _assert_recorded_once_with_its_reason(record, stored)
    folder = tmp_path / "runs" / "episodes" / record.run_id / record.episode_id
    assert (folder / "workspace").is_dir()
    assert not (folder / "db").exists()


def test_a_failed_setup_keeps_its_reason_when_the_world_cannot_be_dropped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Dropping the world on the way out must not replace the setup's failure as the reason."""
    from harness import world as world_module

    def cannot_drop(base: str, url: str) -> None:
        raise OSError("connection lost")

    monkeypatch.setattr(world_module.worldstate, "drop_episode_db", cannot_drop)
    with pytest.raises(Exception) as caught:
        world_module.create_world(_refused_setup_task(), f"e-{uuid.uuid4().hex[:6]}", tmp_path)
    assert "setup step 1 cannot be applied" in str(caught.value)
    assert any("connection lost" in note for note in getattr(caught.value, "__notes__", []))


class _HeldSetup:
    """`apply_setup` held on an event: the world's database is made, `create_world` has not
    returned. Its thread goes on when `release` is set (or after 60 s, never to hang a test)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        from harness import world as world_module

        self.started, self.release = threading.Event(), threading.Event()
        self.workspaces: list[Path] = []
        self.sqlite_file_made = False
        real = world_module.apply_setup

        def held(task: Task, engine: Any, workspace: Path) -> None:
            self.workspaces.append(workspace)
            self.started.set()
            self.release.wait(60)
            real(task, engine, workspace)

        monkeypatch.setattr(world_module, "apply_setup", held)

    async def cancel_while_held(self, work: Coroutine[Any, Any, Any]) -> Path:
        """Run `work`, cancel it while its world is being made, then let the making finish; the
        episode's folder. The cancellation must come out of `work` all the same."""
        task = asyncio.create_task(work)
        assert await asyncio.to_thread(self.started.wait, 60), "create_world was never called"
        (folder,) = (w.parent for w in self.workspaces)
        self.sqlite_file_made = (folder / "db" / "world.sqlite").is_file()
        task.cancel()
        self.release.set()
        with pytest.raises(asyncio.CancelledError):
            await task
        return folder


async def test_a_validation_cancelled_while_its_world_is_made_drops_the_world(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C while `create_world` ran in its thread (`mseval tasks validate`): the thread went
    on and made a world nobody closed, its database left behind. The cancellation now waits for
    the world and drops it."""
    from harness.validate import replay

    (task,) = load_tasks("lms-due-reminder")
    held = _HeldSetup(monkeypatch)
    folder = await held.cancel_while_held(replay(task, tmp_path, gold=False))
    assert folder == tmp_path / f"{task.id}-empty" and held.sqlite_file_made
    assert not (folder / "db").exists()


def _plan(tmp_path: Path, db_base: str) -> RunPlan:
    (task,) = load_tasks("lms-due-reminder")
    return RunPlan(
        settings_matrix=[("sim:oracle", "sa")], tasks=[task], profiles=load_profiles(),
        store_url=f"sqlite:///{tmp_path / 's.db'}", runs_dir=tmp_path / "runs", db_base=db_base,
    )  # fmt: skip


async def test_a_run_cancelled_while_its_world_is_made_drops_the_world(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same in `mseval run`: the episode's world file was left in its folder."""
    held = _HeldSetup(monkeypatch)
    folder = await held.cancel_while_held(Runner(_plan(tmp_path, "sqlite")).run())
    assert folder.parent.parent == tmp_path / "runs" / "episodes" and held.sqlite_file_made
    assert not (folder / "db").exists()


@pytest.mark.postgres
@pytest.mark.skipif(not os.environ.get(PG_URL_ENV), reason=f"no PostgreSQL: set {PG_URL_ENV}")
async def test_a_run_cancelled_while_its_world_is_made_drops_its_postgresql_schema(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On PostgreSQL the episode's schema and its login role were left behind."""
    base = os.environ[PG_URL_ENV]
    held = _HeldSetup(monkeypatch)
    folder = await held.cancel_while_held(Runner(_plan(tmp_path, base)).run())
    schema = worldstate.pg_schema_name(folder.name)
    assert _left_on_postgres(base, schema) == []


def test_a_world_that_cannot_be_dropped_after_its_episode_is_told_and_the_run_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """The runner closes each world in a `finally`; a drop that failed there (the PostgreSQL
    server gone for a moment as DROP SCHEMA ran) went out of it and stopped the whole run with
    'unhandled errors in a TaskGroup', the finished episode left `running`. The drop's failure
    is now a warning naming the schema that stays, and the episode is recorded."""
    from sqlalchemy.exc import OperationalError

    from harness import world as world_module

    real = world_module.worldstate.drop_episode_db

    def server_gone(base: str, url: str) -> None:
        real(base, url)  # nothing stays behind the test; the server's answer is lost
        raise OperationalError("DROP SCHEMA", {}, Exception("server closed the connection unexpectedly"))

    monkeypatch.setattr(world_module.worldstate, "drop_episode_db", server_gone)
    plan = _plan(tmp_path, "sqlite")
    (record,) = asyncio.run(Runner(plan).run()).records
    store = Store(plan.store_url)
    try:
        assert [(r.episode_id, r.status) for r in store.records()] == [(record.episode_id, "completed")]
    finally:
        store.close()
    (told,) = [r.getMessage() for r in caplog.records if "could not be dropped" in r.getMessage()]
    assert record.episode_id in told and "server closed the connection unexpectedly" in told
