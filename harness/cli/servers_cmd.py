"""`mseval servers list | serve NAME`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

servers_app = typer.Typer(
    help="The MCP servers: list them, or serve one.", no_args_is_help=True, rich_markup_mode=None
)


@servers_app.command("list")
def servers_list() -> None:
    """Each server with its tool count, read/write split and function labels."""
    from harness.servers_catalog import describe

    for row in describe():
        labels = ", ".join(f"{k}×{v}" for k, v in sorted(row.labels.items()))
        print(f"{row.name:10} {row.tools:3} tools ({row.read} read, {row.write} write)  {labels}")


@servers_app.command("serve")
def servers_serve(
    name: Annotated[str, typer.Argument(help="server name (see `mseval servers list`)")],
    workspace: Annotated[Path, typer.Option(help="workspace folder")] = Path("runs/serve/workspace"),
    db: Annotated[
        str | None, typer.Option(help="database URL (default: world.sqlite in the workspace, seeded)")
    ] = None,
    http: Annotated[
        int | None, typer.Option(help="serve streamable HTTP on 127.0.0.1:PORT instead of stdio")
    ] = None,
) -> None:
    """Run one server over stdio (or HTTP), for any MCP client."""
    from mcp_servers.common.bootstrap import serve_main

    argv = (
        ["--workspace", str(workspace)]
        + (["--db", db] if db else [])
        + (["--http", str(http)] if http is not None else [])
    )
    serve_main(name, argv)


def register(app: typer.Typer) -> None:
    app.add_typer(servers_app, name="servers")
