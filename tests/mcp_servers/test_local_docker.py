"""The docker sandbox of `python_execute`, against its confinement audit's findings: a call cut
off between the container's create and its start (its timeout, or the call cancelled) left the
container behind; a docker daemon that was gone gave 'Error executing tool python_execute' and
no reason, and one that did not answer held the call past its timeout, without end; a container
killed for want of memory said `[exit code 137]` alone; without root, the code ran as the
container's root and left root's files in the workspace; a workspace path with a ':' broke
`-v`; a container whose server was killed ran on, unwatched; the daemon logged all the
output, uncapped, on the machine's disk. Tests that need a daemon skip when none answers
(.ci/setup.d/docker.sh starts one)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from mcp_servers.local.docker_sandbox import DockerSandbox, docker_available
from tests.mcp_servers.support import World, make_world, serve, text

PROJECT = Path(__file__).resolve().parents[2]


def _daemon_or_skip() -> None:
    if not docker_available():
        pytest.skip("no docker daemon answers (.ci/setup.d/docker.sh starts one)")


def _cli_or_skip() -> None:
    if shutil.which("docker") is None:
        pytest.skip("no docker CLI")


@pytest.fixture
def sqlite_world(tmp_path: Path) -> Iterator[World]:
    world = make_world(tmp_path)
    yield world
    world.engine.dispose()


def _exists(container: str) -> bool:
    inspect = ["docker", "container", "inspect", container]
    return subprocess.run(inspect, capture_output=True, check=False).returncode == 0


def _remove(container: str) -> None:
    subprocess.run(["docker", "rm", "-f", container], capture_output=True, check=False)


class SlowStart:
    """A `docker` before the real one on PATH, for a daemon that creates a container and then
    never starts it: `start` (and `run`, after its create) hold until killed. It notes each
    container's name, and `started` once a start is under way."""

    def __init__(self, folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        real = shutil.which("docker")
        assert real is not None
        self.names, self.started = folder / "names", folder / "started"
        bin_dir = folder / "bin"
        bin_dir.mkdir()
        wrapper = bin_dir / "docker"
        wrapper.write_text(
            "#!/bin/sh\n"
            f"real='{real}'\n"
            'prev=; for a in "$@"; do [ "$prev" = --name ] && echo "$a" >> '
            f"'{self.names}'; prev=$a; done\n"
            'case "$1" in\n'
            f'  run) shift; "$real" create "$@" >/dev/null || exit 125; touch \'{self.started}\'; exec sleep 3600 ;;\n'
            f"  start) touch '{self.started}'; exec sleep 3600 ;;\n"
            "esac\n"
            'exec "$real" "$@"\n'
        )
        wrapper.chmod(0o755)
        monkeypatch.setenv("PATH", f"{bin_dir}:{os.environ['PATH']}")

    def containers(self) -> list[str]:
        return self.names.read_text().split() if self.names.exists() else []

    def left_behind(self) -> list[str]:
        """The containers it saw made that still exist; at least one must have been made."""
        made = self.containers()
        assert made, "no container was made"
        return [c for c in made if _exists(c)]

    @contextlib.asynccontextmanager
    async def removed_after(self) -> AsyncIterator[None]:
        """Whatever the test does, every container it saw made is removed at the end."""
        try:
            yield
        finally:
            for c in self.containers():
                await asyncio.to_thread(_remove, c)


async def test_a_container_created_but_cut_off_at_the_timeout_is_removed(
    sqlite_world: World, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`docker run` killed at the timeout after its create, before its start, left the
    container 'Created' for good (`docker kill` of a container that never ran fails): 0.1 s
    timeouts left one in three calls' containers behind here."""
    _daemon_or_skip()
    docker = SlowStart(tmp_path, monkeypatch)
    async with docker.removed_after():
        async with serve("local", sqlite_world, sandbox="docker") as client:
            out = text(await client.call_tool("python_execute", {"code": "print(1)", "timeout_s": 1}))
        assert out.startswith("[timed out: the process was killed]"), out
        assert docker.left_behind() == []


async def test_a_cancelled_call_removes_its_container(
    sqlite_world: World, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _daemon_or_skip()
    docker = SlowStart(tmp_path, monkeypatch)
    async with docker.removed_after():
        call = asyncio.create_task(DockerSandbox().run("print(1)", sqlite_world.workspace, 30.0))
        for _ in range(3000):
            if docker.started.exists() or call.done():
                break
            await asyncio.sleep(0.01)
        assert docker.started.exists() and not call.done()
        call.cancel()
        with pytest.raises(asyncio.CancelledError):
            await call
        assert docker.left_behind() == []


async def test_a_daemon_that_is_gone_is_a_tool_error_that_says_so(
    sqlite_world: World, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _cli_or_skip()
    monkeypatch.setenv("DOCKER_HOST", f"unix://{tmp_path}/no-daemon.sock")
    async with serve("local", sqlite_world, sandbox="docker") as client:
        result = await client.call_tool("python_execute", {"code": "print(1)"})
    assert result.is_error, text(result)
    assert "python_execute cannot run here: docker" in text(result), text(result)
    assert "Cannot connect to the Docker daemon" in text(result), text(result)


class SilentDaemon:
    """A socket that takes every connection and never answers: a docker daemon that hangs."""

    def __init__(self, folder: str) -> None:
        path = f"{folder}/docker.sock"
        self.url = f"unix://{path}"
        self._listener = socket.socket(socket.AF_UNIX)
        self._listener.bind(path)
        self._listener.listen(64)
        self._held: list[socket.socket] = []
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._thread.start()

    def _accept(self) -> None:
        while True:
            try:
                self._held.append(self._listener.accept()[0])
            except OSError:
                return

    def close(self) -> None:
        """Answer no more: every connection closed, so a docker command waiting on it ends."""
        with contextlib.suppress(OSError):
            self._listener.shutdown(socket.SHUT_RDWR)
        self._listener.close()
        self._thread.join()
        for conn in self._held:
            conn.close()


@pytest.fixture
def silent_daemon() -> Iterator[SilentDaemon]:
    with tempfile.TemporaryDirectory(prefix="mseval-") as folder:  # a unix socket path is short
        daemon = SilentDaemon(folder)
        try:
            yield daemon
        finally:
            daemon.close()


async def test_a_daemon_that_does_not_answer_is_a_tool_error_at_the_timeout(
    sqlite_world: World, silent_daemon: SilentDaemon, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The call waited on `docker image inspect` without end, its timeout_s notwithstanding."""
    _cli_or_skip()
    monkeypatch.setenv("DOCKER_HOST", silent_daemon.url)
    async with serve("local", sqlite_world, sandbox="docker") as client:
        # The bound only turns the old endless wait into a failure: the call ends at its 1 s.
        try:
            result = await asyncio.wait_for(
                client.call_tool("python_execute", {"code": "print(1)", "timeout_s": 1}), 60
            )
        except TimeoutError:
            silent_daemon.close()  # the waiting docker command ends, and with it the server
            pytest.fail("python_execute (timeout_s 1) still waited on the docker daemon after 60 s")
    assert result.is_error, text(result)
    assert "the docker daemon did not answer `docker image inspect`" in text(result), text(result)


async def test_a_container_killed_for_want_of_memory_says_so(sqlite_world: World) -> None:
    _daemon_or_skip()
    hog = "x = bytearray(512 << 20); x[::4096] = b'1' * len(x[::4096])"
    async with serve("local", sqlite_world, sandbox="docker", memory_bytes=64 << 20) as client:
        out = text(await client.call_tool("python_execute", {"code": hog}))
        fine = text(await client.call_tool("python_execute", {"code": "import sys; sys.exit(3)"}))
    assert out == "[exit code 137]\n[killed: out of memory, the cap is 64 MiB]", out
    assert fine == "[exit code 3]", fine


async def test_without_root_the_code_writes_as_msevals_user(
    sqlite_world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Run by a user who is not root, the container ran the code as its image's root: files
    the code wrote in the workspace were root's, which mseval's user could not change."""
    _daemon_or_skip()
    sqlite_world.workspace.chmod(0o777)  # this user's workspace: the test's real user is root
    monkeypatch.setattr(os, "geteuid", lambda: 4321)
    monkeypatch.setattr(os, "getegid", lambda: 4321)
    code = "import os, pathlib; pathlib.Path('made.txt').write_text('x'); print(os.getuid(), os.getgid())"
    async with serve("local", sqlite_world, sandbox="docker") as client:
        out = text(await client.call_tool("python_execute", {"code": code}))
    monkeypatch.undo()
    made = sqlite_world.workspace / "made.txt"
    assert "4321 4321" in out, out
    assert (made.stat().st_uid, made.stat().st_gid) == (4321, 4321)


async def test_a_workspace_path_with_a_colon_or_comma(tmp_path: Path) -> None:
    """`-v PATH:/workspace` split the path at its ':' (docker: invalid volume specification),
    reported as the code's own exit code 125."""
    _daemon_or_skip()
    workspace = tmp_path / 'run:1,"x"' / "workspace"
    workspace.mkdir(parents=True)
    result = await DockerSandbox().run("open('made.txt', 'w').write('x')", workspace, 30.0)
    assert result.exit_code == 0, result.render()
    assert (workspace / "made.txt").read_text() == "x"


# A server that runs code in a container, for as long as it is let.
SERVER = """
import asyncio, sys
from pathlib import Path
from mcp_servers.local.docker_sandbox import DockerSandbox
code = "import pathlib, socket, time; pathlib.Path('started').write_text(socket.gethostname()); time.sleep(600)"
asyncio.run(DockerSandbox().run(code, Path(sys.argv[1]), 900))
"""


async def test_a_container_whose_server_is_killed_is_removed(tmp_path: Path) -> None:
    """After a kill -9 of the server, its container ran on, the code unwatched, to its end
    (or never ended): no one was left to stop it at its timeout."""
    _daemon_or_skip()
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    started = workspace / "started"
    server = await asyncio.create_subprocess_exec(sys.executable, "-c", SERVER, str(workspace), cwd=PROJECT)
    container = ""
    try:
        for _ in range(6000):  # the container's start, however slow the daemon
            if started.exists() and (container := started.read_text()) or server.returncode is not None:
                break
            await asyncio.sleep(0.01)
        assert container, "the code never started"
        server.kill()
        await server.wait()
        # The removal follows the kill; the bound only turns the old endless run into a failure.
        for _ in range(6000):
            if not await asyncio.to_thread(_exists, container):
                break
            await asyncio.sleep(0.01)
        assert not await asyncio.to_thread(_exists, container)
    finally:
        if server.returncode is None:
            server.kill()
            await server.wait()
        if container:
            await asyncio.to_thread(_remove, container)


async def test_the_daemon_keeps_no_copy_of_the_output(sqlite_world: World) -> None:
    """The daemon's json-file log kept all the code's output, uncapped, on the machine's disk
    while the container lived: 100 MB in 4 s of writing to stdout in a loop."""
    _daemon_or_skip()
    workspace = sqlite_world.workspace
    code = (
        "import os, pathlib, socket, sys, time\n"
        "sys.stdout.write('x' * (4 << 20)); sys.stdout.flush()\n"
        # named whole or not at all: read between its creation and its write, the name was ''
        "pathlib.Path('flooding').write_text(socket.gethostname()); os.rename('flooding', 'flooded')\n"
        "deadline = time.monotonic() + 60\n"
        "while not os.path.exists('done') and time.monotonic() < deadline: time.sleep(0.02)\n"
    )
    call = asyncio.create_task(DockerSandbox().run(code, workspace, 90.0))
    try:
        for _ in range(6000):
            if (workspace / "flooded").exists() or call.done():
                break
            await asyncio.sleep(0.01)
        container = (workspace / "flooded").read_text()
        inspect = [
            "docker",
            "inspect",
            "--format",
            "{{.HostConfig.LogConfig.Type}} [{{.LogPath}}]",
            container,
        ]
        logged = (await asyncio.to_thread(subprocess.run, inspect, capture_output=True, text=True)).stdout
    finally:
        (workspace / "done").touch()
        result = await call
    assert result.exit_code == 0 and "[... output truncated: 4194304 bytes in all]" in result.stdout
    assert logged.strip() == "none []", logged
