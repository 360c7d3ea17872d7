"""How the child process that runs `python_execute`'s code is confined (sandbox.py runs it).

When mseval runs as root the code never does: it runs as `SANDBOX_UID` (65534, nobody), the
workspace handed over to that user before each run (`handover.py`), hard-linked and other users' files
excepted (the harness's own servers, as root, still read and write everything in it). Under root, even the "root" of a user namespace is the
machine's root to the kernel's file checks (it could write /proc/sys), and RLIMIT_NPROC spares
root.

Where namespaces work, it runs in namespaces of its own (`unshare -nmpfui` as root, which then
becomes that user with `setpriv`; `unshare -rnmpfui` otherwise, with unprivileged user
namespaces), and, where one can be made, as uid 65534 of one more user namespace, its own
(`_to_code_user`):
- network: no interface up, so no network at all, loopback included;
- UTS and IPC: its own host name and System V IPC;
- mounts: a root of its own (pivot_root, the machine's root unmounted, then every capability
  dropped, so no chroot can climb back out) that holds only this Python (read-only:
  interpreter, standard library, installed packages, system libraries), a /dev of its own
  (null, zero, full, random, urandom, tty and a private, size-capped /dev/shm), a private,
  size-capped /tmp, /proc with /proc/sys read-only, no /sys, and the workspace, as the docker
  container does, so the world database beside the workspace, the task catalog (gold
  solutions, checks), the run store and other episodes are out of its reach;
- processes: it is process 1 of its namespace, so everything it starts dies with it, on exit
  or when killed at the timeout, and it dies with the server, even a killed one (sandbox.py's
  `_limits`).
Where only `unshare -rn` (as root: `unshare -n`, then `setpriv`) works it gets the network
namespace alone, and where neither works none (the README says so); the user and the limits
hold in every case (RLIMIT_NPROC there only as root), and as root it refuses to run rather
than run as root. Where the code has no user namespace of its own (as root: where uid 65534
cannot make one, and with no namespaces at all), RLIMIT_NPROC counts every uid-65534 process on
the machine, so all calls share the cap. The setup is probed once by running the very command
a call runs (`probe`); one weaker than the strongest is logged as a warning that says why.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import os
import shutil
import stat
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from mcp_servers.local import handover

DEFAULT_MEMORY_BYTES = 1 << 30
# Processes and threads the code may hold at once (RLIMIT_NPROC; the container's --pids-limit).
DEFAULT_MAX_PROCESSES = 256
# The largest file the code may write (RLIMIT_FSIZE), and all that its private /tmp may hold.
DEFAULT_FILE_BYTES = 256 << 20
# All that its private /dev/shm may hold (tmpfs memory counts against no rlimit).
SHM_BYTES = 64 << 20
# Under root the code runs as this user (nobody), never as root.
SANDBOX_UID = 65534

_log = logging.getLogger(__name__)


def sandbox_user() -> int | None:
    """The user the code runs as: `SANDBOX_UID` when mseval runs as root, else mseval's own."""
    return SANDBOX_UID if os.geteuid() == 0 else None


# Drops every capability: no chroot, no mount, nothing gained by exec (setuid, file caps). And
# SIGKILL when its parent ends (the server, or `unshare`, which dies with the server: see
# sandbox.py's `_limits`): the kernel forgets a parent-death signal when the user changes, as `--reuid` does.
_NO_CAPS = ["setpriv", "--bounding-set=-all", "--inh-caps=-all", "--no-new-privs", "--pdeathsig=KILL", "--"]


def _as_user(user: int | None) -> list[str]:
    """From root to `user` with no capabilities, no supplementary groups, no way back up."""
    if user is None:
        return []
    return ["setpriv", f"--reuid={user}", f"--regid={user}", "--clear-groups", *_NO_CAPS[1:]]


def _to_code_user(user: int | None, user_namespace: bool) -> list[str]:
    """The commands that take the child from root (of the machine, or of the user namespace
    `unshare -r` made) to the user the code runs as: `user` (see `sandbox_user`); then, with
    `user_namespace`, uid 65534 of a user namespace of its own, where RLIMIT_NPROC counts its
    processes alone; with no capabilities left in any case where setpriv is there.

    `unshare -U` comes before the last setpriv: after an emptied bounding set the kernel
    refuses its uid_map ("write failed /proc/self/uid_map"); and `--keep-caps` leaves setpriv
    the capabilities it needs to empty the new namespace's bounding set, then drops them."""
    has_setpriv = shutil.which("setpriv") is not None
    chain = _as_user(user)
    if user_namespace:
        keep = ["--keep-caps"] if has_setpriv else []
        chain += ["unshare", "-U", "--map-user=65534", "--map-group=65534", *keep, "--"]
    if has_setpriv and (user_namespace or user is None):
        chain += _NO_CAPS
    return chain


def _nproc(command: list[str], max_processes: int) -> list[str]:
    """`command` with RLIMIT_NPROC set inside its user namespace, where the count is of that
    namespace's processes alone (set before, the count would be of all the user's processes)."""
    if shutil.which("prlimit") is None:
        return command
    return ["prlimit", f"--nproc={max_processes}", "--", *command]


# Run inside `unshare -nmpfui` as root, or `unshare -rnmpfui` as root of the new user namespace,
# in the workspace: build a root of its own on a tmpfs at $1 with the runtime read-only, a /dev
# of its own, a private /tmp of $3 bytes, /proc (its /proc/sys read-only) and the workspace $2 at
# its own path, then run the command there (it starts with `_to_code_user`). Every remount says
# `bind` and `nodev`: in a user namespace a remount of the whole file system, or one that would
# clear the nodev the kernel set, is refused. Arguments: ROOT WORKSPACE TMP-BYTES SHM-BYTES
# RUNTIME-PATH... -- COMMAND...
_CONFINE = r"""
set -e
root="$1"; ws="$2"; tmp_bytes="$3"; shm_bytes="$4"; shift 4
mount -t tmpfs -o mode=0755,size=1m mseval "$root"
mkdir -p "$root/tmp" "$root/dev" "$root/proc"
mount -t tmpfs -o mode=1777,nosuid,nodev,size="$tmp_bytes" mseval "$root/tmp"
while [ "$1" != "--" ]; do
  mkdir -p "$root$1"
  mount --rbind "$(readlink -f "$1")" "$root$1"
  mount -o remount,bind,ro "$root$1"
  shift
done
shift
# Not the machine's /dev: a few harmless devices and a private /dev/shm.
mount -t tmpfs -o mode=0755,nosuid,noexec,size=64k mseval "$root/dev"
for d in null zero full random urandom tty; do
  if [ -c "/dev/$d" ]; then
    touch "$root/dev/$d"
    mount --bind "/dev/$d" "$root/dev/$d"
  fi
done
mkdir "$root/dev/shm"
mount -t tmpfs -o mode=1777,nosuid,nodev,size="$shm_bytes" mseval "$root/dev/shm"
ln -s /proc/self/fd "$root/dev/fd"
ln -s /proc/self/fd/0 "$root/dev/stdin"
ln -s /proc/self/fd/1 "$root/dev/stdout"
ln -s /proc/self/fd/2 "$root/dev/stderr"
mount -o remount,bind,ro,nosuid,nodev,noexec "$root/dev"
mount -t proc -o nosuid,nodev,noexec proc "$root/proc"
mount --bind "$root/proc/sys" "$root/proc/sys"
mount -o remount,bind,ro,nosuid,nodev,noexec "$root/proc/sys"
mkdir -p "$root$ws"
mount --bind "$ws" "$root$ws"
mount -o remount,bind,nosuid,nodev "$root$ws"
# The new root by pivot_root, with the old one unmounted: after a chroot, root of this user
# namespace could chroot again and climb back out; here nothing is left to climb back to.
mkdir "$root/.old"
cd "$root"
PATH="$PATH:/usr/sbin:/sbin" pivot_root . .old
cd /
umount -l /.old
rmdir /.old
cd "$ws"
exec "$@"
"""


def _runtime_paths() -> list[str]:
    """What the confined child sees of this machine: this Python and the system libraries."""
    paths = {sys.prefix, sys.base_prefix, "/usr", "/lib", "/lib64", "/bin"}
    return sorted(p for p in paths if os.path.exists(p))


@dataclass(frozen=True)
class Limits:
    memory_bytes: int = DEFAULT_MEMORY_BYTES
    max_processes: int = DEFAULT_MAX_PROCESSES
    file_bytes: int = DEFAULT_FILE_BYTES


Mode = Literal["confined", "network", "bare"]


@dataclass(frozen=True)
class Setup:
    """How the child is confined here: `mode`, and whether the code gets a user namespace of
    its own as uid 65534 (`user_namespace`). Without one, as root, its processes count with
    every uid-65534 process on the machine against `max_processes`."""

    mode: Mode
    user_namespace: bool

    def weaknesses(self) -> str:
        """What this setup leaves the code that the strongest would not ("" for none)."""
        weak = {
            "confined": [],
            "network": ["it sees the machine's file system (it has an empty network namespace only)"],
            "bare": ["it has the machine's network and file system"],
        }[self.mode]
        if not self.user_namespace and sandbox_user() is not None:
            weak.append(f"its processes count with all uid-{SANDBOX_UID} processes on the machine")
        elif self.mode == "bare":
            weak.append("its processes are not capped")
        return "; ".join(weak)


def command(setup: Setup, python: list[str], workspace: str, root: str, limits: Limits) -> list[str]:
    """How `python` is started with `setup`: by root (mseval's user) or, with no namespaces,
    as `sandbox_user()` directly (see sandbox.ProcessSandbox.run). The probe runs this very command."""
    user = sandbox_user()
    if setup.mode == "bare":
        return python
    code = [*_to_code_user(user, setup.user_namespace), *_nproc(python, limits.max_processes)]
    if setup.mode == "confined":
        # unshare forks the child, which dies with unshare (--kill-child): a kill at the
        # timeout ends the child and, as process 1 of its namespace, all it started.
        return [
            "unshare", "-nmpfui" if user is not None else "-rnmpfui", "--kill-child", "--",
            "/bin/sh", "-c", _CONFINE, "confine", root, workspace, str(limits.file_bytes),
            str(SHM_BYTES), *_runtime_paths(), "--", *code,
        ]  # fmt: skip
    return ["unshare", "-n" if user is not None else "-rn", "--", *code]  # execs in place


@contextlib.contextmanager
def new_root() -> Iterator[str]:
    """The folder the confined root is mounted on: the shared one when it is safe to use, else an
    empty folder of the run's own."""
    if (shared := shared_root()) is not None:
        yield shared
        return
    with tempfile.TemporaryDirectory(prefix="mseval-root-") as root:
        yield root


def shared_root() -> str | None:
    """`mseval-root-<uid>` in the temp folder, made on first use and kept. Each run mounts its
    root in a mount namespace of its own, unseen by the others, so one folder serves every run
    at once; a folder per run was left behind whenever its server was killed mid-run. None when
    the name is taken by anything but a private folder of this user's (another user's, a link)."""
    uid = os.geteuid()
    path = os.path.join(tempfile.gettempdir(), f"mseval-root-{uid}")
    try:
        os.mkdir(path, 0o700)
    except FileExistsError:
        pass
    except OSError:
        return None
    try:
        found = os.lstat(path)
    except OSError:
        return None
    if not stat.S_ISDIR(found.st_mode) or found.st_uid != uid or found.st_mode & 0o077:
        return None
    return path


def probe(setup: Setup) -> str | None:
    """Why `setup` does not work here (its error output), or None when it does: the command a
    call runs, with code that prints where it is."""
    user = sandbox_user()
    python = [sys.executable, "-I", "-c", "import os; print(os.getcwd())"]
    if setup.mode != "bare" and user is not None and shutil.which("setpriv") is None:
        return "no setpriv: the code would run as root"
    with tempfile.TemporaryDirectory() as ws, new_root() as root:
        ws = os.path.realpath(ws)
        if user is not None:
            handover.hand_over(Path(ws), user)
        extra: dict[str, Any] = {}
        if setup.mode == "bare" and user is not None:
            extra = {"user": user, "group": user, "extra_groups": []}
        try:
            probe = subprocess.run(
                command(setup, python, ws, root, Limits()),
                cwd=ws, capture_output=True, text=True, timeout=20, check=False, **extra,
            )  # fmt: skip
        except (OSError, subprocess.TimeoutExpired) as exc:
            return str(exc)
    if probe.returncode == 0 and probe.stdout.strip() == ws:
        return None
    return (probe.stderr.strip() or f"exit code {probe.returncode}")[-2000:]


# The setups tried, strongest first.
_SETUPS = [
    Setup(mode, user_namespace) for mode in ("confined", "network") for user_namespace in (True, False)
]


@functools.cache
def sandbox_setup() -> Setup | None:
    """The strongest confinement that works here (asked once), with a warning for any weaker
    than the strongest; None when not even "bare" works (as root: the sandbox user cannot
    reach this Python)."""
    failures: list[str] = []
    setups = _SETUPS if shutil.which("unshare") is not None and os.path.exists("/bin/sh") else []
    for setup in [*setups, Setup("bare", False)]:
        error = probe(setup)
        if error is None:
            if weak := setup.weaknesses():
                _log.warning("python_execute is not fully confined here: %s (%s)", weak, "; ".join(failures))
            return setup
        failures.append(f"{setup} failed: {error}")
    _log.warning("python_execute cannot run here: %s", "; ".join(failures))
    return None


def sandbox_mode() -> Mode | None:
    """The strongest confinement that works here: "confined" (namespaces and a root of its
    own), "network" (an empty network namespace only), "bare" (none); None when not even that
    works (see `sandbox_setup`)."""
    setup = sandbox_setup()
    return None if setup is None else setup.mode


def confinement_available() -> bool:
    """Whether the confined child (namespaces of its own, a root of its own) works here."""
    return sandbox_mode() == "confined"


def network_namespace_available() -> bool:
    """Whether the child gets at least an empty network namespace here."""
    return sandbox_mode() in ("confined", "network")
