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
from typing import Any

import pytest

import harness.mcp_client as mcp_client
from harness.budgets import Budgets
from harness.catalog import load_tasks
from harness.events import EventLog
from harness.mcp_client import CallOutcome, ServerFailure, ServerPool, Transport
from harness.models.base import AssistantMessage
from harness.models.scripted import call, say
from harness.profiles import load_profiles
from harness.runner import Runner, RunPlan
from harness.store import Store, episode_key
from tests.harness.support import View, a_world, children, run_scripted

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


@pytest.fixture
def quick_probe(monkeypatch: pytest.MonkeyPatch) -> None:
    """A 1 s probe after a timeout, to keep the file fast."""
    monkeypatch.setattr(mcp_client, "SERVER_PROBE_TIMEOUT_S", 1.0, raising=False)  # not there before


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


@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_a_hung_server_is_restarted_and_answers_again_regression(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, quick_probe: None, transport: str
) -> None:
    """A call to a server that had stopped answering only timed out, and the server was left as
    it was: every later call to it timed out too, for the rest of the episode."""
    import mcp.client.stdio

    # The SDK's close of a stdio child (input closed, SIGTERM, SIGKILL) with shorter waits: that
    # it kills the stopped child is under test, not how long it waits first.
    monkeypatch.setattr(mcp.client.stdio, "PROCESS_TERMINATION_TIMEOUT", 0.5)
    monkeypatch.setattr(mcp.client.stdio, "FORCE_KILL_TIMEOUT", 0.5)
    seen: list[str] = []
    with stopped_children() as stopped:

        def main(v: View) -> AssistantMessage:
            results = [m.content for m in v.messages if m.role == "tool"]
            if len(results) == 1:  # after a good call: the server stops before the next one
                stop("lms", stopped)
            if len(results) == 3:
                seen.extend(results)
                return say("done")
            return say("", call("mcp__lms__list_courses", term="2026-fall"))

        async with asyncio.timeout(GUARD_S):
            out = await run_scripted(
                tmp_path, main, variant="sa", task="lms-due-reminder", transport=transport,
                budgets=Budgets(tool_timeout_s=1),
            )  # fmt: skip
        assert out.rt.termination == "text_only"
        first, hung, after = seen
        assert first.startswith("[")  # the first call worked
        assert hung.startswith("tool mcp__lms__list_courses timed out after 1 s"), hung
        assert "stopped answering and was restarted" in hung  # the model is told
        assert after == first  # the restarted server answers
        (restart,) = out.kinds("server_restart")
        assert restart.data["server"] == "lms" and restart.data["cause"].startswith("ServerHung: server lms")
        (pid,) = stopped
        await assert_ends(pid)  # the hung child was killed, not left stopped
        assert not [c for _, c in children(os.getpid()) if "mcp_servers." in c]


async def test_several_calls_that_see_one_hang_restart_the_server_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, quick_probe: None
) -> None:
    """Calls of one message (or of a wave) to a server that hung: each is told of the restart,
    the server is restarted once, and it is not taken for a failure after its restart."""
    events = EventLog()
    with a_world(tmp_path) as world, stopped_children() as stopped:
        pool = ServerPool(["lms"], world.access(), "http", timeout_s=1, events=events)
        async with asyncio.timeout(GUARD_S), pool:
            stop("lms", stopped)
            terms = ("2026-fall", "2026-spring", "2025-fall")
            outcomes = await asyncio.gather(*(pool.call("lms", "list_courses", {"term": t}) for t in terms))
            assert all("stopped answering and was restarted" in o.text for o in outcomes), outcomes
            assert pool._conns["lms"].starts == 2  # started, then restarted once
            assert [e.data["server"] for e in events.of_kind("server_restart")] == ["lms"]
            after = await pool.call("lms", "list_courses", {"term": "2026-fall"})
            assert not after.is_error and after.text.startswith("[")


async def test_a_server_that_hangs_again_after_its_restart_is_a_server_failure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, quick_probe: None
) -> None:
    """As for a crash: one restart, then `ServerFailure` (the episode ends as harness_error)."""
    monkeypatch.setattr(mcp_client, "SERVER_CLOSE_TIMEOUT_S", 1.0)
    with a_world(tmp_path) as world, stopped_children() as stopped:
        async with asyncio.timeout(GUARD_S), ServerPool(["lms"], world.access(), "http", timeout_s=1) as pool:
            stop("lms", stopped)
            outcome = await pool.call("lms", "list_courses", {"term": "2026-fall"})
            assert outcome.is_error and "restarted" in outcome.text, outcome
            stop("lms", stopped)  # the restarted server hangs too
            with pytest.raises(ServerFailure, match="lms failed again after a restart: ServerHung"):
                await pool.call("lms", "list_courses", {"term": "2026-fall"})
        for pid in stopped:
            await assert_ends(pid)  # both children killed, the second when its pool closed


@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_a_slow_tool_on_a_live_server_only_times_out(tmp_path: Path, transport: Transport) -> None:
    """The probe after a timeout tells a slow tool from a hung server: a live server answers
    it, keeps running, and the call's result is the plain timeout."""
    with a_world(tmp_path) as world:
        async with (
            asyncio.timeout(GUARD_S),
            ServerPool(["local"], world.access(), transport, timeout_s=1) as pool,
        ):
            pid = server_pid("local")
            code = {"code": "import time; time.sleep(30)", "timeout_s": 50}
            slow = await pool.call("local", "python_execute", code)
            assert slow == CallOutcome("tool mcp__local__python_execute timed out after 1 s", True)
            after = await pool.call("local", "todo_read", {})
            assert not after.is_error
            assert server_pid("local") == pid and pool._conns["local"].starts == 1  # not restarted


def test_the_runner_records_a_server_restart_among_the_episode_s_events(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, quick_probe: None
) -> None:
    """An in-process server made to hang (its first call and its probes never answer, as if
    deadlocked) is restarted in a run, and the run's event stream says so."""
    import mcp

    call_tool, list_tools = mcp.Client.call_tool, mcp.Client.list_tools
    hung: list[mcp.Client] = []  # held, so that no new client takes a hung one's id

    async def first_call_hangs(self: mcp.Client, *args: Any, **kwargs: Any) -> Any:
        if not hung:
            hung.append(self)
            await asyncio.Event().wait()
        return await call_tool(self, *args, **kwargs)

    async def hung_clients_do_not_list(self: mcp.Client, *args: Any, **kwargs: Any) -> Any:
        if any(self is c for c in hung):
            await asyncio.Event().wait()
        return await list_tools(self, *args, **kwargs)

    monkeypatch.setattr(mcp.Client, "call_tool", first_call_hangs)
    monkeypatch.setattr(mcp.Client, "list_tools", hung_clients_do_not_list)
    plan = RunPlan(settings_matrix=[("sim:single", "sa")], tasks=load_tasks("lms-due-reminder"), profiles=load_profiles(),
                   store_url=f"sqlite:///{tmp_path / 's.db'}", runs_dir=tmp_path, budgets=Budgets(tool_timeout_s=1))  # fmt: skip
    (record,) = asyncio.run(Runner(plan).run()).records
    assert record.termination != "harness_error", record.reason
    store = Store(plan.store_url)
    try:
        key = episode_key(record.run_id, record.task_id, record.model, record.variant, record.seed)
        (restart,) = [e.data for e in store.events(key) if e.kind == "server_restart"]
    finally:
        store.close()
    assert restart["server"] in ("lms", "local") and restart["cause"].startswith("ServerHung: "), restart
