"""The tools of an episode: what the MCP servers offer, and who may call what.

Tool names follow the Kimi Code convention `mcp__<server>__<tool>`. An agent's allowlist is
its profile's globs ∩ the task's authorized servers (plus `local`), minus its disallow list;
a read-only profile only ever sees tools annotated `readOnlyHint: true`; sub-agents never see
`claim_done` (nor the delegation tools, which are not MCP tools at all).
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from harness.models.base import ToolSpec

CLAIM_DONE = "mcp__local__claim_done"
ALWAYS_AUTHORIZED = frozenset({"local"})


def qualified(server: str, tool: str) -> str:
    return f"mcp__{server}__{tool}"


@dataclass(frozen=True)
class ToolInfo:
    server: str
    tool: str
    spec: ToolSpec  # spec.name is the qualified name
    read_only: bool
    label: str | None
    bookkeeping: bool = False

    @property
    def name(self) -> str:
        return self.spec.name


def matches(name: str, globs: Iterable[str]) -> bool:
    return any(fnmatch.fnmatchcase(name, g) for g in globs)


def allowlist(
    catalog: Sequence[ToolInfo],
    *,
    tools: Sequence[str],
    disallowed: Sequence[str],
    read_only: bool,
    servers: Iterable[str],
    subagent: bool,
) -> dict[str, ToolInfo]:
    """The tools an agent is offered, by qualified name, in catalog order."""
    authorized = set(servers) | ALWAYS_AUTHORIZED
    out: dict[str, ToolInfo] = {}
    for info in catalog:
        if info.server not in authorized or not matches(info.name, tools) or matches(info.name, disallowed):
            continue
        if read_only and not info.read_only:
            continue
        if subagent and info.name == CLAIM_DONE:
            continue
        out[info.name] = info
    return out
