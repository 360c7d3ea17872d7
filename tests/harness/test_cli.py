"""The command line as a user meets it: bad input, exit codes, crash and resume."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sqlite3
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from tests.harness.cli_support import MSEVAL, ROOT, catalog_copy, mseval

THREE = ("lms-due-reminder", "lms-enrollment-overview", "lms-missing-work-zeros")


def test_a_malformed_task_names_file_and_line_and_nothing_runs(tmp_path: Path) -> None:
    tasks, _priors, env = catalog_copy(tmp_path)
    task_yaml = tasks / "lms" / "lms-due-reminder" / "task.yaml"
    task_yaml.write_text(task_yaml.read_text().replace("servers:", "servres:"))
    store = tmp_path / "store.db"
    result = mseval(
        "run", "--model", "sim:oracle", "--variant", "spec", "--store", f"sqlite:///{store}", env=env
    )
    assert result.returncode == 2
    lines = result.stderr.strip().splitlines()
    assert any(line.startswith(f"{task_yaml}:") and "unknown key 'servres'" in line for line in lines), lines
    assert any("missing field 'servers'" in line for line in lines), lines
    assert not store.exists()


def test_a_malformed_prior_names_its_line(tmp_path: Path) -> None:
    _tasks, priors, env = catalog_copy(tmp_path, "lms-enrollment-overview")
    prior = priors / "lms-enrollment-overview.yaml"
    text = prior.read_text()
    line = next(i for i, ln in enumerate(text.splitlines(), 1) if "label: spreadsheet-build" in ln)
    prior.write_text(text.replace("label: spreadsheet-build", "label: spreadsheet-builder"))
    result = mseval("tasks", "validate", "all", env=env)
    assert result.returncode == 2
    assert f"{prior}:{line}: waves.1.0.label: unknown function label 'spreadsheet-builder'" in result.stderr


def test_a_malformed_profile_names_its_line(tmp_path: Path) -> None:
    folder = tmp_path / "profiles"
    folder.mkdir()
    (folder / "helper.md").write_text(
        "---\nname: helper\ndescription: d\nwhenToUse: w\nmode: sometimes\ntools: []\n---\nbody\n"
    )
    result = mseval("run", "--model", "sim:oracle", "--variant", "spec", "--tasks", "lms-due-reminder", "--profiles", str(folder),
                    "--store", f"sqlite:///{tmp_path / 's.db'}")  # fmt: skip
    assert result.returncode == 2
    assert f"{folder / 'helper.md'}:5: mode:" in result.stderr
    assert f"{folder / 'helper.md'}:6: tools:" in result.stderr
    assert not (tmp_path / "s.db").exists()


def test_bad_model_names_and_variants_are_input_errors(tmp_path: Path) -> None:
    result = mseval("run", "--model", "sim:genius", "--model", "nope", "--variant", "spex", "--tasks", "lms-due-reminder",
                    "--store", f"sqlite:///{tmp_path / 's.db'}")  # fmt: skip
    assert result.returncode == 2
    assert "unknown variant 'spex'" in result.stderr and "must be provider:model-id" in result.stderr


def _finished(store: Path) -> list[tuple[str, str, str, int]]:
    if not store.exists():
        return []
    with sqlite3.connect(store) as db:
        try:
            return db.execute(
                "SELECT task_id, model, variant, seed FROM mseval_episode WHERE status != 'running'"
            ).fetchall()
        except sqlite3.OperationalError:
            return []


def test_kill_9_then_resume_records_every_episode_exactly_once(tmp_path: Path) -> None:
    *_, env = catalog_copy(tmp_path, *THREE)
    store = tmp_path / "store.db"
    args = ["run", "--model", "sim:oracle?latency=0.05", "--variant", "sa", "--variant", "spec", "--tasks", "lms",
            "--seeds", "2", "--concurrency", "2", "--store", f"sqlite:///{store}", "--runs-dir", str(tmp_path / "runs")]  # fmt: skip
    proc = subprocess.Popen(
        [*MSEVAL, *args],
        cwd=ROOT,
        env={**os.environ, **env},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 120
        while len(_finished(store)) < 2 and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    before = _finished(store)
    assert 2 <= len(before) < 12, "the run must be interrupted part-way for this test to mean anything"
    result = mseval(*args, "--resume", env={**env, "COLUMNS": "200"})
    assert result.returncode == 0, result.stderr
    # the table is the whole run's: each setting's 6 episodes, not only those run by the resume
    rows = [
        [c.strip() for c in line.split("│")] for line in result.stdout.splitlines() if "sim:oracle" in line
    ]
    assert [(r[2], r[4]) for r in rows] == [("sa", "6"), ("spec", "6")], result.stdout
    after = _finished(store)
    assert len(after) == len(set(after)) == 12  # 3 tasks × 2 variants × 2 seeds, each exactly once
    assert set(before) <= set(after)
    with sqlite3.connect(store) as db:
        runs = db.execute("SELECT COUNT(*) FROM mseval_run").fetchone()[0]
        reruns = db.execute("SELECT COUNT(*) FROM mseval_episode WHERE attempt > 1").fetchone()[0]
    assert runs == 1
    assert reruns <= 2  # only the episodes interrupted mid-way ran again (concurrency 2)
    exported = tmp_path / "out.jsonl"
    assert mseval("export", "--store", f"sqlite:///{store}", "--out", str(exported), env=env).returncode == 0
    records = [json.loads(line) for line in exported.read_text().splitlines()]
    assert len(records) == 12 and all(r["status"] == "completed" for r in records)


@pytest.mark.parametrize("selector", ["lms", "lms-*-overview", "lms-due-reminder"])
def test_task_selectors(selector: str) -> None:
    result = mseval("tasks", "list", selector)
    assert result.returncode == 0 and result.stdout.strip()
    assert all(line.startswith("lms-") for line in result.stdout.strip().splitlines())


def test_no_task_matches_is_an_input_error() -> None:
    result = mseval("tasks", "list", "no-such-*")
    assert result.returncode == 2 and "no task matches" in result.stderr


def test_the_progress_bar_goes_to_the_terminal_on_stderr_not_to_redirected_stdout(tmp_path: Path) -> None:
    """The bar was drawn on stdout while the terminal was looked for on stderr: with stdout in
    a file the bar went into the file, and nothing showed on the terminal."""
    import pty

    main, terminal = pty.openpty()
    shown = bytearray()

    def read_terminal() -> None:  # read as it is written: a full terminal would block the run
        with contextlib.suppress(OSError):  # the terminal closes with the process
            while chunk := os.read(main, 65536):
                shown.extend(chunk)

    reader = threading.Thread(target=read_terminal)
    reader.start()
    proc = subprocess.Popen(
        [*MSEVAL, "run", "-m", "sim:oracle", "-v", "sa", "--tasks", "lms-due-reminder",
         "--store", f"sqlite:///{tmp_path / 's.db'}", "--runs-dir", str(tmp_path / "runs")],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=terminal, text=True,
    )  # fmt: skip
    os.close(terminal)
    stdout, _ = proc.communicate(timeout=300)
    reader.join(timeout=30)
    os.close(main)
    assert proc.returncode == 0
    assert b"episodes" in shown and b"\x1b[" in shown  # the bar, drawn on the terminal
    assert "\x1b[" not in stdout and "1 episode run" in stdout  # the file gets the table alone


def test_a_demo_with_absent_episodes_lists_them_and_exits_1(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A demo whose episodes could not be run (a fault of ours: here every world of one task
    fails to build) printed its tables and exited 0; a failed run exits 1 (SPEC §10), as
    `mseval run` does, after the scores and the report, which count the absent episodes."""
    from typer.testing import CliRunner

    from harness import runner
    from harness.cli.main import app
    from harness.cli.run import DEMO_MATRIX

    built = runner.create_world_in_thread

    async def world(task: Any, *args: Any) -> Any:
        if task.id == "lms-due-reminder":
            raise RuntimeError("no world today")
        return await built(task, *args)

    monkeypatch.setattr(runner, "create_world_in_thread", world)
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(
        app,
        ["demo", "--tasks", "lms-due-reminder,lms-missing-work-zeros", "--store", f"sqlite:///{tmp_path / 'd.db'}",
         "--report", str(tmp_path / "report"), "--workers", "1"],  # in this process, where the world fails
        prog_name="mseval",
    )  # fmt: skip
    assert result.exit_code == 1, result.output
    # 5 settings (DEMO_MATRIX) × 2 tasks; one task's 5 absent
    assert ", 10 episodes, 5 absent; store " in result.stdout
    absent = [line for line in result.stderr.splitlines() if line.startswith("  absent: ")]
    assert sorted(absent) == [
        f"  absent: lms-due-reminder {model} {variant} seed 0: RuntimeError: no world today"
        for model, variant in sorted(DEMO_MATRIX)
    ]
    assert (tmp_path / "report" / "report.md").exists()  # the scores and report came first


def test_the_demo_scores_its_own_run_not_the_whole_store(tmp_path: Path) -> None:
    """`mseval demo --tasks X` into a store holding an earlier demo of another task printed a
    score table of both runs' episodes (2 a setting) beside its own run table (1 a setting)."""
    *_, env = catalog_copy(tmp_path, "lms-due-reminder", "lms-missing-work-zeros")
    store = f"sqlite:///{tmp_path / 'demo.db'}"
    for task in ("lms-due-reminder", "lms-missing-work-zeros"):
        result = mseval(
            "demo", "--tasks", task, "--store", store, "--concurrency", "2", env=env, cwd=tmp_path
        )
        assert result.returncode == 0, result.stderr[-2000:]
    scores = [
        line.split() for line in result.stdout.splitlines() if line.startswith("sim:") and "(sim)" in line
    ]
    assert len(scores) == 5 and {row[3] for row in scores} == {"1"}  # eps: this run's one task
    assert "; runs 1;" in result.stdout
