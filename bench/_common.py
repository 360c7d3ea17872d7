"""Shared by the benchmarks: a scripted episode on the real runtime, and the output format.

Every benchmark prints one line per figure, `NAME VALUE UNIT`, so scripts can read them.

With `MSEVAL_BENCH_SMOKE=1` in the environment a benchmark runs at a tiny size (`sized`): the
same code paths and the same figure names, in seconds, with figures that mean nothing. The test
suite runs every benchmark that way (tests/test_bench_smoke.py), so a change that breaks one
is caught by `make test`, not by the next `make bench`.
"""

from __future__ import annotations

import asyncio
import os
import resource
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from contracts.episode import Usage  # noqa: E402
from harness.budgets import Budgets  # noqa: E402
from harness.catalog import load_tasks  # noqa: E402
from harness.episode import EpisodeRuntime, EpisodeSetup  # noqa: E402
from harness.events import EventLog  # noqa: E402
from harness.mcp_client import ServerPool  # noqa: E402
from harness.models.base import AssistantMessage, Message, ModelSettings, ToolSpec  # noqa: E402
from harness.models.scripted import ScriptedModel  # noqa: E402
from harness.profiles import load_profiles  # noqa: E402
from harness.world import create_world  # noqa: E402

SMOKE = os.environ.get("MSEVAL_BENCH_SMOKE") == "1"
if SMOKE:
    print("smoke run (MSEVAL_BENCH_SMOKE=1): tiny sizes, the figures mean nothing", file=sys.stderr)


def sized(full: int, smoke: int) -> int:
    """`full` in a real run, `smoke` under MSEVAL_BENCH_SMOKE=1."""
    return smoke if SMOKE else full


def emit(name: str, value: float, unit: str) -> None:
    print(f"{name} {value:.4g} {unit}", flush=True)


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


async def scripted_episode(
    reply: Callable[[Sequence[Message], Sequence[ToolSpec]], AssistantMessage],
    *,
    variant: str = "sa",
    budgets: Budgets | None = None,
    latency_s: float = 0.0,
    task: str = "lms-due-reminder",
    inside: Callable[[EpisodeRuntime], Awaitable[Any]] | None = None,
    transport: str = "inprocess",
) -> EpisodeRuntime:
    """Run one episode of `task` with a scripted model on in-process servers; return its runtime."""
    (the_task,) = load_tasks(task)
    profiles = load_profiles()
    v = profiles.variant(variant)
    with tempfile.TemporaryDirectory() as tmp:
        world = create_world(the_task, "bench", Path(tmp))
        setup = EpisodeSetup(
            model=ScriptedModel(reply, latency_s=latency_s, usage=Usage(input_tokens=1000, output_tokens=20)), settings=ModelSettings(), variant=v,
            roles=profiles.roles(v), servers=the_task.servers, prompt=the_task.spec.prompt,
            budgets=budgets or Budgets(),
        )  # fmt: skip
        try:
            b = setup.budgets
            async with ServerPool(
                [*the_task.servers, "local"], world.access(), transport,  # type: ignore[arg-type]
                timeout_s=b.tool_timeout_s, result_bytes=b.tool_result_bytes,
            ) as pool:  # fmt: skip
                rt = EpisodeRuntime(setup, pool, EventLog())
                await (inside(rt) if inside else rt.run())
        finally:
            world.close()
    return rt


async def mcp_sdk_call_ms(n: int = sized(2000, 10)) -> float:
    """CPU milliseconds of one in-process MCP call of `todo_read` made directly with the SDK
    client (no harness around it), the mean of n calls in a row after a warm-up."""
    from mcp import Client

    from harness.mcp_inprocess import without_tracing
    from mcp_servers.common import registry
    from mcp_servers.common.db import make_engine
    from mcp_servers.common.spec import ServerContext

    with tempfile.TemporaryDirectory() as tmp:
        app = without_tracing(
            registry.spec("local").build(ServerContext(make_engine("sqlite://"), Path(tmp)))
        )
        async with Client(app) as client:
            return await _cpu_ms_per_call(client, n, warm=sized(200, 2))


async def mcp_stdio_call_client_ms(n: int = sized(1000, 10)) -> float:
    """CPU milliseconds spent in THIS process by one MCP call of `todo_read` to the same server
    run as a stdio child process (the SDK client alone; the server's work is the child's), the
    mean of n calls in a row after a warm-up: what moving servers out of process would leave on
    the agents' core."""
    from mcp import Client, StdioServerParameters

    from harness.mcp_children import child_env
    from mcp_servers.common.bootstrap import DB_ENV

    with tempfile.TemporaryDirectory() as tmp:
        env = {**child_env(), DB_ENV: f"sqlite:///{tmp}/world.sqlite"}
        args = ["-m", "mcp_servers.local", "--workspace", tmp, "--no-seed"]
        async with Client(StdioServerParameters(command=sys.executable, args=args, env=env)) as client:
            return await _cpu_ms_per_call(client, n, warm=sized(100, 2))


async def _cpu_ms_per_call(client: Any, n: int, *, warm: int) -> float:
    """This process's CPU milliseconds per `todo_read` call, the mean of n after `warm` calls."""
    for _ in range(warm):
        await client.call_tool("todo_read", {})
    t0 = time.process_time()
    for _ in range(n):
        await client.call_tool("todo_read", {})
    return (time.process_time() - t0) / n * 1e3


def run(coro: Awaitable[Any]) -> Any:
    return asyncio.run(coro)  # type: ignore[arg-type]
