"""A fresh world and all its servers ready, in-process (SPEC §11: ≤ 50 ms).

For each task of the catalog (so for its own set of servers), time: copy the world template
and apply the task's setup, start every server of the task plus `local` over the MCP in-memory
transport, and list their tools. The template itself is built once beforehand (it is cached
on disk between runs). Median and worst over all tasks, several rounds each.

With `MSEVAL_BENCH_PG_URL` set to a PostgreSQL URL (`--db` of `mseval run`), the same for one
round of the tasks on that server (`episode_setup_pg_ms_*`: a schema per episode, copied from
the template schema, and its roles; each world dropped after), where the SPEC's target does not
apply: it is the price of a real database server.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import tempfile
import time
from pathlib import Path

from _common import emit, sized

from harness.catalog import load_tasks
from harness.mcp_client import ServerPool
from harness.world import create_world
from mcp_servers.common import registry, worldstate

ROUNDS = sized(5, 1)


async def one(task, root: Path, i: int, db: str = "sqlite") -> float:  # type: ignore[no-untyped-def]
    t0 = time.perf_counter()
    world = create_world(task, f"{task.id}-{i}", root, db)
    async with ServerPool([*task.servers, "local"], world.access()) as pool:
        assert pool.catalog
        elapsed = time.perf_counter() - t0
    world.close()
    return elapsed


def emit_spread(name: str, times: list[float]) -> None:
    times = sorted(times)
    emit(f"{name}_median", statistics.median(times) * 1e3, "ms")
    emit(f"{name}_p95", times[int(0.95 * (len(times) - 1))] * 1e3, "ms")
    emit(f"{name}_max", times[-1] * 1e3, "ms")


async def main() -> None:
    t0 = time.perf_counter()
    worldstate.sqlite_template()
    emit("template_ready_s", time.perf_counter() - t0, "s")
    tasks = load_tasks("all")[: sized(10_000, 3)]
    times: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        warm = create_world(tasks[0], "warm", Path(tmp))  # imports and every server's tool schemas
        async with ServerPool(list(registry.names()), warm.access()):
            pass
        warm.close()
        for i in range(ROUNDS):
            for task in tasks:
                times.append(await one(task, Path(tmp), i))
        all_servers = list(registry.names())
        world = create_world(tasks[0], "all-servers", Path(tmp))
        t1 = time.perf_counter()
        async with ServerPool(all_servers, world.access()):
            every = time.perf_counter() - t1
        world.close()
        pg_times: list[float] = []
        if pg := os.environ.get("MSEVAL_BENCH_PG_URL"):
            await one(tasks[0], Path(tmp), -1, pg)  # the template schema, built on first use
            pg_times = [await one(task, Path(tmp), 0, pg) for task in tasks]
    emit_spread("episode_setup_ms", times)
    emit("all_servers_start_ms", every * 1e3, "ms")
    emit("world_template_mb", worldstate.sqlite_template().stat().st_size / 1e6, "MB")
    emit("episodes_measured", len(times), "episodes")
    if pg_times:
        emit_spread("episode_setup_pg_ms", pg_times)


if __name__ == "__main__":
    asyncio.run(main())
