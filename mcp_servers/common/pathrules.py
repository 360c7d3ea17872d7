"""The rules a workspace path must keep before any file system is asked (no MCP imports here:
task files are checked against these rules without starting a server)."""

from __future__ import annotations

from pathlib import PurePosixPath

# The longest file or folder name (one path component) common file systems take, in bytes.
MAX_NAME_BYTES = 255
# The longest path Linux takes (PATH_MAX, 4096 bytes), less room for the workspace's own path.
MAX_PATH_BYTES = 3072
# A path echoed in an error message is cut to about this many characters.
MAX_SHOWN_CHARS = 120


def short(path: str) -> str:
    """`path` as an error message shows it: whole when short, else its start and end."""
    if len(path) <= MAX_SHOWN_CHARS:
        return path
    keep = MAX_SHOWN_CHARS // 2
    return f"{path[:keep]}...{path[-keep:]}"


def path_problem(path: str) -> str | None:
    """What no workspace could hold in `path` (empty, NUL, absolute, `~`, `..`, a name or the
    whole too long), or None."""
    if not path or not path.strip():
        return "empty path: give a path relative to the workspace, e.g. 'report.xlsx'"
    if "\x00" in path:
        return "path contains a NUL byte"
    pure = PurePosixPath(path.replace("\\", "/"))
    if pure.is_absolute() or path.startswith("~"):
        return f"absolute path {short(path)!r} refused: give a path relative to the workspace"
    if ".." in pure.parts:
        return f"path {short(path)!r} refused: '..' may not leave the workspace"
    if any(len(part.encode("utf-8", "surrogatepass")) > MAX_NAME_BYTES for part in pure.parts):
        return f"a file or folder name in {path[:60] + '...'!r} is too long (at most {MAX_NAME_BYTES} bytes)"
    if len(path.encode("utf-8", "surrogatepass")) > MAX_PATH_BYTES:
        return f"path {path[:60] + '...'!r} is too long (at most {MAX_PATH_BYTES} bytes)"
    return None
