"""Driving the real runtime with a scripted model over real in-process MCP servers."""

from __future__ import annotations

import asyncio
import os
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from harness.budgets import Budgets
from harness.catalog import load_tasks
from harness.episode import EpisodeRuntime, EpisodeSetup
from harness.events import EventLog
from harness.mcp_client import ServerPool
from harness.models.base import AssistantMessage, Message, ModelSettings, ToolSpec, UserMessage
from harness.models.scripted import ScriptedModel
from harness.profiles import load_profiles
from harness.tools import CLAIM_DONE
from harness.world import EpisodeWorld, create_world

Turn = Callable[["View"], AssistantMessage | Any]


@dataclass
class View:
    """What one model call sees, plus helpers for writing scripts."""

    messages: Sequence[Message]
    tools: Sequence[ToolSpec]

    @property
    def is_main(self) -> bool:
        return any(t.name == CLAIM_DONE for t in self.tools)

    @property
    def tool_names(self) -> list[str]:
        return [t.name for t in self.tools]

    @property
    def task(self) -> str:
        """The latest user message (the task, or a sub-agent's current prompt)."""
        return next(m.content for m in reversed(self.messages) if isinstance(m, UserMessage))

    @property
    def step(self) -> int:
        """Assistant turns since the latest user message."""
        n = 0
        for m in reversed(self.messages):
            if isinstance(m, UserMessage):
                break
            n += isinstance(m, AssistantMessage)
        return n


@dataclass
class Outcome:
    rt: EpisodeRuntime
    events: EventLog
    world: EpisodeWorld
    seen: list[View] = field(default_factory=list)

    def kinds(self, kind: str) -> list[Any]:
        return self.events.of_kind(kind)


async def run_scripted(
    tmp_path: Path,
    main: Turn,
    sub: Turn | None = None,
    *,
    variant: str = "spec",
    task: str = "lms-enrollment-overview",
    budgets: Budgets | None = None,
    async_reply: Callable[[View], Any] | None = None,
    transport: str = "inprocess",
) -> Outcome:
    """One episode of `task` under `variant`, the model scripted by `main` and `sub`.

    `async_reply`, when given, is awaited before each reply (to hold agents at a barrier).
    """
    (the_task,) = load_tasks(task)
    profiles = load_profiles()
    v = profiles.variant(variant)
    world = create_world(the_task, "ep", tmp_path)
    seen: list[View] = []

    def reply(messages: Sequence[Message], tools: Sequence[ToolSpec]) -> AssistantMessage:
        view = View(list(messages), list(tools))
        seen.append(view)
        fn = main if view.is_main else sub
        assert fn is not None, "a sub-agent was started but the script has no sub-agent turns"
        result = fn(view)
        if isinstance(result, BaseException):
            raise result
        return result  # type: ignore[no-any-return]

    model = ScriptedModel(reply)
    if async_reply is not None:
        inner = model.generate

        async def generate(messages: Sequence[Message], tools: Sequence[ToolSpec], settings: Any) -> Any:
            await async_reply(View(list(messages), list(tools)))
            return await inner(messages, tools, settings)

        model.generate = generate  # type: ignore[method-assign]

    async def no_sleep(_s: float) -> None:
        await asyncio.sleep(0)

    setup = EpisodeSetup(
        model=model, settings=ModelSettings(),
        variant=v, roles=profiles.roles(v), servers=the_task.servers, prompt=the_task.spec.prompt,
        budgets=budgets or Budgets(), prior=the_task.prior, sleep=no_sleep,
    )  # fmt: skip
    events = EventLog()
    b = setup.budgets
    try:
        async with ServerPool(
            [*the_task.servers, "local"], world.access(), transport,  # type: ignore[arg-type]
            timeout_s=b.tool_timeout_s, result_bytes=b.tool_result_bytes, events=events,
        ) as pool:  # fmt: skip
            rt = EpisodeRuntime(setup, pool, events)
            try:
                async with asyncio.timeout(b.wall_time_s):
                    await rt.run()
            except TimeoutError:
                rt.termination = "time_limit"
    finally:
        world.engine.dispose()
    return Outcome(rt=rt, events=events, world=world, seen=seen)


@contextmanager
def a_world(tmp_path: Path) -> Iterator[EpisodeWorld]:
    """A fresh world of lms-due-reminder in `tmp_path`, closed after."""
    (task,) = load_tasks("lms-due-reminder")
    world = create_world(task, "e1", tmp_path)
    try:
        yield world
    finally:
        world.close()


def children(pid: int) -> list[tuple[int, str]]:
    """(pid, command line) of the processes whose parent is `pid` (Linux /proc)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
            found.append((int(entry), cmdline))
    return found


@contextmanager
def pg_store_in_schema(prefix: str) -> Iterator[str]:
    """A store URL on the PostgreSQL test server ($MSEVAL_TEST_PG_URL), in a schema of its own
    named `prefix_…`, dropped with everything in it afterwards."""
    import sqlalchemy as sa

    from tests.mcp_servers.support import PG_URL_ENV

    base = os.environ[PG_URL_ENV]
    schema = f"{prefix}_{uuid.uuid4().hex[:8]}"
    admin = sa.create_engine(base)
    with admin.begin() as conn:
        conn.exec_driver_sql(f"CREATE SCHEMA {schema}")
    try:
        yield f"{base}{'&' if '?' in base else '?'}options=-csearch_path%3D{schema}"
    finally:
        with admin.begin() as conn:
            conn.exec_driver_sql(f"DROP SCHEMA {schema} CASCADE")
        admin.dispose()
