"""Write tools called at once by several sub-agents: each reads, then writes, and a server runs
one of its write tools at a time, so no call acts on what another is about to change."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp.server.mcpserver import MCPServer
from sqlalchemy import text as sql

from mcp_servers.common import registry, tooling
from mcp_servers.common.spec import ServerContext
from mcp_servers.common.tooling import writer
from tests.mcp_servers.support import World, as_data, serve, text


async def _at_once(calls: int, call: Callable[[int], Awaitable[Any]]) -> list[str]:
    """The error texts of `calls` concurrent calls of `call(i)`."""
    results = await asyncio.gather(*(call(i) for i in range(calls)))
    return [text(r) for r in results if r.is_error]


async def test_rows_appended_at_once_all_land_below_each_other(world: World) -> None:
    """Regression: append_rows reads the last used row, then writes below it; of 30 calls at once
    on one sheet, 22 wrote to a row another had just taken and failed on a UNIQUE constraint."""
    async with serve("sheets", world) as client:
        made = as_data(await client.call_tool("create_spreadsheet", {"title": "Findings", "sheets": ["S"]}))
        book = made["created"]

        async def append(i: int) -> Any:
            rows = [[f"r{i}", i, part] for part in range(3)]
            return await client.call_tool(
                "append_rows", {"spreadsheet_id": book, "sheet": "S", "values": rows}
            )

        failed = await _at_once(30, append)
        assert not failed, f"{len(failed)} of 30 appends failed: {sorted(set(failed))[:2]}"
        read = as_data(await client.call_tool("read_range", {"spreadsheet_id": book, "range": "S!A1:C100"}))
    values = read["values"]
    assert len(values) == 90
    # each call's three rows together and in order, every call's rows there once
    blocks = [values[at : at + 3] for at in range(0, 90, 3)]
    assert all(b == [[b[0][0], b[0][1], part] for part in range(3)] for b in blocks), blocks
    assert sorted(b[0][1] for b in blocks) == list(range(30))


async def test_one_grade_set_at_once_many_times_stays_one_grade(world: World) -> None:
    """Regression: set_grade reads whether the grade exists, then inserts or updates it; calls
    at once for one student both inserted, and one failed on a UNIQUE constraint."""
    async with serve("lms", world) as client:

        async def grade(i: int) -> Any:
            return await client.call_tool(
                "set_grade", {"assignment_id": 10, "student": "S00002", "score": i % 50}
            )

        failed = await _at_once(100, grade)
        assert not failed, f"{len(failed)} of 100 grades failed: {sorted(set(failed))[:2]}"
    with world.engine.connect() as conn:
        rows = conn.execute(
            sql(
                "SELECT g.score FROM lms_grade g JOIN lms_student s ON s.id = g.student_id "
                "WHERE g.assignment_id = 10 AND s.student_number = 'S00002'"
            )
        ).all()
    assert len(rows) == 1 and 0 <= rows[0][0] < 50, rows


async def test_a_write_given_up_while_it_waits_for_its_turn_never_runs(world: World) -> None:
    """Review: the turn was a threading lock taken in the worker thread, so a call whose caller
    had timed out while it waited (another write of the server running) still ran afterwards,
    and a retry wrote twice. The turn is taken in the event loop, before the thread."""
    if world.base != "sqlite":
        pytest.skip("the turn does not depend on the database")
    app = registry.spec("sheets").build(ServerContext(engine=world.engine, workspace=world.workspace))
    async with Client(app) as client:
        made = as_data(await client.call_tool("create_spreadsheet", {"title": "Log", "sheets": ["S"]}))
        turn = tooling._WRITE_TURNS[app]
        held, done = anyio.Event(), anyio.Event()

        async def another_write() -> None:
            async with turn.lock:
                held.set()
                await done.wait()

        async with anyio.create_task_group() as tg:
            tg.start_soon(another_write)
            await held.wait()
            with anyio.move_on_after(0.2) as waited:  # the write cannot start while the turn is held
                await client.call_tool(
                    "append_rows", {"spreadsheet_id": made["created"], "sheet": "S", "values": [["late"]]}
                )
            done.set()
        assert waited.cancelled_caught
        async with turn.lock:  # had the call been queued, it would have had its turn before this
            pass
        read = as_data(
            await client.call_tool("read_range", {"spreadsheet_id": made["created"], "range": "S!A1:A5"})
        )
    assert read["values"] == []


async def test_a_write_whose_caller_gives_up_mid_write_still_holds_off_the_next() -> None:
    """Review: a caller cancelled while its write ran (the harness's tool timeout cancels the
    task) gave up the turn while the write went on in its thread, and the next write ran
    beside it. The write now holds the server's thread lock until it ends."""
    app = MCPServer("turns")
    first_running, let_first_end, guard = threading.Event(), threading.Event(), threading.Lock()
    running, most = [0], [0]

    @writer(app, "spreadsheet-build")
    def write(tag: str) -> str:
        """Write something slowly."""
        with guard:
            running[0] += 1
            most[0] = max(most[0], running[0])
        if tag == "first":
            first_running.set()
            let_first_end.wait(30)
        with guard:
            running[0] -= 1
        return tag

    async with Client(app) as client:
        first = asyncio.create_task(client.call_tool("write", {"tag": "first"}))
        await asyncio.to_thread(first_running.wait, 30)
        first.cancel()  # its caller gives up while it writes
        second = asyncio.create_task(client.call_tool("write", {"tag": "second"}))
        await asyncio.sleep(0.3)  # room for the second to start beside the first, were it allowed
        let_first_end.set()
        assert not (await second).is_error
        with contextlib.suppress(asyncio.CancelledError):
            await first
    assert most[0] == 1
