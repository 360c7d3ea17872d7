"""Where mseval caches what it builds from the server code, and the key of that code."""

from __future__ import annotations

import hashlib
import os
from functools import cache
from pathlib import Path

PACKAGE_ROOT = Path(__file__).resolve().parent.parent


def default_cache_dir() -> Path:
    return Path(os.environ.get("MSEVAL_CACHE", Path.home() / ".cache" / "mseval"))


@cache
def code_key(*extra: Path) -> str:
    """A hash of every file under `mcp_servers/` (names and bytes) and of the files `extra`:
    any change to a server's code, schema or seed gives a new key."""
    h = hashlib.sha256()
    files = [(p.relative_to(PACKAGE_ROOT).as_posix(), p) for p in sorted(PACKAGE_ROOT.rglob("*"))]
    files += [(p.name, p) for p in extra]
    for name, path in files:
        if path.is_file() and "__pycache__" not in path.parts:
            h.update(name.encode())
            h.update(path.read_bytes())
    return h.hexdigest()[:16]
