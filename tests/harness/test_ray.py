"""`--executor ray`: episodes as Ray tasks on a local Ray instance, all recorded in one store."""

from __future__ import annotations

import asyncio
import importlib.util
import ipaddress
import json
import os
import socket
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.harness.cli_support import one_line_error
from tests.harness.test_cli import THREE, catalog_copy, mseval

if importlib.util.find_spec("ray") is None:  # not importorskip: ray must not be imported here yet
    pytest.skip("ray is not installed", allow_module_level=True)
# One local Ray instance at a time: this file runs on one worker (`make test`: --dist loadfile).


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


EMPTY_ADDRESS = (
    "is empty (a shell variable not set?): give the cluster's HOST:PORT, "
    "or drop it to start a local Ray instance"
)


@pytest.mark.parametrize(
    ("address", "problem"),
    [
        (
            "notanaddress",
            "cannot join Ray at 'notanaddress': ValueError: Invalid address format: notanaddress",
        ),
        (":6379", "cannot join Ray at ':6379': ValueError: Malformed host:"),
        ("", EMPTY_ADDRESS),
        ("  ", EMPTY_ADDRESS),
    ],
)
def test_a_ray_address_ray_cannot_join_is_bad_input_and_nothing_is_written(
    tmp_path: Path, address: str, problem: str
) -> None:
    """A malformed `--ray-address` ended in Ray's traceback (exit 1) after the run had been
    written to the store; one with no host (`:6379`) still had Ray log its traceback first.
    An empty one (`"$RAY_ADDRESS"` with the variable unset) started a local Ray instance, and
    the run meant for a cluster ran on this machine without a word."""
    *_, env = catalog_copy(tmp_path, *THREE)
    result = mseval("run", "--model", "sim:oracle", "--variant", "sa", "--tasks", "lms", "--executor", "ray",
                    "--ray-address", address, "--store", f"sqlite:///{tmp_path / 's.db'}",
                    "--runs-dir", str(tmp_path / "runs"), env={**env, "RAY_AUTH_MODE": "disabled"})  # fmt: skip
    assert one_line_error(result) == f"--ray-address: {problem}"
    assert not (tmp_path / "s.db").exists() and not (tmp_path / "runs").exists()


def test_a_ray_address_where_nothing_answers_is_bad_input_at_once(tmp_path: Path) -> None:
    """`--ray-address 127.0.0.1:PORT` with nothing listening there: Ray put the machine's network
    address for 127.0.0.1 and retried it for about 13 minutes (20 tries of ~40 s), printing
    its warnings; a cluster listening on 127.0.0.1 could not be joined at all."""
    *_, env = catalog_copy(tmp_path, *THREE)
    with socket.socket() as closed:  # bound, never listening: a connection to it is refused
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
        result = mseval("run", "--model", "sim:oracle", "--variant", "sa", "--tasks", "lms", "--executor", "ray",
                        "--ray-address", f"127.0.0.1:{port}", "--store", f"sqlite:///{tmp_path / 's.db'}",
                        "--runs-dir", str(tmp_path / "runs"), env={**env, "RAY_AUTH_MODE": "disabled"},
                        timeout=120)  # fmt: skip
    assert one_line_error(result) == (
        f"--ray-address: cannot join Ray at '127.0.0.1:{port}': nothing answers at 127.0.0.1:{port} "
        "(ConnectionRefusedError: [Errno 111] Connection refused)"
    )
    assert not (tmp_path / "s.db").exists() and not (tmp_path / "runs").exists()


def test_a_ray_run_is_claimed_like_a_local_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The Ray driver ran a run without claiming it, so a `--resume` beside it ran it twice."""
    from contracts.errors import InputError
    from harness.claims import Owner
    from harness.ray_executor import run_with_ray
    from tests.harness.test_reliability_runs import _plan, _start_run

    run_id = _start_run(tmp_path, Owner())  # held by this (live) process
    # the look before Ray starts is left out: the driver's own claim is what this pins
    monkeypatch.setattr("harness.ray_executor.refuse_busy_resume", lambda plan: None)
    with pytest.raises(InputError, match=f"run {run_id} is being run by another mseval process"):
        run_with_ray(_plan(tmp_path, resume=True), None)


def test_a_world_database_server_gone_stops_a_ray_run_for_resume(tmp_path: Path) -> None:
    """A Ray task whose --db server stopped answering was recorded absent ('its Ray worker
    failed: …WorldServerLost…'), as every episode after it: the run now stops, as a local one
    does, its episodes left `running` for `--resume`."""
    from dataclasses import replace

    from harness.ray_executor import run_with_ray
    from harness.store import Store, WorldServerLost
    from tests.harness.test_reliability_runs import _plan

    plan = replace(_plan(tmp_path), db_base="postgresql+psycopg://mseval:x@127.0.0.1:1/mseval")
    with pytest.raises(WorldServerLost, match="^the database server of --db stopped answering: "):
        run_with_ray(plan, None)
    store = Store(plan.store_url)
    try:
        [run] = store.runs()
        assert store.finished_keys(run.run_id) == set()
    finally:
        store.close()


def test_a_busy_run_is_refused_before_ray_starts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`--executor ray --resume` of a run another process holds started Ray (seconds, a dozen
    processes) and only then was refused, by the driver's claim."""
    import harness.ray_executor as ray_executor
    from contracts.errors import InputError
    from harness.claims import Owner
    from tests.harness.test_reliability_runs import _plan, _start_run

    def no_ray(address: str | None) -> None:
        raise AssertionError("Ray was imported to be started")

    monkeypatch.setattr(ray_executor, "import_ray", no_ray)
    run_id = _start_run(tmp_path, Owner())  # held by this (live) process
    with pytest.raises(InputError) as caught:
        ray_executor.run_with_ray(_plan(tmp_path, resume=True), None)
    (problem,) = caught.value.problems
    assert problem.file == "--resume"
    assert problem.message.startswith(
        f"run {run_id} is being run by another mseval process (pid {os.getpid()}"
    )


def test_a_resume_with_nothing_left_to_run_does_not_start_ray(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`--executor ray --resume` of a run whose episodes are all finished started Ray (seconds,
    a dozen processes) to find nothing to do. It now ends as a local resume does, Ray not
    imported and the store not written."""
    import hashlib

    import harness.ray_executor as ray_executor
    from harness.runner import Runner
    from tests.harness.test_reliability_runs import TASKS, _plan

    def no_ray(address: str | None) -> None:
        raise AssertionError("Ray was imported to be started")

    monkeypatch.setattr(ray_executor, "import_ray", no_ray)
    first = asyncio.run(Runner(_plan(tmp_path)).run())
    local = asyncio.run(Runner(_plan(tmp_path, resume=True)).run())
    store = tmp_path / "s.db"
    before = hashlib.sha256(store.read_bytes()).hexdigest()
    result = ray_executor.run_with_ray(_plan(tmp_path, resume=True), None)
    assert (result.run_id, result.records, result.skipped, result.resumed) == (
        first.run_id,
        [],
        len(TASKS),
        True,
    )
    assert result == local
    assert hashlib.sha256(store.read_bytes()).hexdigest() == before


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


@pytest.fixture(scope="module")
def local_ray(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """One local Ray instance, in this process, for the tests that drive the executor here (each
    start costs seconds). It is started in a folder of its own, two levels down: its workers run
    there, not where the test runs, as a cluster's workers do."""
    from harness.ray_executor import import_ray

    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("RAY_AUTH_MODE", "disabled")
        patch.setenv("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")  # as import_ray sets it, undone after
        patch.chdir(_made(tmp_path_factory))
        ray = import_ray(None)
        ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False)
    try:
        yield ray
    finally:
        ray.shutdown()


def _made(factory: pytest.TempPathFactory) -> Path:
    folder = factory.mktemp("ray-cwd") / "workers"
    folder.mkdir()
    return folder


def test_the_rate_limit_window_of_a_ray_run_is_shared_by_its_episodes(local_ray: Any) -> None:
    """Each episode's worker created the window actor itself; owned by that task, it died with
    it, so every episode started an empty window and `--rpm` held nothing under Ray."""
    from harness.models.ratelimit import RateLimits, RayWindow, create_shared_windows

    ray = local_ray
    windows = create_shared_windows({"openai": RateLimits(rpm=2), "anthropic": RateLimits()})
    try:
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
        for actor in windows:
            ray.kill(actor)


def test_workers_in_another_folder_write_where_the_driver_said(
    local_ray: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A worker of a cluster joined with --ray-address runs in the cluster's folder, and the
    plan's relative paths (the default store and --runs-dir are) named files there: the
    episodes went to another store, the run's own stayed empty, and `--resume` ran it all again."""
    from dataclasses import replace

    from harness.ray_executor import run_with_ray
    from harness.store import Store
    from tests.harness.test_reliability_runs import TASKS, _plan

    monkeypatch.chdir(tmp_path)
    plan = _plan(tmp_path)
    tasks = [replace(t, folder=Path(os.path.relpath(t.folder)), check_path=Path(os.path.relpath(t.check_path)))
             for t in plan.tasks]  # fmt: skip
    result = run_with_ray(replace(plan, store_url="sqlite:///s.db", runs_dir=Path("runs"), tasks=tasks), None)
    assert len(result.records) == len(TASKS)
    store = Store(f"sqlite:///{tmp_path / 's.db'}")
    try:
        stored = store.records(result.run_id)
    finally:
        store.close()
    assert sorted((r.task_id, r.termination, r.success) for r in stored) == [
        (task, "claim_done", True) for task in sorted(TASKS)
    ]
    assert sorted(p.name for p in (tmp_path / "runs" / "episodes" / result.run_id).iterdir()) == sorted(
        r.episode_id for r in stored
    )


def test_a_rerun_task_whose_episode_was_recorded_keeps_that_record(local_ray: Any, tmp_path: Path) -> None:
    """A worker that died after recording its episode's outcome, before Ray had its answer: Ray
    runs the task again, its start is refused ("episode … was finished by another mseval
    process"), and the driver took that for a failing store: every other episode cancelled, the
    run stopped. Here the same episode's task runs twice (one CPU: one after the other), as
    Ray's retry runs it."""
    from harness.ray_executor import _submit
    from harness.runner import Runner
    from harness.store import Store
    from tests.harness.test_reliability_runs import _plan

    plan = _plan(tmp_path, tasks=("lms-due-reminder",))
    driver = Runner(plan)
    try:
        with driver.claimed_run() as (owner, run_id, jobs, skipped):
            result = _submit(local_ray, plan, None, driver, owner, run_id, [*jobs, *jobs], skipped)
    finally:
        driver.store.close()
    store = Store(plan.store_url)
    try:
        (stored,) = store.records(run_id)
    finally:
        store.close()
    assert stored.termination == "claim_done" and result.records == [stored, stored]


class _CountingRay:
    """`ray` as the executor uses it, counting the episodes submitted and not yet seen done."""

    def __init__(self, ray: Any) -> None:
        self._ray = ray
        self.in_flight = self.most = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self._ray, name)

    def remote(self, fn: Any) -> Any:
        task, counter = self._ray.remote(fn), self

        class Counted:
            def remote(self, *args: Any) -> Any:
                counter.in_flight += 1
                counter.most = max(counter.most, counter.in_flight)
                return task.remote(*args)

        return Counted()

    def wait(self, refs: list[Any], **kwargs: Any) -> Any:
        done, rest = self._ray.wait(refs, **kwargs)
        self.in_flight -= len(done)
        return done, rest


@pytest.mark.parametrize(
    ("address", "whole_cluster", "most"),
    [
        (None, False, 1),  # a local instance: --concurrency 1
        (None, True, 1),  # no --concurrency: the local instance's default, here 1
        ("127.0.0.1:6379", False, 1),  # a cluster with --concurrency 1
        ("127.0.0.1:6379", True, 2),  # a cluster without --concurrency: all at once
    ],
)
def test_concurrency_caps_the_episodes_in_flight_on_a_cluster_too(
    local_ray: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, address: str | None, whole_cluster: bool,
    most: int,
) -> None:  # fmt: skip
    """Every episode was submitted at once: on a cluster joined with --ray-address (its CPUs, not
    --concurrency, decided) `--concurrency 1` held nothing, and a run of thousands of episodes
    could not be paced to what the store or a provider takes."""
    from dataclasses import replace

    from harness import ray_executor
    from tests.harness.test_reliability_runs import TASKS, _plan

    counting = _CountingRay(local_ray)  # joined already: run_with_ray joins nothing else
    monkeypatch.setattr(ray_executor, "import_ray", lambda _address: counting)
    plan = replace(_plan(tmp_path), concurrency=1)
    result = ray_executor.run_with_ray(plan, address, whole_cluster=whole_cluster)
    assert sorted(r.task_id for r in result.records) == sorted(TASKS)
    assert {r.termination for r in result.records} == {"claim_done"}
    assert (counting.most, counting.in_flight) == (most, 0)


# Started by a fresh interpreter: Ray reads its loopback switch once, when first imported.
LOCAL_RAY = """
import json, os, sys
os.environ["RAY_AUTH_MODE"] = "disabled"
from harness.ray_executor import import_ray
ray = import_ray(None)
ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False)
assert ray.get(ray.remote(lambda: 1).remote()) == 1  # a worker is up and its task ran
sys.path.insert(0, sys.argv[1])
from test_ray import listening_addresses
print(json.dumps(listening_addresses(os.getpid())))
ray.shutdown()
"""


def test_a_local_ray_instance_listens_on_loopback_only() -> None:
    """Started by `--executor ray` without `--ray-address`, Ray's GCS, raylet, workers and
    runtime-env agent listened on every interface (and on the machine's address): tests and
    servers bind 127.0.0.1 only."""
    result = subprocess.run(
        [sys.executable, "-c", LOCAL_RAY, str(Path(__file__).parent)], capture_output=True, text=True, timeout=180,
        env={k: v for k, v in os.environ.items() if k != "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"},
        cwd=Path(__file__).parents[2],
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-2000:]
    addresses = json.loads(result.stdout.strip().splitlines()[-1])
    assert len(addresses) >= 3, addresses  # the GCS, the raylet and the worker at least
    assert [a for a in addresses if not _loopback(a)] == []


def _loopback(address: str) -> bool:
    ip = ipaddress.ip_address(address)
    mapped = getattr(ip, "ipv4_mapped", None)
    return ip.is_loopback or bool(mapped and mapped.is_loopback)


def listening_addresses(root: int) -> list[str]:
    """The local addresses of the TCP sockets listening in process `root` and its descendants,
    read from /proc (Linux)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:  # gone meanwhile
                continue
            children.setdefault(int(stat.rsplit(")", 1)[1].split()[1]), []).append(int(entry.name))
    pids, todo = set(), [root]
    while todo:
        pid = todo.pop()
        pids.add(pid)
        todo += children.get(pid, [])
    inodes = set()
    for pid in pids:
        try:
            links = [os.readlink(fd) for fd in Path(f"/proc/{pid}/fd").iterdir()]
        except OSError:
            continue
        inodes |= {link[len("socket:[") : -1] for link in links if link.startswith("socket:[")}
    found = []
    for table, family in (("/proc/net/tcp", socket.AF_INET), ("/proc/net/tcp6", socket.AF_INET6)):
        for line in Path(table).read_text().splitlines()[1:]:
            fields = line.split()
            if fields[3] == "0A" and fields[9] in inodes:  # LISTEN
                raw = bytes.fromhex(fields[1].split(":")[0])  # 32-bit words in host (little) order
                found.append(
                    socket.inet_ntop(family, b"".join(raw[i : i + 4][::-1] for i in range(0, len(raw), 4)))
                )
    return found
