"""The `local` server: claim_done, todo_write/todo_read, python_execute (SPEC §5)."""

from __future__ import annotations

from typing import Literal

from mcp.server.mcpserver import Context, MCPServer
from pydantic import BaseModel, ConfigDict, Field

from mcp_servers.common.spec import ServerContext, ServerSpec
from mcp_servers.common.tooling import ToolError, as_json, caller, reader, tool
from mcp_servers.local.sandbox import DEFAULT_TIMEOUT_S, from_options

# The longest a single python_execute may run, whatever the model asks for.
MAX_TIMEOUT_S = 120.0


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

    @tool(app, label="file-build", read_only=False)
    async def python_execute(code: str, timeout_s: float = DEFAULT_TIMEOUT_S) -> str:
        """Run Python 3 code in the workspace folder (no network). Returns exit code, stdout and stderr."""
        if not code.strip():
            raise ToolError("code is empty")
        if not timeout_s > 0:  # also NaN
            raise ToolError("timeout_s must be a positive number of seconds")
        result = await sandbox.run(code, ctx.workspace, min(timeout_s, MAX_TIMEOUT_S))
        return result.render()

    return app


SPEC = ServerSpec(
    name="local", description="claim_done, todo list, python_execute in the workspace", build=build
)
