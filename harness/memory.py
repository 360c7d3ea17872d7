"""Fewer malloc arenas for the command line's process.

Episodes do their blocking work (SQLite, the office libraries, the checks) in worker threads,
and glibc gives each thread that allocates its own arena, up to 8 per core. What a thread frees
stays in its arena, so every arena grows to the largest work that ever ran on it: python-docx
holds about 5 MB per document it has open. Most of a run's resident memory was that, not live
objects: after 48 sim episodes, 27 MB of Python objects lived in a 300 MB process. Two arenas
bring the demo's peak from 443 MB to about 320 MB at the same speed: the threads mostly hold the
GIL, so they seldom contend for an arena.
"""

from __future__ import annotations

import ctypes
import os

ARENAS = 2
_M_ARENA_MAX = -8  # glibc's malloc.h


def limit_malloc_arenas(arenas: int = ARENAS) -> bool:
    """Cap glibc's malloc arenas at `arenas`, unless MALLOC_ARENA_MAX already sets the number.

    Call it before the process starts threads; arenas already made stay. Returns whether the cap
    was set: False on a C library other than glibc (macOS, musl), where this does nothing.
    """
    if "MALLOC_ARENA_MAX" in os.environ:  # the user's own setting stands
        return False
    try:
        if not os.confstr("CS_GNU_LIBC_VERSION"):
            return False
        mallopt = ctypes.CDLL(None).mallopt  # the C library the interpreter runs on
    except (AttributeError, OSError, ValueError):  # not glibc
        return False
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    mallopt.restype = ctypes.c_int
    return bool(mallopt(_M_ARENA_MAX, arenas))
