"""Server options (`mseval run --server-option KEY=VALUE`): checked before anything runs, given to
in-process and child servers alike, and part of the run identity when given."""

from __future__ import annotations

import json
import sqlite3
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from harness.mcp_client import ServerPool, Transport
from harness.world import EpisodeWorld
from mcp_servers.common.options import as_arguments, parse_options
from tests.harness.cli_support import catalog_copy, mseval, one_line_error
from tests.harness.support import a_world

RUN = ("run", "-m", "sim:oracle", "-v", "spec", "--tasks", "lms-due-reminder")


def test_options_are_checked_each_problem_on_its_own_line() -> None:
    items = [
        "sandbox=process", "memory_bytes=134217728", "max_timeout_s=2.5", "bogus=1", "file_bytes",
        "max_processes=0", "sandbox=docker", "statement_timeout_s=x",
    ]  # fmt: skip
    options, problems = parse_options(items, "--server-option")
    assert options == {
        "sandbox": "process",
        "memory_bytes": 134217728,
        "max_timeout_s": 2.5,
    }  # the good ones, typed
    assert [str(p) for p in problems] == [
        "--server-option: unknown server option 'bogus'; the options are sandbox, memory_bytes, max_processes, "
        "file_bytes, max_timeout_s, statement_timeout_s",
        "--server-option: 'file_bytes' is not KEY=VALUE (e.g. sandbox=process)",
        "--server-option: sandbox is given twice; give it once",
        "--server-option: max_processes='0': Input should be greater than or equal to 1",
        "--server-option: statement_timeout_s='x': Input should be a valid number, unable to parse string as a number",
    ]
    assert as_arguments(options) == [
        "--option", "sandbox=process", "--option", "memory_bytes=134217728", "--option", "max_timeout_s=2.5",
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("option", "line"),
    [
        ("sandbox=docker:", "sandbox='docker:': give auto, process, docker or docker:IMAGE"),
        ("memory_bytes=512", "memory_bytes='512': Input should be greater than or equal to 67108864"),
        # accepted, they failed every python_execute in the child, before the code ran
        (
            "memory_bytes=" + "9" * 29,
            f"memory_bytes='{'9' * 29}': Input should be less than or equal to 1099511627776",
        ),
        (
            "file_bytes=" + "9" * 29,
            f"file_bytes='{'9' * 29}': Input should be less than or equal to 1099511627776",
        ),
        (
            "max_processes=" + "9" * 29,
            f"max_processes='{'9' * 29}': Input should be less than or equal to 4194304",
        ),
        # the harness would time python_execute out before the tool's own timeout could answer
        ("max_timeout_s=60", "max_timeout_s=60 must be below the tool_timeout_s budget (60 s)"),
    ],
)
def test_a_bad_option_is_refused_before_the_run_starts(tmp_path: Path, option: str, line: str) -> None:
    store = ("--store", f"sqlite:///{tmp_path / 's.db'}", "--runs-dir", str(tmp_path / "runs"))
    assert one_line_error(mseval(*RUN, *store, "--server-option", option)) == f"--server-option: {line}"
    assert not (tmp_path / "s.db").exists() and not (tmp_path / "runs").exists()


def test_max_timeout_is_held_to_a_tasks_own_tool_timeout(tmp_path: Path) -> None:
    """A task's own tool_timeout_s wins over the run's: an option below the run's 60 s but not
    below the task's 10 s is refused, naming the task; one above 60 s but below a task's 120 s runs."""
    tasks, _priors, env = catalog_copy(tmp_path)
    spec = tasks / "lms" / "lms-due-reminder" / "task.yaml"
    text = spec.read_text()
    spec.write_text(text.replace("servers:", "budgets:\n  tool_timeout_s: 10\nservers:", 1))
    store = ("--store", f"sqlite:///{tmp_path / 's.db'}", "--runs-dir", str(tmp_path / "runs"))
    refused = mseval(*RUN, *store, "--server-option", "max_timeout_s=30", env=env)
    assert one_line_error(refused) == (
        f"--server-option: max_timeout_s=30 must be below task lms-due-reminder's tool_timeout_s "
        f"budget (10 s, in {spec})"
    )
    assert not (tmp_path / "s.db").exists()
    spec.write_text(text.replace("servers:", "budgets:\n  tool_timeout_s: 120\nservers:", 1))
    ran = mseval(*RUN, *store, "--server-option", "max_timeout_s=90", env=env)
    assert ran.returncode == 0, ran.stderr


def test_a_docker_sandbox_with_no_daemon_is_refused_before_the_run(tmp_path: Path) -> None:
    """`sandbox=docker` where no daemon answers ran the episodes, each python_execute failing."""
    store = ("--store", f"sqlite:///{tmp_path / 's.db'}", "--runs-dir", str(tmp_path / "runs"))
    nowhere = {"DOCKER_HOST": f"unix://{tmp_path / 'no-docker.sock'}"}
    result = mseval(*RUN, *store, "--server-option", "sandbox=docker", env=nowhere)
    assert one_line_error(result) == (
        "--server-option: sandbox=docker: no docker daemon answers here; start one, or give sandbox=process or auto"
    )
    assert not (tmp_path / "s.db").exists()


def test_a_served_server_refuses_a_bad_option(tmp_path: Path) -> None:
    import subprocess

    ws = tmp_path / "ws"
    served = mseval("servers", "serve", "local", "--workspace", str(ws), "--option", "sandbox=vm")
    assert one_line_error(served) == "--option: sandbox='vm': give auto, process, docker or docker:IMAGE"
    module = [
        sys.executable,
        "-m",
        "mcp_servers.local",
        "--workspace",
        str(ws),
        "--option",
        "max_timeout_s=0",
    ]
    direct = subprocess.run(module, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert direct.returncode == 2
    assert direct.stderr.strip().splitlines()[-1] == (
        "python -m mcp_servers.local: error: --option: max_timeout_s='0': Input should be greater than 0"
    )


@pytest.fixture
def world(tmp_path: Path) -> Iterator[EpisodeWorld]:
    with a_world(tmp_path) as world:
        yield world


@pytest.mark.parametrize("transport", ["inprocess", "stdio", "http"])
async def test_every_transport_gives_the_servers_their_options(
    world: EpisodeWorld, transport: Transport
) -> None:
    """python_execute's description states the longest timeout it allows: the option's, not 55 s."""
    async with ServerPool(["local"], world.access({"max_timeout_s": 2.5}), transport) as pool:
        (tool,) = [t for t in pool.catalog if t.tool == "python_execute"]
        assert "at most 2.5 (a longer one is cut to that)" in tool.spec.description, tool.spec.description


def test_a_run_records_its_options_in_its_identity(tmp_path: Path) -> None:
    """Given options change what a tool can do, so they are part of what a run measures (a
    --resume with other options starts a new run); a run given none keeps the identity it had."""
    db = tmp_path / "s.db"
    for options in ([], ["--server-option", "max_timeout_s=2.5", "--server-option", "sandbox=process"]):
        result = mseval(*RUN, "--store", f"sqlite:///{db}", "--runs-dir", str(tmp_path / "runs"), *options)
        assert result.returncode == 0, result.stderr
    with sqlite3.connect(db) as conn:
        plain, given = [
            json.loads(i) for (i,) in conn.execute("SELECT identity FROM mseval_run ORDER BY created_at")
        ]
    assert "server_options" not in plain
    assert given["server_options"] == {"sandbox": "process", "max_timeout_s": 2.5}
    assert {k: v for k, v in given.items() if k != "server_options"} == plain
