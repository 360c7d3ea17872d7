"""The server registry: every sub-package of `mcp_servers` with a `server.py` is a server.

Discovery by folder means a new server needs no edit here. `spec(name)` imports
`mcp_servers.<name>.server` and returns its `SPEC`.
"""

from __future__ import annotations

import importlib
import importlib.util
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

from mcp_servers.common.spec import ServerSpec

if TYPE_CHECKING:
    from sqlalchemy import Table

_ROOT = Path(__file__).resolve().parent.parent


@cache
def names() -> tuple[str, ...]:
    """All server names, sorted."""
    return tuple(
        sorted(
            p.name
            for p in _ROOT.iterdir()
            if p.is_dir()
            and p.name != "common"
            and (p / "server.py").is_file()
            and (p / "__init__.py").is_file()
        )
    )


@cache
def spec(name: str) -> ServerSpec:
    """The spec of server `name`; KeyError naming the known servers when there is none."""
    if name not in names():
        raise KeyError(f"unknown MCP server {name!r}; known: {', '.join(names())}")
    module = importlib.import_module(f"mcp_servers.{name}.server")
    found = getattr(module, "SPEC", None)
    if not isinstance(found, ServerSpec) or found.name != name:
        raise TypeError(f"mcp_servers.{name}.server must define SPEC = ServerSpec(name={name!r}, ...)")
    return found


def all_specs() -> list[ServerSpec]:
    return [spec(n) for n in names()]


def table(name: str) -> Table | None:
    """The world table `name`, or None when no server has it.

    Tables are named after their server (`lms_course`), so only that server's `schema` module
    is imported (a server module costs far more); any other name imports every server.
    """
    from sqlmodel import SQLModel

    tables = SQLModel.metadata.tables
    owner = next((n for n in names() if name.startswith(f"{n}_")), None)
    if name not in tables and owner is not None:
        if importlib.util.find_spec(f"mcp_servers.{owner}.schema") is not None:
            importlib.import_module(f"mcp_servers.{owner}.schema")
        else:
            spec(owner)
    if name not in tables:
        all_specs()
    return tables.get(name)
