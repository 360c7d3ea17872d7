"""World state per episode: fresh copies, isolation, and the crash-rerun case."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

from mcp_servers.common import worldstate


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
