"""`python -m mcp_servers.<name>` (and `mseval servers serve`) run alone."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from mcp_servers.common.bootstrap import DB_ENV


def test_the_default_database_is_beside_the_workspace_not_in_it(tmp_path: Path) -> None:
    """Regression: without --db the world database was world.sqlite inside the workspace, where
    the terminal's rm and write_file (and python_execute) could rewrite the world."""
    workspace = tmp_path / "serve" / "workspace"
    env = {k: v for k, v in os.environ.items() if k != DB_ENV}
    # With its input closed, the stdio server seeds its database and ends at once.
    subprocess.run(
        [sys.executable, "-m", "mcp_servers.mail", "--workspace", str(workspace)],
        stdin=subprocess.DEVNULL, capture_output=True, env=env, timeout=60, check=True,
    )  # fmt: skip
    assert workspace.is_dir() and not (workspace / "world.sqlite").exists()
    assert (tmp_path / "serve" / "workspace.world.sqlite").is_file()
    # a sibling workspace gets a world of its own (one world.sqlite in the parent was shared)
    other = tmp_path / "serve" / "other"
    subprocess.run(
        [sys.executable, "-m", "mcp_servers.mail", "--workspace", str(other)],
        stdin=subprocess.DEVNULL, capture_output=True, env=env, timeout=60, check=True,
    )  # fmt: skip
    assert (tmp_path / "serve" / "other.world.sqlite").is_file()


async def test_an_http_server_with_a_token_refuses_requests_without_it(tmp_path: Path) -> None:
    """Regression: an episode's HTTP server (`--server-transport http`) answered any local
    process, which could then run python_execute or change the episode's world."""
    import asyncio

    import httpx2
    from mcp import Client

    from harness.mcp_children import free_port, wait_for_port, with_token
    from mcp_servers.common.bootstrap import TOKEN_ENV

    port = free_port()
    env = {**os.environ, TOKEN_ENV: "s3cret-token"}
    env.pop(DB_ENV, None)
    child = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "mcp_servers.local", "--workspace", str(tmp_path / "ws"), "--http", str(port),
        env=env, stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.DEVNULL,
    )  # fmt: skip
    try:
        await wait_for_port(port, child, 60)  # a bound on a hung child
        url = f"http://127.0.0.1:{port}/mcp"
        init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}
        async with httpx2.AsyncClient() as http:
            for headers in ({}, {"Authorization": "Bearer wrong"}):
                answer = await http.post(url, json=init, headers={"Accept": "application/json", **headers})
                assert answer.status_code == 401, headers
        async with Client(with_token(url, "s3cret-token")) as client:
            assert "todo_read" in {t.name for t in (await client.list_tools()).tools}
    finally:
        child.kill()
        await child.wait()


def test_only_a_child_server_started_by_mseval_ties_its_life_to_its_parent() -> None:
    """`MSEVAL_SERVER_PARENT` arms the parent-death signal in `python -m mcp_servers.<name>`
    only: a process that imports mcp_servers with it in its environment (mseval itself, its
    tests) neither ends because the pid is not its parent's nor dies with its parent."""
    from mcp_servers.common.parentwatch import PARENT_ENV

    probe = (
        "import ctypes, os, mcp_servers; flag = ctypes.c_int(-1); "
        "ctypes.CDLL(None).prctl(2, ctypes.byref(flag), 0, 0, 0); "  # PR_GET_PDEATHSIG
        f"print(flag.value, {PARENT_ENV!r} in os.environ)"
    )
    other = str(os.getppid())  # a live pid that is not the probe's parent
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, env={**os.environ, PARENT_ENV: other},
        timeout=60, check=True,
    )  # fmt: skip
    assert done.stdout.split() == ["0", "False"]
