"""`--executor ray`: episodes as Ray tasks on a local Ray instance, all recorded in one store."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path

import pytest

from tests.harness.test_cli import THREE, catalog_copy, mseval

pytest.importorskip("ray")
pytestmark = pytest.mark.xdist_group("ray")  # one local Ray instance at a time


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


def test_a_crashed_ray_worker_leaves_its_episode_absent_and_the_run_goes_on(tmp_path: Path) -> None:
    """A worker that died (after Ray's retries) aborted the whole run with a traceback: the other
    pending episodes were abandoned and the dead one stayed `running` with no reason."""
    tasks, _priors, env = catalog_copy(tmp_path, *THREE)
    check = tasks / "lms" / THREE[0] / "check.py"
    check.write_text(
        check.read_text() + "\n\ndef check(world):  # noqa: F811\n    import os\n    os._exit(1)\n"
    )
    store = tmp_path / "store.db"
    result = mseval("run", "--model", "sim:oracle", "--variant", "sa", "--tasks", "lms", "--executor", "ray",
                    "--concurrency", "2", "--store", f"sqlite:///{store}", "--runs-dir", str(tmp_path / "runs"),
                    env={**env, "RAY_AUTH_MODE": "disabled"})  # fmt: skip
    assert result.returncode == 1, result.stderr[-2000:]
    assert "Traceback" not in result.stderr
    with sqlite3.connect(store) as db:
        rows = dict(db.execute("SELECT task_id, status FROM mseval_episode").fetchall())
        (reason,) = db.execute(
            "SELECT json_extract(record, '$.reason') FROM mseval_episode WHERE task_id = ?", (THREE[0],)
        ).fetchone()
    assert rows == {THREE[0]: "absent", THREE[1]: "completed", THREE[2]: "completed"}
    assert reason.startswith("its Ray worker failed: ")
    assert f"absent: {THREE[0]} sim:oracle sa seed 0: its Ray worker failed" in result.stderr


def test_the_rate_limit_window_of_a_ray_run_is_shared_by_its_episodes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each episode's worker created the window actor itself; owned by that task, it died with
    it, so every episode started an empty window and `--rpm` held nothing under Ray."""
    import ray

    from harness.models.ratelimit import RateLimits, RayWindow, create_shared_windows

    monkeypatch.setenv("RAY_AUTH_MODE", "disabled")
    ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False)
    try:
        windows = create_shared_windows({"openai": RateLimits(rpm=2), "anthropic": RateLimits()})
        assert len(windows) == 1  # a provider without limits gets no window

        @ray.remote
        def episode() -> float:  # what a worker's model does before a call: book in the window
            async def book() -> float:
                wait, _ = await RayWindow("openai", RateLimits(rpm=2)).reserve(10)
                return wait

            return asyncio.run(book())

        waits = [ray.get(episode.remote()) for _ in range(3)]  # one after another, as three episodes
        assert waits[:2] == [0.0, 0.0] and 55.0 < waits[2] <= 60.0  # the third waits for the minute
    finally:
        ray.shutdown()
