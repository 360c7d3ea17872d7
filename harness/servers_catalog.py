"""What every registered MCP server offers, read over MCP from throwaway in-process instances."""

from __future__ import annotations

import asyncio
import tempfile
from collections import Counter
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from harness.mcp_client import ServerPool, WorldAccess
from harness.tools import ToolInfo
from mcp_servers.common import registry
from mcp_servers.common.db import make_engine


@dataclass(frozen=True)
class ServerRow:
    name: str
    tools: int
    read: int
    write: int
    labels: dict[str, int]


async def _catalog() -> list[ToolInfo]:
    with tempfile.TemporaryDirectory(prefix="mseval-catalog-") as tmp:
        engine = make_engine("sqlite://")  # tools are only listed, never called
        access = WorldAccess(db_url="sqlite://", engine=engine, workspace=Path(tmp))
        async with ServerPool(list(registry.names()), access) as pool:
            return list(pool.catalog)


@cache
def tool_catalog() -> tuple[ToolInfo, ...]:
    return tuple(asyncio.run(_catalog()))


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
