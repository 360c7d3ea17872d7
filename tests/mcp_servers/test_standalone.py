"""Servers run alone (SPEC §5): `python -m mcp_servers.<name> --db URL --workspace DIR`, over
stdio and over `--http PORT` on 127.0.0.1, driven by the plain MCP SDK client: the tools list,
a read answers, and a stop (the client closing stdin; SIGTERM; Ctrl-C) ends the process without
a traceback and frees its port."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import socket
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters
from mcp.client.session import ClientSession
from mcp.client.stdio import stdio_client

from harness.cli.servers_cmd import serve_problems
from harness.mcp_children import free_port, wait_for_port
from mcp_servers.common.bootstrap import DB_ENV, TOKEN_ENV, listen_problem

REPO = Path(__file__).resolve().parents[2]
# (server, a read-only tool, its arguments, a text its answer holds)
SERVERS = [
    ("mail", "list_folders", {}, '"folder":"inbox"'),
    ("terminal", "ls", {}, "(empty folder)"),
    ("warehouse", "run_query", {"sql": "SELECT code FROM warehouse_regions ORDER BY code"}, '"code"'),
]
# A server's start imports the SDK and seeds its tables: seconds on a busy 2-core machine.
START_TIMEOUT_S = 120
PROC_NET = Path("/proc/net/tcp").exists()  # where Linux lists its sockets
# A bad call per server: a tool error the model can act on, after which the server still serves.
BAD_CALLS = {
    "mail": ("read_message", {"message_id": "the first one"}, "message_id"),
    "terminal": ("cat", {"path": "nosuch.txt"}, "no such file"),
    "warehouse": ("run_query", {"sql": "DELETE FROM warehouse_regions"}, "SELECT"),
}


def command(server: str, tmp_path: Path, *extra: str) -> list[str]:
    db = f"sqlite:///{tmp_path / 'world.sqlite'}"
    return [
        sys.executable,
        "-m",
        f"mcp_servers.{server}",
        "--db",
        db,
        "--workspace",
        str(tmp_path / "ws"),
        *extra,
    ]


def child_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k not in (DB_ENV, TOKEN_ENV)}


def port_is_free(port: int) -> bool:
    """Free for a server to listen on: no socket listens there (TIME_WAIT left by closed
    connections is no hindrance to one, which binds with SO_REUSEADDR)."""
    return listen_problem(port) is None


def time_wait_port() -> int:
    """A port as a server stopped a moment ago leaves it: nothing listens there, but a connection
    the server's side closed first waits out TIME_WAIT on it (a minute, on Linux)."""
    with socket.create_server(("127.0.0.1", 0)) as listener:
        port = int(listener.getsockname()[1])
        with socket.create_connection(("127.0.0.1", port)) as client:
            accepted, _ = listener.accept()
            accepted.close()
            assert client.recv(1) == b""
    return port


def listening_addresses(port: int) -> set[str]:
    """The local addresses with a socket listening on `port` (Linux /proc/net/tcp*), as hex."""
    found = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with open(table) as lines:
            for line in list(lines)[1:]:
                local, state = line.split()[1], line.split()[3]
                address, hex_port = local.rsplit(":", 1)
                if state == "0A" and int(hex_port, 16) == port:  # 0A: LISTEN
                    found.add(address)
    return found


@contextlib.asynccontextmanager
async def killed_if_left(child: asyncio.subprocess.Process) -> AsyncIterator[None]:
    """Kill `child` on the way out when it has not ended (a failed step, a hang)."""
    try:
        yield
    finally:
        if child.returncode is None:
            child.kill()
            await child.wait()


@contextlib.asynccontextmanager
async def serving_http(server: str, tmp_path: Path, port: int) -> AsyncIterator[asyncio.subprocess.Process]:
    """`python -m mcp_servers.<server> --http PORT`, once it listens; killed on the way out when
    it has not ended."""
    child = await asyncio.create_subprocess_exec(
        *command(server, tmp_path, "--http", str(port)), env=child_env(), cwd=str(REPO),
        stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    async with killed_if_left(child):
        async with asyncio.timeout(START_TIMEOUT_S):
            await wait_for_port(port, child, START_TIMEOUT_S)
        yield child


async def stopped(child: asyncio.subprocess.Process, stop: signal.Signals) -> bytes:
    """What `child` wrote to stderr, once `stop` has ended it."""
    child.send_signal(stop)
    _, err = await asyncio.wait_for(child.communicate(), START_TIMEOUT_S)
    return err


def answer_text(result: Any) -> str:
    assert not result.is_error, result
    return "".join(getattr(block, "text", "") for block in result.content)


@pytest.mark.parametrize(("server", "tool", "args", "expected"), SERVERS, ids=[s[0] for s in SERVERS])
async def test_a_server_alone_over_stdio(
    tmp_path: Path, server: str, tool: str, args: dict[str, Any], expected: str
) -> None:
    cmd = command(server, tmp_path)
    params = StdioServerParameters(command=cmd[0], args=cmd[1:], env=child_env(), cwd=str(REPO))
    with (tmp_path / "stderr.txt").open("w+") as errlog:
        async with (
            stdio_client(params, errlog=errlog) as (read, write),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            tools = (await session.list_tools()).tools
            assert tool in {t.name for t in tools}
            assert all(t.annotations and t.annotations.read_only_hint is not None for t in tools)
            assert expected in answer_text(await session.call_tool(tool, args))
            bad_tool, bad_args, said = BAD_CALLS[server]
            refused = await session.call_tool(bad_tool, bad_args)
            assert refused.is_error and said in str(refused.content), refused
            assert expected in answer_text(await session.call_tool(tool, args))
        errlog.seek(0)
        assert "Traceback" not in errlog.read()


@pytest.mark.parametrize(("server", "tool", "args", "expected"), SERVERS, ids=[s[0] for s in SERVERS])
@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
async def test_a_server_alone_over_http_stops_cleanly(
    tmp_path: Path, server: str, tool: str, args: dict[str, Any], expected: str, stop: signal.Signals
) -> None:
    """Regression: Ctrl-C (SIGINT) on `python -m mcp_servers.<name> --http PORT`, the way its
    own banner says to stop it ("Press CTRL+C to quit"), ended it with a KeyboardInterrupt
    traceback of some 60 lines."""
    port = free_port()
    async with serving_http(server, tmp_path, port) as child:
        if PROC_NET:
            assert listening_addresses(port) == {"0100007F"}  # 127.0.0.1 only, no other interface
        async with Client(f"http://127.0.0.1:{port}/mcp") as client:
            assert tool in {t.name for t in (await client.list_tools()).tools}
            assert expected in answer_text(await client.call_tool(tool, args))
        err = await stopped(child, stop)
    assert b"Traceback" not in err, err.decode()[-2000:]
    # Ended by the signal it was sent, after a graceful shutdown, as a shell expects.
    assert child.returncode == -stop, (child.returncode, err.decode()[-2000:])
    assert port_is_free(port)


async def test_a_server_starts_again_on_the_port_of_one_just_stopped(tmp_path: Path) -> None:
    """Regression: a server stopped with a connection open can leave its port in TIME_WAIT for a
    minute, and a server started again on it was refused ("--http: cannot listen on
    127.0.0.1:PORT: Address already in use") although uvicorn listens there at once; the check
    that a stopped server frees its port failed so in CI, now and then."""
    port = time_wait_port()
    with socket.socket() as plain, pytest.raises(OSError):
        plain.bind(("127.0.0.1", port))  # what the check did: refused while TIME_WAIT lasts
    assert serve_problems("mail", tmp_path / "ws", None, port) == []  # `mseval servers serve`
    async with serving_http("mail", tmp_path, port) as child:
        async with Client(f"http://127.0.0.1:{port}/mcp") as client:
            assert "list_folders" in {t.name for t in (await client.list_tools()).tools}
        err = await stopped(child, signal.SIGTERM)
    assert child.returncode == -signal.SIGTERM, err.decode()[-2000:]


async def test_a_stdio_server_stops_cleanly_on_ctrl_c(tmp_path: Path) -> None:
    """Regression: Ctrl-C on a stdio server run by hand printed a KeyboardInterrupt traceback."""
    child = await asyncio.create_subprocess_exec(
        *command("mail", tmp_path), env=child_env(), cwd=str(REPO),
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    assert child.stdin is not None and child.stdout is not None
    async with killed_if_left(child):
        hello = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}  # fmt: skip
        child.stdin.write(json.dumps(hello).encode() + b"\n")
        await child.stdin.drain()
        answer = json.loads(await asyncio.wait_for(child.stdout.readline(), START_TIMEOUT_S))
        assert answer["result"]["serverInfo"]["name"] == "mail"  # serving: past every import
        child.send_signal(signal.SIGINT)
        _, err = await asyncio.wait_for(child.communicate(), START_TIMEOUT_S)
    assert b"Traceback" not in err, err.decode()[-2000:]
    assert child.returncode == -signal.SIGINT
