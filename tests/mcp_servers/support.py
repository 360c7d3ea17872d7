"""Test support for MCP servers: a fresh world, an in-memory client, and the contract checks
every server must pass (annotations, labels, valid calls, read-only really changes nothing)."""

from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcp import Client
from sqlalchemy.engine import Engine

from contracts.labels import LABELS
from mcp_servers.common import registry, worldstate
from mcp_servers.common.db import make_engine
from mcp_servers.common.spec import ServerContext

PG_URL_ENV = "MSEVAL_TEST_PG_URL"


@dataclass
class World:
    url: str
    engine: Engine
    workspace: Path
    base: str = "sqlite"

    def dump(self, prefix: str = "") -> dict[str, list[tuple[Any, ...]]]:
        return worldstate.dump(self.engine, prefix)


def make_world(tmp_path: Path, backend: str = "sqlite") -> World:
    """A fresh episode world; backend "postgres" uses the server at $MSEVAL_TEST_PG_URL."""
    base = "sqlite" if backend == "sqlite" else os.environ[PG_URL_ENV]
    url = worldstate.create_episode_db(base, f"t{abs(hash(tmp_path)) % 10**8}", tmp_path / "db")
    workspace = tmp_path / "workspace"
    workspace.mkdir(exist_ok=True)
    return World(url=url, engine=make_engine(url), workspace=workspace, base=base)


@asynccontextmanager
async def serve(name: str, world: World, **options: Any) -> AsyncIterator[Client]:
    """An MCP client connected in-process to a fresh instance of server `name`."""
    app = registry.spec(name).build(
        ServerContext(engine=world.engine, workspace=world.workspace, options=options)
    )
    async with Client(app) as client:
        yield client


def text(result: Any) -> str:
    return "".join(getattr(block, "text", "") for block in result.content)


def as_data(result: Any) -> Any:
    assert not result.is_error, text(result)
    return json.loads(text(result))


async def check_no_tool_writes(
    name: str, world: World, calls: Mapping[str, dict[str, Any]], tables: tuple[str, ...]
) -> None:
    """Server `name`'s every write tool (any not marked read-only, a new one too), run on `calls`
    in their order (they build on each other), leaves `tables` as they were: what a server may
    keep for its lifetime (`mcp_servers.common.readonce`)."""

    def kept() -> dict[str, list[tuple[Any, ...]]]:
        return {t: rows for t, rows in world.dump(f"{name}_").items() if t in tables}

    before = kept()
    assert set(before) == set(tables) and all(before.values())
    async with serve(name, world) as client:
        writers = [
            t.name
            for t in (await client.list_tools()).tools
            if not (t.annotations and t.annotations.read_only_hint)
        ]
        assert writers and set(writers) <= set(calls)
        for tool in [n for n in calls if n in writers]:
            result = await client.call_tool(tool, calls[tool])
            assert not result.is_error, text(result)
    assert kept() == before


async def check_contract(client: Client, world: World, calls: Mapping[str, dict[str, Any]]) -> None:
    """Every tool: annotated, labelled, documented, covered by `calls`, succeeds on them; every
    read-only tool leaves the database exactly as it was."""
    tools = (await client.list_tools()).tools
    names = {t.name for t in tools}
    assert names == set(calls), (
        f"calls must cover exactly the tools: missing {names - set(calls)}, extra {set(calls) - names}"
    )
    for t in tools:
        assert t.annotations is not None and t.annotations.read_only_hint is not None, t.name
        assert t.meta and t.meta.get("label") in LABELS, t.name
        assert t.description, t.name
        assert t.input_schema.get("type") == "object", t.name
    read_only = {t.name for t in tools if t.annotations and t.annotations.read_only_hint}
    # A server touches only its own tables (`<name>_*`); dumping the whole world (every
    # server's seeded data) before and after each read costs ~0.7 s a time.
    own = f"{client.server_info.name}_" if client.server_info else ""
    # Reads first, against an untouched world; each must change nothing.
    for name in sorted(read_only):
        before = world.dump(own)
        result = await client.call_tool(name, calls[name])
        assert not result.is_error, f"{name}: {text(result)}"
        assert world.dump(own) == before, f"read-only tool {name} changed the database"
    for name in [n for n in calls if n not in read_only]:
        result = await client.call_tool(name, calls[name])
        assert not result.is_error, f"{name}: {text(result)}"


async def check_confinement(
    client: Client, world: World, tool: str, args: dict[str, Any], path_key: str = "path"
) -> None:
    """`tool` refuses paths that leave the workspace: '..', absolute paths, and symlinks out."""
    outside = world.workspace.parent / "outside"
    outside.mkdir(exist_ok=True)
    (outside / "secret.txt").write_text("secret")
    link = world.workspace / "escape"
    if not link.exists():
        link.symlink_to(outside, target_is_directory=True)
    suffix = Path(str(args.get(path_key, "x.txt"))).suffix or ".txt"
    for bad in (
        f"../outside/secret{suffix}",
        f"{outside}/secret{suffix}",
        f"escape/secret{suffix}",
        f"a/../../x{suffix}",
    ):
        result = await client.call_tool(tool, {**args, path_key: bad})
        assert result.is_error, f"{tool} accepted {bad!r}: {text(result)}"
        assert "refused" in text(result), text(result)
    assert sorted(p.name for p in outside.iterdir()) == ["secret.txt"]
