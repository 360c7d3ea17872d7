"""Workspace confinement: every path a tool takes resolves inside the episode workspace.

Refused: absolute paths, `..` segments, NUL bytes, names longer than a file system allows,
paths longer than 3072 bytes, loops of symlinks, and anything whose real path (after
following symlinks) lies outside the workspace. The error is a tool error the model can act on.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath

from mcp.server.mcpserver.exceptions import ToolError

# The longest file or folder name (one path component) common file systems take, in bytes.
MAX_NAME_BYTES = 255
# The longest path Linux takes (PATH_MAX, 4096 bytes), less room for the workspace's own path.
MAX_PATH_BYTES = 3072


def checked(path: str) -> PurePosixPath:
    """`path` as a relative path, or a ToolError for what no workspace could hold (empty, NUL,
    absolute, `~`, `..`, a name or the whole too long); symlinks are `resolve`'s part."""
    if not path or not path.strip():
        raise ToolError("empty path: give a path relative to the workspace, e.g. 'report.xlsx'")
    if "\x00" in path:
        raise ToolError("path contains a NUL byte")
    pure = PurePosixPath(path.replace("\\", "/"))
    if pure.is_absolute() or path.startswith("~"):
        raise ToolError(f"absolute path {path!r} refused: give a path relative to the workspace")
    if ".." in pure.parts:
        raise ToolError(f"path {path!r} refused: '..' may not leave the workspace")
    if any(len(part.encode("utf-8", "surrogatepass")) > MAX_NAME_BYTES for part in pure.parts):
        raise ToolError(
            f"a file or folder name in {path[:60] + '...'!r} is too long (at most {MAX_NAME_BYTES} bytes)"
        )
    if len(path.encode("utf-8", "surrogatepass")) > MAX_PATH_BYTES:
        raise ToolError(f"path {path[:60] + '...'!r} is too long (at most {MAX_PATH_BYTES} bytes)")
    return pure


def resolve(workspace: Path, path: str, *, must_exist: bool = False) -> Path:
    """The real path of `path` (relative to `workspace`), or a ToolError if it would escape."""
    pure = checked(path)
    root = workspace.resolve()
    try:
        real = (root / pure).resolve()
    except RuntimeError:  # Python 3.11's word for a symlink loop
        raise ToolError(f"path {path!r} refused: it goes round a loop of symlinks") from None
    except OSError as exc:
        raise ToolError(f"path {path!r}: {exc.strerror or exc}") from None
    if real != root and not real.is_relative_to(root):
        raise ToolError(f"path {path!r} refused: it resolves outside the workspace")
    if must_exist and not real.exists():
        raise ToolError(f"no such file or folder in the workspace: {path!r}")
    return real


def relative(workspace: Path, real: Path) -> str:
    """A workspace-relative display path."""
    rel = real.relative_to(workspace.resolve())
    return rel.as_posix() or "."
