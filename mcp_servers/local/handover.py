"""Handing a workspace over to the user `python_execute` runs as (uid 65534 when mseval runs as
root), so the code can change what the harness's servers (root) wrote there.

The walk never follows a link and never blocks: each folder is opened relative to its parent
(O_NOFOLLOW, O_NONBLOCK), each other entry as a path only and changed through its own
descriptor (`fchownat(fd, "", AT_EMPTY_PATH)`), so an entry the code swaps mid-walk (a symlink,
a FIFO) leads nowhere outside and blocks nothing. Hard-linked files and other users' files are
left alone: the same file may be outside the workspace. A walk is bounded in depth and time and
runs in a thread pool of its own, one per workspace at a time.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import ctypes
import logging
import os
import stat
import time
import weakref
from pathlib import Path

_log = logging.getLogger(__name__)


# The walk that hands a workspace over: folders opened relative to their parent, never
# following a link and never blocking (a FIFO swapped in for a folder is refused, not opened).
_FOLDER_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
# Anything else is opened as a path only: it is never read, so nothing can block.
_ENTRY_FLAGS = os.O_PATH | os.O_NOFOLLOW | os.O_CLOEXEC
# Folders deeper than this are left as they are (the code cannot change what root wrote there).
HAND_OVER_DEPTH = 64
# The longest one hand-over walks: the code then runs with what was handed over by then.
HAND_OVER_DEADLINE_S = 10.0
_AT_EMPTY_PATH = 0x1000
_libc = ctypes.CDLL(None, use_errno=True)


def _own(fd: int, uid: int) -> None:
    """Give the file open at `fd` (a folder, or any entry opened O_PATH) to `uid`, unless it is
    someone else's (neither root's nor `uid`'s) or, not being a folder, has other hard links:
    the same file may be outside the workspace, where no one handed it to the code."""
    st = os.fstat(fd)
    if st.st_uid not in (0, uid) or (not stat.S_ISDIR(st.st_mode) and st.st_nlink > 1):
        return
    # fchownat(fd, "", AT_EMPTY_PATH) changes exactly the file open at fd, a symlink included.
    if (st.st_uid, st.st_gid) != (uid, uid) and _libc.fchownat(fd, b"", uid, uid, _AT_EMPTY_PATH):
        errno = ctypes.get_errno()
        raise OSError(errno, os.strerror(errno))


def _hand_over_folder(folder: int, uid: int, depth: int, deadline: float) -> bool:
    _own(folder, uid)
    complete = True
    for name in os.listdir(folder):
        if time.monotonic() > deadline:
            return False
        try:
            child = os.open(name, _FOLDER_FLAGS, dir_fd=folder)
        except FileNotFoundError:  # removed meanwhile (another agent's call)
            continue
        except OSError:  # not a folder (ENOTDIR), or a symlink (ELOOP)
            try:
                entry = os.open(name, _ENTRY_FLAGS, dir_fd=folder)
            except FileNotFoundError:
                continue
            try:
                if not stat.S_ISDIR(os.fstat(entry).st_mode):  # a folder swapped in: next time
                    _own(entry, uid)
            finally:
                os.close(entry)
            continue
        try:
            if depth > 0:
                complete = _hand_over_folder(child, uid, depth - 1, deadline) and complete
            else:
                complete = False
        finally:
            os.close(child)
    return complete


def hand_over(workspace: Path, uid: int, deadline_s: float = HAND_OVER_DEADLINE_S) -> bool:
    """Make the workspace and all in it `uid`'s, so the code can change what the harness's
    servers (root) wrote there; whether all of it was (within `HAND_OVER_DEPTH` folders and
    `deadline_s`). Each folder is opened relative to its parent and each entry is changed
    through a descriptor of its own, so an entry swapped mid-walk (a symlink, a FIFO) leads
    nowhere outside and blocks nothing. Hard-linked files and other users' files are skipped."""
    deadline = time.monotonic() + deadline_s
    top = os.open(workspace, _FOLDER_FLAGS)
    try:
        return _hand_over_folder(top, uid, HAND_OVER_DEPTH, deadline)
    finally:
        os.close(top)


# Hand-overs run here, not in the event loop's default executor, which the harness shares: a
# walk that hung there could leave the harness no thread. One hand-over per workspace at a time.
_HAND_OVER_POOL = concurrent.futures.ThreadPoolExecutor(2, thread_name_prefix="mseval-hand-over")
_hand_over_locks: weakref.WeakValueDictionary[tuple[int, str], asyncio.Lock] = weakref.WeakValueDictionary()


async def before_run(workspace: Path, uid: int) -> None:
    """`hand_over` before a run, one at a time per workspace, waited for at most half again its
    own deadline (a walk that hung holds a thread of its own pool, not the harness's): the code
    then runs with whatever was handed over."""
    key = (id(asyncio.get_running_loop()), str(workspace))
    lock = _hand_over_locks.get(key)
    if lock is None:
        lock = _hand_over_locks[key] = asyncio.Lock()
    async with lock:
        job = asyncio.get_running_loop().run_in_executor(
            _HAND_OVER_POOL, hand_over, workspace, uid, HAND_OVER_DEADLINE_S
        )
        try:
            complete = await asyncio.wait_for(job, HAND_OVER_DEADLINE_S * 1.5)
        except TimeoutError:
            complete = False
        if not complete:
            _log.warning("%s was handed over to uid %d only in part", workspace, uid)
