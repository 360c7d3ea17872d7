"""The process sandbox of `python_execute`, against the security audit's findings: under root,
code ran as the machine's root (uid_map `0 0 1`) and could open /proc/sys/kernel/core_pattern
for writing; it shared the machine's /dev (and /dev/shm), host name and IPC; and only its
address space was capped (forks, file sizes and /tmp were not)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from mcp_servers.local import confinement, sandbox
from mcp_servers.local.confinement import SANDBOX_UID, sandbox_mode
from mcp_servers.local.sandbox import ProcessSandbox, RunResult
from tests.mcp_servers.support import World, serve, text

ROOT = os.geteuid() == 0
PROJECT = Path(__file__).resolve().parents[2]


def _confined_or_skip() -> None:
    if sandbox_mode() != "confined":
        pytest.skip("user and mount namespaces do not work here: the process sandbox is not confined")


def _workspace(tmp_path: Path) -> Path:
    """A workspace as a run makes one, root's, under a folder closed to others."""
    tmp_path.chmod(0o700)
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    return workspace


async def _run(code: str, workspace: Path, box: ProcessSandbox | None = None) -> RunResult:
    result = await (box or ProcessSandbox()).run(code, workspace, 20.0)
    assert result.exit_code == 0, result.render()
    return result


@pytest.mark.skipif(not ROOT, reason="mseval does not run as root here")
async def test_under_root_the_code_runs_as_nobody_and_shares_the_workspace_both_ways(
    tmp_path: Path,
) -> None:
    workspace = _workspace(tmp_path)
    (workspace / "from_server.txt").write_text("server\n")  # what a root server wrote
    (workspace / "out").mkdir()
    outside = tmp_path / "outside.txt"
    outside.write_text("root's")
    (workspace / "link").symlink_to(outside)
    code = (
        "import os, pathlib\n"
        "print('uid', os.getuid())\n"
        "with open('from_server.txt', 'a') as f: f.write('code\\n')\n"
        "pathlib.Path('out/made.txt').write_text('made')\n"
    )
    result = await _run(code, workspace)
    assert "uid 0" not in result.stdout, result.stdout
    assert (workspace / "from_server.txt").read_text() == "server\ncode\n"
    made = workspace / "out" / "made.txt"
    assert made.stat().st_uid == SANDBOX_UID  # not root on the machine either
    made.write_text("changed by the harness")  # and the harness (root) still uses it
    assert outside.stat().st_uid == 0  # the workspace was handed over, not what a link points to


async def test_sysctls_cannot_be_opened_for_writing(tmp_path: Path) -> None:
    """The audit opened hostname, drop_caches, core_pattern for writing and wrote domainname."""
    code = (
        "import os\n"
        "for name in ('kernel/hostname', 'vm/drop_caches', 'kernel/core_pattern', 'kernel/domainname'):\n"
        "    try:\n"
        "        os.close(os.open('/proc/sys/' + name, os.O_WRONLY)); print('writable', name)\n"
        "    except OSError as exc:\n"
        "        print('refused', name, exc.strerror)\n"
    )
    result = await _run(code, _workspace(tmp_path))
    assert "writable" not in result.stdout and result.stdout.count("refused") == 4, result.stdout


async def test_dev_host_name_and_ipc_are_its_own(tmp_path: Path) -> None:
    _confined_or_skip()
    marker = f"mseval-probe-{os.getpid()}"
    code = (
        "import os\n"
        "print(sorted(os.listdir('/dev')))\n"
        f"open('/dev/shm/{marker}', 'w').write('x')\n"
        "open('/dev/null', 'w').write('x'); assert len(open('/dev/urandom', 'rb').read(8)) == 8\n"
        "print(os.readlink('/proc/self/ns/uts'), os.readlink('/proc/self/ns/ipc'))\n"
        "try:\n"
        f"    open('/dev/shm/{marker}-big', 'wb').write(bytes(65 << 20))\n"
        "except OSError as exc:\n"
        "    print('shm:', exc.strerror)\n"
    )
    try:
        result = await _run(code, _workspace(tmp_path))
        on_host = await asyncio.to_thread(Path("/dev/shm", marker).exists)
    finally:  # were it the machine's /dev/shm (it was), leave nothing there
        for name in (marker, f"{marker}-big"):
            await asyncio.to_thread(Path("/dev/shm", name).unlink, missing_ok=True)
    assert not on_host  # not the machine's /dev/shm
    devices, namespaces, shm = result.stdout.splitlines()
    assert devices == str(
        ["fd", "full", "null", "random", "shm", "stderr", "stdin", "stdout", "tty", "urandom", "zero"]
    )
    assert os.readlink("/proc/self/ns/uts") not in namespaces
    assert os.readlink("/proc/self/ns/ipc") not in namespaces
    assert shm == "shm: No space left on device"


def _limits_or_skip() -> None:
    if not ROOT and sandbox_mode() == "bare":
        pytest.skip("no user namespace: RLIMIT_NPROC would count all of mseval's user's processes")
    if sandbox_mode() != "bare" and shutil.which("prlimit") is None:
        pytest.skip("no prlimit to set RLIMIT_NPROC inside the user namespace")


FORKS = (
    "import os, signal\n"
    "kids = []\n"
    "try:\n"
    "    for _ in range({n}):\n"
    "        pid = os.fork()\n"
    "        if pid == 0:\n"
    "            signal.pause()\n"
    "        kids.append(pid)\n"
    "except OSError as exc:\n"
    "    print('refused', exc.strerror)\n"
    "print('forked', len(kids))\n"
    "{then}\n"
    "for pid in kids:\n"
    "    os.kill(pid, signal.SIGKILL)\n"
)


async def test_a_fork_bomb_is_stopped(tmp_path: Path) -> None:
    _limits_or_skip()
    code = FORKS.format(n=100, then="")
    result = await _run(code, _workspace(tmp_path), ProcessSandbox(max_processes=16))
    assert "refused Resource temporarily unavailable" in result.stdout, result.stdout
    forked = int(result.stdout.split("forked ")[1].split()[0])
    assert forked < 16


async def test_the_memory_of_all_its_processes_is_capped(tmp_path: Path) -> None:
    """RLIMIT_AS caps each process alone: one call that forked 256 processes of 1 GiB each
    held the machine's memory (4.85 GiB seen). Four children of 70 MB each stay under a 160 MiB
    cap one by one but not together (280 MB): the call is killed and says so. The children
    would sleep 15 s and the parent print 'all done': a missed kill shows as that output."""
    code = (
        "import os, time\n"
        "kids = []\n"
        "for _ in range(4):\n"
        "    pid = os.fork()\n"
        "    if pid == 0:\n"
        "        held = b'x' * (70 << 20)\n"
        "        time.sleep(15)\n"
        "        os._exit(0)\n"
        "    kids.append(pid)\n"
        "for pid in kids:\n"
        "    os.waitpid(pid, 0)\n"
        "print('all done')\n"
    )
    result = await ProcessSandbox(memory_bytes=160 << 20).run(code, _workspace(tmp_path), 30.0)
    assert "all done" not in result.stdout and not result.timed_out, result.render()
    assert result.exit_code == -signal.SIGKILL, result.render()
    assert result.note.startswith("[killed: its processes held ") and result.note.endswith(
        " MiB in all, over the cap of 160 MiB]"
    ), result.note
    held = int(result.note.split("held ")[1].split()[0])
    assert 160 < held < 400, result.note


async def test_each_run_has_a_process_cap_of_its_own(tmp_path: Path) -> None:
    """RLIMIT_NPROC counts per user: counted on the machine, one run's forks (all runs are
    nobody) would leave none for another's. It is counted in each run's user namespace."""
    _confined_or_skip()
    _limits_or_skip()
    workspace = _workspace(tmp_path)
    box = ProcessSandbox(max_processes=16)
    hold = (
        "import os, time; open('ready', 'w').close()\n"
        "deadline = time.monotonic() + 15\n"
        "while not os.path.exists('done') and time.monotonic() < deadline: time.sleep(0.02)"
    )
    holder = asyncio.create_task(box.run(FORKS.format(n=12, then=hold), workspace, 20.0))
    try:
        for _ in range(1000):
            if (workspace / "ready").exists() or holder.done():
                break
            await asyncio.sleep(0.01)
        other = await _run(FORKS.format(n=12, then=""), workspace, box)
    finally:
        (workspace / "done").touch()
        held = await holder
    assert "forked 12" in held.stdout, held.render()
    assert "forked 12" in other.stdout and "refused" not in other.stdout, other.render()


async def test_file_size_and_private_tmp_are_capped(tmp_path: Path) -> None:
    code = (
        "try:\n"
        "    open('big.bin', 'wb').write(bytes(2 << 20))\n"
        "except OSError as exc:\n"
        "    print('file:', exc.strerror)\n"
        "try:\n"
        "    for i in range(3):\n"
        "        open(f'/tmp/part{i}', 'wb').write(bytes(600 << 10))\n"
        "except OSError as exc:\n"
        "    print('tmp:', exc.strerror)\n"
    )
    result = await _run(code, _workspace(tmp_path), ProcessSandbox(file_bytes=1 << 20))
    assert "file: File too large" in result.stdout, result.stdout
    if sandbox_mode() == "confined":
        assert "tmp: No space left on device" in result.stdout, result.stdout


async def test_python_execute_says_and_keeps_its_timeout_limit(world: World) -> None:
    """It offered up to 120 s, yet the harness cuts every MCP call at 60 s."""
    async with serve("local", world, sandbox="process") as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert "at most 55" in (tools["python_execute"].description or "")
    async with serve("local", world, sandbox="process", max_timeout_s=0.5) as client:
        out = text(
            await client.call_tool("python_execute", {"code": "import time; time.sleep(5)", "timeout_s": 100})
        )
    assert "timed out" in out, out


async def test_python_execute_says_so_when_it_cannot_run_unless_as_root(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sandbox, "sandbox_setup", lambda: None)
    async with serve("local", world, sandbox="process") as client:
        result = await client.call_tool("python_execute", {"code": "print(1)"})
    assert result.is_error and f"as uid {SANDBOX_UID}" in text(result), text(result)


# Run by a user who is not root: where that user can make namespaces, the sandbox must be
# confined, in a user namespace of its own, and see nothing beside its workspace.
AS_A_USER = textwrap.dedent(
    """
    import asyncio, json, os, subprocess, sys, tempfile
    from pathlib import Path
    from mcp_servers.local import confinement, sandbox
    namespaces = subprocess.run(
        ["unshare", "-rnmpf", "--kill-child", "true"], capture_output=True, check=False
    ).returncode == 0
    episode = Path(tempfile.mkdtemp(dir=sys.argv[1]))
    (episode / "workspace").mkdir()
    (episode / "world.sqlite").write_text("the world beside the workspace")
    outside = Path(sys.argv[1], "outside.txt")
    outside.write_text("beside the episode")
    code = f"import os; print(os.listdir('..'), os.path.exists({str(outside)!r}))"
    result = asyncio.run(sandbox.ProcessSandbox().run(code, episode / "workspace", 20.0))
    print(json.dumps({
        "uid": os.geteuid(), "namespaces": namespaces, "setup": repr(confinement.sandbox_setup()),
        "out": result.render(),
    }))
    """
)


def test_without_root_the_code_is_confined(tmp_path: Path) -> None:
    """Without root, the confined setup failed (a /dev remount and a uid_map the kernel refuse
    in a user namespace) and the sandbox fell back, unsaid, to a network namespace only: the
    code read the world database beside its workspace. As root, the test is run as uid 1000 of
    a user namespace of its own, where the kernel treats it as a user like any other."""
    tmp_path.chmod(0o755)
    as_user = [] if not ROOT else ["unshare", "-U", "--map-user=1000", "--map-group=1000", "--"]
    if ROOT and subprocess.run([*as_user, "true"], capture_output=True, check=False).returncode != 0:
        pytest.skip("no user namespaces here: there is no user without root who could have them")
    run = subprocess.run(
        [*as_user, sys.executable, "-c", AS_A_USER, str(tmp_path)],
        cwd=PROJECT, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    seen = json.loads(run.stdout.splitlines()[-1])
    assert seen["uid"] != 0
    if not seen["namespaces"]:
        pytest.skip("this user cannot make namespaces: the sandbox cannot be confined")
    assert seen["setup"] == "Setup(mode='confined', user_namespace=True)", run.stderr
    assert "['workspace'] False" in seen["out"], seen["out"]


@pytest.fixture
def fresh_setup() -> Iterator[None]:
    """The sandbox's setup probed again in the test, and again after it."""
    confinement.sandbox_setup.cache_clear()
    yield
    confinement.sandbox_setup.cache_clear()


def test_a_weaker_setup_than_confinement_is_reported_with_why(
    fresh_setup: None, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """The fallback was silent: only a test that skipped said the sandbox was not confined."""

    def probe(setup: confinement.Setup) -> str | None:
        return "mount: no remount here" if setup.mode == "confined" else None

    monkeypatch.setattr(confinement, "probe", probe)
    with caplog.at_level(logging.WARNING, logger=confinement.__name__):
        setup = confinement.sandbox_setup()
    assert setup == confinement.Setup("network", user_namespace=True)
    assert "not fully confined" in caplog.text and "the machine's file system" in caplog.text
    assert "mount: no remount here" in caplog.text


# A server that runs code in the process sandbox, for as long as it is let.
KILLED_SERVER = textwrap.dedent(
    """
    import asyncio, sys
    from pathlib import Path
    from mcp_servers.local.sandbox import ProcessSandbox
    code = "import pathlib, time; pathlib.Path('started').touch(); time.sleep(%s)" % sys.argv[2]
    asyncio.run(ProcessSandbox().run(code, Path(sys.argv[1]), 900))
    """
)


def _running(marker: str) -> list[int]:
    """The processes whose command line holds `marker` (zombies aside)."""
    found = []
    for proc in Path("/proc").iterdir():
        try:
            cmdline = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            state = (proc / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if marker in cmdline and state != "Z":
            found.append(int(proc.name))
    return found


async def test_the_code_dies_with_a_killed_server(tmp_path: Path) -> None:
    """After a kill -9 of the server, the code ran on, unwatched, to its end or never: under
    root the switch to uid 65534 cleared `unshare --kill-child`'s parent-death signal, and
    `unshare` itself, in a session of its own, outlived the server."""
    workspace = _workspace(tmp_path)
    seconds = f"3072.{os.getpid()}"  # the sleep's own mark among this machine's processes
    temp = tmp_path / "temp"  # the server's temp folder
    temp.mkdir()
    server = await asyncio.create_subprocess_exec(
        sys.executable, "-c", KILLED_SERVER, str(workspace), seconds, cwd=PROJECT,
        env={**os.environ, "TMPDIR": str(temp)},
    )  # fmt: skip
    try:
        for _ in range(6000):  # the code's start, however slow the machine
            if (workspace / "started").exists() or server.returncode is not None:
                break
            await asyncio.sleep(0.01)
        assert (workspace / "started").exists(), "the code never started"
        server.kill()
        await server.wait()
        # Its end follows the kill; the bound only turns the old endless run into a failure.
        for _ in range(6000):
            if not await asyncio.to_thread(_running, f"sleep({seconds})"):
                break
            await asyncio.sleep(0.01)
        left = await asyncio.to_thread(_running, f"sleep({seconds})")
    finally:
        if server.returncode is None:
            server.kill()
            await server.wait()
    for pid in left:  # what the old code left running
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    assert left == []
    # The folder the root was mounted on is the shared one, kept: none of the run's own is left.
    assert sorted(p.name for p in temp.glob("mseval-root-*")) == [f"mseval-root-{os.geteuid()}"]


def test_runs_share_one_private_folder_to_mount_their_root_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each run made a folder of its own in the temp folder, left behind (empty) whenever its
    server was killed mid-run; mounts are private to each run's namespace, so one serves all."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    shared = tmp_path / f"mseval-root-{os.geteuid()}"
    with confinement.new_root() as first, confinement.new_root() as second:  # two runs at once
        assert first == second == str(shared)
    made = shared.lstat()
    assert stat.S_ISDIR(made.st_mode) and stat.S_IMODE(made.st_mode) == 0o700
    assert made.st_uid == os.geteuid()


@pytest.mark.parametrize("taken_by", ["a link", "an open folder", "a file"])
def test_a_shared_root_folder_name_taken_otherwise_is_not_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, taken_by: str
) -> None:
    """The name in the shared temp folder may be taken first by another user or process: then a
    run mounts on a folder of its own, removed after it, and leaves the name as it found it."""
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    name = tmp_path / f"mseval-root-{os.geteuid()}"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o700)
    if taken_by == "a link":
        name.symlink_to(elsewhere)
    elif taken_by == "an open folder":
        name.mkdir(mode=0o755)
        name.chmod(0o755)
    else:
        name.write_text("")
    before = (name.lstat().st_ino, name.lstat().st_mode)
    with confinement.new_root() as root:
        assert Path(root).parent == tmp_path and Path(root).name.startswith("mseval-root-")
        assert Path(root) != name and Path(root).is_dir() and not Path(root).is_symlink()
    assert not Path(root).exists()
    assert (name.lstat().st_ino, name.lstat().st_mode) == before and list(elsewhere.iterdir()) == []
