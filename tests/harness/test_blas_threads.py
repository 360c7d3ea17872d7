"""The command line's numpy runs its BLAS on one thread: scoring's matrix products are small,
and a BLAS worker spun on another core after each one (the user's own setting stands)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="counts threads in /proc")

# A matrix product big enough for OpenBLAS to use its worker threads; then the process's threads.
SCRIPT = """
IMPORT
import os, numpy
a = numpy.ones((400, 400))
a @ a
print(len(os.listdir("/proc/self/task")))
"""


def _threads(first: str, setting: str | None = None) -> int:
    env = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS")}
    if setting is not None:
        env["OPENBLAS_NUM_THREADS"] = setting
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT.replace("IMPORT", first)],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    return int(done.stdout)


def test_the_command_lines_numpy_starts_no_blas_threads() -> None:
    assert _threads("import harness.cli") == 1


@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="BLAS threads need two cores")
def test_without_the_command_line_or_with_the_users_setting_blas_has_its_threads() -> None:
    assert _threads("pass") > 1  # the default this guards against: a thread per core
    assert _threads("import harness.cli", setting="2") == 2
