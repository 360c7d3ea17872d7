"""File helpers of the mock terminal: text reading, listings, tree walks, copies and removals,
all on open folders (`common.workspace.Found`), never on paths the kernel would resolve again.

A tree walk, copy or removal opens each folder relative to its parent with `O_NOFOLLOW`: links
inside are listed (and copied) as links, never entered, and a folder swapped for a link while
the walk runs stops that branch with an error instead of leading out. Only regular files are
read: a FIFO or a device is refused before anything waits on it.
"""

from __future__ import annotations

import errno
import io
import os
import shutil
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path, PurePosixPath
from typing import BinaryIO

from mcp_servers.common.tooling import ToolError
from mcp_servers.common.workspace import (
    FOLDER_FLAGS,
    MAX_DEPTH,
    Found,
    is_replacement,
    locate,
    open_file,
    replace_file,
    short,
)

# Output a model reads in one result; longer output is cut with a note saying how to narrow it.
MAX_OUTPUT_CHARS = 100_000
MAX_FILE_BYTES = 5_000_000
BINARY_SNIFF_BYTES = 8192


def _text_file(f: BinaryIO, shown: str) -> int:
    """The size of an open text file, or a ToolError for binaries."""
    size = os.fstat(f.fileno()).st_size
    if b"\x00" in f.read(BINARY_SNIFF_BYTES):
        raise ToolError(
            f"{short(shown)}: binary file ({size} bytes); use the tool for its format (excel, word, pptx)"
        )
    f.seek(0)
    return size


def read_text(found: Found, shown: str) -> str:
    """The text of a file, or a ToolError for missing files, folders, binaries and huge files."""
    return read_sized(found, shown)[0]


def read_sized(found: Found, shown: str) -> tuple[str, int]:
    """`read_text` and the file's size in bytes."""
    with open_file(found, shown) as f:
        size = _text_file(f, shown)
        if size > MAX_FILE_BYTES:
            raise ToolError(f"{short(shown)}: {size} bytes is too large to read whole; use head or tail")
        return f.read(MAX_FILE_BYTES + 1).decode("utf-8", errors="replace"), size


def head_lines(found: Found, shown: str, n: int) -> list[str]:
    """The first `n` lines of a text file of any size, reading no more than the output needs."""
    out: list[str] = []
    chars = 0
    with open_file(found, shown) as raw:
        _text_file(raw, shown)
        f = io.TextIOWrapper(raw, encoding="utf-8", errors="replace", newline="")
        while len(out) < n and chars <= MAX_OUTPUT_CHARS:
            line = f.readline(MAX_OUTPUT_CHARS + 1)
            if not line:
                break
            out.append(line.rstrip("\r\n"))
            chars += len(line)
        f.detach()
    return out


def tail_lines(found: Found, shown: str, n: int) -> list[str]:
    """The last `n` lines of a text file of any size, read backwards from its end in blocks
    (at most MAX_FILE_BYTES of it)."""
    with open_file(found, shown) as f:
        size = _text_file(f, shown)
        if n == 0:
            return []
        data = b""
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
            raise ToolError(
                f"{short(shown)}: a file or folder name is too long (at most 255 bytes)"
            ) from None
        if exc.errno in (errno.ENOTDIR, errno.EEXIST):
            raise ToolError(f"{short(shown)}: a part of this path is a file, not a folder") from None
        if exc.errno == errno.ELOOP:
            raise ToolError(f"{short(shown)}: it changed into a symlink while in use; try again") from None
        raise ToolError(f"{short(shown)}: {exc.strerror or exc}") from None


def clip(text: str) -> str:
    """`text`, cut to MAX_OUTPUT_CHARS with a note."""
    if len(text) <= MAX_OUTPUT_CHARS:
        return text
    rest = len(text) - MAX_OUTPUT_CHARS
    return (
        text[:MAX_OUTPUT_CHARS]
        + f"\n... [output cut: {rest} more characters; narrow it with head, tail or grep]"
    )


def link_target(workspace: Path, rel: PurePosixPath) -> str:
    """Where the link at `rel` leads, as `ls -l` shows it: a workspace path, or a note."""
    try:
        with locate(workspace, rel.as_posix()) as found:
            return found.shown
    except ToolError as exc:
        return "(a loop of symlinks)" if "loop" in str(exc) else "(outside the workspace)"
    except OSError:
        return "(a missing folder)"


def long_line(workspace: Path, st: os.stat_result, rel: PurePosixPath, name: str) -> str:
    """One `ls -l` line: mode, size, modification time, name (and a link's target)."""
    when = datetime.fromtimestamp(st.st_mtime).strftime("%Y-%m-%d %H:%M")
    line = f"{stat.filemode(st.st_mode)} {st.st_size:>9} {when} {name}"
    if stat.S_ISLNK(st.st_mode):
        line += f" -> {link_target(workspace, rel)}"
    return line


def kind(st: os.stat_result) -> str:
    """`find -type`'s letter: l for a link, d for a folder, f for anything else."""
    return "l" if stat.S_ISLNK(st.st_mode) else "d" if stat.S_ISDIR(st.st_mode) else "f"


def copied_mode(st: os.stat_result) -> int:
    """The permission bits a copy keeps: never set-user-ID or set-group-ID (the server may run as
    root, so a copy of the agent's setuid file would be a root-owned setuid file)."""
    return stat.S_IMODE(st.st_mode) & ~(stat.S_ISUID | stat.S_ISGID)


def copy_file(source: Found, target: Found, shown: str) -> None:
    """Copy a regular file's bytes, mode (less set-ID bits) and times (as `cp -p`) onto `target`,
    whole at once (`replace_file`: a copy over a file another agent reads gives it the old file
    or the new)."""
    with open_file(source, shown) as src:
        st = os.fstat(src.fileno())

        def write(dst: BinaryIO) -> None:
            shutil.copyfileobj(src, dst)
            dst.flush()
            os.chmod(dst.fileno(), copied_mode(st))
            os.utime(dst.fileno(), ns=(st.st_atime_ns, st.st_mtime_ns))

        replace_file(target, target.shown, write)


def copy_tree(source: int, target_folder: int, name: str, depth: int = 0) -> list[str]:
    """Copy the open folder `source` to a new folder `name` in `target_folder`: links as links,
    regular files with their bytes; the names of what was skipped (pipes, devices) come back."""
    if depth >= MAX_DEPTH:
        raise ToolError(f"the folder is nested deeper than {MAX_DEPTH} levels; copy its parts")
    os.mkdir(name, dir_fd=target_folder)
    st_top = os.fstat(source)
    skipped: list[str] = []
    target = os.open(name, FOLDER_FLAGS, dir_fd=target_folder)
    try:
        for child in sorted(os.listdir(source)):
            if is_replacement(child):  # a file another tool is writing, not yet in place
                continue
            try:
                st = os.stat(child, dir_fd=source, follow_symlinks=False)
            except FileNotFoundError:  # gone since the listing (renamed or removed meanwhile)
                continue
            if stat.S_ISLNK(st.st_mode):
                os.symlink(os.readlink(child, dir_fd=source), child, dir_fd=target)
            elif stat.S_ISDIR(st.st_mode):
                sub = os.open(child, FOLDER_FLAGS, dir_fd=source)
                try:
                    skipped += [f"{child}/{s}" for s in copy_tree(sub, target, child, depth + 1)]
                finally:
                    os.close(sub)
            elif stat.S_ISREG(st.st_mode):
                with (
                    Found(os.dup(source), child, PurePosixPath(child)) as a,
                    Found(os.dup(target), child, PurePosixPath(child)) as b,
                ):
                    copy_file(a, b, child)
            else:
                skipped.append(child)
        os.chmod(target, copied_mode(st_top))
        os.utime(target, ns=(st_top.st_atime_ns, st_top.st_mtime_ns))
    finally:
        os.close(target)
    return skipped


def remove_tree(folder: int, name: str, depth: int = 0) -> None:
    """Remove the folder `name` in `folder` and everything in it, never following a link (a
    link inside is removed as a link) and never opening anything but folders."""
    if depth >= MAX_DEPTH:
        raise ToolError(f"the folder is nested deeper than {MAX_DEPTH} levels; remove its parts")
    fd = os.open(name, FOLDER_FLAGS, dir_fd=folder)
    try:
        for child in os.listdir(fd):
            st = os.stat(child, dir_fd=fd, follow_symlinks=False)
            if stat.S_ISDIR(st.st_mode):
                remove_tree(fd, child, depth + 1)
            else:
                os.unlink(child, dir_fd=fd)
    finally:
        os.close(fd)
    os.rmdir(name, dir_fd=folder)
