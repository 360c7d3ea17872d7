"""Run one server alone: `python -m mcp_servers.<name> --db URL --workspace DIR [--http PORT]`.

The URL may come from the environment instead (`MSEVAL_SERVER_DB`), which is how the harness
passes it: a command line is visible to every user of the machine, an environment is not.

Over stdio by default; `--http PORT` serves streamable HTTP on 127.0.0.1:PORT at /mcp; with a
token in `MSEVAL_SERVER_TOKEN` (the harness sets a fresh one for each HTTP child) every request
must carry `Authorization: Bearer <token>`, so no other local user or process can drive the
server (without one, any local client can, as with any loopback service). When
the server's tables are missing from the database, they are created and seeded first, so a
server can be pointed at an empty SQLite file and used at once. Without a URL the database is
WORKSPACE.world.sqlite beside the workspace (in its parent folder, named after it, so sibling
workspaces keep worlds of their own), never inside it, where the file tools it serves could
rewrite the world.

Ctrl-C (SIGINT) stops a server as SIGTERM does, with no traceback; over HTTP after a graceful
shutdown.
"""

from __future__ import annotations

import argparse
import hmac
import logging
import os
import signal
import sys
import threading
import time
from pathlib import Path
from typing import Any

from sqlalchemy.exc import SQLAlchemyError

from mcp_servers.common import registry
from mcp_servers.common.db import make_engine, sqlite_url, table_names
from mcp_servers.common.options import ServerOptions, parse_options
from mcp_servers.common.spec import ServerContext
from mcp_servers.common.worldstate import seed_into

DB_ENV = "MSEVAL_SERVER_DB"
TOKEN_ENV = "MSEVAL_SERVER_TOKEN"


def serve_main(name: str, argv: list[str] | None = None) -> None:
    # Ctrl-C ends the server as SIGTERM does, with no KeyboardInterrupt. Python's own handler
    # raised one: a stdio server then waited, cancelled, for its blocked read of stdin (until the
    # client closed it), and every server printed a ~60-line traceback. An HTTP server still
    # shuts down gracefully first (uvicorn takes SIGINT and SIGTERM while it serves, then
    # re-raises them), so both end killed by the signal, as a shell expects.
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    spec = registry.spec(name)
    parser = argparse.ArgumentParser(prog=f"python -m mcp_servers.{name}", description=spec.description)
    parser.add_argument(
        "--db",
        default=os.environ.get(DB_ENV),
        help=f"SQLAlchemy URL of the world database (default: ${DB_ENV}, else WORKSPACE.world.sqlite beside the workspace)",
    )
    parser.add_argument("--workspace", required=True, type=Path, help="the folder file tools are confined to")
    parser.add_argument(
        "--http", type=int, metavar="PORT", help="serve streamable HTTP on 127.0.0.1:PORT (/mcp)"
    )
    parser.add_argument(
        "--http-fd",
        type=int,
        metavar="FD",
        help="with --http and a token: serve on this inherited socket, already listening on PORT "
        "(mseval starts its HTTP servers so: a port bound only once this one is up could be taken meanwhile)",
    )
    parser.add_argument("--no-seed", action="store_true", help="do not create and seed missing tables")
    parser.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help=f"a server option (repeatable): {', '.join(ServerOptions.model_fields)}",
    )
    parser.add_argument(
        "--exit-with-parent",
        nargs="?",
        type=int,
        const=0,
        metavar="PID",
        help="stop when the process that started this one (PID, if given: it may end before this "
        "one has finished starting) ends, even by kill -9 (mseval starts its HTTP servers so)",
    )
    args = parser.parse_args(argv)
    options, problems = parse_options(args.option, "--option")
    if problems:
        parser.error(str(problems[0]))
    if args.exit_with_parent is not None:
        _exit_with_parent(args.exit_with_parent or os.getppid())

    logging.basicConfig(level=logging.WARNING)
    workspace: Path = args.workspace
    if args.http is not None and args.http_fd is None:
        _check_port(parser, args.http)
    try:
        workspace.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        parser.error(f"--workspace {workspace}: {exc.strerror or exc}")
    try:
        engine = make_engine(args.db or default_db_url(workspace))
        own = {model.__tablename__ for model in spec.tables}  # type: ignore[attr-defined]
        if own and not args.no_seed and not own <= table_names(engine):
            with engine.begin() as conn:
                seed_into(conn, [spec])
    except (SQLAlchemyError, ImportError) as exc:  # a bad URL, a missing driver, no server there
        reason = str(getattr(exc, "orig", None) or exc).strip().splitlines()
        parser.error(f"--db: {reason[0] if reason else type(exc).__name__}")
    app = spec.build(ServerContext(engine=engine, workspace=workspace, options=options))
    token = os.environ.pop(TOKEN_ENV, None)  # not left where the server's own code could read it
    if args.http is not None and token:
        _serve_http_with_token(app, args.http, token, args.http_fd)
    elif args.http is not None:
        app.run("streamable-http", host="127.0.0.1", port=args.http)
    else:
        app.run()
        # Stdio ends when the client closes our input: it waits for this process to exit (the
        # MCP SDK gives 2 s, then SIGTERM). Interpreter finalization of a server's heap takes
        # 0.5-1.5 s on a busy 2-core machine and buys nothing here: the database is released,
        # the output flushed, and the process ends at once.
        engine.dispose()
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(0)


def _serve_http_with_token(app: Any, port: int, token: str, fd: int | None = None) -> None:
    """Streamable HTTP on 127.0.0.1:port (on the listening socket `fd` when given) that answers
    401 to any request without the bearer token."""
    import functools
    import socket

    import anyio
    import uvicorn

    inner = app.streamable_http_app(host="127.0.0.1")
    expected = f"Bearer {token}".encode()

    async def guarded(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and not hmac.compare_digest(
            dict(scope["headers"]).get(b"authorization", b""), expected
        ):
            await send(
                {"type": "http.response.start", "status": 401, "headers": [(b"content-type", b"text/plain")]}
            )
            await send({"type": "http.response.body", "body": b"missing or wrong bearer token"})
            return
        await inner(scope, receive, send)

    config = uvicorn.Config(guarded, host="127.0.0.1", port=port, log_level="warning")
    sockets = None if fd is None else [socket.socket(fileno=fd)]
    anyio.run(functools.partial(uvicorn.Server(config).serve, sockets=sockets))


def default_db_url(workspace: Path) -> str:
    """WORKSPACE.world.sqlite beside the workspace: outside it, out of reach of the file tools,
    and one per workspace (`ws1` and `ws2` in one folder do not share a world)."""
    real = workspace.resolve()
    return sqlite_url(real.parent / f"{real.name or 'root'}.world.sqlite")


# How often an orphan check looks whether the parent is still there.
PARENT_POLL_S = 0.5


def _exit_with_parent(parent: int) -> None:
    """Exit at once when the parent process `parent` goes away: a child started by a process
    that is killed is re-parented, and `getppid()` changes. A parent that died while this one
    was still importing (a second or so) is seen at the first look. (A stdio server ends anyway
    when its input closes; an HTTP server has nothing else tying it to the harness.)"""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_POLL_S)
        os._exit(0)

    threading.Thread(target=watch, name="exit-with-parent", daemon=True).start()


def _check_port(parser: argparse.ArgumentParser, port: int) -> None:
    """A port that can be listened on now (uvicorn would only log the failure and exit 0)."""
    if problem := listen_problem(port):
        parser.error(f"--http: {problem}")


def listen_problem(port: int) -> str | None:
    """Why uvicorn could not listen on 127.0.0.1:`port` now (or it is no port), or None.

    The probe binds as uvicorn does, with SO_REUSEADDR: a server stopped a moment ago leaves its
    closed connections in TIME_WAIT on the port for a minute, which a plain bind counts as in use
    but a restarted server does not; a socket listening there refuses both."""
    import socket

    if not 1 <= port <= 65535:
        return f"{port} is not a port number (1 to 65535)"
    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(("127.0.0.1", port))
        except OSError as exc:
            return f"cannot listen on 127.0.0.1:{port}: {exc.strerror or exc}"
    return None
