from __future__ import annotations

import shutil
import socket
import uuid
from pathlib import Path

import pytest

from tests.mcp_servers.support import World, as_data, check_contract, serve, text


async def test_local_contract(world: World) -> None:
    async with serve("local", world) as client:
        calls = {
            "claim_done": {"summary": "all done"},
            "todo_read": {},
            "todo_write": {"items": [{"content": "read roster", "status": "in_progress"}]},
            "python_execute": {"code": "print(6 * 7)"},
        }
        await check_contract(client, world, calls)
        assert as_data(await client.call_tool("todo_read", {})) == [
            {"content": "read roster", "status": "in_progress"}
        ]


async def test_each_caller_has_its_own_todo_list(world: World) -> None:
    """The harness names the calling agent in each call's `_meta`; a client that names none
    (any other MCP client) has one list of its own."""
    from mcp_servers.common.tooling import CALLER_META_KEY

    def by(agent: str) -> dict[str, str]:
        return {CALLER_META_KEY: agent}

    async with serve("local", world) as client:
        for who in ("main", "a1"):
            items = [{"content": f"plan of {who}"}]
            await client.call_tool("todo_write", {"items": items}, meta=by(who))  # type: ignore[arg-type]
        assert as_data(await client.call_tool("todo_read", {}, meta=by("main"))) == [  # type: ignore[arg-type]
            {"content": "plan of main", "status": "pending"}
        ]
        assert as_data(await client.call_tool("todo_read", {}, meta=by("a1"))) == [  # type: ignore[arg-type]
            {"content": "plan of a1", "status": "pending"}
        ]
        assert as_data(await client.call_tool("todo_read", {}, meta=by("a2"))) == []  # type: ignore[arg-type]
        assert as_data(await client.call_tool("todo_read", {})) == []


async def test_python_execute_runs_in_the_workspace_without_secrets(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-must-not-leak")
    async with serve("local", world, sandbox="process") as client:
        code = "import os, pathlib; pathlib.Path('made.txt').write_text('x'); print(os.getcwd()); print(os.environ.get('ANTHROPIC_API_KEY'))"
        out = text(await client.call_tool("python_execute", {"code": code}))
        assert "[exit code 0]" in out
        assert str(world.workspace.resolve()) in out
        assert "sk-must-not-leak" not in out and "None" in out
        assert (world.workspace / "made.txt").read_text() == "x"


async def test_python_execute_timeout_and_memory_cap(world: World) -> None:
    async with serve("local", world, sandbox="process", memory_bytes=256 << 20) as client:
        slow = text(
            await client.call_tool(
                "python_execute", {"code": "import time; time.sleep(30)", "timeout_s": 0.5}
            )
        )
        assert "timed out" in slow
        big = text(await client.call_tool("python_execute", {"code": "x = bytearray(512 << 20)"}))
        assert "MemoryError" in big and "[exit code 1]" in big


@pytest.mark.docker
async def test_python_execute_in_a_container(world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    from mcp_servers.local.docker_sandbox import docker_available

    if not docker_available():
        pytest.skip("no docker daemon answers (.ci/setup.d/docker.sh starts one)")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-must-not-leak")
    async with serve("local", world, sandbox="docker", memory_bytes=256 << 20) as client:
        code = (
            "import os, pathlib; pathlib.Path('from_box.txt').write_text('x');"
            "print(sorted(os.listdir('/sys/class/net'))); print(os.environ.get('OPENAI_API_KEY')); print(os.getcwd())"
        )
        out = text(await client.call_tool("python_execute", {"code": code}))
        assert "[exit code 0]" in out, out
        assert "['lo']" in out  # --network none: loopback only
        assert "sk-must-not-leak" not in out and "/workspace" in out
        assert (world.workspace / "from_box.txt").read_text() == "x"
        oom = text(
            await client.call_tool(
                "python_execute", {"code": "x = bytearray(512 << 20); x[::4096] = b'1' * len(x[::4096])"}
            )
        )
        assert "[exit code 137]" in oom or "MemoryError" in oom, oom
        slow = text(
            await client.call_tool("python_execute", {"code": "import time; time.sleep(60)", "timeout_s": 1})
        )
        assert "timed out" in slow


async def test_python_execute_in_a_process_reaches_no_network(world: World) -> None:
    from mcp_servers.local.confinement import network_namespace_available

    if not network_namespace_available():
        pytest.skip("`unshare -rn` does not work here (no user namespaces)")
    with socket.create_server(("127.0.0.1", 0)) as listener:
        listener.setblocking(False)
        port = listener.getsockname()[1]
        code = (
            "import socket\n"
            "try:\n"
            f"    socket.create_connection(('127.0.0.1', {port}), timeout=2); print('connected')\n"
            "except OSError as exc:\n"
            "    print('refused:', exc)\n"
        )
        async with serve("local", world, sandbox="process") as client:
            out = text(await client.call_tool("python_execute", {"code": code}))
        assert "[exit code 0]" in out and "refused:" in out and "connected" not in out, out
        with pytest.raises(BlockingIOError):
            listener.accept()  # nobody ever connected


PROJECT = Path(__file__).resolve().parents[2]


def _confined_or_skip() -> None:
    from mcp_servers.local.confinement import confinement_available

    if not confinement_available():
        pytest.skip("user and mount namespaces do not work here: the process sandbox is not confined")


async def test_python_execute_in_a_process_sees_only_the_workspace_and_the_runtime(world: World) -> None:
    _confined_or_skip()
    project = PROJECT
    code = (
        "import os, pathlib, sys\n"
        "print(os.getcwd())\n"
        f"for p in ('../db', {str(project / 'tasks')!r}, {str(project / 'README.md')!r}):\n"
        "    print(p, os.path.exists(p))\n"
        "pathlib.Path('kept.txt').write_text('mine')\n"
        "try:\n"
        "    open(os.path.join(sys.prefix, 'planted.txt'), 'w')\n"
        "except OSError as exc:\n"
        "    print('runtime:', exc.strerror)\n"
        "import openpyxl; print('packages ok')\n"
    )
    async with serve("local", world, sandbox="process") as client:
        out = text(await client.call_tool("python_execute", {"code": code}))
    assert "[exit code 0]" in out, out
    assert str(world.workspace.resolve()) in out  # the workspace, at its own path
    assert "../db False" in out  # the world database beside the workspace is out of reach
    assert f"{project / 'tasks'} False" in out and f"{project / 'README.md'} False" in out
    assert "runtime: Read-only file system" in out and "packages ok" in out
    assert (world.workspace / "kept.txt").read_text() == "mine"


async def test_python_execute_in_a_process_cannot_climb_out_of_its_root(world: World) -> None:
    """Root of its own user namespace, the code could chroot into a subfolder and `..` its way
    back to the machine's root (the classic chroot escape): it read the task catalog and wrote
    anywhere. Now its root is pivoted (the old one unmounted) and its capabilities dropped."""
    _confined_or_skip()
    readme = PROJECT / "README.md"
    code = (
        "import os\n"
        "try:\n"
        "    os.makedirs('/tmp/esc', exist_ok=True); os.chroot('/tmp/esc')\n"
        "except OSError as exc:\n"
        "    print('chroot:', exc.strerror)\n"
        "for _ in range(64):\n"
        "    os.chdir('..')\n"
        "try:\n"
        "    os.chroot('.')\n"
        "except OSError:\n"
        "    pass\n"
        f"print('catalog', os.path.exists({str(readme)!r}))\n"
    )
    async with serve("local", world, sandbox="process") as client:
        out = text(await client.call_tool("python_execute", {"code": code}))
    assert "[exit code 0]" in out, out
    assert "chroot: Operation not permitted" in out or shutil.which("setpriv") is None, out
    assert "catalog False" in out, out


def _alive(marker: str) -> list[str]:
    """Processes (not zombies) whose command line contains `marker`."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue
        if marker in cmdline and state != "Z":
            found.append(cmdline)
    return found


async def test_python_execute_leaves_nothing_running_after_a_timeout(world: World) -> None:
    _confined_or_skip()
    # A duration of its own: the test's other variant may be running on another xdist worker.
    seconds = f"3071.{uuid.uuid4().int % 10**9}"
    code = f"import subprocess, time; subprocess.Popen(['sleep', '{seconds}']); time.sleep(300)"
    async with serve("local", world, sandbox="process") as client:
        out = text(await client.call_tool("python_execute", {"code": code, "timeout_s": 1}))
    assert out.startswith("[timed out: the process was killed]"), out
    assert _alive(f"sleep {seconds}") == []  # what the code started died with it


async def test_python_execute_output_is_capped_as_it_is_read(world: World) -> None:
    code = "import sys; sys.stdout.write('x' * 50_000_000); sys.stderr.write('e' * 10)"
    async with serve("local", world, sandbox="process") as client:
        out = text(await client.call_tool("python_execute", {"code": code}))
        nan = await client.call_tool("python_execute", {"code": "print(1)", "timeout_s": "nan"})
    assert "[exit code 0]" in out and "[... output truncated: 50000000 bytes in all]" in out
    assert "stdout:\n" + "x" * 16_000 + "\n[... output truncated" in out and "stderr:\neeeeeeeeee" in out
    assert nan.is_error and "timeout_s must be a positive number of seconds" in text(nan)


async def test_python_execute_refuses_code_no_program_argument_can_carry(world: World) -> None:
    """A NUL, a lone surrogate or code over 128 KiB (one program argument's limit) failed to
    start Python, and the tool said only 'Error executing tool python_execute'."""
    max_code_bytes = (128 << 10) - 1  # Linux's MAX_ARG_STRLEN, less the closing NUL
    fits = "print('ran')  # " + "é" * ((max_code_bytes - 16) // 2)  # the most bytes that pass
    async with serve("local", world, sandbox="process") as client:
        said = {
            name: await client.call_tool("python_execute", {"code": code})
            for name, code in {
                "nul": "print(1)\x00",
                "surrogate": "print(1)  # \ud800",
                "long": "x = 1\n" * 30_000,
                "fits": fits,
            }.items()
        }
    assert said["nul"].is_error and "code holds a NUL character" in text(said["nul"]), text(said["nul"])
    assert said["surrogate"].is_error, text(said["surrogate"])
    assert "a lone surrogate '\\ud800' at character 12" in text(said["surrogate"])
    assert said["long"].is_error, text(said["long"])
    assert "code is 180000 bytes, over the 131071 one call" in text(said["long"])
    assert len(fits.encode()) >= max_code_bytes - 1 and "ran" in text(said["fits"]), text(said["fits"])


async def test_python_execute_cap_inside_a_character_drops_its_first_bytes(world: World) -> None:
    """The 16,000-byte cut fell inside a two-byte 'é' and showed its first byte as U+FFFD."""
    code = "import sys; sys.stdout.write('a' + 'é' * 9_000)"
    async with serve("local", world, sandbox="process") as client:
        out = text(await client.call_tool("python_execute", {"code": code}))
    assert "stdout:\na" + "é" * 7_999 + "\n[... output truncated: 18001 bytes in all]" in out, out[-200:]
    assert "\ufffd" not in out


async def test_each_build_describes_its_own_limit(world: World) -> None:
    """Review: tools are built once per process and copied for later builds, and the copy kept
    the first build's description: a server given max_timeout_s=10 still said 'at most 55'."""
    said = []
    for limit in (55, 10):
        async with serve("local", world, max_timeout_s=limit) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            said.append(tools["python_execute"].description or "")
    assert "at most 55 " in said[0] and "at most 10 " in said[1], said
