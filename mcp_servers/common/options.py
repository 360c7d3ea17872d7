"""Server options: how a run's servers work, beside the world they work on.

One set per run, the same for every server; each server reads the keys it knows and keeps its
default for a key not given. `mseval run --server-option KEY=VALUE` hands them to in-process
servers as `ServerContext.options` and to child servers as `--option KEY=VALUE`, which
`python -m mcp_servers.NAME` and `mseval servers serve` take too. Checked here, so a bad one is
refused before anything starts.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from contracts.errors import Problem
from contracts.keyvalues import key_values

# Below this a Python interpreter cannot start under the address-space cap, and every
# python_execute would fail with no reason a model could act on.
MIN_MEMORY_BYTES = 64 << 20
# Above these the kernel's limits overflow or mean nothing (every python_execute then failed in
# the child before it ran): 1 TiB for a size, the kernel's most pids for processes.
MAX_BYTES = 1 << 40
MAX_PROCESSES = 4_194_304


class ServerOptions(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    sandbox: str | None = Field(
        None,
        description="where python_execute runs: auto (docker when a daemon answers), process, docker, docker:IMAGE",
    )
    memory_bytes: int | None = Field(
        None,
        ge=MIN_MEMORY_BYTES,
        le=MAX_BYTES,
        description="python_execute: address space per process (container memory)",
    )
    max_processes: int | None = Field(
        None, ge=1, le=MAX_PROCESSES, description="python_execute: processes and threads"
    )
    file_bytes: int | None = Field(
        None, ge=1, le=MAX_BYTES, description="python_execute: size of any file it writes"
    )
    max_timeout_s: float | None = Field(
        None, gt=0, description="python_execute: longest timeout a call may ask"
    )
    statement_timeout_s: float | None = Field(
        None, gt=0, le=86_400, description="warehouse run_query: statement timeout"
    )

    @field_validator("sandbox")
    @classmethod
    def _sandbox(cls, value: str | None) -> str | None:
        image = value.removeprefix("docker:") if value and value.startswith("docker:") else None
        if value in (None, "auto", "process", "docker") or (image and not any(c.isspace() for c in image)):
            return value
        raise ValueError("give auto, process, docker or docker:IMAGE")


def parse_options(items: Iterable[str], flag: str) -> tuple[dict[str, Any], list[Problem]]:
    """`["sandbox=process", …]` → the options given, checked, and one problem (naming `flag`)
    for each malformed, unknown, repeated or bad item: the good ones are returned even then."""
    given, problems = key_values(
        items,
        flag,
        list(ServerOptions.model_fields),
        example="sandbox=process",
        noun="server option",
        nouns="options",
    )
    try:
        options = ServerOptions.model_validate(given)
    except ValidationError as exc:
        bad = {str(e["loc"][0]) for e in exc.errors()}
        problems += [
            Problem(
                flag,
                None,
                f"{e['loc'][0]}={given[str(e['loc'][0])]!r}: {e['msg'].removeprefix('Value error, ')}",
            )
            for e in exc.errors()
        ]
        options = ServerOptions.model_validate({k: v for k, v in given.items() if k not in bad})
    return options.model_dump(exclude_none=True), problems


def as_arguments(options: dict[str, Any]) -> list[str]:
    """The command-line arguments that give a child server `options`."""
    return [a for key, value in options.items() for a in ("--option", f"{key}={value}")]
