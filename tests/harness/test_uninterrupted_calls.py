"""In-process MCP calls run to their end without handing the loop over at zero-time checkpoints.

A wide wave depends on it: each sub-agent's step is then one piece of CPU work, served first
come, first served, instead of every step being cut at the SDK's `sleep(0)` and interleaved
with the steps of all the other sub-agents (which kept a wave of 128 in lock-step).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Coroutine
from pathlib import Path
from typing import Any, TypeVar

import mcp.server._otel as server_otel
import pytest
from mcp import Client

from harness.catalog import load_tasks
from harness.mcp_client import ServerPool
from harness.mcp_inprocess import MAX_SKIPPED_CHECKPOINTS, Uninterrupted
from harness.world import create_world
from mcp_servers.common import registry
from mcp_servers.common.spec import ServerContext
from tests.harness.support import children

T = TypeVar("T")


async def _other(log: list[str], n: int = 3) -> None:
    for _ in range(n):
        log.append("other")
        await asyncio.sleep(0)


async def test_zero_time_checkpoints_are_skipped_so_no_other_task_runs_in_between() -> None:
    log: list[str] = []

    async def work() -> str:
        for i in range(3):
            log.append(f"work {i}")
            await asyncio.sleep(0)
        return "result"

    a = asyncio.create_task(_run(work()))
    b = asyncio.create_task(_other(log))
    assert await a == "result"
    await b
    assert log == ["work 0", "work 1", "work 2", "other", "other", "other"]


async def test_a_plain_await_of_the_same_work_is_interleaved() -> None:
    """The control: without the wrapper the other task runs at every checkpoint."""
    log: list[str] = []

    async def work() -> None:
        for i in range(3):
            log.append(f"work {i}")
            await asyncio.sleep(0)

    a = asyncio.create_task(work())
    b = asyncio.create_task(_other(log))
    await asyncio.gather(a, b)
    assert log == ["work 0", "other", "work 1", "other", "work 2", "other"]


async def test_a_real_wait_still_suspends_and_resumes_with_the_value() -> None:
    loop = asyncio.get_running_loop()
    fut: asyncio.Future[int] = loop.create_future()
    log: list[str] = []

    async def work() -> int:
        log.append("waiting")
        value = await fut
        log.append("woken")
        return value * 2

    task = asyncio.create_task(_run(work()))
    await asyncio.sleep(0)
    assert log == ["waiting"]
    log.append("setter")
    fut.set_result(21)
    assert await task == 42
    assert log == ["waiting", "setter", "woken"]


async def _run(coro: Coroutine[Any, Any, T]) -> T:
    result: T = await Uninterrupted(coro)
    return result


async def test_cancellation_reaches_the_coroutine_while_it_waits() -> None:
    loop = asyncio.get_running_loop()
    never: asyncio.Future[None] = loop.create_future()
    cleaned: list[str] = []

    async def work() -> None:
        try:
            await never
        finally:
            cleaned.append("finally ran")

    task = asyncio.create_task(_run(work()))
    await asyncio.sleep(0)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert cleaned == ["finally ran"]


async def test_an_exception_inside_propagates_unchanged() -> None:
    async def work() -> None:
        await asyncio.sleep(0)
        raise ValueError("boom")

    with pytest.raises(ValueError, match="boom"):
        await _run(work())


async def test_polling_with_sleep_zero_still_lets_the_other_task_run() -> None:
    """A loop of checkpoints waiting for another task must not spin forever."""
    flag: list[bool] = []
    polls = 0

    async def poller() -> int:
        nonlocal polls
        while not flag:
            polls += 1
            await asyncio.sleep(0)
        return polls

    async def setter() -> None:
        flag.append(True)

    task = asyncio.create_task(_run(poller()))
    other = asyncio.create_task(setter())
    assert await task == MAX_SKIPPED_CHECKPOINTS + 1
    await other


async def test_an_inprocess_tool_call_completes_before_another_task_gets_the_loop(tmp_path: Path) -> None:
    (task,) = load_tasks("lms-due-reminder")
    world = create_world(task, "t", tmp_path)
    log: list[str] = []
    try:
        async with ServerPool(["local"], world.access()) as pool:

            async def agent() -> None:
                log.append("call")
                outcome = await pool.call("local", "todo_read", {})
                assert not outcome.is_error
                log.append("result")

            await asyncio.gather(agent(), _other(log, 2))
    finally:
        world.close()
    assert log == ["call", "result", "other", "other"]


async def test_the_call_timeout_still_stops_an_inprocess_tool_that_waits(tmp_path: Path) -> None:
    (task,) = load_tasks("lms-due-reminder")
    world = create_world(task, "t", tmp_path)
    try:
        access = world.access({"sandbox": "process"})
        async with ServerPool(["local"], access, timeout_s=0.3) as pool:
            code = "import time; time.sleep(5)"
            slow = await pool.call("local", "python_execute", {"code": code, "timeout_s": 30})
            assert slow.is_error and "timed out after 0.3 s" in slow.text, slow.text
            # The sandboxed child is killed with the call (SIGKILL lands within moments, far
            # sooner than its 5 s sleep would end).
            for _ in range(200):
                if not [c for _, c in children(os.getpid()) if code in c]:
                    break
                await asyncio.sleep(0.01)
            else:
                raise AssertionError("the sandboxed child outlived its cancelled call")
            after = await pool.call("local", "todo_read", {})
            assert not after.is_error  # the connection survives the cancelled call
    finally:
        world.close()


async def test_inprocess_servers_open_no_tracing_span_but_a_served_one_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The SDK's OpenTelemetry middleware (13% of an in-process call) is dropped from the pool's
    in-process servers; a server built for `mseval servers serve` keeps it."""
    spans: list[str] = []

    @contextlib.contextmanager
    def recording_span(name: str, **_: Any) -> Any:
        spans.append(name)
        yield _NoSpan()

    monkeypatch.setattr(server_otel, "otel_span", recording_span)
    (task,) = load_tasks("lms-due-reminder")
    world = create_world(task, "t", tmp_path)
    try:
        async with ServerPool(["local"], world.access()) as pool:
            assert not (await pool.call("local", "todo_read", {})).is_error
        assert spans == []
        ctx = ServerContext(engine=world.engine, workspace=world.workspace)
        async with Client(registry.spec("local").build(ctx)) as client:
            await client.call_tool("todo_read", {})
        assert "tools/call todo_read" in spans
    finally:
        world.close()


class _NoSpan:
    def set_attribute(self, *_: object) -> None: ...

    def set_attributes(self, *_: object) -> None: ...

    def set_status(self, *_: object) -> None: ...
