"""Servers as child processes (stdio, HTTP on 127.0.0.1), and what happens when one dies."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from harness import mcp_children
from harness.catalog import load_tasks
from harness.mcp_client import ServerFailure, Transport
from harness.models.base import AssistantMessage
from harness.models.scripted import call, say
from harness.profiles import load_profiles
from harness.runner import Runner, RunPlan
from mcp_servers.common.bootstrap import DB_ENV
from tests.harness.support import View, children, run_scripted


def kill_server(name: str) -> None:
    (pid,) = [p for p, cmd in children(os.getpid()) if f"mcp_servers.{name} " in cmd]
    os.kill(pid, signal.SIGKILL)


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_an_episode_over_child_process_servers(tmp_path: Path, transport: str) -> None:
    plan = RunPlan(settings_matrix=[("sim:oracle", "spec")], tasks=load_tasks("lms-enrollment-overview"), profiles=load_profiles(),
                   store_url=f"sqlite:///{tmp_path / 's.db'}", runs_dir=tmp_path, transport=transport)  # type: ignore[arg-type]  # fmt: skip
    (record,) = asyncio.run(Runner(plan).run()).records
    assert record.status == "completed" and record.success, record.reason
    assert len(record.waves) == 2 and len(record.subagents) == 4
    assert not [c for _, c in children(os.getpid()) if "mcp_servers." in c]  # every child is gone


async def test_a_dead_server_is_restarted_once_then_the_episode_is_a_harness_error(tmp_path: Path) -> None:
    seen: list[str] = []

    def main(v: View) -> AssistantMessage:
        tool_results = [m for m in v.messages if m.role == "tool"]
        if tool_results:
            seen.append(tool_results[-1].content)
        if len(seen) in (1, 3):  # after a good call: kill the server before the next one
            kill_server("lms")
        return say("", call("mcp__lms__list_courses", term=("2026-fall", "2026-spring")[len(seen) % 2]))

    with pytest.raises(Exception) as caught:
        await run_scripted(tmp_path, main, variant="sa", task="lms-due-reminder", transport="stdio")
    # A step's single tool call runs in the agent's own task (bare); several run in a task group.
    failure = caught.value
    assert isinstance(failure, ServerFailure) or caught.group_contains(ServerFailure)
    assert seen[0].startswith("[")  # the first call worked
    assert "failed" in seen[1] and "restarted" in seen[1]  # the model was told, the server restarted
    assert seen[2].startswith("[")  # the restarted server answers


def test_the_runner_records_a_harness_fault_as_absent_with_the_reason(tmp_path: Path) -> None:
    import dataclasses

    from harness.catalog import SetupStep

    (task,) = load_tasks("lms-due-reminder")
    broken = dataclasses.replace(
        task,
        spec=task.spec.model_copy(update={"setup": [SetupStep(delete="no_such_table", where={"id": 1})]}),
    )
    plan = RunPlan(settings_matrix=[("sim:oracle", "sa")], tasks=[broken], profiles=load_profiles(),
                   store_url=f"sqlite:///{tmp_path / 's.db'}", runs_dir=tmp_path)  # fmt: skip
    (record,) = asyncio.run(Runner(plan).run()).records
    assert record.status == "absent" and record.success is None and record.termination == "harness_error"
    assert "no_such_table" in (record.reason or "")


def test_setup_on_a_table_of_a_server_not_yet_imported_regression(tmp_path: Path) -> None:
    """apply_setup found only tables of server modules already imported in the process, so with
    a cached world template a setup step on e.g. web_page failed in a fresh process."""

    from mcp_servers.common import worldstate

    worldstate.sqlite_template()  # cached before the fresh process starts: it imports no server
    code = (
        "import dataclasses, pathlib, sys;"
        "from harness.catalog import load_tasks, SetupStep;"
        "from harness.world import create_world;"
        "(t,) = load_tasks('lms-due-reminder');"
        "t = dataclasses.replace(t, spec=t.spec.model_copy(update={'setup': [SetupStep(delete='web_link', where={'id': 1})]}));"
        "w = create_world(t, 'e', pathlib.Path(sys.argv[1])); w.close(); print('ok')"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, check=False
    )
    assert done.stdout.strip() == "ok", done.stderr[-1500:]


async def test_a_child_server_gets_the_database_url_in_its_environment_not_its_command_line(
    tmp_path: Path,
) -> None:
    seen: list[tuple[str, str]] = []

    def main(v: View) -> AssistantMessage:
        if not seen:
            for pid, cmd in children(os.getpid()):
                if "mcp_servers.lms" in cmd:
                    environ = Path(f"/proc/{pid}/environ").read_bytes().decode().split("\0")
                    seen.append((cmd, next((e for e in environ if e.startswith(f"{DB_ENV}=")), "")))
            return say("", call("mcp__lms__list_courses"))
        return say("", call("mcp__local__claim_done"))

    out = await run_scripted(tmp_path, main, variant="sa", task="lms-due-reminder", transport="stdio")
    ((cmd, env_line),) = seen
    assert env_line == f"{DB_ENV}={out.world.db_url}"
    assert out.world.db_url not in cmd and "--db" not in cmd


def _state(pid: int) -> str | None:
    """A process's state letter (Z: ended, not yet reaped), or None when it is gone."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return None


def test_an_http_server_ends_when_the_process_that_started_it_is_killed(tmp_path: Path) -> None:
    from harness.mcp_children import child_env, free_port

    port = free_port()
    server = [sys.executable, "-m", "mcp_servers.local", "--workspace", str(tmp_path), "--http", str(port),
              "--exit-with-parent"]  # fmt: skip
    env = {**child_env(), DB_ENV: f"sqlite:///{tmp_path / 'w.sqlite'}"}
    parent = subprocess.Popen(
        [sys.executable, "-c", f"import subprocess, time; p = subprocess.Popen({server!r}); print(p.pid, flush=True); time.sleep(600)"],
        stdout=subprocess.PIPE, text=True, env=env,
    )  # fmt: skip
    try:
        child = int(parent.stdout.readline())  # type: ignore[union-attr]
        deadline = time.monotonic() + 60
        while not _listening(port):  # serving: its watch on the parent has started
            assert time.monotonic() < deadline and _state(child) not in (None, "Z"), (
                "the server did not start"
            )
            time.sleep(0.1)
    finally:
        parent.kill()  # as kill -9: the parent cannot stop its child itself
        parent.wait()
    deadline = time.monotonic() + 30
    while _state(child) not in (None, "Z"):
        assert time.monotonic() < deadline, "the HTTP server outlived the process that started it"
        time.sleep(0.1)


def test_an_http_server_whose_parent_dies_while_it_starts_ends_too(tmp_path: Path) -> None:
    """The server read its parent's pid only after its imports (about a second): a harness
    killed in that time left it with the new parent's pid to watch, serving for ever."""
    from harness.mcp_children import child_env, free_port

    port = free_port()
    errors = tmp_path / "server.err"
    server = [sys.executable, "-m", "mcp_servers.local", "--workspace", str(tmp_path), "--http", str(port),
              "--exit-with-parent"]  # fmt: skip
    env = {**child_env(), DB_ENV: f"sqlite:///{tmp_path / 'w.sqlite'}"}
    starter = (  # starts the server, naming itself as the parent, and dies at once
        f"import os, subprocess; err = open({str(errors)!r}, 'w'); "
        f"p = subprocess.Popen({server!r} + [str(os.getpid())], stderr=err); print(p.pid, flush=True); os._exit(0)"
    )
    parent = subprocess.run(
        [sys.executable, "-c", starter], capture_output=True, text=True, env=env, check=True
    )
    child = int(parent.stdout)
    deadline = time.monotonic() + 30
    while _state(child) not in (None, "Z"):
        assert time.monotonic() < deadline, "the HTTP server outlived the process that started it"
        time.sleep(0.1)
    assert errors.read_text() == ""  # it ended watching its parent, not on a usage error
    assert not _listening(port)


def _listening(port: int) -> bool:
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


async def test_a_server_still_starting_is_stopped_at_once_when_its_episode_is_cancelled(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C took 4-6 s with child servers: an episode cancelled while its servers were
    starting waited for each start to finish (or for the 5 s close timeout) before stopping it."""
    import harness.mcp_client as mcp_client
    from harness.world import create_world

    spawned: list[asyncio.subprocess.Process] = []
    both = asyncio.Event()

    async def never_ready(_port: int, proc: asyncio.subprocess.Process, _timeout_s: float) -> None:
        spawned.append(proc)
        if len(spawned) == 2:
            both.set()
        await asyncio.Event().wait()  # the child never comes up: only cancelling ends the wait

    monkeypatch.setattr(mcp_children, "wait_for_port", never_ready)
    monkeypatch.setattr(mcp_client, "SERVER_CLOSE_TIMEOUT_S", 3600.0)  # no close timeout to fall back on
    (task,) = load_tasks("lms-due-reminder")
    world = create_world(task, "e1", tmp_path)

    async def episode() -> None:
        async with mcp_client.ServerPool(["lms", "local"], world.access(), "http"):
            raise AssertionError("the servers cannot be up")

    try:
        started = asyncio.create_task(episode())
        async with asyncio.timeout(60):
            await both.wait()
        started.cancel()
        async with asyncio.timeout(60):  # a guard against the hang this test pins, not a measure
            with pytest.raises(asyncio.CancelledError):
                await started
    finally:
        world.close()
    assert [p.returncode is not None for p in spawned] == [True, True]  # both children stopped


def test_a_stdio_server_ends_at_once_when_its_input_closes_keeping_what_it_wrote(tmp_path: Path) -> None:
    """A stdio server whose client closes its input ends with status 0 at once (`os._exit`,
    skipping the interpreter's tear-down, 0.5-1.5 s that every stdio episode end waited for)
    and loses nothing: a write it answered is in its database, its WAL folded in."""
    import json
    import sqlite3

    from mcp_servers.lms.seed import COURSES

    db = tmp_path / "w.db"
    proc = subprocess.Popen(
        [sys.executable, "-m", "mcp_servers.lms", "--workspace", str(tmp_path / "ws"), "--db", f"sqlite:///{db}"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert proc.stdin is not None and proc.stdout is not None
    messages = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
         "params": {"name": "post_announcement", "arguments": {"course": COURSES[0][0], "title": "T", "body": "B"}}},
    ]  # fmt: skip
    for message in messages:
        proc.stdin.write(json.dumps(message) + "\n")
    proc.stdin.flush()
    answers = [json.loads(proc.stdout.readline()) for _ in range(2)]
    assert "Announcement" in answers[1]["result"]["content"][0]["text"], answers[1]
    proc.stdin.close()
    assert proc.wait(timeout=60) == 0  # a hang guard, not a time limit
    assert not (tmp_path / "w.db-wal").exists()  # its connections were closed before the exit
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT title, body FROM lms_announcement WHERE title = 'T'").fetchall() == [
            ("T", "B")
        ]


async def test_one_crash_seen_by_several_calls_at_once_is_one_failure_regression(tmp_path: Path) -> None:
    """A server that died under calls of one message (or of a wave's sub-agents) failed once:
    every call it failed got a tool error and the server was restarted once. The second call to
    see the same death was taken for a failure after the restart, and ended the episode."""
    seen: list[list[str]] = []

    def main(v: View) -> AssistantMessage:
        results = [m.content for m in v.messages if m.role == "tool"]
        if len(results) == 1:  # after a good call: kill the server before the next three
            kill_server("lms")
        if len(results) >= 4:
            seen.append(results[1:])
            return say("done")
        terms = ("2026-fall", "2026-spring", "2025-fall") if results else ("2026-fall",)
        return say("", *(call("mcp__lms__list_courses", term=t) for t in terms))

    out = await run_scripted(tmp_path, main, variant="sa", task="lms-due-reminder", transport="stdio")
    assert out.rt.termination == "text_only"
    (results,) = seen
    assert all("failed" in r and "restarted" in r for r in results), results
    (restart,) = out.kinds("server_restart")  # one restart, one event, with what it was
    assert restart.data["server"] == "lms" and restart.data["cause"], restart
    assert not [c for _, c in children(os.getpid()) if "mcp_servers." in c]


async def test_a_server_that_never_lists_its_tools_fails_its_start_regression(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Listing a server's tools was the one MCP call with no timeout, and it came before the
    episode's time budget: a server that answered the handshake but never its tool list held
    the episode, and the run, for ever."""
    import mcp

    import harness.mcp_client as mcp_client

    async def never_lists(_client: object, *_args: object, **_kwargs: object) -> None:
        await asyncio.Event().wait()

    monkeypatch.setattr(mcp.Client, "list_tools", never_lists)
    monkeypatch.setattr(mcp_client, "SERVER_START_TIMEOUT_S", 0.5)
    await _start_fails(tmp_path, ["lms", "local"], "inprocess", "lms")


async def _start_fails(tmp_path: Path, servers: list[str], transport: Transport, match: str) -> None:
    """Starting `servers` over a fresh world of lms-due-reminder raises ServerFailure matching `match`."""
    from harness.mcp_client import ServerPool
    from harness.world import create_world

    (task,) = load_tasks("lms-due-reminder")
    world = create_world(task, "e1", tmp_path)
    try:
        async with asyncio.timeout(60):  # a guard against a hang these tests pin, not a measure
            with pytest.raises(ServerFailure, match=match):
                async with ServerPool(servers, world.access(), transport):
                    raise AssertionError("the servers cannot be up")
    finally:
        world.close()


async def test_child_servers_of_concurrent_episodes_start_a_few_at_a_time_regression(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every episode started its child servers at once: 150 of them on 2 cores each took more
    than the 30 s start timeout to import, and 46 of 48 episodes of a `--server-transport stdio
    --concurrency 48` run were absent (harness_error, TimeoutError)."""
    import harness.mcp_client as mcp_client
    from harness.world import create_world

    starting: list[int] = []
    most = 0
    wait_for_port = mcp_children.wait_for_port

    async def counted(port: int, proc: asyncio.subprocess.Process, timeout_s: float) -> None:
        nonlocal most
        starting.append(port)
        most = max(most, len(starting))
        try:
            await wait_for_port(port, proc, timeout_s)
        finally:
            starting.remove(port)

    monkeypatch.setattr(mcp_children, "wait_for_port", counted)
    monkeypatch.setattr(mcp_children, "CHILD_STARTS_AT_ONCE", 2)
    (task,) = load_tasks("lms-due-reminder")
    worlds = [create_world(task, f"e{i}", tmp_path) for i in range(2)]

    async def episode(world: object) -> int:
        async with mcp_client.ServerPool(["lms", "local"], world.access(), "http") as pool:  # type: ignore[attr-defined]
            return len(pool.catalog)

    try:
        listed = await asyncio.gather(*(episode(w) for w in worlds))
    finally:
        for world in worlds:
            world.close()
    assert all(listed) and most == 2  # four children, two starting at a time


async def test_a_server_that_does_not_start_in_time_is_named_regression(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A child server's start that timed out was recorded as the reason 'TimeoutError: ', which
    named neither the server nor what it did not do."""
    import harness.mcp_client as mcp_client

    async def never_ready(_port: int, _proc: asyncio.subprocess.Process, _timeout_s: float) -> None:
        await asyncio.Event().wait()

    monkeypatch.setattr(mcp_children, "wait_for_port", never_ready)
    monkeypatch.setattr(mcp_client, "SERVER_START_TIMEOUT_S", 0.5)
    await _start_fails(tmp_path, ["lms"], "http", r"server lms did not start within 0\.5 s")


async def test_an_http_server_s_port_taken_before_it_listens_does_not_fail_its_start_regression(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The harness chose a free port and the child bound it once started, a second later; when
    another process took the port meanwhile, the harness spoke to that process's server, which
    refused it, and the episode was absent ('server sheets failed to start: … Server returned
    an error response', seen in a kill -9 / --resume run beside another process's servers)."""
    import threading

    import harness.mcp_client as mcp_client
    from harness.world import create_world

    taken = socket.create_server(("127.0.0.1", 0))  # another process's server on the chosen port

    def refuse() -> None:
        with contextlib.suppress(OSError):
            while True:
                conn, _ = taken.accept()
                conn.recv(65536)
                conn.sendall(b"HTTP/1.1 401 Unauthorized\r\ncontent-length: 0\r\n\r\n")
                conn.close()

    threading.Thread(target=refuse, daemon=True).start()
    monkeypatch.setattr(mcp_children, "free_port", lambda: taken.getsockname()[1])
    (task,) = load_tasks("lms-due-reminder")
    world = create_world(task, "e1", tmp_path)
    try:
        async with mcp_client.ServerPool(["lms"], world.access(), "http") as pool:
            outcome = await pool.call("lms", "list_courses", {"term": "2026-fall"})
    finally:
        world.close()
        taken.close()
    assert not outcome.is_error and outcome.text.startswith("[")
