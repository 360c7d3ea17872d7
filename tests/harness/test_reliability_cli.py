"""`mseval run` as a user meets faults (SPEC §12): signals, a second process, a failing store.

Each test drives real `mseval` processes and synchronises on what they write (store rows,
marker files), never on sleeps: a model that answers only after 600 s holds an episode open,
and a gated check.py holds one at its check until the test opens the gate.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from harness.cli.run import INTERRUPTED
from tests.harness.cli_support import MSEVAL, ROOT, catalog_copy, mseval, one_line_error

WAIT_LIMIT_S = 120  # a bound on a hung child, not a timing assumption
HELD = "sim:oracle?latency=600"  # its first model call outlasts any test
GATED = ("lms-due-reminder", "lms-missing-work-zeros")
GATE_CODE = """
    import os as _os, pathlib as _pathlib, time as _time
    if _os.environ.get("MSEVAL_TEST_DELETE"):
        _pathlib.Path(_os.environ["MSEVAL_TEST_DELETE"]).unlink()
    if _os.environ.get("MSEVAL_TEST_GATE"):
        _gate = _pathlib.Path(_os.environ["MSEVAL_TEST_GATE"])
        _gate.with_suffix(".reached").touch()
        _until = _time.monotonic() + 120
        while not _gate.exists() and _time.monotonic() < _until:
            _time.sleep(0.01)
"""


def _rows(store: Path, sql: str) -> list[tuple[Any, ...]]:
    if not store.exists():
        return []
    with sqlite3.connect(f"file:{store}?mode=ro", uri=True, timeout=30) as db:
        try:
            return db.execute(sql).fetchall()
        except sqlite3.OperationalError:  # tables not created yet
            return []


def _wait_for(what: str, ready: object, proc: subprocess.Popen[str]) -> None:
    deadline = time.monotonic() + WAIT_LIMIT_S
    while not ready():  # type: ignore[operator]
        assert proc.poll() is None, (
            f"mseval ended (code {proc.returncode}) before {what}: {proc.communicate()}"
        )
        assert time.monotonic() < deadline, f"no {what} within {WAIT_LIMIT_S} s"
        time.sleep(0.02)


def _start(args: list[str], env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    """`mseval` in its own session, with SIGINT's default action: a suite started in the
    background by a shell inherits SIGINT ignored, and so would the child (Ctrl-C then does
    nothing, as a shell means for background jobs)."""
    return subprocess.Popen(
        [*MSEVAL, *args], cwd=ROOT, env={**os.environ, **(env or {})}, text=True,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )  # fmt: skip


def _gated_catalog(tmp_path: Path) -> dict[str, str]:
    """A catalog of GATED whose check.py first does what MSEVAL_TEST_* say (see GATE_CODE)."""
    tasks, _priors, env = catalog_copy(tmp_path, *GATED)
    for check in tasks.glob("lms/*/check.py"):
        head, sep, body = check.read_text().partition("-> list[Criterion]:\n")
        assert sep, check
        check.write_text(head + sep + GATE_CODE + body)
    return env


@pytest.mark.parametrize(
    ("sig", "code", "said"), [(signal.SIGINT, 130, "interrupted"), (signal.SIGTERM, 143, "SIGTERM")]
)
def test_a_signal_mid_episode_stops_cleanly_and_says_how_to_resume(
    tmp_path: Path, sig: signal.Signals, code: int, said: str
) -> None:
    """SIGTERM killed `mseval run` where it stood: exit -15, no word of --resume, the run's child
    servers' pipes broken mid-write."""
    store = tmp_path / "s.db"
    proc = _start(["run", "-m", HELD, "-v", "sa", "--tasks", "lms-due-reminder", "--store", f"sqlite:///{store}",
                   "--runs-dir", str(tmp_path / "runs")])  # fmt: skip
    try:
        _wait_for("a running episode", lambda: _rows(store, "SELECT 1 FROM mseval_event"), proc)
        proc.send_signal(sig)
        _out, err = proc.communicate(timeout=WAIT_LIMIT_S)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == code, err
    assert said in err and "--resume" in err and "Traceback" not in err
    assert _rows(store, "SELECT status FROM mseval_episode") == [("running",)]  # to be run again
    assert _rows(store, "SELECT * FROM mseval_claim") == []  # released: a resume may start at once


@pytest.mark.parametrize("command", ["run", "demo"])
def test_a_ctrl_c_before_the_run_starts_says_nothing_was_recorded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: str
) -> None:
    """A Ctrl-C while the settings were checked (the catalog, profiles, servers) ended the
    process with 130 and not a word: typer turns KeyboardInterrupt into a silent exit."""
    from typer.testing import CliRunner

    from harness.cli import plan
    from harness.cli.main import app

    def interrupted(**_settings: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(plan, "build_plan", interrupted)
    store = tmp_path / "s.db"
    args = ["-m", "sim:oracle", "-v", "sa"] if command == "run" else []
    result = CliRunner().invoke(app, [command, *args, "--store", f"sqlite:///{store}"], prog_name="mseval")
    assert result.exit_code == 130
    assert result.stderr.strip() == "interrupted before the run started: nothing was recorded"
    assert not store.exists()


@pytest.mark.parametrize(
    ("sig", "code", "said"),
    [
        (signal.SIGINT, 130, "interrupted before the run started: nothing was recorded"),
        (signal.SIGTERM, 143, "stopped (SIGTERM) before the run started: nothing was recorded"),
    ],
)
def test_a_signal_while_the_settings_are_checked_says_nothing_was_recorded(
    tmp_path: Path, sig: signal.Signals, code: int, said: str
) -> None:
    """SIGTERM while `mseval run` checked its settings (here: imported a task's check.py, held
    at its import) killed it where it stood: exit -15 and not a word, where Ctrl-C says that
    nothing was recorded."""
    tasks, _priors, env = catalog_copy(tmp_path, "lms-due-reminder")
    check, reached, gate = (
        tasks / "lms" / "lms-due-reminder" / "check.py",
        tmp_path / "reached",
        tmp_path / "gate",
    )
    check.write_text(
        f"import pathlib as _p, time as _t\n_p.Path({str(reached)!r}).touch()\n_until = _t.monotonic() + 120\n"
        f"while not _p.Path({str(gate)!r}).exists() and _t.monotonic() < _until:\n    _t.sleep(0.01)\n"
        + check.read_text()
    )
    store = tmp_path / "s.db"
    proc = _start(["run", "-m", "sim:oracle", "-v", "sa", "--store", f"sqlite:///{store}",
                   "--runs-dir", str(tmp_path / "runs")], env)  # fmt: skip
    err = _signal_when_held(proc, "the settings being checked", reached, gate, sig)
    assert proc.returncode == code, err
    assert err.strip() == said
    assert not store.exists()


def _signal_when_held(
    proc: subprocess.Popen[str], what: str, reached: Path, gate: Path, sig: signal.Signals
) -> str:
    """Once `proc` is held at its gate (`reached` exists), send it `sig`, open the gate (the
    signal is pending already: it is taken at the process's next wait) and return its stderr;
    a process still alive after that is killed."""
    try:
        _wait_for(what, reached.exists, proc)
        proc.send_signal(sig)
        gate.touch()
        _out, err = proc.communicate(timeout=WAIT_LIMIT_S)
    finally:
        gate.touch()
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    return err


def test_a_sigterm_while_the_store_is_opened_stops_the_run_as_once_it_has_started(tmp_path: Path) -> None:
    """Between the settings check and the run, `mseval run` opened its store (0.1 s for a new
    one) before SIGTERM was handled: a SIGTERM then killed it, exit -15 and not a word. Held
    there (a gate in the store's opening), it now stops as a started run does."""
    reached, gate, store = tmp_path / "reached", tmp_path / "gate", tmp_path / "s.db"
    held = f"""
import pathlib, sys, time
import harness.runner
from harness.cli.main import app

def held_store(url, _open=harness.runner.Store):
    pathlib.Path({str(reached)!r}).touch()
    until = time.monotonic() + 120
    while not pathlib.Path({str(gate)!r}).exists() and time.monotonic() < until:
        time.sleep(0.01)
    return _open(url)

harness.runner.Store = held_store
app(sys.argv[1:], prog_name="mseval")
"""
    proc = subprocess.Popen(
        [sys.executable, "-c", held, "run", "-m", HELD, "-v", "sa", "--tasks", "lms-due-reminder",
         "--store", f"sqlite:///{store}", "--runs-dir", str(tmp_path / "runs")],
        cwd=ROOT, text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
    )  # fmt: skip
    err = _signal_when_held(proc, "the store being opened", reached, gate, signal.SIGTERM)
    assert proc.returncode == 143, err
    assert err.strip() == f"stopped (SIGTERM): {INTERRUPTED}"
    assert _rows(store, "SELECT * FROM mseval_claim") == []  # released: a resume may start at once


def test_a_resume_beside_a_live_run_is_refused_and_a_crashed_run_is_taken_over(tmp_path: Path) -> None:
    """A `--resume` started beside the process still running that run ran the same episodes
    again, in the same world folders, and one of the two died with a traceback."""
    env = _gated_catalog(tmp_path)
    store, gate = tmp_path / "s.db", tmp_path / "gate"
    args = ["run", "-m", "sim:oracle", "-v", "sa", "--tasks", "lms", "--concurrency", "1",
            "--store", f"sqlite:///{store}", "--runs-dir", str(tmp_path / "runs")]  # fmt: skip
    first = _start(args, {**env, "MSEVAL_TEST_GATE": str(gate)})
    try:
        _wait_for("the first episode's check", gate.with_suffix(".reached").exists, first)
        line = one_line_error(mseval(*args, "--resume", env=env))
        assert line.startswith("--resume: run ") and f"another mseval process (pid {first.pid}," in line
        os.killpg(first.pid, signal.SIGKILL)  # a crash while it holds the run
    finally:
        if first.poll() is None:
            os.killpg(first.pid, signal.SIGKILL)
        first.wait()
    gate.touch()
    resumed = mseval(*args, "--resume", env={**env, "MSEVAL_TEST_GATE": str(gate)})
    assert resumed.returncode == 0, resumed.stderr
    rows = _rows(store, "SELECT task_id, status, attempt FROM mseval_episode ORDER BY task_id")
    assert [(t, s) for t, s, _ in rows] == [(t, "completed") for t in sorted(GATED)]
    assert sorted(a for *_, a in rows) == [1, 2]  # the interrupted episode ran again, once
    assert _rows(store, "SELECT COUNT(*) FROM mseval_run") == [(1,)]
    out = tmp_path / "out.jsonl"
    assert mseval("export", "--store", f"sqlite:///{store}", "--out", str(out)).returncode == 0
    assert sorted(json.loads(x)["task_id"] for x in out.read_text().splitlines()) == sorted(GATED)


def test_a_store_deleted_mid_run_is_one_line_and_exit_1(tmp_path: Path) -> None:
    """The run died with a traceback holding the SQL and parameters of a batch of events."""
    env = _gated_catalog(tmp_path)
    store = tmp_path / "s.db"
    done = mseval("run", "-m", "sim:oracle", "-v", "sa", "--tasks", GATED[0], "--store", f"sqlite:///{store}",
                  "--runs-dir", str(tmp_path / "runs"), env={**env, "MSEVAL_TEST_DELETE": str(store)})  # fmt: skip
    assert done.returncode == 1, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr, lines
    assert lines[0].startswith(f"the store sqlite:///{store} could not ") and "--resume" in lines[0]


@contextmanager
def _read_only(path: Path) -> Iterator[None]:
    """`path` (a file or a folder) read-only, for root too (chattr +i) where the file system allows."""
    if os.geteuid() != 0:
        mode = path.stat().st_mode
        path.chmod(0o555 if path.is_dir() else 0o444)
        try:
            yield
        finally:
            path.chmod(mode)
        return
    if (
        shutil.which("chattr") is None
        or subprocess.run(["chattr", "+i", str(path)], capture_output=True).returncode
    ):
        pytest.skip("root cannot make a file read-only here (no chattr +i)")
    try:
        yield
    finally:
        subprocess.run(["chattr", "-i", str(path)], check=True)


def _due_reminder_run(runs: Path) -> list[str]:
    """`mseval run` of one small episode (sim:oracle, sa, lms-due-reminder), store not given."""
    return ["run", "-m", "sim:oracle", "-v", "sa", "--tasks", "lms-due-reminder", "--runs-dir", str(runs)]


def test_a_store_that_cannot_be_written_is_refused_before_anything_runs(tmp_path: Path) -> None:
    """A read-only store file, or a store in a read-only folder, ended `mseval run` with an
    OperationalError traceback (exit 1) after the run had started."""
    args = _due_reminder_run(tmp_path / "runs")
    existing = tmp_path / "old.db"
    sqlite3.connect(existing).close()  # an empty SQLite file
    with _read_only(existing):
        line = one_line_error(mseval(*args, "--store", f"sqlite:///{existing}"))
    assert line.startswith(f"--store: cannot write {existing}: ")
    folder = tmp_path / "locked"
    folder.mkdir()
    with _read_only(folder):
        line = one_line_error(mseval(*args, "--store", f"sqlite:///{folder / 'sub' / 'new.db'}"))
    assert line.startswith(
        f"--store: cannot create {folder / 'sub' / 'new.db'}: folder {folder} is not writable"
    )
    assert not list(folder.iterdir())


def test_a_store_in_a_missing_folder_is_created(tmp_path: Path) -> None:
    store = tmp_path / "a" / "b" / "s.db"
    done = mseval("run", "-m", "sim:oracle", "-v", "sa", "--tasks", "lms-due-reminder", "--store", f"sqlite:///{store}",
                  "--runs-dir", str(tmp_path / "runs"))  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert _rows(store, "SELECT status FROM mseval_episode") == [("completed",)]


def _run_against_a_failing_model(
    tmp_path: Path, status: int, message: str, code: str
) -> subprocess.CompletedProcess[str]:
    """`mseval run` of one episode on a fake OpenAI-compatible server whose first answer is
    HTTP `status`; no API key of the environment reaches the run."""
    from tests.models.fake_llm import FakeLLM, Fault, Reply

    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    with FakeLLM("chat", lambda _seen: Reply(text="done")) as fake:
        fake.fail_next(Fault(status, {}, message, code))
        return mseval("run", "-m", "openai-compatible:fake", "--base-url", fake.url, "-v", "sa", "--tasks", "lms-due-reminder",
                      "--store", f"sqlite:///{tmp_path / 's.db'}", "--runs-dir", str(tmp_path / "runs"), env=env)  # fmt: skip


def test_an_api_error_is_named_on_stderr_and_requests_are_not_logged(tmp_path: Path) -> None:
    """A run whose every call was refused (a wrong key) printed a table of 0.00 and exit 0 with no
    word of why (and, until the refusal counted as absent, a success rate of 0 for the model),
    under an INFO line per HTTP request (in-process servers set the root logger to INFO)."""
    done = _run_against_a_failing_model(tmp_path, 401, "bad key", "invalid_api_key")
    # the refused key leaves the episode absent (no verdict on the model) and the run failed
    assert done.returncode == 1, done.stderr
    (line,) = done.stderr.strip().splitlines()  # nothing else: no log line per request
    assert (
        line.startswith("absent: lms-due-reminder openai-compatible:fake sa seed 0: api_error: ")
        and "bad key" in line
    )
    assert "1 absent" in done.stdout


def test_a_bad_request_fails_the_episode_and_is_named_on_stderr(tmp_path: Path) -> None:
    """A model's own API error (a 400) is its failure: the episode is completed, unsuccessful,
    and the run says why on stderr, exit 0."""
    done = _run_against_a_failing_model(
        tmp_path, 400, "tool_choice is not supported", "invalid_request_error"
    )
    assert done.returncode == 0, done.stderr
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith(
        "api error: lms-due-reminder openai-compatible:fake sa seed 0: bad_request: HTTP 400"
    )
    assert "0 absent" in done.stdout


@pytest.mark.parametrize(("status", "kind"), [(401, "absent"), (400, "api error")])
def test_a_model_server_s_message_reaches_the_terminal_as_one_visible_line(
    tmp_path: Path, status: int, kind: str
) -> None:
    """A model server's error text was printed raw: its escape sequences set the terminal's
    title and cleared the screen, and a line break let it forge a line of mseval's own."""
    message = "bad key\x1b]0;TITLE\x07\x1b[2J\nrun 000000000000: 1 episode run, 0 absent"
    done = _run_against_a_failing_model(tmp_path, status, message, "invalid_request_error")
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith(f"{kind}: lms-due-reminder openai-compatible:fake sa seed 0: ")
    assert "\x1b" not in line and "\x07" not in line
    assert "bad key\\x1b]0;TITLE\\x07\\x1b[2J run 000000000000" in line


def test_resume_counts_the_whole_runs_absent_episodes_and_the_matrix_order_does_not_matter(
    tmp_path: Path,
) -> None:
    """After a resume the summary counted only the episodes this process ran: a run with an
    absent episode from before said `0 absent` and exited 0. And `-v spec -v sa` did not find
    the run of `-v sa -v spec`: it started a new one and ran everything again."""
    store = tmp_path / "s.db"
    base = ["run", "-m", "sim:oracle", "--tasks", "lms-due-reminder", "--store", f"sqlite:///{store}",
            "--runs-dir", str(tmp_path / "runs")]  # fmt: skip
    assert mseval(*base, "-v", "sa", "-v", "spec").returncode == 0
    with sqlite3.connect(store) as db:  # one episode absent, the other never finished
        db.execute(
            "UPDATE mseval_episode SET status = 'absent', record = json_set(record, '$.status', 'absent',"
            " '$.success', json('null'), '$.reason', 'harness_error: boom') WHERE variant = 'sa'"
        )
        db.execute("DELETE FROM mseval_episode WHERE variant = 'spec'")
    done = mseval(*base, "-v", "spec", "-v", "sa", "--resume")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "1 episode run, 1 already finished, 1 absent" in done.stdout
    assert "absent: lms-due-reminder sim:oracle sa seed 0: harness_error: boom" in done.stderr
    with sqlite3.connect(store) as db:
        assert db.execute("SELECT COUNT(*) FROM mseval_run").fetchone()[0] == 1


def test_resume_of_other_settings_says_it_starts_a_new_run(tmp_path: Path) -> None:
    store = tmp_path / "s.db"
    base = ["run", "-m", "sim:oracle", "-v", "sa", "--tasks", "lms-due-reminder", "--store",
            f"sqlite:///{store}", "--runs-dir", str(tmp_path / "runs")]  # fmt: skip
    assert mseval(*base).returncode == 0
    done = mseval(*base, "--seeds", "2", "--resume")
    assert done.returncode == 0, done.stderr
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith("--resume: the store has no run of these settings") and "started a new run" in line
    assert "2 episodes run, 0 already finished" in done.stdout


@pytest.mark.parametrize(
    ("change", "said"),
    [
        ("ALTER TABLE mseval_episode DROP COLUMN attempt", "(table mseval_episode: no column attempt)"),
        ("ALTER TABLE mseval_run ADD COLUMN shard INTEGER", "(table mseval_run: unknown column shard)"),
    ],
    ids=["older", "newer"],
)
def test_a_store_of_another_version_is_refused_before_anything_is_written(
    tmp_path: Path, change: str, said: str
) -> None:
    """An older store (no `attempt` column) got a new run row, then the run failed with exit 1
    and advice to --resume, which could never work; a newer one was written to silently."""
    store = tmp_path / "s.db"
    base = ["--store", f"sqlite:///{store}"]
    run = _due_reminder_run(tmp_path / "r")
    assert mseval(*run, *base).returncode == 0
    with sqlite3.connect(store) as db:
        db.execute(change)
        runs = db.execute("SELECT COUNT(*) FROM mseval_run").fetchone()[0]
    for command in (run, ["export", "--out", str(tmp_path / "x.jsonl")], ["score", "--embedder", "none"]):
        line = one_line_error(mseval(*command, *base))
        assert line == f"--store: {store}: written by another version of mseval {said}; use a new store"
    with sqlite3.connect(store) as db:
        assert db.execute("SELECT COUNT(*) FROM mseval_run").fetchone()[0] == runs  # nothing written


def test_a_damaged_sqlite_store_is_refused(tmp_path: Path) -> None:
    """Damage inside the file went unseen: export and score read the intact rows and said nothing."""
    store = tmp_path / "s.db"
    run = ["run", "-m", "sim:oracle", "-v", "sa", "-v", "spec", "--tasks", "lms", "--store", f"sqlite:///{store}",
           "--runs-dir", str(tmp_path / "r")]  # fmt: skip
    assert mseval(*run).returncode == 0
    size = store.stat().st_size
    with store.open("r+b") as fh:  # a page well inside the file, not the header
        fh.seek((size // 4096 // 2) * 4096)
        fh.write(b"\xff" * 4096)
    line = one_line_error(
        mseval("export", "--store", f"sqlite:///{store}", "--out", str(tmp_path / "x.jsonl"))
    )
    assert line.startswith(f"--store: {store} is damaged (") and line.endswith("; use a new store")
