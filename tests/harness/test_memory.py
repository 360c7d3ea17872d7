"""The command line's process: glibc's malloc arenas capped (threads share two instead of one
each), and numpy's BLAS on one thread (scoring's matrix products are small, and a BLAS worker
spun on another core after each one). The user's own settings stand."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from harness.memory import limit_malloc_arenas

try:
    GLIBC = bool(os.confstr("CS_GNU_LIBC_VERSION"))
except (ValueError, OSError):
    GLIBC = False
pytestmark = pytest.mark.skipif(not GLIBC, reason="malloc arenas are glibc's")

# Eight threads allocate at once, then glibc's malloc_stats() prints one "Arena N:" block per
# arena on stderr. `CAP` is what the process does first.
SCRIPT = """
import ctypes, sys, threading
CAP
barrier = threading.Barrier(8)
def work():
    barrier.wait()
    keep = [bytearray(2048) for _ in range(2000)]
    barrier.wait()
threads = [threading.Thread(target=work) for _ in range(8)]
[t.start() for t in threads]
[t.join() for t in threads]
ctypes.CDLL(None).malloc_stats()
"""


def _python(
    script: str, unset: tuple[str, ...], env: dict[str, str] | None
) -> subprocess.CompletedProcess[str]:
    """`script` in a new interpreter, the variables `unset` removed from its environment, `env` added."""
    env = {k: v for k, v in os.environ.items() if k not in unset} | (env or {})
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, check=True)


def _arenas(cap: str, env: dict[str, str] | None = None) -> int:
    done = _python(SCRIPT.replace("CAP", cap), ("MALLOC_ARENA_MAX",), env)
    return sum(1 for line in done.stderr.splitlines() if line.startswith("Arena "))


def test_threads_share_two_arenas_once_capped() -> None:
    assert _arenas("pass") > 2  # glibc's default: an arena per allocating thread, up to 8 a core
    assert _arenas("from harness.memory import limit_malloc_arenas; assert limit_malloc_arenas()") == 2


def test_a_users_malloc_arena_max_stands() -> None:
    script = "from harness.memory import limit_malloc_arenas; assert not limit_malloc_arenas()"
    assert _arenas(script, {"MALLOC_ARENA_MAX": "3"}) == 3


def test_the_cap_needs_glibc_and_no_setting_of_the_users(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MALLOC_ARENA_MAX", "8")
    assert limit_malloc_arenas() is False


def test_the_command_line_caps_them() -> None:
    """`mseval` sets the cap in main(), before any command runs (the threads here start after)."""
    script = (
        "import sys; sys.argv = ['mseval', 'tasks', 'list', 'lms-*']\n"
        "from harness.cli.main import main\n"
        "try:\n    main()\nexcept SystemExit:\n    pass"
    )
    assert _arenas(script) == 2


# A matrix product big enough for OpenBLAS to use its worker threads; then the process's threads.
BLAS = """
IMPORT
import os, numpy
a = numpy.ones((400, 400))
a @ a
print(len(os.listdir("/proc/self/task")))
"""
BLAS_SETTINGS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS")


def _threads(first: str, env: dict[str, str] | None = None) -> int:
    return int(_python(BLAS.replace("IMPORT", first), BLAS_SETTINGS, env).stdout)


def test_the_command_lines_numpy_starts_no_blas_threads() -> None:
    assert _threads("import harness.cli") == 1


@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="BLAS threads need two cores")
def test_without_the_command_line_or_with_the_users_setting_blas_has_its_threads() -> None:
    assert _threads("pass") > 1  # the default this guards against: a thread per core
    assert _threads("import harness.cli", {"OPENBLAS_NUM_THREADS": "2"}) == 2
