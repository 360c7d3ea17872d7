"""World state per episode: fresh copies, isolation, and the crash-rerun case."""

from __future__ import annotations

import os
import shutil
import sqlite3
import time
from dataclasses import replace
from pathlib import Path

from sqlalchemy import insert

from harness.catalog import SetupStep, load_tasks
from harness.world import apply_setup
from mcp_servers.calendar.schema import CalendarEvent
from mcp_servers.common import worldstate
from tests.mcp_servers.support import World


def test_each_episode_gets_its_own_copy(tmp_path: Path) -> None:
    a = worldstate.create_episode_db("sqlite", "a", tmp_path / "a")
    b = worldstate.create_episode_db("sqlite", "b", tmp_path / "b")
    with sqlite3.connect(a.removeprefix("sqlite:///")) as db:
        db.execute("DELETE FROM lms_grade")
    with sqlite3.connect(b.removeprefix("sqlite:///")) as db:
        assert db.execute("SELECT COUNT(*) FROM lms_grade").fetchone()[0] > 0


def test_rerun_after_a_crash_ignores_the_killed_attempts_wal(tmp_path: Path) -> None:
    url = worldstate.create_episode_db("sqlite", "e", tmp_path)
    path = url.removeprefix("sqlite:///")
    # The killed attempt wrote through the WAL and never checkpointed: keep its -wal file.
    db = sqlite3.connect(path)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA wal_autocheckpoint=0")
    db.execute("DELETE FROM lms_grade")
    db.commit()
    shutil.copy(path + "-wal", tmp_path / "stale-wal")
    db.close()
    shutil.copy(tmp_path / "stale-wal", path + "-wal")
    url = worldstate.create_episode_db("sqlite", "e", tmp_path)  # the rerun
    with sqlite3.connect(url.removeprefix("sqlite:///")) as db:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert (
            db.execute("SELECT COUNT(*) FROM lms_grade").fetchone()[0] > 0
        )  # fresh seed, not the dead attempt's


def test_postgres_schema_names_differ_for_ids_with_a_long_common_prefix_regression() -> None:
    """Schemas were named by the first 50 characters of the episode id, so the sa and spec
    episodes of one task (ids alike up to the variant) shared a schema on PostgreSQL."""
    prefix = "run0123456789-a-rather-long-task-identifier-sim_oracle-"
    a, b = worldstate.pg_schema_name(prefix + "sa-0"), worldstate.pg_schema_name(prefix + "spec-0")
    assert a != b
    assert len(a) <= 63 and len(b) <= 63
    assert worldstate.pg_schema_name(prefix + "sa-0") == a  # stable


def test_a_setup_insert_with_explicit_ids_leaves_the_next_id_free(world: World) -> None:
    """A task's setup may insert rows with their ids; an agent's insert afterwards still gets a
    new id (on PostgreSQL the id sequence is moved past them)."""
    (task,) = load_tasks("sm-biggest-decliner-alert")
    row = {"id": 90_001, "calendar_id": 1, "title": "Set up", "start": "2026-11-23T08:00",
           "end": "2026-11-23T08:30", "organizer": "kai.kaur@company.example"}  # fmt: skip
    setup = [SetupStep(insert="calendar_event", rows=[row])]
    apply_setup(
        replace(task, spec=task.spec.model_copy(update={"setup": setup})), world.engine, world.workspace
    )
    with world.engine.begin() as conn:
        new = conn.execute(
            insert(CalendarEvent.__table__).returning(CalendarEvent.__table__.c.id),  # type: ignore[attr-defined]
            {k: v for k, v in row.items() if k != "id"} | {"title": "Added by the agent"},
        ).scalar_one()
    assert new == 90_002


def test_a_new_template_removes_only_templates_unused_for_a_week(tmp_path: Path) -> None:
    """Building a template removed every other one, so two checkouts of different server code
    sharing the cache rebuilt theirs by turns."""
    other, old = tmp_path / "world-other.sqlite", tmp_path / "world-old.sqlite"
    killed = tmp_path / "tmpabc.sqlite.tmp-wal"  # a build's file, its builder killed a week ago
    for f in (other, old, killed):
        f.write_bytes(b"")
    week_ago = time.time() - worldstate.STALE_TEMPLATE_S - 60
    os.utime(old, (week_ago, week_ago))
    os.utime(killed, (week_ago, week_ago))
    path = worldstate.sqlite_template(tmp_path)
    assert path.exists() and other.exists() and not old.exists() and not killed.exists()
    os.utime(path, (week_ago, week_ago))  # a use refreshes an old template's time
    assert worldstate.sqlite_template(tmp_path) == path and time.time() - path.stat().st_mtime < 60
