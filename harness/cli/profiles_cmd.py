"""`mseval profiles ...`: list, validate and create profiles."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from harness.cli.common import MetavarCommand, path_option

profiles_app = typer.Typer(
    help="List, validate and create sub-agent profiles and variants.",
    no_args_is_help=True,
    rich_markup_mode=None,
)
DirOption = Annotated[
    list[Path], path_option("--dir", metavar="DIR", help="an extra profile folder (repeatable)")
]


@profiles_app.command("list")
def profiles_list(dirs: DirOption = []) -> None:  # noqa: B006
    """Variants and roles with their mode, delegation and sub-agents."""
    from harness.profiles import load_profiles

    ps = load_profiles(dirs)
    for p in sorted(ps.profiles.values(), key=lambda p: (not p.is_variant, p.name)):
        h = p.header
        kind = f"variant ({h.delegation})" if p.is_variant else f"role ({h.mode})"
        subs = f" -> {', '.join(h.subagents)}" if h.subagents else ""
        print(f"{p.name:32} {kind:24} {h.description}{subs}")


@profiles_app.command("validate")
def profiles_validate(dirs: DirOption = []) -> None:  # noqa: B006
    """Fields, sub-agent names, and tool globs against every server's real tools."""
    from harness.profiles import glob_problems, load_profiles
    from harness.servers_catalog import tool_modes

    ps = load_profiles(dirs, more_problems=lambda read: glob_problems(read, tool_modes()))
    print(f"{len(ps.profiles)} profiles valid ({len(ps.variants)} variants)")


@profiles_app.command("new", cls=MetavarCommand)
def profiles_new(
    name: Annotated[str, typer.Argument(metavar="NAME", help="profile name (lower-case, dashes)")],
    folder: Annotated[Path, path_option("--dir", metavar="DIR", help="where to write it")] = Path("profiles"),
    mode: Annotated[
        str | None,
        typer.Option(
            metavar="read-only|writable",
            help="read-only or writable (default: read-only; a variant keeps its own)",
        ),
    ] = None,
    override: Annotated[
        bool,
        typer.Option(
            help="replace the built-in profile of this name (writes override: true); for a built-in "
            "variant (sa, gen, spec, plan-first, oracle) it writes a copy of that variant to edit"
        ),
    ] = False,
    like: Annotated[
        str | None,
        typer.Option(
            "--like",
            metavar="VARIANT",
            help="write a new variant: a copy of this built-in one (e.g. spec) under NAME",
        ),
    ] = None,
) -> None:
    """Write a sub-agent role skeleton to edit; with --like a new variant copied from a built-in
    one; with --override a replacement for the built-in profile NAME (for a variant, a copy of it)."""
    from harness.authoring import new_profile
    from harness.cli.common import check_out_path

    check_out_path(folder, "--dir", folder=True)
    print(f"created {new_profile(name, folder, mode, override, like)}")


def register(app: typer.Typer) -> None:
    app.add_typer(profiles_app, name="profiles")
