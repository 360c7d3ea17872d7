"""SIGTERM stops a run as Ctrl-C does: its episodes, servers and child processes close, the
finished episodes stay stored, and the command says how to resume, instead of the process being
killed where it stands."""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any


class Terminated(Exception):
    """SIGTERM arrived: the run was stopped as Ctrl-C stops it."""


async def until_terminated(work: Coroutine[Any, Any, Any]) -> Any:
    """Await `work`; SIGTERM cancels it (its episodes, servers and child processes close as on
    Ctrl-C) and raises `Terminated`, instead of killing the process where it stands."""
    import asyncio
    import signal

    loop, task = asyncio.get_running_loop(), asyncio.current_task()
    assert task is not None
    terminated: list[bool] = []

    def on_sigterm() -> None:
        terminated.append(True)
        task.cancel()

    loop.add_signal_handler(signal.SIGTERM, on_sigterm)
    try:
        return await work
    except asyncio.CancelledError:
        if terminated:
            raise Terminated from None
        raise
    finally:
        loop.remove_signal_handler(signal.SIGTERM)


def sync_until_terminated(work: Callable[[], Any]) -> Any:
    """`work()`; SIGTERM stops it as Ctrl-C does (the settings check; the Ray driver: its
    `finally` shuts Ray down) and raises `Terminated`, instead of killing the process where it
    stands. It is raised in `work` as KeyboardInterrupt, which Ray's waits let through (another
    exception raised in a signal handler comes out of them as a SystemError)."""
    import signal

    terminated: list[bool] = []

    def on_sigterm(_signum: int, _frame: Any) -> None:
        terminated.append(True)
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, on_sigterm)
    try:
        return work()
    except KeyboardInterrupt:
        if terminated:
            raise Terminated from None
        raise
    finally:
        signal.signal(signal.SIGTERM, previous)
