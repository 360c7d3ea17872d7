"""Child servers (`--server-transport stdio|http`) when the mseval process that started them is
killed with kill -9 before they are up, or stops them (Ctrl-C) before they are up.

A child is held at a known point of its start by a `sitecustomize` on its PYTHONPATH (GATE):
before anything of mcp_servers runs, or at the import of the server bootstrap (its heavy
imports: SQLAlchemy, the MCP SDK, the server). The test kills the parent there and waits, with
a generous bound on a hung child (not a timing assumption), for the child to be gone while it
is still held.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.harness.cli_support import ROOT

WAIT_LIMIT_S = 60
GATE = """
import os, sys, time
from pathlib import Path

_here = Path(__file__).parent


def _hold(gate):
    (_here / f"{gate}.reached").write_text(str(os.getpid()))
    until = time.monotonic() + 120  # a held child ends some day, whatever the test does
    while not (_here / gate).exists() and time.monotonic() < until:
        time.sleep(0.01)


class _HoldAtBootstrap:
    def find_spec(self, name, path=None, target=None):
        if name == "mcp_servers.common.bootstrap":
            _hold("imports")
        return None


if sys.orig_argv[1:3] == ["-m", "mcp_servers.local"]:
    if (_here / "hold-start").exists():
        _hold("start")
    sys.meta_path.insert(0, _HoldAtBootstrap())
"""
# Starts one server as `mseval run` does (harness.mcp_client, the start timeout out of the way),
# its PYTHONPATH reaching GATE: the parent itself started without it.
PARENT = """
import asyncio, os, sys
from pathlib import Path
import harness.mcp_client as mcp_client

os.environ["PYTHONPATH"] = sys.argv[1]
mcp_client.SERVER_START_TIMEOUT_S = 600
world = mcp_client.WorldAccess(f"sqlite:///{sys.argv[1]}/w.sqlite", None, Path(sys.argv[1]) / "ws")


async def start() -> None:
    async with mcp_client.ServerPool(["local"], world, sys.argv[2]):
        pass


asyncio.run(start())
"""


def _alive(pid: int) -> bool:
    """Whether `pid` is still running (a zombie, ended but not yet reaped, is not)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _wait_for(
    what: str, ready: object, proc: subprocess.Popen[bytes] | None = None, log: Path | None = None
) -> None:
    deadline = time.monotonic() + WAIT_LIMIT_S
    while not ready():  # type: ignore[operator]
        assert proc is None or proc.poll() is None, (
            f"the parent ended before {what}: {log and log.read_text()}"
        )
        assert time.monotonic() < deadline, f"no {what} within {WAIT_LIMIT_S} s"
        time.sleep(0.02)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="parent-death signal: Linux only")
@pytest.mark.parametrize("transport", ["stdio", "http"])
@pytest.mark.parametrize("held", ["start", "imports"])
def test_a_child_server_ends_when_mseval_is_killed_while_the_child_is_still_starting(
    tmp_path: Path, transport: str, held: str
) -> None:
    """Under load, stdio and HTTP children that were still importing when mseval was killed
    with kill -9 lived on for 12-13 s: the HTTP child's watch on its parent started only after
    its imports, the stdio child saw its input closed only once serving. Held there (`imports`),
    they lived as long as the hold. A parent killed before the child's first line (`start`)
    must be seen by the child at once, too."""
    (tmp_path / "sitecustomize.py").write_text(GATE)
    if held == "start":
        (tmp_path / "hold-start").touch()
    reached, log = tmp_path / f"{held}.reached", tmp_path / "parent.log"
    with log.open("wb") as out:  # not a pipe: a stdio child shares its parent's stderr
        parent = subprocess.Popen(
            [sys.executable, "-c", PARENT, str(tmp_path), transport], cwd=ROOT, stdout=out, stderr=out
        )
    child = None
    try:
        _wait_for(f"the child server held at its {held}", reached.exists, parent, log)
        _wait_for("the child's pid", lambda: reached.read_text(), parent, log)
        child = int(reached.read_text())
        parent.kill()  # as kill -9: the parent cannot stop its child itself
        parent.wait()
        if held == "start":  # let it go on to mcp_servers, which must see its parent gone
            (tmp_path / "start").touch()
        _wait_for("end of the child server whose parent was killed", lambda: not _alive(child))
        # (held at its imports it ends without being let go; held at its start it never gets there)
        assert not (tmp_path / "imports.reached").exists() or held == "imports"
    finally:
        (tmp_path / "imports").touch()
        if parent.poll() is None:
            parent.kill()
            parent.wait()
        if child is not None and _alive(child):
            os.kill(child, signal.SIGKILL)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux only")
async def test_a_stdio_server_still_importing_ends_at_once_when_its_start_is_cancelled(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C while stdio servers were starting took 2.2-2.4 s: the MCP SDK closes a child's
    input and waits 2 s for it to exit before killing it, and a child still importing saw its
    input closed only once serving. Here the SDK waits for ever: the child, held at its
    imports, must end by itself."""
    import mcp.client.stdio

    from harness.mcp_client import ServerPool, WorldAccess

    monkeypatch.setattr(mcp.client.stdio, "PROCESS_TERMINATION_TIMEOUT", 3600.0)
    (tmp_path / "sitecustomize.py").write_text(GATE)
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))  # the child's, not this process's
    reached = tmp_path / "imports.reached"
    world = WorldAccess(f"sqlite:///{tmp_path / 'w.sqlite'}", None, tmp_path / "ws")  # type: ignore[arg-type]

    async def start() -> None:
        async with ServerPool(["local"], world, "stdio"):
            pass

    starting = asyncio.create_task(start())
    child = None
    try:
        async with asyncio.timeout(WAIT_LIMIT_S):  # a bound on a hung child, not a timing assumption
            while not (reached.exists() and reached.read_text()):
                assert not starting.done(), starting.exception()
                await asyncio.sleep(0.02)
        child = int(reached.read_text())
        starting.cancel()
        # a bound on a hung close, not a timing assumption (asyncio.wait leaves the task be)
        stopped, _ = await asyncio.wait({starting}, timeout=WAIT_LIMIT_S)
        assert stopped, f"the cancelled start did not end within {WAIT_LIMIT_S} s"
        assert not _alive(child)
    finally:
        (tmp_path / "imports").touch()
        if child is not None and _alive(child):
            os.kill(child, signal.SIGKILL)
        with contextlib.suppress(BaseException):
            await starting
