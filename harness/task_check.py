"""A task's check on an episode's final world (its check.py), bounded in time."""

from __future__ import annotations

import asyncio
import contextlib
import threading

from harness.catalog import Task
from harness.checks import Criterion
from harness.world import EpisodeWorld

CHECK_TIMEOUT_S = 60.0
"""How long a task's check.py may take on the final world before it fails its check."""


async def bounded_check(task: Task, world: EpisodeWorld) -> tuple[list[Criterion], bool]:
    """`run_check` in a thread of its own, given up after `CHECK_TIMEOUT_S`: (criteria, finished).

    A check.py that never returns fails its check instead of holding the run. Its thread is a
    daemon, left running (a thread cannot be stopped), and it does not hold up the process at
    exit either; the caller keeps the episode's database, which the check may still be using.
    """
    loop = asyncio.get_running_loop()
    done: asyncio.Future[list[Criterion]] = loop.create_future()

    def settle(criteria: list[Criterion]) -> None:
        if not done.done():  # not given up on meanwhile
            done.set_result(criteria)

    def work() -> None:
        criteria = run_check(task, world)
        with contextlib.suppress(RuntimeError):  # the loop is closed: nobody waits any more
            loop.call_soon_threadsafe(settle, criteria)

    threading.Thread(target=work, name=f"check {task.id}", daemon=True).start()
    limit = CHECK_TIMEOUT_S
    try:
        return await asyncio.wait_for(done, limit), True
    except TimeoutError:
        return [Criterion("check", False, f"check.py did not finish within {limit:g} s")], False


def run_check(task: Task, world: EpisodeWorld) -> list[Criterion]:
    """The task's check on the final world; a check that raises fails with the error as message.

    `SystemExit` too: a check.py that calls `sys.exit()` fails its check instead of ending the run.
    A check that returns no criterion fails too: success needs at least one criterion met."""
    try:
        result = task.load_check()(world.for_check())
        criteria = [Criterion(str(c.name), bool(c.passed), str(c.message)) for c in result]
    except (Exception, SystemExit) as exc:
        return [Criterion("check", False, f"check.py raised {exc!r}")]
    return criteria or [Criterion("check", False, "check.py returned no criteria")]
