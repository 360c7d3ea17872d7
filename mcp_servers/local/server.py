"""The `local` server: claim_done, todo_write/todo_read, python_execute (SPEC §5)."""

from __future__ import annotations

from typing import Literal

from mcp.server.mcpserver import Context, MCPServer
from pydantic import BaseModel, ConfigDict, Field

from mcp_servers.common.spec import ServerContext, ServerSpec
from mcp_servers.common.tooling import ToolError, as_json, caller, reader, tool
from mcp_servers.local.sandbox import DEFAULT_TIMEOUT_S, SandboxUnavailable, from_options

# The longest a single python_execute may run, whatever the model asks for: under the harness's
# own limit on any MCP call (60 s by default), so the code is stopped and its output returned
# before the call itself is cut off. A harness with another call limit passes
# `max_timeout_s` in the server's options.
MAX_TIMEOUT_S = 55.0
# The code reaches Python as one program argument (`python -I -c CODE`), which Linux caps at
# 128 KiB with its closing NUL (MAX_ARG_STRLEN): a longer one failed to start, and the model got
# "Error executing tool python_execute" with no reason; so did a NUL or a lone surrogate.
MAX_CODE_BYTES = (128 << 10) - 1


class TodoItem(BaseModel):
    model_config = ConfigDict(extra="forbid")

    content: str = Field(min_length=1)
    status: Literal["pending", "in_progress", "done"] = "pending"


def build(ctx: ServerContext) -> MCPServer:
    app = MCPServer("local", instructions="Task completion, a todo list, and Python in the workspace.")
    # The todo tools and claim_done are async: they touch only memory, and a sync tool would
    # cost a worker-thread hop per call. Each agent has its own list, keyed by the caller id the
    # harness sends in `_meta` (one shared list for a client that sends none).
    todos: dict[str, list[TodoItem]] = {}
    sandbox = from_options(ctx.options)
    max_timeout_s = float(ctx.options.get("max_timeout_s", MAX_TIMEOUT_S))

    @reader(app, "verification")
    async def claim_done(summary: str = "") -> str:
        """Declare the whole task finished. Call it once, after every deliverable is in place; the episode ends."""
        return "Task marked as done."

    @tool(app, label="planning", read_only=False, bookkeeping=True)
    async def todo_write(items: list[TodoItem], ctx: Context) -> str:
        """Replace your todo list with `items` (each: content, status pending|in_progress|done)."""
        todos[caller(ctx)] = list(items)
        return f"Todo list saved ({len(items)} items)."

    @reader(app, "planning")
    async def todo_read(ctx: Context) -> str:
        """Read your todo list."""
        return as_json([t.model_dump() for t in todos.get(caller(ctx), [])])

    async def python_execute(code: str, timeout_s: float = DEFAULT_TIMEOUT_S) -> str:
        if not code.strip():
            raise ToolError("code is empty")
        if "\x00" in code:
            raise ToolError("code holds a NUL character (\\x00), which cannot be passed to Python")
        try:
            size = len(code.encode("utf-8"))
        except UnicodeEncodeError as exc:
            raise ToolError(
                f"code is not valid text: a lone surrogate {code[exc.start]!r} at character {exc.start}"
            ) from exc
        if size > MAX_CODE_BYTES:
            raise ToolError(
                f"code is {size} bytes, over the {MAX_CODE_BYTES} one call can pass to Python: split it "
                "(a call can write a module into the workspace for the next to import)"
            )
        if not timeout_s > 0:  # also NaN
            raise ToolError("timeout_s must be a positive number of seconds")
        try:
            result = await sandbox.run(code, ctx.workspace, min(timeout_s, max_timeout_s))
        except SandboxUnavailable as exc:
            raise ToolError(str(exc)) from exc
        return result.render()

    # The description states the real limit on timeout_s, whatever this server was given.
    python_execute.__doc__ = (
        "Run Python 3 code in the workspace folder (no network). timeout_s is in seconds, at most "
        f"{max_timeout_s:g} (a longer one is cut to that). Returns exit code, stdout and stderr."
    )
    tool(app, label="file-build", read_only=False, destructive=True)(python_execute)

    return app


SPEC = ServerSpec(
    name="local", description="claim_done, todo list, python_execute in the workspace", build=build
)
