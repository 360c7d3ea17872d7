"""Servers as child processes: their environment, their turns to start, and reaching them by HTTP.

A child gets a minimal environment (`CHILD_ENV_KEYS`): API keys never reach a server. Children
start a few at a time per event loop (`CHILD_STARTS_AT_ONCE`). An HTTP child is reached at
127.0.0.1 with a bearer token of its own.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import weakref
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

# Environment variables a child server may inherit; nothing else (no API keys).
CHILD_ENV_KEYS = ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "PYTHONPATH", "MSEVAL_CACHE", "DOCKER_HOST")
# Child servers a process starts at once; the others wait their turn before their start is
# timed. Each costs ~1 s of CPU to import: 150 at once on 2 cores took over the start timeout
# (30 s) each, and 46 of 48 episodes of a `--concurrency 48` run were absent.
CHILD_STARTS_AT_ONCE = 2 * (os.cpu_count() or 1)


def child_env() -> dict[str, str]:
    env = {k: os.environ[k] for k in CHILD_ENV_KEYS if k in os.environ}
    project_root = str(Path(__file__).resolve().parent.parent)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (project_root, env.get("PYTHONPATH", "")) if p)
    return env


@contextlib.asynccontextmanager
async def with_token(url: str, token: str) -> AsyncIterator[Any]:
    """The streamable-HTTP transport to `url`, every request carrying the bearer token."""
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    headers = {"Authorization": f"Bearer {token}"}
    timeout = httpx2.Timeout(30.0, read=300.0)  # the SDK's own defaults for MCP over HTTP
    async with (
        httpx2.AsyncClient(headers=headers, timeout=timeout) as http,
        streamable_http_client(url, http_client=http) as streams,
    ):
        yield streams


def free_port() -> int:
    """A port free now (for tests and tools: it may be taken before it is listened on)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


_child_starts: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Semaphore] = (
    weakref.WeakKeyDictionary()
)


def start_turn(child: bool) -> contextlib.AbstractAsyncContextManager[Any]:
    """A turn to start a server: one of the event loop's `CHILD_STARTS_AT_ONCE` for a `child`
    process (every episode of a run shares them), none needed in-process."""
    if not child:
        return contextlib.nullcontext()
    loop = asyncio.get_running_loop()
    turns = _child_starts.get(loop)
    if turns is None:
        turns = _child_starts[loop] = asyncio.Semaphore(CHILD_STARTS_AT_ONCE)
    return turns


async def wait_for_port(port: int, proc: asyncio.subprocess.Process, timeout_s: float) -> None:
    """Until the child `proc` listens on 127.0.0.1:`port`; `ConnectionError` if it exits first."""
    async with asyncio.timeout(timeout_s):
        while True:
            if proc.returncode is not None:
                raise ConnectionError(f"HTTP server exited with code {proc.returncode} before listening")
            try:
                _, writer = await asyncio.open_connection("127.0.0.1", port)
                writer.close()
                await writer.wait_closed()
                return
            except OSError:
                await asyncio.sleep(0.05)
