"""Driving `mseval` as a user does (a child process), and a private catalog to break on purpose."""

from __future__ import annotations

import atexit
import json
import locale
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

from harness.catalog import PRIORS_DIR, TASKS_DIR

MSEVAL = [sys.executable, "-m", "harness.cli.main"]
ROOT = Path(__file__).resolve().parents[2]
ZYGOTE = Path(__file__).with_name("cli_zygote.py")
# MSEVAL_TEST_FRESH_PROCESSES=1: start every child with a new interpreter, as a user's shell does.
FRESH = os.environ.get("MSEVAL_TEST_FRESH_PROCESSES") == "1"
# Variables read when an interpreter or a preloaded package starts: a child given other values
# than the zygote started with is started afresh.
_STARTUP_PREFIXES = ("PYTHON", "TYPER", "_TYPER")


class _Zygote:
    """This process's `cli_zygote.py`, started at first use and stopped at exit."""

    def __init__(self) -> None:
        self.proc: subprocess.Popen[bytes] | None = None
        self.folder = ""
        self.startup: dict[str, str] = {}  # its startup variables (see _STARTUP_PREFIXES)

    def address(self) -> str:
        if self.proc is None or self.proc.poll() is not None:
            self.folder = tempfile.mkdtemp(prefix="mseval-zygote-")
            self.startup = _startup(dict(os.environ))
            errors = Path(self.folder, "stderr")  # a file: a pipe nobody reads could fill and block it
            with errors.open("wb") as stderr:
                self.proc = subprocess.Popen(
                    [sys.executable, str(ZYGOTE), f"{self.folder}/socket"],
                    cwd=ROOT,
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.PIPE,
                    stderr=stderr,
                )
            assert self.proc.stdout is not None
            if self.proc.stdout.readline() != b"ready\n":
                self.proc.kill()
                raise RuntimeError(f"{ZYGOTE.name} did not start: {errors.read_text()}")
            atexit.register(self.stop)
        return f"{self.folder}/socket"

    def fits(self, env: dict[str, str]) -> bool:
        """Whether a child with `env` can come from the zygote (started now if need be)."""
        if FRESH:
            return False
        self.address()
        return _startup(env) == self.startup

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait()
            self.proc = None
        shutil.rmtree(self.folder, ignore_errors=True)


def _startup(env: dict[str, str]) -> dict[str, str]:
    return {k: v for k, v in env.items() if k.startswith(_STARTUP_PREFIXES)}


_zygote = _Zygote()


def _text(data: bytes) -> str:
    """Bytes as `subprocess.run(text=True)` gives them."""
    return data.decode(locale.getpreferredencoding(False)).replace("\r\n", "\n").replace("\r", "\n")


def _recv_line(conn: socket.socket) -> bytes:
    line = b""
    while not line.endswith(b"\n"):
        chunk = conn.recv(1)
        if not chunk:
            raise RuntimeError(f"{ZYGOTE.name} went away mid-request")
        line += chunk
    return line


def run_fresh(
    module: str, args: list[str], env: dict[str, str], cwd: Path, timeout: float | None
) -> subprocess.CompletedProcess[str]:
    """`python -m MODULE ARGS` started afresh, stdin /dev/null."""
    return subprocess.run(
        [sys.executable, "-m", module, *args], capture_output=True, text=True, cwd=cwd, env=env,
        timeout=timeout, stdin=subprocess.DEVNULL,
    )  # fmt: skip


def run_module(
    module: str, args: list[str], env: dict[str, str], cwd: Path, timeout: float | None
) -> subprocess.CompletedProcess[str]:
    """`python -m MODULE ARGS` as a child process, forked from the zygote when it fits (the same
    exit status, stdout and stderr; stdin is /dev/null), else started afresh."""
    cmd = [sys.executable, "-m", module, *args]
    if not _zygote.fits(env):
        return run_fresh(module, args, env, cwd, timeout)
    request = json.dumps({"module": module, "argv": args, "env": env, "cwd": str(cwd)}).encode()
    with (
        tempfile.TemporaryFile() as out,
        tempfile.TemporaryFile() as err,
        open(os.devnull, "rb") as stdin,
        socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as conn,
    ):
        conn.connect(_zygote.address())
        socket.send_fds(conn, [b"\0"], [stdin.fileno(), out.fileno(), err.fileno()])
        conn.sendall(len(request).to_bytes(8, "big") + request)
        pid = int(_recv_line(conn).split()[1])
        conn.settimeout(timeout)
        timed_out = False
        try:
            status = _recv_line(conn)
        except TimeoutError:
            timed_out = True
            os.kill(pid, signal.SIGKILL)
            conn.settimeout(None)
            status = _recv_line(conn)
        out.seek(0)
        err.seek(0)
        stdout, stderr = _text(out.read()), _text(err.read())
    if timed_out:
        raise subprocess.TimeoutExpired(cmd, timeout or 0, output=stdout, stderr=stderr)
    code = os.waitstatus_to_exitcode(int(status.split()[1]))
    return subprocess.CompletedProcess(cmd, code, stdout, stderr)


def mseval(
    *args: str, env: dict[str, str] | None = None, cwd: Path | None = None, timeout: float | None = 300
) -> subprocess.CompletedProcess[str]:
    return run_module("harness.cli.main", list(args), {**os.environ, **(env or {})}, cwd or ROOT, timeout)


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
