"""World state per episode: fresh copies, isolation, and the crash-rerun case."""

from __future__ import annotations

import os
import shutil
import sqlite3
import threading
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
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


def test_a_dump_shows_each_kind_of_change_in_its_own_table(world: World) -> None:
    """`dump` is how the tests prove a tool changed nothing: it must see every kind of change
    (a value, a row, a table, a column), in the table where it happened, and only the tables its
    prefix names."""
    first = world.dump("mail_")
    assert first == world.dump("mail_") and first["mail_folder"]
    assert all(name.startswith("mail_") for name in first)
    assert set(world.dump()) > set(first)
    changes = [
        ("mail_folder", "UPDATE mail_folder SET name = 'Renamed' WHERE id = 1"),
        ("mail_contact", "INSERT INTO mail_contact (email, name, department, title) VALUES ('x@y.example', 'X', 'Ops', 'Lead')"),
        ("mail_notes", "CREATE TABLE mail_notes (note VARCHAR)"),
    ]  # fmt: skip
    if world.engine.dialect.name == "sqlite":  # on PostgreSQL the episode's role owns no table
        changes.append(("mail_message", "ALTER TABLE mail_message ADD COLUMN flag INTEGER DEFAULT 0"))
    for table, statement in changes:
        before = world.dump("mail_")
        with world.engine.begin() as conn:
            conn.exec_driver_sql(statement)
        after = world.dump("mail_")
        assert [name for name in after if after[name] != before.get(name)] == [table], statement


def test_a_new_template_removes_only_templates_unused_for_a_week(tmp_path: Path) -> None:
    """Building a template removed every other one, so two checkouts of different server code
    sharing the cache rebuilt theirs by turns."""
    other, old = tmp_path / "world-other.sqlite", tmp_path / "world-old.sqlite"
    killed = tmp_path / "tmpabc.sqlite.tmp-wal"  # a build's file, its builder killed a week ago
    other_lock, old_lock = tmp_path / "world-other.lock", tmp_path / "world-old.lock"
    for f in (other, old, killed, other_lock, old_lock):
        f.write_bytes(b"")
    week_ago = time.time() - worldstate.STALE_TEMPLATE_S - 60
    for f in (old, killed, other_lock, old_lock):
        os.utime(f, (week_ago, week_ago))
    path = worldstate.sqlite_template(tmp_path)
    assert path.exists() and other.exists() and not old.exists() and not killed.exists()
    assert other_lock.exists() and not old_lock.exists()  # a lock file goes with its template
    os.utime(path, (week_ago, week_ago))  # a use refreshes an old template's time
    assert worldstate.sqlite_template(tmp_path) == path and time.time() - path.stat().st_mtime < 60


def test_concurrent_episodes_build_the_template_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each episode that found no template built it: four at once on a cold cache seeded four
    copies on one core (4-5 s before the first episodes began, and before a Ctrl-C took effect).
    Here the first builder holds its seeding until all four have come to the lock."""
    builders, arrived, all_arrived = [], [], threading.Event()
    lock, seed = worldstate.fcntl.flock, worldstate.seed_into

    def counted_flock(fd: Any, op: int) -> None:
        arrived.append(op)
        if len(arrived) == 4:
            all_arrived.set()
        lock(fd, op)

    def held_seed(conn: Any, specs: Any) -> None:
        builders.append(threading.current_thread().name)
        all_arrived.wait(timeout=20)  # a safety limit only: on the old code no one came
        seed(conn, specs)

    monkeypatch.setattr(worldstate.fcntl, "flock", counted_flock)
    monkeypatch.setattr(worldstate, "seed_into", held_seed)
    start, paths = threading.Barrier(4), list[Path]()

    def episode() -> None:
        start.wait()
        paths.append(worldstate.sqlite_template(tmp_path))

    threads = [threading.Thread(target=episode) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(builders) == 1 and len(paths) == 4 and len(set(paths)) == 1
    with sqlite3.connect(paths[0]) as db:
        assert db.execute("SELECT COUNT(*) FROM lms_grade").fetchone()[0] > 0
    assert sorted(f.name for f in tmp_path.iterdir()) == sorted(
        [paths[0].name, paths[0].with_suffix(".lock").name]
    )
