"""`mseval run` as a user meets faults (SPEC §12): a store that cannot be written.

Each test drives real `mseval` processes.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.harness.cli_support import mseval, one_line_error


def _rows(store: Path, sql: str) -> list[tuple[Any, ...]]:
    if not store.exists():
        return []
    with sqlite3.connect(f"file:{store}?mode=ro", uri=True, timeout=30) as db:
        try:
            return db.execute(sql).fetchall()
        except sqlite3.OperationalError:  # tables not created yet
            return []


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


def test_a_store_that_cannot_be_written_is_refused_before_anything_runs(tmp_path: Path) -> None:
    """A read-only store file, or a store in a read-only folder, ended `mseval run` with an
    OperationalError traceback (exit 1) after the run had started."""
    args = [
        "run",
        "-m",
        "sim:oracle",
        "-v",
        "sa",
        "--tasks",
        "lms-due-reminder",
        "--runs-dir",
        str(tmp_path / "runs"),
    ]
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
