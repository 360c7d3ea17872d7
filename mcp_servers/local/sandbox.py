"""Where `python_execute` runs code: a confined child process, or a docker container.

The child process runs `python -I` (isolated: no user site, no PYTHON* variables) in the
workspace with a minimal environment (no API keys ever reach it), a wall-clock timeout, a
memory cap (RLIMIT_AS) and capped output; where `unshare -rn` works (root, or unprivileged
user namespaces) it also gets a network namespace of its own with no interface up, so it
reaches no network, loopback included. When a docker daemon answers, the same code runs in
a container instead (`--network none`, memory and pid caps, no capabilities, read-only root,
the workspace mounted read-write): no image registry is needed, since the container gets an
empty image and this Python bind-mounted read-only at its own paths.
"""

from __future__ import annotations

import asyncio
import functools
import io
import os
import resource
import shutil
import subprocess
import sys
import tarfile
import uuid
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
    except BaseException:  # the call was cancelled (its MCP timeout, the episode's time budget)
        if proc.returncode is None:
            proc.kill()
        raise
    return RunResult(proc.returncode, _cap(out), _cap(err), False)


@functools.cache
def network_namespace_available() -> bool:
    """Whether `unshare -rn` can put a child in an empty network namespace here (asked once)."""
    exe = shutil.which("unshare")
    if exe is None:
        return False
    try:
        probe = subprocess.run([exe, "-rn", "true"], capture_output=True, timeout=10, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return probe.returncode == 0


@dataclass(frozen=True)
class ProcessSandbox:
    memory_bytes: int = DEFAULT_MEMORY_BYTES

    async def run(self, code: str, workspace: Path, timeout_s: float) -> RunResult:
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(workspace), "LANG": "C.UTF-8"}
        # unshare execs the interpreter in place (same process), so a kill still reaches it.
        no_network = ["unshare", "-rn", "--"] if await asyncio.to_thread(network_namespace_available) else []
        proc = await asyncio.create_subprocess_exec(
            *no_network,
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


EMPTY_IMAGE = "mseval-sandbox:empty"


def _docker() -> str:
    return shutil.which("docker") or "docker"


@functools.cache
def docker_available() -> bool:
    """A docker CLI and a daemon that answers (asked once per process, through the docker SDK)."""
    if shutil.which("docker") is None:
        return False
    try:
        import docker

        client = docker.from_env(timeout=5)
        try:
            return bool(client.ping())
        finally:
            client.close()
    except Exception:  # no daemon, no socket, no permission: all mean "no docker here"
        return False


def ensure_empty_image(image: str = EMPTY_IMAGE) -> None:
    """An image with nothing in it: the container gets the host's Python read-only (below)."""
    if (
        subprocess.run([_docker(), "image", "inspect", image], capture_output=True, check=False).returncode
        == 0
    ):
        return
    buffer = io.BytesIO()
    tarfile.open(fileobj=buffer, mode="w").close()
    subprocess.run(
        [_docker(), "import", "-", image], input=buffer.getvalue(), capture_output=True, check=True
    )


def _runtime_mounts() -> list[str]:
    """Read-only binds of this Python (interpreter, standard library, installed packages) and
    the system libraries it links to, at the same paths, so the container needs no image."""
    paths = {
        Path(sys.prefix),
        Path(sys.base_prefix),
        Path("/usr"),
        Path("/lib"),
        Path("/lib64"),
        Path("/bin"),
    }
    mounts: list[str] = []
    for p in sorted(paths):
        if p.exists():
            # Merged-/usr systems make /lib64 and /bin symlinks: bind their target at the link's path.
            mounts += ["-v", f"{p.resolve()}:{p}:ro"]
    return mounts


@dataclass(frozen=True)
class DockerSandbox:
    """Runs code in a container: no network, capped memory and processes, no capabilities,
    a read-only root; only the workspace is writable (mounted at /workspace)."""

    image: str = EMPTY_IMAGE
    memory_bytes: int = DEFAULT_MEMORY_BYTES

    async def run(self, code: str, workspace: Path, timeout_s: float) -> RunResult:
        if self.image == EMPTY_IMAGE:
            await asyncio.to_thread(ensure_empty_image)
        name = f"mseval-py-{uuid.uuid4().hex[:12]}"
        mount = f"{workspace.resolve()}:/workspace"  # noqa: ASYNC240 - a path computation, no I/O worth a thread
        python = sys.executable if self.image == EMPTY_IMAGE else "python3"
        proc = await asyncio.create_subprocess_exec(
            _docker(), "run", "--rm", "--name", name, "-i", "--network", "none",
            "--memory", str(self.memory_bytes), "--memory-swap", str(self.memory_bytes), "--pids-limit", "256",
            "--cap-drop", "ALL", "--security-opt", "no-new-privileges", "--read-only", "--tmpfs", "/tmp",
            "-e", "HOME=/workspace", "-e", "LANG=C.UTF-8",
            *(_runtime_mounts() if self.image == EMPTY_IMAGE else []),
            "-v", mount, "-w", "/workspace", self.image, python, "-I", "-c", code,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )  # fmt: skip
        try:
            return await _communicate(proc, timeout_s)
        finally:
            if proc.returncode is None or proc.returncode < 0:
                # The client was killed on timeout; the container must go too.
                await asyncio.to_thread(
                    subprocess.run, [_docker(), "kill", name], capture_output=True, check=False
                )


Sandbox = ProcessSandbox | DockerSandbox


def from_options(options: dict[str, object]) -> Sandbox:
    """`options["sandbox"]`: "auto" (default: docker when a daemon answers, else a process),
    "process", "docker" (the empty image with this Python mounted) or "docker:<image>" (an
    image with its own python3)."""
    kind = str(options.get("sandbox", "auto"))
    memory = int(str(options.get("memory_bytes", DEFAULT_MEMORY_BYTES)))
    if kind == "auto":
        kind = "docker" if docker_available() else "process"
    if kind == "docker":
        return DockerSandbox(memory_bytes=memory)
    if kind.startswith("docker:"):
        return DockerSandbox(image=kind.removeprefix("docker:"), memory_bytes=memory)
    if kind != "process":
        raise ValueError(f"unknown sandbox {kind!r}: auto, process, docker or docker:<image>")
    return ProcessSandbox(memory_bytes=memory)
