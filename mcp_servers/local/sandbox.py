"""Where `python_execute` runs code: a confined child process, or a docker container.

The child process runs `python -I` (isolated: no user site, no PYTHON* variables) in the
workspace with a minimal environment (no API keys ever reach it), a wall-clock timeout, a
memory cap (RLIMIT_AS) and capped output. With a docker daemon and an image that has python3,
the same code runs in a container with `--network none`, the workspace mounted read-write.
"""

from __future__ import annotations

import asyncio
import os
import resource
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

# Output beyond this is cut with a visible marker; the harness caps tool results again.
OUTPUT_CAP_BYTES = 16_000
DEFAULT_TIMEOUT_S = 30.0
DEFAULT_MEMORY_BYTES = 1 << 30


@dataclass(frozen=True)
class RunResult:
    exit_code: int | None
    stdout: str
    stderr: str
    timed_out: bool

    def render(self) -> str:
        parts = []
        if self.timed_out:
            parts.append("[timed out: the process was killed]")
        else:
            parts.append(f"[exit code {self.exit_code}]")
        if self.stdout:
            parts.append(f"stdout:\n{self.stdout}")
        if self.stderr:
            parts.append(f"stderr:\n{self.stderr}")
        return "\n".join(parts)


def _cap(data: bytes) -> str:
    text = data.decode("utf-8", errors="replace")
    if len(data) > OUTPUT_CAP_BYTES:
        return text[:OUTPUT_CAP_BYTES] + f"\n[... output truncated: {len(data)} bytes in all]"
    return text


def _limits(memory_bytes: int) -> None:
    resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


async def _communicate(proc: asyncio.subprocess.Process, timeout_s: float) -> RunResult:
    try:
        out, err = await asyncio.wait_for(proc.communicate(), timeout_s)
    except TimeoutError:
        proc.kill()
        out, err = await proc.communicate()
        return RunResult(None, _cap(out), _cap(err), True)
    return RunResult(proc.returncode, _cap(out), _cap(err), False)


@dataclass(frozen=True)
class ProcessSandbox:
    memory_bytes: int = DEFAULT_MEMORY_BYTES

    async def run(self, code: str, workspace: Path, timeout_s: float) -> RunResult:
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(workspace), "LANG": "C.UTF-8"}
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-I",
            "-c",
            code,
            cwd=workspace,
            env=env,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            preexec_fn=lambda: _limits(self.memory_bytes),
        )
        return await _communicate(proc, timeout_s)


@dataclass(frozen=True)
class DockerSandbox:
    """Runs code in `image` with no network; needs the docker CLI and a daemon."""

    image: str
    memory_bytes: int = DEFAULT_MEMORY_BYTES

    async def run(self, code: str, workspace: Path, timeout_s: float) -> RunResult:
        docker = shutil.which("docker") or "docker"
        mount = f"{workspace.resolve()}:/workspace"  # noqa: ASYNC240 - a path computation, no I/O worth a thread
        proc = await asyncio.create_subprocess_exec(
            docker, "run", "--rm", "-i", "--network", "none",
            "--memory", str(self.memory_bytes), "--pids-limit", "256", "--cap-drop", "ALL",
            "-v", mount, "-w", "/workspace",
            self.image, "python3", "-I", "-c", code,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )  # fmt: skip
        return await _communicate(proc, timeout_s)


Sandbox = ProcessSandbox | DockerSandbox


def from_options(options: dict[str, object]) -> Sandbox:
    """`options["sandbox"]` is "process" (default) or "docker:<image>"."""
    kind = str(options.get("sandbox", "process"))
    memory = int(str(options.get("memory_bytes", DEFAULT_MEMORY_BYTES)))
    if kind.startswith("docker:"):
        return DockerSandbox(image=kind.removeprefix("docker:"), memory_bytes=memory)
    return ProcessSandbox(memory_bytes=memory)
