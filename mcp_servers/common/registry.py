"""The server registry: every sub-package of `mcp_servers` with a `server.py` is a server.

Discovery by folder means a new server needs no edit here. `spec(name)` imports
`mcp_servers.<name>.server` and returns its `SPEC`.
"""

from __future__ import annotations

import importlib
from functools import cache
from pathlib import Path

from mcp_servers.common.spec import ServerSpec

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
