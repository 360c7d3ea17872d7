from __future__ import annotations

import socket

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
    from mcp_servers.local.sandbox import docker_available

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
    from mcp_servers.local.sandbox import network_namespace_available

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
