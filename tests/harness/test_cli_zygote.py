"""The tests' `mseval` children forked from a zygote (tests/harness/cli_zygote.py) behave as
children started afresh: the same exit status, stdout and stderr, argv, folder and environment."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.harness import cli_support
from tests.harness.cli_support import ROOT, mseval, run_fresh, run_module

PROBE = "tests.harness.zygote_probe"


def fresh(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return run_fresh(PROBE, args, env, cwd, 60)


@pytest.fixture(autouse=True)
def _forked() -> None:
    if cli_support.FRESH:
        pytest.skip("MSEVAL_TEST_FRESH_PROCESSES=1 starts every child afresh")


def test_a_forked_child_gets_argv_folder_environment_and_stdio_like_a_fresh_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # From tmp_path `python -m` finds the probe through PYTHONPATH; a zygote started with it is used.
    monkeypatch.setenv("PROBE_VAR", "given")
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    env = dict(os.environ)
    cli_support._zygote.stop()
    try:
        assert cli_support._zygote.fits(env)
        forked = run_module(PROBE, ["show", "PROBE_VAR"], env, tmp_path, 60)
    finally:
        cli_support._zygote.stop()
    shown = json.loads(forked.stdout)
    assert (forked.returncode, forked.stderr) == (3, "to stderr\n")
    assert shown == {
        "argv": ["show", "PROBE_VAR"], "cwd": str(tmp_path), "var": "given", "stdin": "", "optimize": 0,
        "project": [],  # the zygote imported no project module: they read the child's environment
    }  # fmt: skip
    alone = fresh(["show", "PROBE_VAR"], env, tmp_path)
    assert (alone.returncode, alone.stdout, alone.stderr) == (3, forked.stdout, forked.stderr)


def test_an_uncaught_exception_and_a_signal_end_a_forked_child_as_they_end_a_fresh_one() -> None:
    env = dict(os.environ)
    raised = run_module(PROBE, ["raise"], env, ROOT, 60)
    assert raised.returncode == 1
    assert raised.stderr.splitlines()[0] == "Traceback (most recent call last):"
    assert raised.stderr.splitlines()[-1] == "ValueError: the probe failed"
    assert (
        run_module(PROBE, ["signal"], env, ROOT, 60).returncode
        == fresh(["signal"], env, ROOT).returncode
        == -15
    )


def test_a_child_past_its_timeout_is_killed_and_the_timeout_raised(tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    with pytest.raises(subprocess.TimeoutExpired):
        run_module(PROBE, ["sleep", str(pid_file)], dict(os.environ), ROOT, 2)
    with pytest.raises(ProcessLookupError):  # reaped by the zygote before it answered
        os.kill(int(pid_file.read_text()), 0)


def test_a_child_with_other_interpreter_settings_is_started_afresh() -> None:
    shown = run_module(PROBE, ["show", "X"], {**os.environ, "PYTHONOPTIMIZE": "1"}, ROOT, 60)
    assert json.loads(shown.stdout)["optimize"] == 1


def test_mseval_forked_answers_as_mseval_started_afresh() -> None:
    args = ["run", "-m", "sim:oracle?bogus=1", "-v", "spec", "--tasks", "lms-due-reminder"]
    forked = mseval(*args)
    alone = run_fresh("harness.cli.main", args, dict(os.environ), ROOT, 300)
    assert (forked.returncode, forked.stdout, forked.stderr) == (alone.returncode, alone.stdout, alone.stderr)
    assert forked.returncode == 2 and "unknown option(s) ['bogus']" in forked.stderr
