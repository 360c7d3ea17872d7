"""The MCP client layer: an episode's connections to its servers.

Each server connection is owned by its own task, which enters the SDK `Client` context and
leaves it when told to close; calls come from any agent's task (the SDK routes responses by
request id). That keeps the anyio rule that a context is exited by the task that entered it,
and lets a failed server be restarted from wherever the failure was seen.

Transports: `inprocess` (the server object over the MCP in-memory transport — the real
protocol, no child process; the default), `stdio` (a child `python -m mcp_servers.<name>`),
`http` (a child serving streamable HTTP on 127.0.0.1, reached by URL). Child processes get a
minimal environment: API keys never reach a server.

An in-process call runs to its end in the calling agent's task (harness/mcp_inprocess.py); child
processes are started as harness/mcp_children.py says.

Every call has a timeout and a result-size cap. A call that fails because the server failed
(not a tool error) restarts the server once and returns a tool error; a second failure raises
`ServerFailure`, which ends the episode as `harness_error`. A JSON-RPC error that puts the fault
on the call (`CALL_FAULTS`: unknown method or tool, invalid parameters, a malformed request) is
the server answering, not failing: it goes back to the model as a tool error, as a malformed
tool call does (SPEC §12), and nothing is restarted. A call that times out is followed by
a fresh `tools/list` request (a probe: `ping` is not in every protocol version): a server that
answers it is alive and the tool was merely slow, so the call only timed out; one that does not
answer within `SERVER_PROBE_TIMEOUT_S` is hung (a deadlock, a stopped process) and is restarted
like a crashed one (`ServerHung`), its child process killed first, so later calls do not all
time out against it for the rest of the episode.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import secrets
import socket
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError
from mcp.types import INVALID_PARAMS, INVALID_REQUEST, METHOD_NOT_FOUND, PARSE_ERROR
from sqlalchemy.engine import Engine

from harness import mcp_children as children
from harness.events import EventLog
from harness.mcp_inprocess import Uninterrupted, without_tracing
from harness.models.base import ToolSpec
from harness.tools import ToolInfo, qualified
from mcp_servers.common.tooling import BOOKKEEPING_META_KEY, CALLER_META_KEY, LABEL_META_KEY

Transport = Literal["inprocess", "stdio", "http"]

# JSON-RPC error codes with which a live server refuses a call as the caller's fault. Any other
# error (an internal error, the connection closed under the call) is the server failing.
CALL_FAULTS = frozenset({PARSE_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, INVALID_PARAMS})

# How long a child server may take to start answering (a stdio child costs ~1 s to import).
SERVER_START_TIMEOUT_S = 30.0
# Bounded shutdown: a connection that does not close in this time is abandoned.
SERVER_CLOSE_TIMEOUT_S = 5.0
# After a call timed out, how long the server has to answer a `tools/list` probe before it is
# taken for hung: a live server lists its tools in milliseconds, even while a slow tool runs.
SERVER_PROBE_TIMEOUT_S = 5.0


class ServerFailure(Exception):
    """A server failed to start, or failed again after its restart; the episode ends as harness_error."""


class ServerHung(Exception):
    """A server that did not answer a probe after a call to it timed out: restarted as if it had crashed."""


@dataclass(frozen=True)
class CallOutcome:
    text: str
    is_error: bool
    truncated: bool = False


@dataclass
class WorldAccess:
    """What servers work on: the episode database (URL and, in-process, its engine) and workspace."""

    db_url: str
    engine: Engine
    workspace: Path
    options: dict[str, Any] = field(default_factory=dict)


def cap_text(text: str, limit: int) -> tuple[str, bool]:
    data = text.encode("utf-8")
    if len(data) <= limit:
        return text, False
    cut = data[:limit].decode("utf-8", errors="ignore")
    return (
        cut + f"\n[... truncated by the harness: {len(data)} bytes in all, {limit} shown; ask for less]",
        True,
    )


class _Connection:
    """One server, owned by one task; `start()` again after `close()` restarts it."""

    def __init__(self, name: str, transport: Transport, world: WorldAccess) -> None:
        self.name = name
        self.transport = transport
        self.world = world
        self.client: Client | None = None
        self._stop: asyncio.Event | None = None
        self._task: asyncio.Task[None] | None = None
        self._process: asyncio.subprocess.Process | None = None
        self.starts = 0  # starts that came up: a call's failure is news only to the start it was made to

    def _server_args(self) -> list[str]:
        # The database URL (on PostgreSQL it holds the episode role's password) goes in the
        # environment, not on the command line, which every user of the machine can read.
        from mcp_servers.common.options import as_arguments

        args = ["-m", f"mcp_servers.{self.name}", "--workspace", str(self.world.workspace), "--no-seed"]
        return args + as_arguments(self.world.options)

    def _env(self, token: str | None = None) -> dict[str, str]:
        from mcp_servers.common.bootstrap import DB_ENV, TOKEN_ENV
        from mcp_servers.common.parentwatch import PARENT_ENV

        # PARENT_ENV: the child dies with this process from its first line (parentwatch.py)
        env = {**children.child_env(), DB_ENV: self.world.db_url, PARENT_ENV: str(os.getpid())}
        return {**env, **({TOKEN_ENV: token} if token else {})}

    async def _target(self) -> Any:
        if self.transport == "inprocess":
            from mcp_servers.common import registry
            from mcp_servers.common.spec import ServerContext

            ctx = ServerContext(
                engine=self.world.engine, workspace=self.world.workspace, options=self.world.options
            )
            return without_tracing(registry.spec(self.name).build(ctx))
        if self.transport == "stdio":
            return StdioServerParameters(command=sys.executable, args=self._server_args(), env=self._env())
        # A fresh token per child: another local user or process cannot drive this episode's server.
        # It serves on a socket listening here already: a port chosen here and bound by the child
        # a second later could be taken meanwhile, and the client spoke to whatever took it.
        token = secrets.token_urlsafe(32)
        with socket.create_server(("127.0.0.1", 0)) as listener:
            port, fd = listener.getsockname()[1], listener.fileno()
            self._process = await asyncio.create_subprocess_exec(
                sys.executable, *self._server_args(), "--http", str(port), "--http-fd", str(fd),
                "--exit-with-parent", str(os.getpid()), env=self._env(token), pass_fds=(fd,),
                stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL,
            )  # fmt: skip
        await children.wait_for_port(port, self._process, SERVER_START_TIMEOUT_S)
        return children.with_token(f"http://127.0.0.1:{port}/mcp", token)

    async def _own(self, ready: asyncio.Future[None], stop: asyncio.Event) -> None:
        try:
            async with Client(await self._target()) as client:
                self.client = client
                ready.set_result(None)
                await stop.wait()
        except BaseException as exc:  # report start-up failures to start(); later ones end here
            if not ready.done():
                ready.set_exception(ServerFailure(f"server {self.name} failed to start: {exc!r}"))
            if isinstance(exc, asyncio.CancelledError):
                raise
        finally:
            self.client = None
            await self._kill_process()

    async def start(self, tg: asyncio.TaskGroup) -> None:
        ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._stop = asyncio.Event()
        async with children.start_turn(self.transport != "inprocess"):
            self._task = tg.create_task(self._own(ready, self._stop), name=f"mcp-{self.name}")
            limit = asyncio.timeout(SERVER_START_TIMEOUT_S)
            try:
                async with limit:
                    await ready
            except TimeoutError:
                if not limit.expired():
                    raise
                raise ServerFailure(
                    f"server {self.name} did not start within {SERVER_START_TIMEOUT_S:g} s"
                ) from None
        self.starts += 1  # once up: a call made while it was (re)starting failed on the old one

    async def close(self, *, hung: bool = False) -> None:
        """Stop the server, within `SERVER_CLOSE_TIMEOUT_S` (then it is abandoned, its child
        process still ended). `hung`: it no longer answers, so its HTTP child is killed first
        and the connection does not wait on it; a stdio child is killed by the SDK's own close
        (its input closed, then SIGTERM, then SIGKILL to its process group, in about 4.5 s)."""
        task, self._task = self._task, None
        if task is None:
            return
        if hung and self._process is not None and self._process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                self._process.kill()
        if self.client is None:
            # Still starting (a child being spawned, a handshake under way): it would look at
            # `stop` only once up, a second or more later, so it is cancelled at once. Its
            # `finally` still stops the child process.
            task.cancel()
        elif self._stop is not None:
            self._stop.set()
        with contextlib.suppress(TimeoutError, asyncio.CancelledError):
            async with asyncio.timeout(SERVER_CLOSE_TIMEOUT_S):
                await asyncio.shield(task)
        if not task.done():
            task.cancel()

    async def _kill_process(self) -> None:
        """End the HTTP child: SIGTERM, then SIGKILL if it has not ended within
        `SERVER_CLOSE_TIMEOUT_S` or the wait is cancelled (a close that timed out cancels it).
        A stopped child (SIGSTOP) holds SIGTERM until it is continued, so only SIGKILL ends it."""
        proc, self._process = self._process, None
        if proc is None or proc.returncode is not None:
            return
        proc.terminate()
        try:
            async with asyncio.timeout(SERVER_CLOSE_TIMEOUT_S):
                await proc.wait()
        except TimeoutError:
            pass
        finally:
            if proc.returncode is None:
                with contextlib.suppress(ProcessLookupError):
                    proc.kill()  # the event loop's child watcher reaps it


class ServerPool:
    """The connections of one episode. Use as `async with ServerPool(...) as pool:`."""

    def __init__(
        self, servers: Sequence[str], world: WorldAccess, transport: Transport = "inprocess", *, timeout_s: float = 60.0,
        result_bytes: int = 32_000, events: EventLog | None = None,
    ) -> None:  # fmt: skip
        """`events`: the episode's event log, told of each server restart (`server_restart`)."""
        self.world = world
        self.timeout_s = timeout_s
        self.result_bytes = result_bytes
        self.events = events
        self._conns = {name: _Connection(name, transport, world) for name in dict.fromkeys(servers)}
        self._restarted: set[str] = set()
        self._tg: asyncio.TaskGroup | None = None
        self._restart_lock = asyncio.Lock()
        self.catalog: list[ToolInfo] = []

    async def __aenter__(self) -> ServerPool:
        self._tg = asyncio.TaskGroup()
        await self._tg.__aenter__()
        try:
            await asyncio.gather(*(c.start(self._tg) for c in self._conns.values()))
            for name, conn in self._conns.items():
                assert conn.client is not None
                try:  # part of its start, bounded like it: the episode's time budget starts later
                    async with asyncio.timeout(SERVER_START_TIMEOUT_S):
                        listed = await conn.client.list_tools()
                except TimeoutError:
                    raise ServerFailure(
                        f"server {name} did not list its tools within {SERVER_START_TIMEOUT_S:g} s"
                    ) from None
                self.catalog.extend(_tool_info(name, t) for t in listed.tools)
        except BaseException:
            await self.__aexit__(None, None, None)
            raise
        return self

    async def __aexit__(self, *exc: object) -> None:
        await asyncio.gather(*(c.close() for c in self._conns.values()), return_exceptions=True)
        if self._tg is not None:
            tg, self._tg = self._tg, None
            await tg.__aexit__(None, None, None)

    async def call(
        self, server: str, tool: str, arguments: dict[str, Any], caller: str | None = None
    ) -> CallOutcome:
        """Call `tool` on `server`; `caller` (the agent's id) goes in the request's `_meta`."""
        conn = self._conns[server]
        start, client = conn.starts, conn.client
        limit = asyncio.timeout(self.timeout_s)
        try:
            if client is None:
                raise ConnectionError(f"server {server} is not running")
            async with limit:
                meta: Any = None if caller is None else {CALLER_META_KEY: caller}
                pending = client.call_tool(tool, arguments, meta=meta)
                result = await (Uninterrupted(pending) if conn.transport == "inprocess" else pending)
        except TimeoutError:
            if not limit.expired():
                raise
            timed_out = f"tool {qualified(server, tool)} timed out after {self.timeout_s:g} s"
            assert client is not None
            hung = await _probe(server, client)
            if hung is None:  # alive: the tool was merely slow
                return CallOutcome(timed_out, True)
            await self._restart(server, hung, start)
            return CallOutcome(
                f"{timed_out}; server {server} stopped answering and was restarted; try again", True
            )
        except Exception as exc:
            if isinstance(exc, MCPError) and exc.code in CALL_FAULTS:
                return _refused(server, tool, exc, self.result_bytes)
            await self._restart(server, exc, start)
            return CallOutcome(
                f"server {server} failed ({type(exc).__name__}) and was restarted; try again", True
            )
        text = "".join(getattr(block, "text", "") for block in result.content)
        text, truncated = cap_text(text, self.result_bytes)
        return CallOutcome(text, bool(result.is_error), truncated)

    async def _restart(self, server: str, cause: BaseException, start: int) -> None:
        """Restart `server`, which failed (or hung: `ServerHung`) under a call made to its
        `start`-th start; `ServerFailure` when it fails after its restart. Calls that saw the
        same death at once (one message's, a wave's) fail once: the first restarts it, the others
        find it restarted. Each restart is a `server_restart` event of the episode."""
        async with self._restart_lock:
            conn = self._conns[server]
            if conn.starts != start:
                return
            if server in self._restarted:
                raise ServerFailure(f"server {server} failed again after a restart: {cause!r}") from cause
            self._restarted.add(server)
            if self.events is not None:
                self.events.emit("server_restart", server=server, cause=f"{type(cause).__name__}: {cause}")
            await conn.close(hung=isinstance(cause, ServerHung))
            assert self._tg is not None
            await conn.start(self._tg)


def _refused(server: str, tool: str, error: MCPError, cap: int) -> CallOutcome:
    """The tool error for a call `server` refused with a JSON-RPC error in `CALL_FAULTS`."""
    data = error.data if isinstance(error.data, str) else json.dumps(error.data, default=str)
    detail = "" if error.data in (None, "") else f" ({data})"
    text = (
        f"{qualified(server, tool)} refused the call: {error.message}{detail} [JSON-RPC error {error.code}]"
    )
    text, truncated = cap_text(text, cap)
    return CallOutcome(text, True, truncated)


async def _probe(server: str, client: Client) -> ServerHung | None:
    """None when `server` answers a fresh `tools/list` (not the client's cached listing) within
    `SERVER_PROBE_TIMEOUT_S`; else why it is taken for hung. An error in place of the listing
    (the connection closed under it, a restart by another call) is no answer either."""
    try:
        async with asyncio.timeout(SERVER_PROBE_TIMEOUT_S):
            await client.list_tools(cache_mode="bypass")
    except TimeoutError:  # ours, or the SDK's read timeout: no answer either way
        return ServerHung(
            f"server {server} did not answer tools/list within {SERVER_PROBE_TIMEOUT_S:g} s after a call timed out"
        )
    except Exception as exc:  # not hidden: it goes on as the restart's cause
        hung = ServerHung(f"server {server} did not answer tools/list after a call timed out: {exc!r}")
        hung.__cause__ = exc
        return hung
    return None


def _tool_info(server: str, tool: Any) -> ToolInfo:
    meta = tool.meta or {}
    annotations = tool.annotations
    read_only = bool(annotations and annotations.read_only_hint)
    spec = ToolSpec(
        name=qualified(server, tool.name), description=tool.description or "", input_schema=tool.input_schema
    )
    return ToolInfo(
        server=server, tool=tool.name, spec=spec, read_only=read_only, label=meta.get(LABEL_META_KEY),
        bookkeeping=bool(meta.get(BOOKKEEPING_META_KEY)),
    )  # fmt: skip
