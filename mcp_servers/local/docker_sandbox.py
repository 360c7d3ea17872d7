"""`python_execute` in a docker container, when a daemon answers (sandbox.py: the process).

The code runs with `--network none`, memory and pid caps, the same file and /tmp caps as the
process sandbox, no capabilities, a read-only root and the workspace mounted read-write, as
`SANDBOX_UID` under root and as mseval's own user otherwise. No image registry is needed: the
container gets an empty image and this Python bind-mounted read-only at its own paths. The
container is created, then started, and removed whatever happens; a daemon that does not
answer is a tool error within the call's timeout (`DockerSandbox`).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import functools
import io
import json
import os
import shutil
import sys
import tarfile
import uuid
from collections.abc import Awaitable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcp_servers.local import handover
from mcp_servers.local.confinement import SHM_BYTES, Limits, sandbox_user
from mcp_servers.local.sandbox import RunResult, SandboxUnavailable, communicate

EMPTY_IMAGE = "mseval-sandbox:empty"
# The longest a docker command after the code (reading how it ended, removing its container)
# may take: a daemon that does not answer is given up on, never waited for without end.
DOCKER_COMMAND_TIMEOUT_S = 10.0


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


# Work left to finish after a call gave up on it or was cancelled; held here, else the event
# loop keeps only a weak reference to a task.
_background: set[asyncio.Future[Any]] = set()


def _in_background(work: Awaitable[Any]) -> asyncio.Future[Any]:
    task = asyncio.ensure_future(work)
    _background.add(task)
    task.add_done_callback(_background.discard)
    return task


def _last_line(err: bytes) -> str:
    lines = err.decode("utf-8", errors="replace").strip().splitlines()
    return lines[-1] if lines else "no error output"


def _no_answer(what: str, timeout_s: float) -> SandboxUnavailable:
    return SandboxUnavailable(
        f"python_execute could not run the code: the docker daemon did not answer `docker {what}` "
        f"within {timeout_s:.3g} s"
    )


async def _docker_command(
    args: list[str], timeout_s: float, *, data: bytes | None = None
) -> tuple[int, bytes, bytes]:
    """`docker ARGS`: its exit code, output and error output; SandboxUnavailable when it does
    not end within `timeout_s` (a daemon that does not answer). One given up on is killed."""
    proc = await asyncio.create_subprocess_exec(
        _docker(), *args,
        stdin=asyncio.subprocess.DEVNULL if data is None else asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    done = asyncio.ensure_future(proc.communicate(data))
    try:
        out, err = await asyncio.wait_for(asyncio.shield(done), max(timeout_s, 0.0))
    except BaseException as exc:
        if proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                proc.kill()
        with contextlib.suppress(Exception):  # killed, it ends at once: reaped here
            await asyncio.wait_for(asyncio.shield(done), 5.0)
        if not done.done():
            _in_background(done)
        if isinstance(exc, TimeoutError):
            raise _no_answer(" ".join(args[:2]), timeout_s) from None
        raise
    assert proc.returncode is not None
    return proc.returncode, out, err


# `docker create` ($2...) of container $1, in a shell of its own that says "created" and then
# holds the container until its input closes: when the call is done with it, or gave up (its
# timeout, a cancel) or died (kill -9 of mseval: a running container ran on, its code unwatched,
# to its end or never), then removes it. A create cut short instead (a `docker run` killed at
# the timeout) may still be carried out by the daemon after any `docker rm` of it: the container
# was left behind. SIGPIPE is ignored: with the caller gone, "created" must not end the shell
# before its removal.
_GUARD = r"""
trap '' PIPE
name="$1"; shift
"$@" >/dev/null || exit $?
echo created
cat >/dev/null
exec "$1" rm -f "$name" >/dev/null 2>&1
"""


async def _create(name: str, args: list[str], timeout_s: float) -> asyncio.subprocess.Process:
    """Create container `name` (`docker create ARGS`) held by its guard (`_GUARD`), returned:
    `_release` it when done. SandboxUnavailable when the daemon refused it, or did not answer
    within `timeout_s` (the guard removes it once made)."""
    guard = await asyncio.create_subprocess_exec(
        "/bin/sh", "-c", _GUARD, "guard", name, _docker(), "create", "--name", name, *args,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        start_new_session=True,  # no Ctrl-C of mseval's process group stops it before its removal
    )  # fmt: skip
    assert guard.stdin is not None and guard.stdout is not None and guard.stderr is not None
    try:
        said = await asyncio.wait_for(guard.stdout.readline(), max(timeout_s, 0.0))
    except BaseException as exc:
        guard.stdin.close()  # the guard removes the container once it is made
        _in_background(guard.wait())
        if isinstance(exc, TimeoutError):
            raise _no_answer("create", timeout_s) from None
        raise
    if said != b"created\n":
        guard.stdin.close()
        err = await guard.stderr.read()
        await guard.wait()
        raise SandboxUnavailable(f"python_execute could not run the code: docker create: {_last_line(err)}")
    return guard


async def _release(guard: asyncio.subprocess.Process) -> None:
    """Have the guard remove its container (killed if it still runs), waiting for that at most
    `DOCKER_COMMAND_TIMEOUT_S` (a daemon that does not answer: the guard goes on alone)."""
    assert guard.stdin is not None
    guard.stdin.close()
    ended = _in_background(guard.wait())
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(asyncio.shield(ended), DOCKER_COMMAND_TIMEOUT_S)


async def _ensure_empty_image(timeout_s: float, image: str = EMPTY_IMAGE) -> None:
    """An image with nothing in it: the container gets the host's Python read-only (below)."""
    code, _, _ = await _docker_command(["image", "inspect", image], timeout_s)
    if code == 0:
        return
    buffer = io.BytesIO()
    tarfile.open(fileobj=buffer, mode="w").close()
    code, _, err = await _docker_command(["import", "-", image], timeout_s, data=buffer.getvalue())
    if code != 0:
        raise SandboxUnavailable(f"python_execute cannot run here: docker import {image}: {_last_line(err)}")


def _bind(source: str | Path, target: str | Path, read_only: bool = False) -> list[str]:
    """A bind mount, its fields quoted as the docker CLI's CSV reader takes them: a path with a
    ':' (which `-v` splits at), ',' or '"' in it stays whole."""
    fields = ["type=bind", f"source={source}", f"target={target}", *(["readonly"] if read_only else [])]
    return ["--mount", ",".join('"' + f.replace('"', '""') + '"' for f in fields)]


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
            mounts += _bind(p.resolve(), p, read_only=True)
    return mounts


def _container_user() -> str:
    """Who the code runs as in the container: `SANDBOX_UID` under root, else mseval's own user,
    never the image's root (whose files in the workspace mseval's user could not change)."""
    user = sandbox_user()
    return f"{user}:{user}" if user is not None else f"{os.geteuid()}:{os.getegid()}"


@dataclass(frozen=True)
class DockerSandbox(Limits):
    """Runs code in a container: no network, capped memory and processes, no capabilities,
    a read-only root; only the workspace is writable (mounted at /workspace). The same file
    and /tmp caps as the process sandbox, and the same user: `SANDBOX_UID` when mseval runs as
    root, else mseval's own (never the image's root).

    The container is created, held by a guard process that removes it whatever happens (the
    call's end, its timeout, a cancel, mseval killed), then started; the daemon is asked how it
    ended (out of memory), and one that does not answer is a tool error within the timeout,
    not a hang."""

    image: str = EMPTY_IMAGE

    async def run(self, code: str, workspace: Path, timeout_s: float) -> RunResult:
        user = sandbox_user()
        if user is not None:
            await handover.before_run(workspace, user)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout_s

        def left() -> float:
            return deadline - loop.time()

        if self.image == EMPTY_IMAGE:
            await _ensure_empty_image(left())
        name = f"mseval-py-{uuid.uuid4().hex[:12]}"
        python = sys.executable if self.image == EMPTY_IMAGE else "python3"
        guard = await _create(
            name,
            [
                # No log: the daemon's json-file log kept all the code's output, uncapped, in its
                # data root (100 MB in 4 s of `print` in a loop) until the container went.
                "--network", "none", "--log-driver", "none",
                "--memory", str(self.memory_bytes), "--memory-swap", str(self.memory_bytes),
                "--pids-limit", str(self.max_processes), "--ulimit", f"fsize={self.file_bytes}",
                "--ulimit", "core=0", "--shm-size", str(SHM_BYTES), "--user", _container_user(),
                "--cap-drop", "ALL", "--security-opt", "no-new-privileges", "--read-only",
                "--tmpfs", f"/tmp:rw,nosuid,nodev,size={self.file_bytes}",
                "-e", "HOME=/workspace", "-e", "LANG=C.UTF-8",
                *(_runtime_mounts() if self.image == EMPTY_IMAGE else []),
                *_bind(workspace.resolve(), "/workspace"),  # noqa: ASYNC240 - a path computation, no I/O worth a thread
                "-w", "/workspace", self.image, python, "-I", "-c", code,
            ],
            left(),
        )  # fmt: skip
        try:
            proc = await asyncio.create_subprocess_exec(
                _docker(), "start", "--attach", name,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
            )  # fmt: skip
            result = await communicate(proc, max(left(), 0.0))
            if result.timed_out:
                return result
            return await self._ended(name, result)
        finally:
            # Shielded: a cancelled call still removes its container (a second cancel leaves
            # the removal running on its own).
            await asyncio.shield(_in_background(_release(guard)))

    async def _ended(self, name: str, result: RunResult) -> RunResult:
        """`result` with the container's own exit code and, killed for want of memory, why."""
        try:
            code, out, _ = await _docker_command(
                ["inspect", "--format", "{{json .State}}", name], DOCKER_COMMAND_TIMEOUT_S
            )
        except SandboxUnavailable:  # the daemon stopped answering: the code's run as it was seen
            return result
        if code != 0:
            return result
        state = json.loads(out)
        if state.get("Error"):
            raise SandboxUnavailable(f"python_execute could not run the code: docker start: {state['Error']}")
        note = ""
        if state.get("OOMKilled"):
            note = f"[killed: out of memory, the cap is {self.memory_bytes / (1 << 20):g} MiB]"
        return dataclasses.replace(result, exit_code=int(state.get("ExitCode", result.exit_code)), note=note)
