"""`mseval servers list | serve NAME`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from contracts.errors import Problem
from harness.cli.common import MetavarCommand, path_option

servers_app = typer.Typer(
    help="The MCP servers: list them, or serve one.", no_args_is_help=True, rich_markup_mode=None
)


@servers_app.command("list", cls=MetavarCommand)
def servers_list(
    names: Annotated[
        list[str] | None,
        typer.Argument(metavar="NAME", help="list these servers' tools: name, read|write, function label"),
    ] = None,
) -> None:
    """Each server with its tool count, read/write split and function labels; or, given
    names, one line per tool of those servers (its qualified name, readOnlyHint and label)."""
    if names:
        _list_tools(names)
        return
    from harness.servers_catalog import describe

    for row in describe():
        labels = ", ".join(f"{k}×{v}" for k, v in sorted(row.labels.items()))
        print(f"{row.name:10} {row.tools:3} tools ({row.read} read, {row.write} write)  {labels}")


def _list_tools(names: list[str]) -> None:
    from contracts.errors import InputError
    from harness.servers_catalog import tool_catalog
    from mcp_servers.common import registry

    known = registry.names()
    unknown = [
        Problem(n, None, f"unknown MCP server; known: {', '.join(known)}") for n in names if n not in known
    ]
    if unknown:
        raise InputError(unknown)
    tools = [t for n in dict.fromkeys(names) for t in tool_catalog() if t.server == n]
    width = max((len(t.name) for t in tools), default=0)
    for t in tools:
        print(f"{t.name:{width}}  {'read ' if t.read_only else 'write'}  {t.label or '-'}")


@servers_app.command("serve", cls=MetavarCommand)
def servers_serve(
    name: Annotated[str, typer.Argument(metavar="NAME", help="server name (see `mseval servers list`)")],
    workspace: Annotated[Path, path_option(metavar="DIR", help="workspace folder")] = Path(
        "runs/serve/workspace"
    ),
    db: Annotated[
        str | None,
        typer.Option(
            metavar="URL",
            help="database URL (default: $MSEVAL_SERVER_DB, else DIR.world.sqlite beside the --workspace DIR; seeded when its tables are missing)",
        ),
    ] = None,
    http: Annotated[
        int | None,
        typer.Option(
            metavar="PORT", help="serve streamable HTTP at http://127.0.0.1:PORT/mcp instead of stdio"
        ),
    ] = None,
    option: Annotated[
        list[str],
        typer.Option(
            metavar="KEY=VALUE",
            help="a server option, as `mseval run --server-option` takes (repeatable), e.g. sandbox=process",
        ),
    ] = [],  # noqa: B006
) -> None:
    """Run one server over stdio (or HTTP), for any MCP client."""
    from contracts.errors import InputError
    from mcp_servers.common.bootstrap import serve_main
    from mcp_servers.common.options import as_arguments, parse_options

    options, option_problems = parse_options(option, "--option")
    problems = serve_problems(name, workspace, db, http) + option_problems
    if problems:
        raise InputError(problems)
    argv = (
        ["--workspace", str(workspace)]
        + (["--db", db] if db else [])
        + (["--http", str(http)] if http is not None else [])
        + as_arguments(options)
    )
    serve_main(name, argv)


def serve_problems(name: str, workspace: Path, db: str | None, http: int | None) -> list[Problem]:
    """Everything `serve` is given, checked before the server starts (exit 2, one line each)."""
    from contracts.paths import lookup_problem
    from harness.store_urls import url_problems
    from mcp_servers.common import registry
    from mcp_servers.common.bootstrap import listen_problem

    problems = []
    if name not in registry.names():
        problems.append(Problem(name, None, f"unknown MCP server; known: {', '.join(registry.names())}"))
    if reason := lookup_problem(workspace):
        problems.append(Problem("--workspace", None, f"cannot use {workspace}: {reason}"))
    else:
        existing = next((p for p in (workspace, *workspace.parents) if p.exists()), None)
        if existing is not None and not existing.is_dir():
            problems.append(Problem("--workspace", None, f"{existing} is a file, not a folder"))
    if db is not None:
        problems += url_problems(db, "--db", store=False)
    if http is not None and (problem := listen_problem(http)):
        problems.append(Problem("--http", None, problem))
    return problems


def register(app: typer.Typer) -> None:
    app.add_typer(servers_app, name="servers")
