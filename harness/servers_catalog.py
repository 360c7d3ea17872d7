"""What every registered MCP server offers, read over MCP from throwaway in-process instances.

Listing starts every server (about 2.5 s of imports and tool registration), and every command
that checks a task, profile or prior against the tools needs the list; so it is kept in
`$MSEVAL_CACHE/catalog-<key>.json`, keyed by the server code, the code that reads a listing,
and the versions of the MCP SDK and pydantic (which write the input schemas). A cache that
cannot be read or written is passed over: the servers are listed as if there were none.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sys
import tempfile
from collections import Counter
from dataclasses import asdict, dataclass
from functools import cache
from importlib import metadata
from pathlib import Path

from harness.models.base import ToolSpec
from harness.tools import ToolInfo
from mcp_servers.common import registry
from mcp_servers.common.codehash import STALE_S, code_key, default_cache_dir, in_use, remove_stale

_HARNESS = Path(__file__).resolve().parent


@dataclass(frozen=True)
class ServerRow:
    name: str
    tools: int
    read: int
    write: int
    labels: dict[str, int]


async def _catalog() -> list[ToolInfo]:
    from harness.mcp_client import ServerPool, WorldAccess
    from mcp_servers.common.db import make_engine

    with tempfile.TemporaryDirectory(prefix="mseval-catalog-") as tmp:
        engine = make_engine("sqlite://")  # tools are only listed, never called
        access = WorldAccess(db_url="sqlite://", engine=engine, workspace=Path(tmp))
        async with ServerPool(list(registry.names()), access) as pool:
            return list(pool.catalog)


def catalog_key() -> str:
    versions = [f"py{sys.version_info[0]}.{sys.version_info[1]}"]
    versions += [f"{dist}{metadata.version(dist)}" for dist in ("mcp", "pydantic")]
    code = code_key(*(_HARNESS / name for name in ("mcp_client.py", "tools.py", "servers_catalog.py")))
    return f"{code}-{'-'.join(versions)}"


def _read(path: Path) -> tuple[ToolInfo, ...] | None:
    try:
        rows = json.loads(path.read_text())
        tools = tuple(ToolInfo(**{**row, "spec": ToolSpec(**row["spec"])}) for row in rows)
    except (OSError, ValueError, TypeError, KeyError):  # absent, cut short or of another shape
        return None
    if not tools:  # every catalog has the local server's tools
        return None
    with contextlib.suppress(OSError):  # a cache that cannot be touched is still read
        in_use(path)
    return tools


def _write(path: Path, tools: tuple[ToolInfo, ...]) -> None:
    rows = [{**asdict(t), "spec": t.spec.model_dump()} for t in tools]
    tmp = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".catalog-", suffix=".tmp")
        with os.fdopen(fd, "w") as f:
            json.dump(rows, f)
        os.replace(tmp, path)  # a reader sees the old file or the whole new one
    except OSError:
        if tmp is not None:
            Path(tmp).unlink(missing_ok=True)
        return
    remove_stale(((f, STALE_S) for f in path.parent.glob("catalog-*.json")), keep=path)


@cache
def tool_catalog() -> tuple[ToolInfo, ...]:
    """Every registered server's tools, from the cache when the code is the same."""
    path = default_cache_dir() / f"catalog-{catalog_key()}.json"
    if (tools := _read(path)) is not None:
        return tools
    tools = tuple(asyncio.run(_catalog()))
    _write(path, tools)
    return tools


def tool_modes() -> dict[str, bool]:
    """Every known qualified tool name -> whether it is read-only."""
    return {t.name: t.read_only for t in tool_catalog()}


def describe() -> list[ServerRow]:
    rows = []
    for name in registry.names():
        tools = [t for t in tool_catalog() if t.server == name]
        rows.append(
            ServerRow(
                name=name,
                tools=len(tools),
                read=sum(t.read_only for t in tools),
                write=sum(not t.read_only for t in tools),
                labels=dict(Counter(t.label or "?" for t in tools)),
            )  # fmt: skip
        )
    return rows
