"""A zygote for the tests' `mseval` child processes: `python cli_zygote.py SOCKET`.

Most of a new `mseval` process's time goes to importing its third-party packages (the MCP SDK,
SQLAlchemy, SQLModel, typer...), some 0.5-1.5 s a start, and the suite starts hundreds. This
program imports those once, then forks one child per request on the Unix socket SOCKET. The child
is still a process of its own: it takes the request's argv, environment, working folder and
stdin/stdout/stderr, runs the module as `python -m MODULE` would, and its exit status is reported
back. No project module (harness, mcp_servers, contracts, evaluation) is imported before the fork,
so whatever they read from the environment at import they read from the request's.

Protocol, one connection per child: the client sends one byte with three file descriptors (stdin,
stdout, stderr), then an 8-byte big-endian length and that much JSON {"module", "argv", "env",
"cwd"}. The zygote answers "pid N\\n" once the child runs and "status S\\n" (the os.waitpid status)
once it ended. Requests are served one at a time. The zygote exits when its parent does.
"""

from __future__ import annotations

import gc
import json
import os
import runpy
import socket
import sys
from typing import Any

# Third-party packages the CLI imports on most commands. No env-dependent import-time state of
# theirs is used by the tests (typer reads TYPER_USE_RICH at import: the client sends requests
# setting TYPER_* or PYTHON* variables to a fresh process instead).
PRELOAD = (
    "anyio",
    "click",
    "docker",
    "httpx",
    "mcp",
    "mcp.client.session",
    "mcp.client.stdio",
    "mcp.client.streamable_http",
    "mcp.server.mcpserver",
    "pydantic",
    "rich.console",
    "rich.progress",
    "sqlalchemy",
    "sqlalchemy.dialects.sqlite",
    "sqlalchemy.orm",
    "sqlmodel",
    "starlette",
    "typer",
    "uvicorn",
    "yaml",
)


def _read_exactly(conn: socket.socket, size: int) -> bytes:
    data = b""
    while len(data) < size:
        chunk = conn.recv(size - len(data))
        if not chunk:
            raise EOFError("the client went away mid-request")
        data += chunk
    return data


def serve_until_forked(listener: socket.socket) -> tuple[dict[str, Any], list[int]]:
    """Serve requests for ever in the zygote; return (request, fds) only in a forked child."""
    parent = os.getppid()
    listener.settimeout(2.0)
    while True:
        try:
            conn, _ = listener.accept()
        except TimeoutError:
            if os.getppid() != parent:  # the test process is gone
                sys.exit(0)
            continue
        with conn:
            conn.settimeout(None)
            try:
                _, fds, _, _ = socket.recv_fds(conn, 1, 3)
                size = int.from_bytes(_read_exactly(conn, 8), "big")
                request = json.loads(_read_exactly(conn, size))
            except (OSError, EOFError, ValueError):
                continue
            if len(fds) != 3:
                for fd in fds:
                    os.close(fd)
                continue
            pid = os.fork()
            if pid == 0:
                listener.close()
                return request, fds
            for fd in fds:
                os.close(fd)
            try:
                conn.sendall(f"pid {pid}\n".encode())
                _, status = os.waitpid(pid, 0)
                conn.sendall(f"status {status}\n".encode())
            except OSError:  # the client went away (a killed test): the child still ends alone
                os.waitpid(pid, 0)


def become(request: dict[str, Any], fds: list[int]) -> str:
    """Take on the request's stdio, folder, environment and argv; return the module to run."""
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
        os.close(fd)
    cwd = request["cwd"]
    os.chdir(cwd)
    os.environ.clear()
    os.environ.update(request["env"])
    sys.argv = ["-m", *request["argv"]]
    sys.path[0] = cwd  # as `python -m` puts the folder it starts in first
    return str(request["module"])


def main() -> None:
    path = sys.argv[1]
    for name in PRELOAD:
        __import__(name)
    gc.freeze()  # the preloaded objects stay out of the children's collections (and shared pages)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(8)
    print("ready", flush=True)
    request, fds = serve_until_forked(listener)
    module = become(request, fds)
    runpy.run_module(module, run_name="__main__", alter_sys=True)
    sys.exit(0)


if __name__ == "__main__":
    main()
