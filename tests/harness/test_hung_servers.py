"""Child servers that stop answering (SIGSTOP here; a deadlock in real life) without dying.

A call to a hung server times out; a short `tools/list` probe tells a hung server (restarted like
a crashed one, once) from a slow tool on a live one (left as it is). No stopped child is left
behind. Timeouts here are small (1 s) to keep the file fast; the waits that guard against a hang
of the harness itself are bounds, not measures.
"""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

import harness.mcp_client as mcp_client
from harness.catalog import load_tasks
from harness.mcp_client import ServerPool
from harness.world import EpisodeWorld, create_world
from tests.harness.support import children

pytestmark = pytest.mark.skipif(not os.path.isdir("/proc"), reason="finds child servers in /proc")

GUARD_S = 60  # a bound on a hang of the harness, not a measure


def server_pid(name: str) -> int:
    (pid,) = [p for p, cmd in children(os.getpid()) if f"mcp_servers.{name} " in cmd]
    return pid


def state(pid: int) -> str | None:
    """A process's state letter (T: stopped, Z: ended, not yet reaped), or None when it is gone."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return None


@contextmanager
def stopped_children() -> Iterator[list[int]]:
    """Pids a test stops; any still there at the end is killed, whatever the test did."""
    stopped: list[int] = []
    try:
        yield stopped
    finally:
        for pid in stopped:
            if state(pid) not in (None, "Z"):
                os.kill(pid, signal.SIGKILL)


async def assert_ends(pid: int) -> None:
    """`pid` ends (perhaps not yet reaped): a killed process takes a moment to go; a stopped one
    left behind never does."""
    for _ in range(GUARD_S * 50):
        if state(pid) in (None, "Z"):
            return
        await asyncio.sleep(0.02)
    raise AssertionError(f"child {pid} was left behind (state {state(pid)})")


def stop(name: str, stopped: list[int]) -> int:
    pid = server_pid(name)
    stopped.append(pid)
    os.kill(pid, signal.SIGSTOP)
    return pid


@contextmanager
def a_world(tmp_path: Path) -> Iterator[EpisodeWorld]:
    (task,) = load_tasks("lms-due-reminder")
    world = create_world(task, "e1", tmp_path)
    try:
        yield world
    finally:
        world.close()


async def test_a_stopped_http_child_is_killed_when_its_pool_closes_regression(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Closing an HTTP server that does not answer timed out, which cancelled the wait for its
    child to end after SIGTERM, so SIGKILL was never sent: a stopped child ignores SIGTERM and
    was left behind, stopped, for the rest of the run."""
    monkeypatch.setattr(mcp_client, "SERVER_CLOSE_TIMEOUT_S", 1.0)
    with a_world(tmp_path) as world, stopped_children() as stopped:
        async with asyncio.timeout(GUARD_S), ServerPool(["lms"], world.access(), "http"):
            pid = stop("lms", stopped)
        await assert_ends(pid)
