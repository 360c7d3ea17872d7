"""`ServerSpec`: how a server package describes itself to the registry and the world builder."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy.engine import Engine

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer
    from sqlmodel import Session, SQLModel


@dataclass
class ServerContext:
    """What one server instance works on: the episode's database and workspace."""

    engine: Engine
    workspace: Path
    options: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ServerSpec:
    """A server package's description.

    `tables` are the SQLModel table classes the server owns (their names start with the
    server's name); `seed` fills them with deterministic data (same rows on every call).
    """

    name: str
    description: str
    build: Callable[[ServerContext], MCPServer]
    tables: Sequence[type[SQLModel]] = ()
    seed: Callable[[Session], None] | None = None
    scenario: str | None = None
