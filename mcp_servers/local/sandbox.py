"""Where `python_execute` runs code: a confined child process, or a docker container.

The child process runs `python -I` (isolated: no user site, no PYTHON* variables) in the
workspace with a minimal environment (no API keys ever reach it), a wall-clock timeout, a
memory cap (RLIMIT_AS) and output capped as it is read. Where user namespaces work (root, or
unprivileged user namespaces), it runs in namespaces of its own (`unshare -rnmpf`):
- network: no interface up, so no network at all, loopback included;
- mounts: a root of its own (pivot_root, the machine's root unmounted, then every capability
  dropped, so no chroot can climb back out) that holds only this Python (read-only:
  interpreter, standard library, installed packages, system libraries), /dev, a private /tmp
  and the workspace, as
  the container below does, so the world database beside the workspace, the task catalog (gold
  solutions, checks), the run store and other episodes are out of its reach;
- processes: it is process 1 of its namespace, so everything it starts dies with it, on exit
  or when killed at the timeout.
Where only `unshare -rn` works it gets the network namespace alone, and where neither works
none (the README says so). When a docker daemon answers, the same code runs in a container
instead (`--network none`, memory and pid caps, no capabilities, read-only root, the
workspace mounted read-write): no image registry is needed, since the container gets an empty
image and this Python bind-mounted read-only at its own paths.
"""

from __future__ import annotations

import asyncio
import functools
import io
import os
import resource
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile
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


def _cap(data: bytes, total: int | None = None) -> str:
    total = len(data) if total is None else total
    text = data[:OUTPUT_CAP_BYTES].decode("utf-8", errors="replace")
    if total > OUTPUT_CAP_BYTES:
        return text + f"\n[... output truncated: {total} bytes in all]"
    return text


async def _read_capped(stream: asyncio.StreamReader | None) -> tuple[bytes, int]:
    """The first OUTPUT_CAP_BYTES of `stream` and how many bytes it had in all: the rest is
    read and dropped, never held."""
    kept, total = bytearray(), 0
    while stream is not None and (chunk := await stream.read(1 << 16)):
        total += len(chunk)
        if len(kept) < OUTPUT_CAP_BYTES:
            kept += chunk[: OUTPUT_CAP_BYTES - len(kept)]
    return bytes(kept), total


def _limits(memory_bytes: int) -> None:
    resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def _kill(proc: asyncio.subprocess.Process) -> None:
    """Kill the child, and its whole process group when it leads one of its own."""
    try:
        if os.getpgid(proc.pid) == proc.pid:
            os.killpg(proc.pid, signal.SIGKILL)
            return
    except ProcessLookupError:
        return
    proc.kill()


async def _communicate(proc: asyncio.subprocess.Process, timeout_s: float) -> RunResult:
    reading = asyncio.gather(_read_capped(proc.stdout), _read_capped(proc.stderr), proc.wait())
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
    # After a kill, the output read so far. A process the child left behind could hold the
    # pipes open (the confined sandbox has none: they die with it), so this waits briefly only.
    try:
        (out, out_n), (err, err_n), _ = await asyncio.wait_for(reading, 5.0)
    except TimeoutError:
        return RunResult(None, "", "", True)
    code = None if timed_out else proc.returncode
    return RunResult(code, _cap(out, out_n), _cap(err, err_n), timed_out)


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


# Run inside `unshare -rnmpf` (as root of the new user namespace): build a root of its own on
# a tmpfs at $1 with the runtime read-only, /dev, a private /tmp and the workspace $2 at its own
# path, then run the command there. Arguments: ROOT WORKSPACE RUNTIME-PATH... -- COMMAND...
_CONFINE = r"""
set -e
root="$1"; ws="$2"; shift 2
mount -t tmpfs -o mode=0755 mseval "$root"
mkdir -p "$root/tmp" "$root/dev" "$root/proc"
mount -t tmpfs -o mode=1777 mseval "$root/tmp"
while [ "$1" != "--" ]; do
  mkdir -p "$root$1"
  mount --rbind "$(readlink -f "$1")" "$root$1"
  mount -o remount,bind,ro "$root$1"
  shift
done
shift
mount --rbind /dev "$root/dev"
mount -t proc proc "$root/proc"
mkdir -p "$root$ws"
mount --bind "$ws" "$root$ws"
# The new root by pivot_root, with the old one unmounted: after a chroot, root of this user
# namespace could chroot again and climb back out; here nothing is left to climb back to.
mkdir "$root/.old"
cd "$root"
PATH="$PATH:/usr/sbin:/sbin" pivot_root . .old
cd /
umount -l /.old
rmdir /.old
cd "$ws"
# No capabilities either (no chroot, no mount), where setpriv is there to drop them.
if command -v setpriv >/dev/null 2>&1; then
  exec setpriv --bounding-set=-all --inh-caps=-all --no-new-privs -- "$@"
fi
exec "$@"
"""


def _runtime_paths() -> list[str]:
    """What the confined child sees of this machine: this Python and the system libraries."""
    paths = {sys.prefix, sys.base_prefix, "/usr", "/lib", "/lib64", "/bin"}
    return sorted(p for p in paths if os.path.exists(p))


def _confined(workspace: str, root: str, command: list[str]) -> list[str]:
    return [
        "unshare", "-rnmpf", "--kill-child", "--", "/bin/sh", "-c", _CONFINE, "confine",
        root, workspace, *_runtime_paths(), "--", *command,
    ]  # fmt: skip


@functools.cache
def confinement_available() -> bool:
    """Whether the confined child (namespaces of its own, a root of its own) works here (asked once)."""
    if shutil.which("unshare") is None or not os.path.exists("/bin/sh"):
        return False
    with tempfile.TemporaryDirectory() as ws, tempfile.TemporaryDirectory() as root:
        command = _confined(ws, root, [sys.executable, "-I", "-c", "import os; print(os.getcwd())"])
        try:
            probe = subprocess.run(command, capture_output=True, text=True, timeout=20, check=False)
        except (OSError, subprocess.TimeoutExpired):
            return False
    return probe.returncode == 0 and probe.stdout.strip() == ws


@dataclass(frozen=True)
class ProcessSandbox:
    memory_bytes: int = DEFAULT_MEMORY_BYTES

    async def run(self, code: str, workspace: Path, timeout_s: float) -> RunResult:
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(workspace), "LANG": "C.UTF-8"}
        command = [sys.executable, "-I", "-c", code]
        with tempfile.TemporaryDirectory(prefix="mseval-root-") as root:
            if await asyncio.to_thread(confinement_available):
                # unshare forks the child, which dies with unshare (--kill-child): a kill at the
                # timeout ends the child and, as process 1 of its namespace, all it started.
                command = _confined(await asyncio.to_thread(os.path.realpath, workspace), root, command)
            elif await asyncio.to_thread(network_namespace_available):
                command = ["unshare", "-rn", "--", *command]  # execs in place: a kill reaches it
            proc = await asyncio.create_subprocess_exec(
                *command,
                cwd=workspace,
                env=env,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                preexec_fn=lambda: _limits(self.memory_bytes),
                start_new_session=True,
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
