"""`--executor ray`: episodes as Ray tasks on a local Ray instance, all recorded in one store."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from tests.harness.test_cli import THREE, catalog_copy, mseval

pytest.importorskip("ray")


def test_ray_executor_records_every_episode_once(tmp_path: Path) -> None:
    *_, env = catalog_copy(tmp_path, *THREE)
    store = tmp_path / "store.db"
    result = mseval("run", "--model", "sim:oracle", "--variant", "sa", "--variant", "spec", "--tasks", "lms",
                    "--executor", "ray", "--concurrency", "2", "--store", f"sqlite:///{store}", "--runs-dir", str(tmp_path / "runs"),
                    env={**env, "RAY_AUTH_MODE": "disabled"})  # fmt: skip
    assert result.returncode == 0, result.stderr[-2000:]
    with sqlite3.connect(store) as db:
        rows = db.execute("SELECT task_id, variant, status FROM mseval_episode").fetchall()
        events = db.execute("SELECT COUNT(DISTINCT episode_key) FROM mseval_event").fetchone()[0]
    assert len(rows) == len(set(rows)) == 6 and {r[2] for r in rows} == {"completed"}
    assert events == 6  # every worker streamed its events into the shared store


def test_a_ray_run_is_claimed_like_a_local_one(tmp_path: Path) -> None:
    """The Ray driver ran a run without claiming it, so a `--resume` beside it ran it twice."""
    from contracts.errors import InputError
    from harness.ray_executor import run_with_ray
    from harness.store import Owner
    from tests.harness.test_reliability_runs import _plan, _start_run

    run_id = _start_run(tmp_path, Owner())  # held by this (live) process
    with pytest.raises(InputError, match=f"run {run_id} is being run by another mseval process"):
        run_with_ray(_plan(tmp_path, resume=True), None)
