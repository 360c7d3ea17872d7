"""Bad command-line options (store URLs, ports, output paths) are one line naming the option,
exit 2, before anything runs or is created."""

from __future__ import annotations

import contextlib
import socket
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from harness.store import Store
from tests.harness.cli_support import mseval, one_line_error

RUN = ("run", "-m", "sim:oracle", "-v", "spec", "--tasks", "lms-due-reminder")


@pytest.fixture
def empty_store(tmp_path: Path) -> str:
    url = f"sqlite:///{tmp_path / 'store.db'}"
    Store(url).close()
    return url


@pytest.fixture
def busy_port() -> Iterator[int]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        yield s.getsockname()[1]


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("garbage", "'garbage' is not a database URL"),
        ("nosuch://x/y", "unknown database dialect in 'nosuch://x/y'"),
        ("postgresql+psycopg://127.0.0.1:1/x", "cannot connect to postgresql+psycopg://127.0.0.1:1/x"),
    ],
)
def test_run_with_a_bad_store_url_names_store(tmp_path: Path, url: str, message: str) -> None:
    line = one_line_error(mseval(*RUN, "--store", url, "--runs-dir", str(tmp_path / "runs")))
    assert line.startswith(f"--store: {message}"), line
    assert not (tmp_path / "runs").exists()


@pytest.mark.parametrize(
    ("url", "message", "options"),
    [
        # libpq's other spelling of the password: the run's last line and every message printed it
        ("postgresql+psycopg://u@127.0.0.1:1/x?password=s3cret",
         "cannot connect to postgresql+psycopg://u@127.0.0.1:1/x?password=***: ", ("--store", "--db")),
        # the common postgres:// (no such dialect in SQLAlchemy 2) was printed whole (--db: plan.py's)
        ("postgres://u:s3cret@127.0.0.1:1/x", "unknown database dialect in 'postgres://u:***@127.0.0.1:1/x'",
         ("--store",)),
        # a port that is not a number was a ValueError traceback (exit 1)
        ("postgresql+psycopg://u:s3cret@127.0.0.1:5432x/x",
         "the port in 'postgresql+psycopg://u:***@127.0.0.1:5432x/x' is not a number", ("--store", "--db")),
    ],
)  # fmt: skip
def test_a_bad_store_or_db_url_is_one_line_without_its_password(
    tmp_path: Path, url: str, message: str, options: tuple[str, ...]
) -> None:
    store = tmp_path / "s.db"
    for option in options:
        extra = ("--store", f"sqlite:///{store}") if option == "--db" else ()
        result = mseval(*RUN, option, url, *extra, "--runs-dir", str(tmp_path / "runs"))
        line = one_line_error(result)
        assert line.startswith(f"{option}: {message}"), line
        assert "s3cret" not in result.stdout + result.stderr
    result = mseval("runs", "list", "--store", url)
    assert one_line_error(result).startswith(f"--store: {message}") and "s3cret" not in result.stderr
    assert not (tmp_path / "runs").exists() and not store.exists()


def test_run_with_a_store_below_a_file_names_store(tmp_path: Path) -> None:
    afile = tmp_path / "afile"
    afile.write_text("x")
    line = one_line_error(mseval(*RUN, "--store", f"sqlite:///{afile}/s.db"))
    assert line == f"--store: cannot create {afile}/s.db: {afile} is a file, not a folder"


@pytest.mark.parametrize(
    "command",
    [(*RUN, "--runs-dir", "runs"), ("demo", "--tasks", "lms-due-reminder", "--workers", "1"),
     ("tasks", "validate", "lms-due-reminder")],
)  # fmt: skip
def test_a_cache_folder_that_is_a_file_is_one_line_before_anything(
    tmp_path: Path, command: tuple[str, ...]
) -> None:
    """MSEVAL_CACHE naming a file: `run` and `demo` created the store and recorded every
    episode absent (FileExistsError building the world template); `tasks validate` printed a
    traceback, exit 1."""
    cache = tmp_path / "cachefile"
    cache.write_text("x")
    store = ("--store", f"sqlite:///{tmp_path / 's.db'}") if command[0] != "tasks" else ()
    result = mseval(*command, *store, env={"MSEVAL_CACHE": str(cache)}, cwd=tmp_path)
    assert one_line_error(result) == f"MSEVAL_CACHE: {cache} is a file; give a folder"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cachefile"]


@pytest.mark.parametrize(
    "command",
    [("score",), ("report", "--out", "REP"), ("export", "--out", "X.jsonl"), ("view",),
     ("priors", "draft", "lms-due-reminder", "--from-episode", "e1")],
)  # fmt: skip
def test_read_only_commands_name_a_bad_store(tmp_path: Path, command: tuple[str, ...]) -> None:
    args = [
        a.replace("REP", str(tmp_path / "rep")).replace("X.jsonl", str(tmp_path / "x.jsonl")) for a in command
    ]
    line = one_line_error(mseval(*args, "--store", "garbage"))
    assert line.startswith("--store: 'garbage' is not a database URL"), line
    missing = tmp_path / "never.db"
    line = one_line_error(mseval(*args, "--store", f"sqlite:///{missing}"))
    assert line == f"--store: no store at {missing} (nothing has been run into it)"
    assert not missing.exists() and not (tmp_path / "rep").exists() and not (tmp_path / "x.jsonl").exists()
    other = tmp_path / "other.db"  # an SQLite file of something else: read, never written
    with contextlib.closing(sqlite3.connect(other)) as db:
        db.execute("CREATE TABLE notes (body TEXT)")
    line = one_line_error(mseval(*args, "--store", f"sqlite:///{other}"))
    assert line == f"--store: {other} is not an mseval store (no mseval_episode table)"
    with contextlib.closing(sqlite3.connect(other)) as db:
        assert db.execute("SELECT name FROM sqlite_master").fetchall() == [("notes",)]


def test_run_with_a_bad_world_db_names_db(tmp_path: Path) -> None:
    store = tmp_path / "s.db"
    line = one_line_error(mseval(*RUN, "--db", "garbage", "--store", f"sqlite:///{store}"))
    assert line.startswith("--db: give 'sqlite' or a PostgreSQL URL"), line
    # a URL of another scheme is told with its password masked, as every printed URL is
    line = one_line_error(
        mseval(*RUN, "--db", "postgres://u:s3cret@127.0.0.1/x", "--store", f"sqlite:///{store}")
    )
    assert line.endswith("not 'postgres://u:***@127.0.0.1/x'") and "s3cret" not in line, line
    line = one_line_error(
        mseval(*RUN, "--db", "postgresql+psycopg://127.0.0.1:1/x", "--store", f"sqlite:///{store}")
    )
    assert line.startswith("--db: cannot connect to postgresql+psycopg://127.0.0.1:1/x"), line
    assert not store.exists()


def test_servers_serve_checks_its_options(tmp_path: Path, busy_port: int) -> None:
    afile = tmp_path / "afile"
    afile.write_text("x")
    ws = str(tmp_path / "ws")
    assert one_line_error(mseval("servers", "serve", "nosuch", "--workspace", ws)).startswith(
        "nosuch: unknown MCP server; known: calendar"
    )
    assert one_line_error(mseval("servers", "serve", "lms", "--workspace", ws, "--http", "99999")) == (
        "--http: 99999 is not a port number (1 to 65535)"
    )
    assert one_line_error(mseval("servers", "serve", "lms", "--workspace", ws, "--db", "garbage")).startswith(
        "--db: 'garbage' is not a database URL"
    )
    assert one_line_error(mseval("servers", "serve", "lms", "--workspace", str(afile))) == (
        f"--workspace: {afile} is a file, not a folder"
    )
    line = one_line_error(mseval("servers", "serve", "lms", "--workspace", ws, "--http", str(busy_port)))
    assert line.startswith(f"--http: cannot listen on 127.0.0.1:{busy_port}:"), line
    assert not (tmp_path / "ws").exists()


def test_servers_serve_names_a_workspace_that_cannot_be_looked_up(tmp_path: Path) -> None:
    """A name over 255 bytes raised OSError: File name too long (a traceback, exit 1)."""
    long = tmp_path / ("x" * 300)
    assert one_line_error(mseval("servers", "serve", "lms", "--workspace", str(long))) == (
        f"--workspace: cannot use {long}: File name too long"
    )
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("query", "said"),
    [
        ("timeout=abc", "timeout='abc' in '{url}' is not a value the SQLite driver takes (could not convert"),
        ("check_same_thread=maybe", "check_same_thread='maybe' in '{url}' is not a value the SQLite driver"),
        ("timeout=1&timeout=2", "timeout is given 2 times in '{url}'; give it once"),
    ],
)
def test_servers_serve_db_with_a_driver_option_it_cannot_read_is_one_line(
    tmp_path: Path, query: str, said: str
) -> None:
    """`--db 'sqlite:///w.db?timeout=abc'` passed the check and raised ValueError in
    create_engine (a traceback, exit 1, after the workspace was made)."""
    ws = tmp_path / "ws"
    for url in (f"sqlite:///{tmp_path / 'w.db'}?{query}", f"sqlite:///:memory:?{query}"):
        line = one_line_error(mseval("servers", "serve", "lms", "--workspace", str(ws), "--db", url))
        assert line.startswith("--db: " + said.format(url=url)), line
    assert list(tmp_path.iterdir()) == []


def test_servers_serve_db_in_a_missing_folder_is_one_line(tmp_path: Path) -> None:
    """The server's own `--db: unable to open database file`, after a usage text and the
    workspace made."""
    db = tmp_path / "no" / "w.db"
    ws = tmp_path / "ws"
    assert (
        one_line_error(mseval("servers", "serve", "lms", "--workspace", str(ws), "--db", f"sqlite:///{db}"))
        == f"--db: cannot create {db}: no folder {db.parent}"
    )
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("query", "said"),
    [
        ("mode=bogus", "mode='bogus' in '{url}' is not an access mode SQLite knows (ro, rw, rwc, memory)"),
        ("mode=ro&cache=zz", "'{url}': SQLite refuses it: no such cache mode: zz"),
        ("vfs=nope", "'{url}': SQLite refuses it: no such vfs: nope"),
    ],
)
def test_servers_serve_db_uri_sqlite_refuses_is_told_before_the_workspace(
    tmp_path: Path, query: str, said: str
) -> None:
    """Review: a SQLite URI parameter SQLite itself refuses was told by the server once it
    opened the database (its usage text, exit 2), after the workspace was made."""
    ws = tmp_path / "ws"
    url = f"sqlite:///file:{tmp_path / 'w.db'}?{query}&uri=true"
    line = one_line_error(mseval("servers", "serve", "lms", "--workspace", str(ws), "--db", url))
    assert line == "--db: " + said.format(url=url), line
    assert list(tmp_path.iterdir()) == []


def test_servers_serve_db_still_takes_memory_and_uri_databases() -> None:
    from harness.store_urls import url_problems

    for url in (
        "sqlite://",
        "sqlite:///:memory:?timeout=2",
        "sqlite:///file:w?mode=memory&uri=true",
        "sqlite:///file:w?mode=memory&cache=shared&uri=true",
        "sqlite:///file:w.db?mode=ro&immutable=1&uri=true",  # its file is the server's to find
    ):
        assert url_problems(url, "--db", store=False) == [], url


def test_view_names_a_bad_port(empty_store: str, busy_port: int) -> None:
    assert one_line_error(mseval("view", "--store", empty_store, "--port", "99999")) == (
        "--port: 99999 is not a port number (0 to 65535)"
    )
    line = one_line_error(mseval("view", "--store", empty_store, "--port", str(busy_port)))
    assert line.startswith(f"--port: cannot listen on 127.0.0.1:{busy_port}:"), line


def test_output_paths_of_the_wrong_kind(tmp_path: Path, empty_store: str) -> None:
    afile = tmp_path / "afile"
    afile.write_text("x")
    assert one_line_error(mseval("report", "--store", empty_store, "--out", str(afile))) == (
        f"--out: {afile} is a file; give a folder"
    )
    assert one_line_error(mseval("export", "--store", empty_store, "--out", str(tmp_path))) == (
        f"--out: {tmp_path} is a folder; give a file"
    )
    assert one_line_error(mseval("export", "--store", empty_store, "--out", str(afile / "x.jsonl"))) == (
        f"--out: cannot create {afile}/x.jsonl: {afile} is a file, not a folder"
    )
    assert one_line_error(mseval("profiles", "new", "helper", "--dir", str(afile))) == (
        f"--dir: {afile} is a file; give a folder"
    )


@pytest.mark.parametrize(
    ("model", "message"),
    [
        ("sim:nosuch", "--model: unknown sim policy 'nosuch'; known: single, oracle, eager, shy"),
        (
            "sim:oracle?noise=abc",
            "--model: sim:oracle?noise=abc: noise and latency must be numbers, seed an integer",
        ),
        (
            "sim:oracle?noise=2",
            "--model: sim:oracle?noise=2: noise must be between 0 and 1, latency between 0 and 3600 seconds",
        ),
        (  # an infinite latency was taken, and the run waited forever
            "sim:oracle?latency=inf",
            "--model: sim:oracle?latency=inf: noise must be between 0 and 1, latency between 0 and 3600 seconds",
        ),
        (
            "sim:oracle?noise=nan",
            "--model: sim:oracle?noise=nan: noise must be between 0 and 1, latency between 0 and 3600 seconds",
        ),
        (  # a huge finite latency was taken: a run that waits 31 years a call
            "sim:single?latency=1e9",
            "--model: sim:single?latency=1e9: noise must be between 0 and 1, latency between 0 and 3600 seconds",
        ),
        (
            "sim:oracle?bogus=1",
            "--model: sim:oracle?bogus=1: unknown option(s) ['bogus']; use ?noise=P&seed=N&latency=S",
        ),
        (  # a setting of its own beside sim:oracle, its folders named sim_oracle_
            "sim:oracle?",
            "--model: sim:oracle?: no option after '?'; drop the '?' or give KEY=VALUE",
        ),
    ],
)
def test_sim_model_names_are_checked_before_anything_runs(tmp_path: Path, model: str, message: str) -> None:
    store = tmp_path / "s.db"
    result = mseval(
        "run", "-m", model, "-v", "spec", "--tasks", "lms-due-reminder", "--store", f"sqlite:///{store}",
        timeout=60,  # refused at once; a run that starts may never end (latency=inf waited forever)
    )  # fmt: skip
    assert one_line_error(result) == message
    assert not store.exists()


def test_a_sim_option_given_twice_is_refused_not_last_wins(tmp_path: Path) -> None:
    """`sim:oracle?noise=0&noise=1` ran with noise 1: dict(parse_qsl(...)) kept the last."""
    store = tmp_path / "s.db"
    result = mseval(
        "run", "-m", "sim:oracle?noise=0&noise=1", "-v", "spec", "--tasks", "lms-due-reminder",
        "--store", f"sqlite:///{store}", timeout=60,
    )  # fmt: skip
    assert one_line_error(result) == (
        "--model: sim:oracle?noise=0&noise=1: option 'noise' is given more than once; give it once"
    )
    assert not store.exists()


@pytest.mark.parametrize(
    ("option", "message"),
    [
        (
            ("--base-url", "localhost:8000/v1"),
            "--base-url: 'localhost:8000/v1' is not an http:// or https:// URL",
        ),
        (("--temperature", "3"), "--temperature: 3.0: input should be less than or equal to 2"),
        (("--temperature", "-1"), "--temperature: -1.0: input should be greater than or equal to 0"),
        (("--temperature", "warm"), "--temperature: 'warm': give a number or none"),
        (("--max-output-tokens", "0"), "--max-output-tokens: 0: input should be greater than or equal to 1"),
        (
            ("--max-output-tokens", "1000001"),
            "--max-output-tokens: 1000001: input should be less than or equal to 1000000",
        ),
        (
            ("--budget", "max_steps=100001"),
            "--budget/--config: max_steps: Input should be less than or equal to 100000",
        ),
        (
            ("--budget", "wall_time_s=604801"),
            "--budget/--config: wall_time_s: Input should be less than or equal to 604800",
        ),
    ],
)
def test_setting_options_are_held_to_the_config_files_rules(
    tmp_path: Path, option: tuple[str, str], message: str
) -> None:
    store = tmp_path / "s.db"
    result = mseval(*RUN, *option, "--store", f"sqlite:///{store}")
    assert one_line_error(result) == message
    assert not store.exists()


@pytest.mark.parametrize(
    ("url", "problem"),
    [
        ("http://[::1", "'http://[::1': Invalid IPv6 URL"),  # a traceback, and an empty store file
        ("http://", "'http://' names no host"),  # every episode an api_error after its retries
        ("http://a b/", "'http://a b/' has a space in it"),  # the same
        (
            "http://127.0.0.1:99999/v1",
            "'http://127.0.0.1:99999/v1': the port must be a number from 1 to 65535",
        ),
        ("https://:0", "'https://:0' names no host"),  # the run hung
    ],
)
def test_a_base_url_that_cannot_be_used_is_refused_before_anything_is_written(
    tmp_path: Path, url: str, problem: str
) -> None:
    store = ("--store", f"sqlite:///{tmp_path / 's.db'}", "--runs-dir", str(tmp_path / "runs"))
    run = ("run", "-v", "sa", "--tasks", "lms-due-reminder", *store)
    result = mseval(*run, "-m", "openai-compatible:m", "--base-url", url, timeout=60)
    assert one_line_error(result) == f"--base-url: {problem}"
    config = tmp_path / "cfg.yaml"
    config.write_text(f"settings: {{}}\nbase_url: {url!r}\n")
    # a sim model sends nothing there, yet a config file's bad base_url is its problem all the same
    result = mseval(*run, "-m", "sim:oracle", "--config", str(config), timeout=60)
    assert one_line_error(result) == f"{config}:2: base_url: {problem}"
    assert not (tmp_path / "s.db").exists() and not (tmp_path / "runs").exists()


def test_a_problem_shared_by_settings_is_said_once(tmp_path: Path) -> None:
    result = mseval(
        "run",
        "-m",
        "sim:oracle",
        "-m",
        "sim:eager",
        "-v",
        "nosuch",
        "--store",
        f"sqlite:///{tmp_path / 's.db'}",
    )
    assert one_line_error(result).startswith("--variant: unknown variant 'nosuch'")


def test_a_bad_llm_tagger_is_named_as_llm_tagger(tmp_path: Path) -> None:
    episodes = tmp_path / "e.jsonl"
    episodes.write_text("")
    result = mseval("score", "--episodes", str(episodes), "--llm-tagger", "foo:bar", "--embedder", "none")
    assert (
        one_line_error(result)
        == "--llm-tagger: unknown provider 'foo'; known: sim, anthropic, openai, openai-compatible"
    )


def test_run_names_bad_choices_and_a_runs_dir_that_is_a_file(tmp_path: Path) -> None:
    afile = tmp_path / "afile"
    afile.write_text("x")
    store = tmp_path / "s.db"
    result = mseval(*RUN, "--runs-dir", str(afile), "--executor", "nope", "--server-transport", "nope",
                    "--store", f"sqlite:///{store}")  # fmt: skip
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.strip().splitlines() == [
        "--server-transport: 'nope': give inprocess, stdio or http",
        "--executor: 'nope': give local or ray",
        f"--runs-dir: {afile} is a file; give a folder",
    ]
    assert not store.exists()


def test_report_names_every_bad_input_at_once(tmp_path: Path) -> None:
    afile = tmp_path / "afile"
    afile.write_text("x")
    missing = tmp_path / "nowhere"
    result = mseval("report", "--store", "garbage", "--priors", str(missing), "--out", str(afile))
    assert result.returncode == 2 and "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert lines[0] == f"{missing}: no such folder of delegation priors (--priors)"
    assert lines[1].startswith("--store: 'garbage' is not a database URL")
    assert lines[2] == f"--out: {afile} is a file; give a folder"
    assert len(lines) == 3


def test_api_key_env_must_name_a_variable_even_for_sim_models(tmp_path: Path) -> None:
    store = tmp_path / "s.db"
    for model in ("sim:oracle", "anthropic:claude-x"):
        result = mseval("run", "-m", model, "-v", "spec", "--tasks", "lms-due-reminder", "--api-key-env", "sk-12345678",
                        "--store", f"sqlite:///{store}")  # fmt: skip
        assert (
            one_line_error(result)
            == "--api-key-env: sk-123…: give the NAME of an environment variable, not a key"
        )
    assert not store.exists()


def test_score_episodes_that_is_a_folder_is_named(tmp_path: Path) -> None:
    result = mseval("score", "--episodes", str(tmp_path), "--embedder", "none")
    assert one_line_error(result) == f"{tmp_path}: is a folder; give a .jsonl file (see `mseval export`)"


def test_a_server_run_as_a_module_reports_bad_options_without_a_traceback(
    tmp_path: Path, busy_port: int
) -> None:
    base = [sys.executable, "-m", "mcp_servers.lms", "--workspace", str(tmp_path / "ws")]
    for extra, message in (
        (["--db", "garbage"], "error: --db: Could not parse SQLAlchemy URL"),
        (["--http", "99999"], "error: --http: 99999 is not a port number (1 to 65535)"),
        (["--http", str(busy_port)], f"error: --http: cannot listen on 127.0.0.1:{busy_port}"),
    ):
        result = subprocess.run(
            [*base, *extra], capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL
        )
        assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr
        assert message in result.stderr.strip().splitlines()[-1], result.stderr


def test_infinite_or_nan_numbers_are_bad_input(tmp_path: Path) -> None:
    """A price of `.inf` or a currency rate of `.nan` crashed the episode (its record could not
    hold a NaN cost), left it `running` in the store and exited 1; `--budget wall_time_s=inf`
    and a `cost_usd` of Infinity in an export were taken as they were."""
    store = ("--store", f"sqlite:///{tmp_path / 's.db'}", "--runs-dir", str(tmp_path / "runs"))
    prices = tmp_path / "prices.yaml"
    source = (Path(__file__).parents[2] / "harness/models/prices.yaml").read_text()
    prices.write_text(source.replace("  USD: 1.0", "  USD: .nan", 1))
    line = one_line_error(mseval(*RUN, *store, "--prices", str(prices)))
    assert line.startswith(f"{prices}:") and line.endswith(
        "currency_rates.USD: Input should be a finite number"
    )
    line = one_line_error(mseval(*RUN, *store, "--budget", "wall_time_s=inf"))
    assert line == "--budget/--config: wall_time_s: Input should be a finite number"
    assert not (tmp_path / "s.db").exists() and not (tmp_path / "runs").exists()
    episodes = tmp_path / "e.jsonl"
    episodes.write_text(
        '{"task_id": "t", "model": "m", "variant": "sa", "status": "completed", "success": true, "cost_usd": Infinity}\n'
    )
    line = one_line_error(mseval("score", "--episodes", str(episodes), "--embedder", "none"))
    assert line == f"{episodes}:1: cost_usd: Input should be a finite number"


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        (
            "2026-01-01",
            "settings.extra.k: 2026-01-01 is read as a date, not a JSON value; quote it to give text",
        ),
        ("!!binary aGk=", "settings.extra.k: a value of type bytes is not a JSON value; give a string"),
        ("!!set {a: null}", "settings.extra.k: a value of type set is not a JSON value; give a string"),
        ("[1, .inf]", "settings.extra.k.1: inf is not a JSON value; give a finite number"),
    ],
)
def test_a_config_extra_that_is_not_json_is_refused_before_anything_is_written(
    tmp_path: Path, value: str, problem: str
) -> None:
    """A date in `settings.extra` created the store, then stopped the run ("Object of type date is
    not JSON serializable … run with --resume", exit 1); an infinity made every episode absent."""
    config = tmp_path / "cfg.yaml"
    config.write_text(f"settings:\n  temperature: 0\n  extra:\n    k: {value}\n")
    store = ("--store", f"sqlite:///{tmp_path / 's.db'}", "--runs-dir", str(tmp_path / "runs"))
    line = one_line_error(mseval(*RUN, *store, "--config", str(config)))
    assert line.startswith(f"{config}:4: {problem}"), line
    assert not (tmp_path / "s.db").exists() and not (tmp_path / "runs").exists()


def test_a_budget_given_twice_is_bad_input(tmp_path: Path) -> None:
    """`--budget max_steps=5 --budget max_steps=7` silently ran with 7."""
    store = ("--store", f"sqlite:///{tmp_path / 's.db'}", "--runs-dir", str(tmp_path / "runs"))
    line = one_line_error(mseval(*RUN, *store, "--budget", "max_steps=5", "--budget", "max_steps=7"))
    assert line == "--budget: max_steps is given twice; give it once"
    assert not (tmp_path / "s.db").exists()


def test_an_unknown_budget_names_the_budgets(tmp_path: Path) -> None:
    """`--budget foo=1` said only "foo: Extra inputs are not permitted"; the keys were in no doc."""
    store = ("--store", f"sqlite:///{tmp_path / 's.db'}", "--runs-dir", str(tmp_path / "runs"))
    line = one_line_error(mseval(*RUN, *store, "--budget", "max_step=5"))
    assert line == (
        "--budget: unknown budget 'max_step'; the budgets are max_steps, wall_time_s, context_tokens, "
        "loop_repeats, api_retries, wave_concurrency, tool_timeout_s, tool_result_bytes"
    )
    assert not (tmp_path / "s.db").exists()


def test_a_ray_address_without_the_ray_executor_is_bad_input(tmp_path: Path) -> None:
    """`--ray-address` without `--executor ray` was ignored: the run went local without a word."""
    store = ("--store", f"sqlite:///{tmp_path / 's.db'}", "--runs-dir", str(tmp_path / "runs"))
    line = one_line_error(mseval(*RUN, *store, "--ray-address", "127.0.0.1:6379"))
    assert line == "--ray-address: is for --executor ray; give that too, or drop it"
    assert not (tmp_path / "s.db").exists() and not (tmp_path / "runs").exists()


def test_a_bad_budget_is_told_beside_every_other_problem(tmp_path: Path) -> None:
    """An unknown `--budget` was raised before the plan collected the other problems, so it was
    the one line printed; a bad budget value was not checked when the model settings failed."""
    store = ("--store", f"sqlite:///{tmp_path / 's.db'}", "--runs-dir", str(tmp_path / "runs"))
    result = mseval(
        "run", "--model", "foo:bar", "--variant", "zz", "--tasks", "lms-due-reminder", *store,
        "--budget", "bogus=1", "--budget", "max_steps", "--budget", "max_steps=0", "--temperature", "7",
    )  # fmt: skip
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.strip().splitlines() == [
        "--temperature: 7.0: input should be less than or equal to 2",
        "--model: unknown provider 'foo'; known: sim, anthropic, openai, openai-compatible",
        "--variant: unknown variant 'zz'; known: gen, oracle, plan-first, sa, spec",
        "--budget: unknown budget 'bogus'; the budgets are max_steps, wall_time_s, context_tokens, loop_repeats, "
        "api_retries, wave_concurrency, tool_timeout_s, tool_result_bytes",
        "--budget: 'max_steps' is not KEY=VALUE (e.g. max_steps=50)",
        "--budget/--config: max_steps: Input should be greater than or equal to 1",
    ]
    assert not (tmp_path / "s.db").exists() and not (tmp_path / "runs").exists()


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (("run", "--bogus"), "mseval run: No such option: --bogus (see mseval run --help)"),
        (
            ("score", "--resamples", "abc"),
            "mseval score: Invalid value for '--resamples': Input should be a valid integer, unable to parse "
            "string as an integer (see mseval score --help)",
        ),
        (("nosuch",), "mseval: No such command 'nosuch'. (see mseval --help)"),
    ],
    ids=["unknown option", "bad value", "unknown command"],
)
def test_a_usage_error_is_one_line(args: tuple[str, ...], line: str) -> None:
    """click's usage errors were three lines (Usage, Try …, Error: …) where all other bad input is one."""
    assert one_line_error(mseval(*args)) == line


@pytest.mark.parametrize("command", ["score", "report"])
def test_resamples_past_what_memory_holds_is_bad_input(tmp_path: Path, command: str) -> None:
    """`--resamples 99999999999999999999` ended in a traceback from numpy's allocation."""
    from tests.evaluation import fixtures

    episodes = tmp_path / "e.jsonl"  # records of both variants: scoring reaches the bootstrap
    episodes.write_text("".join(r.to_json() + "\n" for r in fixtures.records()))
    out = ("--out", str(tmp_path / "report")) if command == "report" else ()
    args = (command, "--episodes", str(episodes), "--embedder", "none", *out)
    assert one_line_error(mseval(*args, "--resamples", "99999999999999999999")) == (
        f"mseval {command}: Invalid value for '--resamples': Input should be less than or equal to 100000 "
        f"(see mseval {command} --help)"
    )
    assert not (tmp_path / "report").exists()


def test_no_arguments_still_show_the_help() -> None:
    result = mseval()
    assert result.returncode == 2 and result.stderr.startswith("Usage: mseval [OPTIONS] COMMAND")


def test_input_paths_with_a_name_too_long_are_one_line(tmp_path: Path) -> None:
    """Path.exists()/is_dir() raised OSError: File name too long, a traceback (exit 1)."""
    long = tmp_path / ("x" * 300)
    store, runs = f"sqlite:///{tmp_path / 's.db'}", str(tmp_path / "runs")
    too_long = "File name too long"
    assert one_line_error(mseval(*RUN, "--store", f"sqlite:///{long}", "--runs-dir", runs)) == (
        f"--store: cannot use {long}: {too_long}"
    )
    assert one_line_error(mseval(*RUN, "--store", store, "--runs-dir", runs, "--profiles", str(long))) == (
        f"{long}: cannot read this folder: {too_long}"
    )
    assert one_line_error(mseval("score", "--episodes", str(long), "--embedder", "none")) == (
        f"{long}: cannot read: {too_long}"
    )
    episodes = tmp_path / "e.jsonl"
    episodes.write_text("")
    result = mseval("score", "--episodes", str(episodes), "--priors", str(long), "--embedder", "none")
    assert one_line_error(result) == f"{long}: cannot read this folder: {too_long} (--priors)"
    # a name that fits, with the run identities' FILE.runs.json beside it four bytes too long
    near = tmp_path / ("y" * 246 + ".jsonl")
    near.write_text("")
    sidecar = tmp_path / ("y" * 246 + ".runs.json")
    result = mseval("score", "--episodes", str(near), "--embedder", "none")
    assert one_line_error(result) == f"{sidecar}: cannot read: {too_long}"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["e.jsonl", near.name]


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("sqlite:///W/s.db?timeout=abc",
         "a SQLite store takes no query parameters (?timeout=abc); give sqlite:///PATH"),
        ("sqlite+aiosqlite:///W/s.db",
         "sqlite+aiosqlite is an async driver, which mseval does not use (sqlite:///PATH or postgresql+psycopg://…)"),
        ("sqlite:///", "an in-memory SQLite store is gone when mseval exits; give a file, sqlite:///PATH"),
        ("sqlite:///file:W/s.db?mode=ro&uri=true",
         "SQLite URIs (file:…, uri=true) are not taken; give the store's file, sqlite:///PATH"),
        ("sqlite+pysqlite:///W/sub/s.db",
         "give a SQLite store as sqlite:///PATH (Python's sqlite3), not sqlite+pysqlite://…"),
    ],
)  # fmt: skip
def test_store_urls_the_store_cannot_use_are_refused_up_front(tmp_path: Path, url: str, message: str) -> None:
    """Each passed the pre-flight check, then: a ValueError traceback (timeout=abc), a
    ModuleNotFoundError traceback (aiosqlite), ProgrammingError tracebacks and 'no such table'
    (in memory), folders ./file:/… in the working directory (a URI), 'unable to open' (exit 1)."""
    url = url.replace("W/", f"{tmp_path}/")
    work = tmp_path / "work"
    work.mkdir()
    run = mseval(*RUN, "--store", url, "--runs-dir", str(tmp_path / "runs"), cwd=work)
    assert one_line_error(run) == f"--store: {message}"
    for command in (("score",), ("runs", "list"), ("export", "--out", str(tmp_path / "x.jsonl"))):
        assert one_line_error(mseval(*command, "--store", url, cwd=work)) == f"--store: {message}"
    assert [p.name for p in tmp_path.iterdir()] == ["work"] and not any(work.iterdir())


def test_run_seeds_are_held_to_what_scoring_reads(tmp_path: Path) -> None:
    """--seeds had no upper bound (score refuses a run of over 100,000): a billion seeds took
    1 GB listing the jobs before anything was written."""
    store, runs = tmp_path / "s.db", tmp_path / "runs"
    where = ("--store", f"sqlite:///{store}", "--runs-dir", str(runs))
    line = one_line_error(mseval(*RUN, "--seeds", "1000000000", *where, timeout=60))
    assert line == "--seeds: 1,000,000,000: at most 100,000 seeds per task"
    models = ("-m", "sim:single", "-m", "sim:eager", "-m", "sim:shy", "-v", "sa", "-v", "gen")
    line = one_line_error(mseval(*RUN, *models, "--seeds", "100000", *where, timeout=60))
    assert line == (
        "--seeds: 12 settings × 1 tasks × 100,000 seeds plan 1,200,000 episodes; a run plans at most 1,000,000"
    )
    assert not store.exists() and not runs.exists()


def test_run_profiles_that_is_a_symlink_loop_is_one_line(tmp_path: Path) -> None:
    """The folder was named, then the tool-glob check resolved it: RuntimeError 'Symlink loop'."""
    loop = tmp_path / "loop"
    loop.symlink_to(loop)
    store = tmp_path / "s.db"
    result = mseval(
        *RUN, "--profiles", str(loop), "--store", f"sqlite:///{store}", "--runs-dir", str(tmp_path / "runs")
    )
    assert one_line_error(result) == f"{loop}: cannot read this folder: Too many levels of symbolic links"
    assert [p.name for p in tmp_path.iterdir()] == ["loop"]


STORE_IN = ("--store", "sqlite:///s.db")  # relative: in the test's own folder, which must stay empty


@pytest.mark.parametrize(
    ("args", "option"),
    [
        (
            (
                "run",
                "-m",
                "sim:oracle",
                "-v",
                "sa",
                "--tasks",
                "lms-due-reminder",
                *STORE_IN,
                "--runs-dir",
                "",
            ),
            "--runs-dir",
        ),
        (("run", "-m", "sim:oracle", "-v", "sa", *STORE_IN, "--config", ""), "--config"),
        (("export", *STORE_IN, "--out", ""), "--out"),
        (("report", *STORE_IN, "--out", ""), "--out"),
        (("score", "--episodes", ""), "--episodes"),
        (("profiles", "new", "helper", "--dir", ""), "--dir"),
        (("servers", "serve", "lms", "--workspace", ""), "--workspace"),
        (("gemmas", ""), "GRAPH.json"),
    ],
    ids=lambda v: v if isinstance(v, str) else "-".join(a for a in v[:2] if not a.startswith("-")),
)
def test_an_empty_path_option_is_refused_not_taken_as_the_current_folder(
    tmp_path: Path, args: tuple[str, ...], option: str
) -> None:
    """`--runs-dir ""` wrote episodes/ into the current folder (Path("") is "."); `--out ""` and
    `--episodes ""` raised "PosixPath('.') has an empty name" (a traceback)."""
    where = "mseval " + " ".join(args[: 2 if args[0] in ("profiles", "servers") else 1])
    assert one_line_error(mseval(*args, cwd=tmp_path)) == (
        f"{where}: Invalid value for '{option}': an empty path names no file or folder "
        f"(give . for the current folder) (see {where} --help)"
    )
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("args", "option"),
    [
        (("export", *STORE_IN, "--out", "-"), "--out"),
        (("report", *STORE_IN, "--out", "-"), "--out"),
        (("run", "-m", "sim:oracle", "-v", "sa", "--tasks", "lms-due-reminder", *STORE_IN, "--runs-dir", "-"),
         "--runs-dir"),
        (("score", "--episodes", "-"), "--episodes"),
        (("gemmas", "-"), "GRAPH.json"),
    ],
    ids=["export", "report", "run", "score", "gemmas"],
)  # fmt: skip
def test_a_dash_path_is_refused_not_taken_as_a_file_named_dash(
    tmp_path: Path, args: tuple[str, ...], option: str
) -> None:
    """`export --out -` wrote the files ./- and ./-.runs.json (a user meant standard output);
    `--episodes -` and `gemmas -` said '-: cannot read: No such file or directory'."""
    where = f"mseval {args[0]}"
    assert one_line_error(mseval(*args, cwd=tmp_path)) == (
        f"{where}: Invalid value for '{option}': '-' does not mean standard input or output here; "
        f"give a path (./- for a file named -) (see {where} --help)"
    )
    assert list(tmp_path.iterdir()) == []


def test_a_price_or_rate_no_cost_can_be_counted_in_is_refused_at_its_line(tmp_path: Path) -> None:
    """`input: true` in a price table priced input tokens at 1 USD per million; `input: 1e308`
    (or a rate of 1e-300) made a call's cost infinite: the episode's record could not be built
    and it was recorded absent, its run exit 1."""
    store = ("--store", f"sqlite:///{tmp_path / 's.db'}", "--runs-dir", str(tmp_path / "runs"))
    prices = tmp_path / "prices.yaml"
    source = (Path(__file__).parents[2] / "harness/models/prices.yaml").read_text()
    for given, said in (
        ("true", "give a number, not true"),
        ("1e308", "Input should be less than or equal to 1000000"),
    ):
        prices.write_text(source.replace("    input: 5.0", f"    input: {given}", 1))
        line = one_line_error(mseval(*RUN, *store, "--prices", str(prices)))
        assert line == f"{prices}:25: models.1.input: {said}"
    prices.write_text(source.replace("CNY: 6.71", "CNY: 1.0e-300", 1))
    line = one_line_error(mseval(*RUN, *store, "--prices", str(prices)))
    assert (
        line
        == f"{prices}:15: currency_rates.CNY: a currency rate must be from 1e-06 to 1e+06 (units per USD)"
    )
    assert not (tmp_path / "s.db").exists()


def test_every_currency_without_a_rate_is_refused_at_its_line_beside_the_other_problems(
    tmp_path: Path,
) -> None:
    """A table whose CNY rate was left out said `model [...]: currency 'CNY' has no rate` once,
    for the first such model, at line 1, and only once its other problems were fixed."""
    prices = tmp_path / "prices.yaml"
    source = (Path(__file__).parents[2] / "harness/models/prices.yaml").read_text()
    text = source.replace("  CNY: 6.71\n", "", 1).replace("    input: 5.0", "    input: -1", 1)
    prices.write_text(text)
    store = tmp_path / "s.db"
    result = mseval(*RUN, "--store", f"sqlite:///{store}", "--prices", str(prices))
    assert result.returncode == 2 and "Traceback" not in result.stderr
    lines = text.splitlines()
    cny = [i for i, line in enumerate(lines, 1) if line == "    currency: CNY"]
    assert len(cny) == 2  # deepseek and kimi
    entry = [sum(line.startswith("  - match:") for line in lines[:at]) - 1 for at in cny]
    assert result.stderr.strip().splitlines() == [
        f"{prices}:24: models.1.input: Input should be greater than or equal to 0",
        *(f"{prices}:{at}: models.{i}.currency: currency 'CNY' has no rate in currency_rates" for at, i in zip(cny, entry, strict=True)),
    ]  # fmt: skip
    assert not store.exists()
