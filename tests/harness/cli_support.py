"""Driving `mseval` as a user does (a child process), and a private catalog to break on purpose."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from harness.catalog import PRIORS_DIR, TASKS_DIR

MSEVAL = [sys.executable, "-m", "harness.cli.main"]
ROOT = Path(__file__).resolve().parents[2]


def mseval(
    *args: str, env: dict[str, str] | None = None, cwd: Path | None = None, timeout: float = 300
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*MSEVAL, *args],
        capture_output=True,
        text=True,
        cwd=cwd or ROOT,
        env={**os.environ, **(env or {})},
        timeout=timeout,
    )


def catalog_copy(tmp_path: Path, *names: str) -> tuple[Path, Path, dict[str, str]]:
    """A private catalog with copies of lms tasks `names` (default lms-due-reminder) and their priors."""
    tasks, priors = tmp_path / "tasks", tmp_path / "priors"
    priors.mkdir(parents=True)
    for task in names or ("lms-due-reminder",):
        shutil.copytree(TASKS_DIR / "lms" / task, tasks / "lms" / task)
        shutil.copy(PRIORS_DIR / f"{task}.yaml", priors)
    return tasks, priors, {"MSEVAL_TASKS": str(tasks), "MSEVAL_PRIORS": str(priors)}


def line_of(path: Path, needle: str) -> int:
    """The 1-based number of the first line of `path` containing `needle`."""
    return next(i for i, ln in enumerate(path.read_text().splitlines(), 1) if needle in ln)


def one_line_error(result: subprocess.CompletedProcess[str]) -> str:
    """The single stderr line of a bad-input exit (2), with no traceback."""
    assert result.returncode == 2, (result.returncode, result.stdout, result.stderr)
    assert "Traceback" not in result.stderr, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    return lines[0]
