"""README's command-line summary stays true: every command and every option `--help` lists
is in it, under its command, so a user reading the summary is not missing a switch the guides
use (`profiles new --dir`, `priors draft --store` were missing)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import typer
from typer.core import TyperGroup, TyperOption

from harness.cli.main import app

README = Path(__file__).resolve().parents[2] / "README.md"
SHARED_WITH_SCORE = "score's other options"


def summary() -> dict[str, str]:
    """The README's command-line block, one text per top-level command (with its continuation lines)."""
    text = README.read_text()
    block = text[text.index("## Command line") :]
    block = block[block.index("```\n") + 4 :]
    block = block[: block.index("```")]
    commands: dict[str, str] = {}
    current = ""
    for line in block.splitlines():
        if match := re.match(r"mseval\s+(\S+)", line):
            current = match.group(1)
            commands[current] = ""
        commands[current] += line + "\n"
    return commands


def options(command: Any) -> set[str]:
    """The long options of a command and of its sub-commands, `--help` and `--no-X` aside."""
    names = {
        name
        for param in command.params
        if isinstance(param, TyperOption)
        for name in param.opts
        if name.startswith("--") and name != "--help"
    }
    if isinstance(command, TyperGroup):
        for sub in command.commands.values():
            names |= options(sub)
    return names


def test_every_command_and_option_is_in_the_readme_summary() -> None:
    cli = typer.main.get_command(app)
    assert isinstance(cli, TyperGroup)
    documented = summary()
    assert sorted(documented) == sorted(cli.commands)
    missing = {}
    for name, command in cli.commands.items():
        text = documented[name]
        shared = options(cli.commands["score"]) - {"--json"} if SHARED_WITH_SCORE in text else set()
        if isinstance(command, TyperGroup):
            absent_subs = [sub for sub in command.commands if not re.search(rf"(^|[\s|]){sub}\b", text)]
            assert absent_subs == [], f"mseval {name}: {absent_subs} not in README"
        gone = sorted(o for o in options(command) - shared if not re.search(rf"{re.escape(o)}\b", text))
        if gone:
            missing[name] = gone
    assert missing == {}
