"""Where mseval caches what it builds from the server code, the key of that code, and the
housekeeping of the cache: a thing's file time is refreshed once a day of use, and things of
other code unused for a week are removed when a new one is built."""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Iterable
from functools import cache
from pathlib import Path

PACKAGE_ROOT = Path(__file__).resolve().parent.parent

STALE_S = 7 * 24 * 3600
"""A cached thing of other server code unused this long is removed when a new one is built."""
TOUCH_AFTER_S = 24 * 3600
"""How often a cached thing in use has its file time refreshed (and how long a killed
builder's leftovers stay)."""


def default_cache_dir() -> Path:
    return Path(os.environ.get("MSEVAL_CACHE", Path.home() / ".cache" / "mseval"))


@cache
def _tree_digest() -> bytes:
    h = hashlib.sha256()
    for path in sorted(PACKAGE_ROOT.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts:
            h.update(path.relative_to(PACKAGE_ROOT).as_posix().encode())
            h.update(path.read_bytes())
    return h.digest()


@cache
def code_key(*extra: Path) -> str:
    """A hash of every file under `mcp_servers/` (names and bytes) and of the files `extra`:
    any change to a server's code, schema or seed gives a new key. The tree is read once a
    process, whichever keys are asked for."""
    if not extra:
        return _tree_digest().hex()[:16]
    h = hashlib.sha256(_tree_digest())
    for path in extra:
        h.update(path.name.encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


def in_use(path: Path) -> bool:
    """Whether `path` exists; its time is refreshed once a day of use."""
    try:
        if time.time() - path.stat().st_mtime > TOUCH_AFTER_S:
            path.touch()
        return True
    except FileNotFoundError:
        return False


def remove_stale(candidates: Iterable[tuple[Path, float]], keep: Path) -> list[Path]:
    """Remove each (file, age) older than its age in seconds, except `keep`; the ones removed."""
    removed = []
    for stale, age in candidates:
        try:
            if stale != keep and time.time() - stale.stat().st_mtime > age:
                stale.unlink()
                removed.append(stale)
        except FileNotFoundError:
            pass
    return removed
