"""File helpers of the mock terminal: confined paths, text reading, listings, tree walks.

Two ways to name a path. `resolve` (from common) follows symlinks and must land inside the
workspace: used to read, write and copy. `entry` keeps the last component as written, so
`rm link` and `mv link x` act on the link itself, never on what it points to; its folder must
still resolve inside the workspace.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path

from mcp_servers.common.tooling import ToolError
from mcp_servers.common.workspace import checked, relative, resolve

# Output a model reads in one result; longer output is cut with a note saying how to narrow it.
MAX_OUTPUT_CHARS = 100_000
MAX_FILE_BYTES = 5_000_000
BINARY_SNIFF_BYTES = 8192


def entry(workspace: Path, path: str) -> Path:
    """`path` with its folder resolved inside the workspace and its last component kept as is
    (a symlink there may point anywhere: it is the link that is named, not its target)."""
    pure = checked(path)
    parent = resolve(workspace, str(pure.parent))
    return parent / pure.name if pure.name not in ("", ".") else parent


def inside(workspace: Path, real: Path) -> bool:
    root = workspace.resolve()
    return real == root or real.is_relative_to(root)


def show(workspace: Path, real: Path) -> str:
    """A workspace-relative display path."""
    return relative(workspace, real) if inside(workspace, real) else str(real)


def _text_file(real: Path, shown: str) -> int:
    """The size of a readable text file, or a ToolError for missing files, folders and binaries."""
    if not real.exists():
        raise ToolError(f"{shown}: no such file")
    if real.is_dir():
        raise ToolError(f"{shown}: is a directory (use ls or find)")
    size = real.stat().st_size
    with real.open("rb") as f:
        if b"\x00" in f.read(BINARY_SNIFF_BYTES):
            raise ToolError(
                f"{shown}: binary file ({size} bytes); use the tool for its format (excel, word, pptx)"
            )
    return size


def read_text(real: Path, shown: str) -> str:
    """The text of a file, or a ToolError for folders, binaries and huge files."""
    size = _text_file(real, shown)
    if size > MAX_FILE_BYTES:
        raise ToolError(f"{shown}: {size} bytes is too large to read whole; use head or tail")
    return real.read_bytes().decode("utf-8", errors="replace")


def head_lines(real: Path, shown: str, n: int) -> list[str]:
    """The first `n` lines of a text file of any size, reading no more than the output needs."""
    _text_file(real, shown)
    out: list[str] = []
    chars = 0
    with real.open("r", encoding="utf-8", errors="replace", newline="") as f:
        while len(out) < n and chars <= MAX_OUTPUT_CHARS:
            line = f.readline(MAX_OUTPUT_CHARS + 1)
            if not line:
                break
            out.append(line.rstrip("\r\n"))
            chars += len(line)
    return out


def tail_lines(real: Path, shown: str, n: int) -> list[str]:
    """The last `n` lines of a text file of any size, read backwards from its end in blocks
    (at most MAX_FILE_BYTES of it)."""
    size = _text_file(real, shown)
    if n == 0:
        return []
    data = b""
    with real.open("rb") as f:
        pos = size
        while pos > 0 and data.count(b"\n") <= n and size - pos < MAX_FILE_BYTES:
            step = min(65536, pos)
            pos -= step
            f.seek(pos)
            data = f.read(step) + data
    lines = data.decode("utf-8", errors="replace").splitlines()
    if pos > 0 and len(lines) > n:  # the first line read may be the end of a longer one
        lines = lines[1:]
    return lines[-n:]


@contextmanager
def os_errors(shown: str) -> Iterator[None]:
    """OS errors of a file operation as tool errors that name the path and the reason."""
    try:
        yield
    except OSError as exc:
        if exc.errno == errno.ENAMETOOLONG:
            raise ToolError(f"{shown}: a file or folder name is too long (at most 255 bytes)") from None
        if exc.errno in (errno.ENOTDIR, errno.EEXIST):
            raise ToolError(f"{shown}: a part of this path is a file, not a folder") from None
        raise ToolError(f"{shown}: {exc.strerror or exc}") from None


def clip(text: str) -> str:
    """`text`, cut to MAX_OUTPUT_CHARS with a note."""
    if len(text) <= MAX_OUTPUT_CHARS:
        return text
    rest = len(text) - MAX_OUTPUT_CHARS
    return (
        text[:MAX_OUTPUT_CHARS]
        + f"\n... [output cut: {rest} more characters; narrow it with head, tail or grep]"
    )


def _mode(st: os.stat_result) -> str:
    return stat.filemode(st.st_mode)


def long_line(workspace: Path, p: Path, name: str) -> str:
    """One `ls -l` line: mode, size, modification time, name (and a link's target)."""
    st = p.lstat()
    when = datetime.fromtimestamp(st.st_mtime).strftime("%Y-%m-%d %H:%M")
    line = f"{_mode(st)} {st.st_size:>9} {when} {name}"
    if p.is_symlink():
        try:
            target = p.resolve()
        except (RuntimeError, OSError):  # a loop of links (RuntimeError on Python 3.11)
            return line + " -> (a loop of symlinks)"
        line += (
            f" -> {show(workspace, target)}" if inside(workspace, target) else " -> (outside the workspace)"
        )
    return line


def walk(top: Path, maxdepth: int | None = None, depth: int = 0) -> Iterator[tuple[Path, int]]:
    """Every path under `top` (itself first, then each child and its subtree, by name) with its
    depth, as `find` does; symlinked folders are listed but not entered."""
    yield top, depth
    if not top.is_dir() or (depth > 0 and top.is_symlink()) or (maxdepth is not None and depth >= maxdepth):
        return
    try:
        children = sorted(top.iterdir(), key=lambda c: c.name)
    except OSError:
        return
    for child in children:
        yield from walk(child, maxdepth, depth + 1)
