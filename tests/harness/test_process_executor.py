"""`mseval demo --workers N`: the run's episodes shared among worker processes, each recorded
once, as in one process; a worker that dies costs the run only the episodes it was running."""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
from pathlib import Path
from typing import Any

import pytest

from harness.cli.run import DEMO_INTERRUPTED, DEMO_MATRIX
from harness.process_executor import deliver, start_deferring_signals
from harness.store import Store
from tests.harness.cli_support import catalog_copy, mseval
from tests.harness.test_reliability_cli import GATED, WAIT_LIMIT_S, _gated_catalog, _rows, _start, _wait_for

TASKS = ("lms-due-reminder", "lms-missing-work-zeros")
# What differs between two runs of the same episodes: their ids and how long things took.
TIMINGS = ("started_s", "ended_s")


def _episodes(store: str) -> list[dict[str, Any]]:
    """Every episode recorded in `store`, without ids and timings, in a stable order."""
    s = Store(store)
    try:
        records = s.records()
    finally:
        s.close()
    out = []
    for r in records:
        d = r.model_dump(mode="json", exclude={"episode_id", "run_id", "duration_s"})
        for wave in d["waves"]:
            for sub in wave["subagents"]:
                for key in TIMINGS:
                    sub.pop(key)
        out.append(d)
    return sorted(out, key=lambda d: (d["task_id"], d["model"], d["variant"]))


def test_two_worker_processes_record_what_one_process_does(tmp_path: Path) -> None:
    *_, env = catalog_copy(tmp_path, *TASKS)
    stores = {n: f"sqlite:///{tmp_path / f'w{n}.db'}" for n in (1, 2)}
    for n, store in stores.items():
        result = mseval(
            "demo", "--tasks", ",".join(TASKS), "--store", store, "--workers", str(n), env=env, cwd=tmp_path
        )
        assert result.returncode == 0, result.stderr[-2000:]
        assert ", 10 episodes, 0 absent; " in result.stdout
    one, two = (_episodes(stores[n]) for n in (1, 2))
    assert len(one) == 10 == len({(d["task_id"], d["model"], d["variant"]) for d in two})
    assert two == one


def test_a_worker_killed_mid_episode_costs_only_that_episode_recorded_absent_once(tmp_path: Path) -> None:
    """The first check to run kills its own process (the check runs in the worker): that
    episode is recorded absent with why, a new worker runs what was left, and each of the 5
    episodes is in the store once. One episode at a time a worker, so the dead one held one."""
    tasks, _priors, env = catalog_copy(tmp_path, "lms-due-reminder")
    check, marker = tasks / "lms" / "lms-due-reminder" / "check.py", tmp_path / "killed-once"
    check.write_text(  # when it runs, not when it is imported (the driver imports it to validate it)
        check.read_text() + "\n\n_check = check\n\n\ndef check(world):\n"
        f"    import os, pathlib, signal\n    marker = pathlib.Path({str(marker)!r})\n"
        "    if not marker.exists():\n        marker.touch()\n        os.kill(os.getpid(), signal.SIGKILL)\n"
        "    return _check(world)\n"
    )
    store = f"sqlite:///{tmp_path / 's.db'}"
    result = mseval(
        "demo", "--tasks", "lms-due-reminder", "--store", store, "--workers", "2", "--concurrency", "2",
        env=env, cwd=tmp_path,
    )  # fmt: skip
    assert result.returncode == 1, result.stderr[-2000:]  # a run with an absent episode failed
    assert ", 5 episodes, 1 absent; " in result.stdout
    absent = [line for line in result.stderr.splitlines() if line.startswith("  absent: ")]
    assert len(absent) == 1 and absent[0].endswith(
        "seed 0: its worker process died before the episode ended (killed by SIGKILL)"
    ), absent
    episodes = _episodes(store)
    assert sorted((d["model"], d["variant"]) for d in episodes) == sorted(DEMO_MATRIX)  # each once
    assert [d["status"] for d in episodes].count("absent") == 1
    assert all(d["success"] for d in episodes if d["status"] == "completed")


@pytest.mark.parametrize(
    ("sig", "code", "said"), [(signal.SIGINT, 130, "interrupted"), (signal.SIGTERM, 143, "stopped (SIGTERM)")]
)
def test_a_signal_stops_the_workers_and_the_demo_says_so(
    tmp_path: Path, sig: signal.Signals, code: int, said: str
) -> None:
    """Ctrl-C (SIGINT to the whole process group, as a terminal sends it) or SIGTERM (to the
    driver alone) while both workers hold an episode at its check: the demo ends with its own
    message, its workers gone with it, the run's claim released."""
    env = _gated_catalog(tmp_path)
    gate, store = tmp_path / "gate", tmp_path / "s.db"
    proc = _start(
        [
            "demo",
            "--tasks",
            ",".join(GATED),
            "--store",
            f"sqlite:///{store}",
            "--workers",
            "2",
            "--concurrency",
            "2",
        ],
        {**env, "MSEVAL_TEST_GATE": str(gate)},
    )
    try:
        _wait_for("an episode held at its check", gate.with_suffix(".reached").exists, proc)
        if sig == signal.SIGINT:
            os.killpg(proc.pid, sig)
        else:
            proc.send_signal(sig)
        _out, err = proc.communicate(timeout=WAIT_LIMIT_S)
        left = _workers_alive(proc.pid)
    finally:
        gate.touch()
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    assert proc.returncode == code, err
    assert f"{said}: {DEMO_INTERRUPTED}" in err and "Traceback" not in err, err
    assert left == []  # the workers were stopped, not left holding their episodes
    # the episode held at its check was stopped there (to be run again), not let finish
    assert ("running",) in _rows(store, "SELECT status FROM mseval_episode")
    assert _rows(store, "SELECT * FROM mseval_claim") == []


def _workers_alive(pgid: int) -> list[int]:
    """The worker processes (multiprocessing's spawned children) of process group `pgid` that
    are still running: not zombies (a child whose parent has exited waits for init to reap it).
    multiprocessing's resource tracker, which leaves when its parent has gone, is not one."""
    alive = []
    for proc in Path("/proc").iterdir():
        try:
            stat = (proc / "stat").read_text()
            cmdline = (proc / "cmdline").read_bytes()
        except (OSError, ValueError):  # gone meanwhile, or not a process
            continue
        state, _ppid, group = stat.rpartition(")")[2].split()[:3]
        if int(group) == pgid and state != "Z" and b"spawn_main" in cmdline:
            alive.append(int(proc.name))
    return alive


@pytest.mark.parametrize("workers", ["2", "1"])
def test_a_store_failing_under_the_demo_stops_it_with_one_line(tmp_path: Path, workers: str) -> None:
    """The first check deletes the store file: the worker (or, with one, the process) that next
    writes fails, and the demo stops with the store's one line, saying to run it again: it said
    `--resume`, which the demo does not have."""
    env = _gated_catalog(tmp_path)
    store = tmp_path / "s.db"
    done = mseval(
        "demo", "--tasks", GATED[0], "--store", f"sqlite:///{store}", "--workers", workers, "--concurrency", "2",
        env={**env, "MSEVAL_TEST_DELETE": str(store)}, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 1, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr, lines
    assert lines[0].startswith(f"the store sqlite:///{store} could not "), lines
    assert lines[0].endswith("; the demo stopped: once the store can be written, run it again"), lines


def _report_signal_mask(pipe: Any) -> None:
    """A worker's stand-in: send back whether SIGINT is blocked in this process, as it started."""
    status = Path("/proc/self/status").read_text()
    blocked = int(next(line.split()[1] for line in status.splitlines() if line.startswith("SigBlk:")), 16)
    pipe.send(bool(blocked & (1 << (signal.SIGINT - 1))))


class _InterruptedWhileStarting(multiprocessing.get_context("spawn").Process):  # type: ignore[misc]
    def start(self) -> None:
        os.kill(os.getpid(), signal.SIGINT)  # Ctrl-C, while the child is being made and sent its work
        super().start()


def test_a_worker_starts_deaf_to_ctrl_c_and_a_ctrl_c_meanwhile_reaches_the_driver_after() -> None:
    """A Ctrl-C while a worker was started or still importing printed its traceback (a
    KeyboardInterrupt, or a pickle cut short) under the demo's message. The worker now starts
    with SIGINT blocked; the driver takes a Ctrl-C that came meanwhile once the worker is
    started, and its own signal mask is as it was."""
    ctx = multiprocessing.get_context("spawn")
    theirs_then: list[bool] = []
    before = signal.pthread_sigmask(signal.SIG_BLOCK, set())
    # Python's own Ctrl-C handler, as in a terminal (a suite started in the background by a
    # shell inherits SIGINT ignored, and then the held Ctrl-C is rightly ignored too)
    ours = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        mine, theirs = ctx.Pipe()
        process = _InterruptedWhileStarting(target=_report_signal_mask, args=(theirs,))
        held = start_deferring_signals(process)
        theirs.close()
        assert held == [signal.SIGINT]  # not raised inside start(): the child got all of its work
        assert signal.pthread_sigmask(signal.SIG_BLOCK, set()) == before
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # put back
        theirs_then.append(mine.recv())
        process.join()
        assert process.exitcode == 0 and theirs_then == [True]
        with pytest.raises(KeyboardInterrupt):
            deliver(held)
    finally:
        signal.signal(signal.SIGINT, ours)
