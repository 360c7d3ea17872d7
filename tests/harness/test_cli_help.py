"""Every `--help` of `mseval` says what to type (N, URL, FILE, DIR, NAME, `local|ray`), never
typer's label of a Python type (`<int range>`, `<str>`, `<path>`, `<list[str]>`)."""

from __future__ import annotations

import re
from collections.abc import Iterator

from typer.main import get_command
from typer.testing import CliRunner

from harness.cli.main import app

# typer's labels: `<str>`, `<Path>`, `<float range>`, `<list[str]>`, `<a|b>`. The help's own
# placeholders are upper-case words (FILE.runs.json, TASK.yaml), so any `<...>` is typer's.
TYPE_LABEL = re.compile(r"<[^<>\s]+(?: range)?>")


def command_paths(command: object, path: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    """The path of `command` and of every command and group under it."""
    yield path
    for name, sub in getattr(command, "commands", {}).items():
        yield from command_paths(sub, (*path, name))


def test_no_help_shows_a_type_label() -> None:
    """`mseval run --help` showed `--seeds <int range>`, `--store <str>`, `--config <path>`;
    `servers list`, `RUN_ID <list[str]>`; `gemmas`, `GRAPH.json <Path>` (typer adds an
    argument's type after its metavar: such a command needs `cls=MetavarCommand`)."""
    runner = CliRunner()
    pages = {}
    for path in command_paths(get_command(app)):
        result = runner.invoke(app, [*path, "--help"], prog_name="mseval")
        assert result.exit_code == 0 and result.stdout.startswith("Usage: mseval"), (path, result.output)
        pages[" ".join(("mseval", *path))] = result.stdout
    assert {"mseval run", "mseval tasks new", "mseval servers list", "mseval runs delete"} <= set(pages)
    labels = {name: TYPE_LABEL.findall(text) for name, text in pages.items()}
    assert {name: found for name, found in labels.items() if found} == {}


def test_tasks_new_names_every_scenario() -> None:
    """Its --help lists the scenario codes by hand; they come from contracts/scenarios.yaml."""
    from contracts.scenarios import SCENARIOS

    text = CliRunner().invoke(app, ["tasks", "new", "--help"], prog_name="mseval").stdout
    listed = re.search(r"--scenario SCENARIO\s+(.+?)\s+\[required\]", text, re.S)
    assert listed is not None, text
    assert re.findall(r"\b[a-z]+\b", listed.group(1).replace(" or ", " ")) == list(SCENARIOS)
