"""Where `python_execute` runs code: a confined child process, or a docker container.

The child process runs `python -I` (isolated: no user site, no PYTHON* variables) in the
workspace with a minimal environment (no API keys ever reach it), a wall-clock timeout and
limits: address space (RLIMIT_AS) and, watched every 0.1 s, the memory of all its processes
together (`_watch_memory`), the size of any one file it writes (RLIMIT_FSIZE), the
processes and threads it may hold at once (RLIMIT_NPROC, counted in a user namespace of its
own where one can be made, so one episode's fork bomb does not starve another's), no core
files; its output is capped as it is read.

How it is confined (another user under root; namespaces, a root of its own, the probe of what
works here) is confinement.py's. When a docker daemon answers, the same code runs in a container
instead (docker_sandbox.py).
"""

from __future__ import annotations

import asyncio
import codecs
import functools
import os
import resource
import signal
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeAlias

from mcp_servers.local import handover
from mcp_servers.local.confinement import (
    DEFAULT_FILE_BYTES,
    DEFAULT_MAX_PROCESSES,
    DEFAULT_MEMORY_BYTES,
    SANDBOX_UID,
    Limits,
    command,
    new_root,
    sandbox_setup,
    sandbox_user,
)

if TYPE_CHECKING:
    from mcp_servers.local.docker_sandbox import DockerSandbox

# Output beyond this is cut with a visible marker; the harness caps tool results again.
OUTPUT_CAP_BYTES = 16_000
DEFAULT_TIMEOUT_S = 30.0
# How often the memory the code's processes hold in all is looked at.
MEMORY_POLL_S = 0.1


@dataclass(frozen=True)
class RunResult:
    exit_code: int | None
    stdout: str
    stderr: str
    timed_out: bool
    # Why the code ended, when its exit code alone does not say (killed for want of memory).
    note: str = ""

    def render(self) -> str:
        parts = []
        if self.timed_out:
            parts.append("[timed out: the process was killed]")
        else:
            parts.append(f"[exit code {self.exit_code}]")
        if self.note:
            parts.append(self.note)
        if self.stdout:
            parts.append(f"stdout:\n{self.stdout}")
        if self.stderr:
            parts.append(f"stderr:\n{self.stderr}")
        return "\n".join(parts)


def _cap(data: bytes, total: int | None = None) -> str:
    total = len(data) if total is None else total
    if total <= OUTPUT_CAP_BYTES:
        return data.decode("utf-8", errors="replace")
    # A cut may fall inside a character: its first bytes are dropped, not shown as U+FFFD.
    text = codecs.getincrementaldecoder("utf-8")("replace").decode(data[:OUTPUT_CAP_BYTES])
    return text + f"\n[... output truncated: {total} bytes in all]"


async def _read_capped(stream: asyncio.StreamReader | None) -> tuple[bytes, int]:
    """The first OUTPUT_CAP_BYTES of `stream` and how many bytes it had in all: the rest is
    read and dropped, never held."""
    kept, total = bytearray(), 0
    while stream is not None and (chunk := await stream.read(1 << 16)):
        total += len(chunk)
        if len(kept) < OUTPUT_CAP_BYTES:
            kept += chunk[: OUTPUT_CAP_BYTES - len(kept)]
    return bytes(kept), total


_PR_SET_PDEATHSIG = 1  # <linux/prctl.h>


@functools.cache
def _prctl() -> Any:
    """libc's prctl, looked up in the server, never in a forked child: an import or a dlopen
    there could wait for good on a lock another of the server's threads held at the fork."""
    import ctypes

    return ctypes.CDLL(None).prctl if sys.platform.startswith("linux") else None


def _limits(memory_bytes: int, file_bytes: int, max_processes: int | None, prctl: Any = None) -> None:
    """In the child, before its exec: its limits, and SIGKILL when the server's thread that
    started it ends (a kill -9 of the server left the code running, unwatched). `prctl` is
    `_prctl()`, found before the fork."""
    if prctl is not None:
        prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
    resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
    resource.setrlimit(resource.RLIMIT_FSIZE, (file_bytes, file_bytes))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    if max_processes is not None:
        resource.setrlimit(resource.RLIMIT_NPROC, (max_processes, max_processes))


def _kill(proc: asyncio.subprocess.Process) -> None:
    """Kill the child, and its whole process group when it leads one of its own."""
    try:
        if os.getpgid(proc.pid) == proc.pid:
            os.killpg(proc.pid, signal.SIGKILL)
            return
    except ProcessLookupError:
        return
    proc.kill()


def tree_memory(pid: int) -> int:
    """Bytes of anonymous memory (RssAnon) that `pid` and every process below it hold. Pages a
    fork still shares with its parent count once per process, so it errs high, never low."""
    total, stack, seen = 0, [pid], set()
    while stack:
        if (p := stack.pop()) in seen:
            continue
        seen.add(p)
        try:
            with open(f"/proc/{p}/status") as status:
                total += next(
                    (int(line.split()[1]) << 10 for line in status if line.startswith("RssAnon:")), 0
                )
            for task in os.listdir(f"/proc/{p}/task"):
                with open(f"/proc/{p}/task/{task}/children") as children:
                    stack.extend(int(c) for c in children.read().split())
        except (OSError, ValueError):  # it ended meanwhile
            continue
    return total


async def _watch_memory(proc: asyncio.subprocess.Process, cap: int) -> str:
    """Kills `proc`'s processes once together they hold more than `cap` (RLIMIT_AS caps each
    one alone: 256 processes of 1 GiB each held the machine's memory); the note says why."""
    while proc.returncode is None:
        held = await asyncio.to_thread(tree_memory, proc.pid)
        if held > cap:
            _kill(proc)
            return f"[killed: its processes held {held >> 20} MiB in all, over the cap of {cap >> 20} MiB]"
        await asyncio.sleep(MEMORY_POLL_S)
    return ""


async def communicate(
    proc: asyncio.subprocess.Process, timeout_s: float, memory_cap: int | None = None
) -> RunResult:
    """The code's capped output and exit; killed at `timeout_s`, and once its processes hold
    more than `memory_cap` bytes in all, when given."""
    reading = asyncio.gather(_read_capped(proc.stdout), _read_capped(proc.stderr), proc.wait())
    watch = asyncio.create_task(_watch_memory(proc, memory_cap)) if memory_cap else None
    timed_out = False
    try:
        await asyncio.wait_for(asyncio.shield(reading), timeout_s)
    except TimeoutError:
        timed_out = True
        _kill(proc)
    except BaseException:  # the call was cancelled (its MCP timeout, the episode's time budget)
        if proc.returncode is None:
            _kill(proc)
        reading.cancel()
        raise
    finally:
        if watch is not None:
            watch.cancel()  # a done watch keeps its result; one still looking stops
    # A watch that killed the code is done: it returned in the step that killed it.
    note = watch.result() if watch is not None and watch.done() else ""
    # After a kill, the output read so far. A process the child left behind could hold the
    # pipes open (the confined sandbox has none: they die with it), so this waits briefly only.
    try:
        (out, out_n), (err, err_n), _ = await asyncio.wait_for(reading, 5.0)
    except TimeoutError:
        return RunResult(None, "", "", True)
    code = None if timed_out else proc.returncode
    return RunResult(code, _cap(out, out_n), _cap(err, err_n), timed_out, note)


class SandboxUnavailable(RuntimeError):
    """The code could not run: not here without running as root, or the docker daemon failed
    or did not answer. The tool says so as an error, never as the code's own result."""


@dataclass(frozen=True)
class ProcessSandbox(Limits):
    async def run(self, code: str, workspace: Path, timeout_s: float) -> RunResult:
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(workspace), "LANG": "C.UTF-8"}
        setup = await asyncio.to_thread(sandbox_setup)
        if setup is None:
            raise SandboxUnavailable(
                f"python_execute cannot run here: as root it runs the code as uid {SANDBOX_UID}, "
                f"who cannot run {sys.executable} without user namespaces (use docker)"
            )
        user = sandbox_user()
        if user is not None:
            await handover.before_run(workspace, user)
        extra: dict[str, Any] = {}
        # Without a user namespace RLIMIT_NPROC counts all the user's processes: set it here
        # only for the sandbox user, who has no others.
        nproc: int | None = None
        if setup.mode == "bare" and user is not None:
            extra = {"user": user, "group": user, "extra_groups": []}
            nproc = self.max_processes
        with new_root() as root:
            ws = await asyncio.to_thread(os.path.realpath, workspace)
            proc = await asyncio.create_subprocess_exec(
                *command(setup, [sys.executable, "-I", "-c", code], ws, root, self),
                cwd=workspace,
                env=env,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                preexec_fn=functools.partial(_limits, self.memory_bytes, self.file_bytes, nproc, _prctl()),
                start_new_session=True,
                **extra,
            )
            return await communicate(proc, timeout_s, self.memory_bytes)


Sandbox: TypeAlias = "ProcessSandbox | DockerSandbox"


def from_options(options: dict[str, object]) -> Sandbox:
    """`options["sandbox"]`: "auto" (default: docker when a daemon answers, else a process),
    "process", "docker" (the empty image with this Python mounted) or "docker:<image>" (an
    image with its own python3). Limits: `memory_bytes`, `max_processes`, `file_bytes`."""
    from mcp_servers.local.docker_sandbox import EMPTY_IMAGE, DockerSandbox, docker_available

    kind = str(options.get("sandbox", "auto"))
    memory = int(str(options.get("memory_bytes", DEFAULT_MEMORY_BYTES)))
    processes = int(str(options.get("max_processes", DEFAULT_MAX_PROCESSES)))
    file_bytes = int(str(options.get("file_bytes", DEFAULT_FILE_BYTES)))
    if kind == "auto":
        kind = "docker" if docker_available() else "process"
    if kind == "docker" or kind.startswith("docker:"):
        image = kind.removeprefix("docker:") if kind.startswith("docker:") else EMPTY_IMAGE
        return DockerSandbox(memory, processes, file_bytes, image=image)
    if kind != "process":
        raise ValueError(f"unknown sandbox {kind!r}: auto, process, docker or docker:<image>")
    return ProcessSandbox(memory, processes, file_bytes)
