"""Workspace confinement: every path a tool takes stays inside the episode workspace.

Refused: absolute paths, `..` segments, NUL bytes, names longer than a file system allows,
paths longer than 3072 bytes, loops of symlinks, and symlinks that lead out of the workspace.
The error is a tool error the model can act on.

The agent changes the workspace while tools run (`python_execute` runs beside them), so a
path checked by name and then opened by name again may by then lead elsewhere: a folder
swapped for a link to `/` between the two. `locate` therefore walks a path one component at a
time from an open descriptor of the workspace, opening each folder with `O_NOFOLLOW` relative
to the one before; what it returns is an open folder and a name in it, and every operation
after that is relative to that folder (`dir_fd=`) and never follows a link at the name.

Symlinks the agent made inside the workspace are followed by `locate(..., follow=True)` the
way the kernel would, but by this code, one hop at a time from open folders: a link (or a
link's `..`) that would leave the workspace, at any step, is refused; an absolute link is
followed only when it names a place under the workspace's real path or the path the workspace
was given by (normalised; e.g. a link to `/tmp/alias/data.txt` when the workspace was given as
`/tmp/alias`, itself a link). A link changed between two steps can only send the walk to another
place inside. A path that goes more than MAX_DEPTH folders deep (counting those a link's target
adds) is refused: each level holds a descriptor open while the walk runs. `resolve` (a path by name,
symlinks followed by the kernel) remains for code that runs when no agent does (task setup).
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import stat
import uuid
from collections import deque
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from types import TracebackType
from typing import BinaryIO

from mcp.server.mcpserver.exceptions import ToolError

from mcp_servers.common.pathrules import path_problem, short

# Links followed in one path, as Linux's MAXSYMLINKS: past it the path goes round a loop.
MAX_LINKS = 40
# A folder opened as a step of a walk: never through a link, never a file.
FOLDER_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
# A file opened to read: never through a link, and a FIFO opened so does not wait for a writer.
READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
# Folders deeper than this are not entered by find, grep, cp -r or rm -r, nor by `locate`: each
# level holds a descriptor open, and a tree an agent nests in a loop must not exhaust them.
MAX_DEPTH = 128
WRITE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC


def checked(path: str) -> PurePosixPath:
    """`path` as a relative path, or a ToolError for what no workspace could hold (empty, NUL,
    absolute, `~`, `..`, a name or the whole too long); symlinks are `locate`'s part."""
    if (problem := path_problem(path)) is not None:
        raise ToolError(problem)
    return PurePosixPath(path.replace("\\", "/"))


def escapes(path: str) -> ToolError:
    return ToolError(f"path {short(path)!r} refused: it resolves outside the workspace")


def loops(path: str) -> ToolError:
    return ToolError(f"path {short(path)!r} refused: it goes round a loop of symlinks")


def too_deep(path: str) -> ToolError:
    return ToolError(
        f"path {short(path)!r} refused: it goes more than {MAX_DEPTH} folders deep (counting where its links lead)"
    )


def _roots(workspace: Path) -> list[PurePosixPath]:
    """The paths an absolute link may name the workspace by: its real path, and the path it was
    given by when that leads to the same folder (checked only when a link needs it)."""
    real = workspace.resolve()
    given = PurePosixPath(os.path.normpath(workspace.absolute()))
    if given != PurePosixPath(real) and Path(given).resolve() == real:
        return [PurePosixPath(real), given]
    return [PurePosixPath(real)]


class Found:
    """An entry beneath the workspace: an open folder (owned, closed with this object) and a
    name in it; `name` is "." when the path names that folder itself. `rel` is where the walk
    found it, relative to the workspace. The entry itself may not exist."""

    def __init__(self, folder: int, name: str, rel: PurePosixPath) -> None:
        self.folder = folder
        self.name = name
        self.rel = rel

    @property
    def shown(self) -> str:
        return self.rel.as_posix() if self.rel.parts else "."

    def lstat(self) -> os.stat_result | None:
        """The entry's own status (a link's, not its target's), or None when it is missing."""
        try:
            return os.stat(self.name, dir_fd=self.folder, follow_symlinks=False)
        except FileNotFoundError:
            return None

    def open_folder(self) -> int:
        """A new descriptor of the entry as a folder (ENOTDIR/ELOOP if it is not one)."""
        return os.open(self.name, FOLDER_FLAGS, dir_fd=self.folder)

    def child(self, name: str) -> Found:
        """The entry `name` inside this folder entry (a new Found owning a new descriptor)."""
        return Found(self.open_folder(), name, self.rel / name)

    def close(self) -> None:
        if self.folder >= 0:
            os.close(self.folder)
            self.folder = -1

    def __enter__(self) -> Found:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


def locate(workspace: Path, path: str, *, follow: bool = True, make_parents: bool = False) -> Found:
    """Where `path` leads inside the workspace, walked from an open descriptor of it without
    ever letting the kernel follow a link. follow=False keeps the last component as written (a
    link there is the link itself); make_parents creates missing folders on the way. Leaving
    the workspace or a loop of links is a ToolError; a missing folder on the way raises
    FileNotFoundError, a file where a folder should be NotADirectoryError."""
    parts = checked(path).parts
    if len(parts) > MAX_DEPTH + 1:  # before any folder is made or opened; links are counted below
        raise too_deep(path)
    root = workspace.resolve()
    stack: list[tuple[int, str]] = [(os.open(root, FOLDER_FLAGS & ~os.O_NOFOLLOW), "")]
    todo = deque(parts)
    hops = 0
    result: Found | None = None
    try:
        while todo:
            part = todo.popleft()
            if part in ("", "."):
                continue
            if part == "..":  # only from a link's target: `checked` refuses it in `path`
                if len(stack) == 1:
                    raise escapes(path)
                os.close(stack.pop()[0])
                continue
            here = stack[-1][0]
            rel = PurePosixPath(*(name for _, name in stack[1:]), part)
            if not todo and not follow:
                result = Found(here, part, rel)
                return result
            try:
                st = os.stat(part, dir_fd=here, follow_symlinks=False)
            except FileNotFoundError:
                if not todo:
                    result = Found(here, part, rel)
                    return result
                if not make_parents:
                    raise
                hops += 1  # a folder removed as fast as it is made must not loop forever
                if hops > MAX_LINKS:
                    raise
                try:
                    os.mkdir(part, dir_fd=here)
                except FileExistsError:
                    pass
                todo.appendleft(part)
                continue
            if stat.S_ISLNK(st.st_mode):
                hops += 1
                if hops > MAX_LINKS:
                    raise loops(path)
                try:
                    target = PurePosixPath(os.readlink(part, dir_fd=here))
                except OSError as exc:
                    if exc.errno not in (errno.EINVAL, errno.ENOENT):
                        raise
                    todo.appendleft(part)  # no longer a link: look again
                    continue
                if target.is_absolute():
                    under = next((r for r in _roots(workspace) if target.is_relative_to(r)), None)
                    if under is None:
                        raise escapes(path)
                    target = target.relative_to(under)
                    while len(stack) > 1:
                        os.close(stack.pop()[0])
                todo.extendleft(reversed(target.parts))
                continue
            if not todo:
                result = Found(here, part, rel)
                return result
            if not stat.S_ISDIR(st.st_mode):
                raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), rel.as_posix())
            if len(stack) > MAX_DEPTH:
                raise too_deep(path)
            try:
                stack.append((os.open(part, FOLDER_FLAGS, dir_fd=here), part))
            except OSError as exc:
                if exc.errno not in (errno.ELOOP, errno.ENOTDIR, errno.ENOENT):
                    raise
                hops += 1  # it changed since the stat: look again
                if hops > MAX_LINKS:
                    raise loops(path) from None
                todo.appendleft(part)
        # The path ended at a folder on the stack (the workspace, or a link's target).
        result = Found(stack[-1][0], ".", PurePosixPath(*(name for _, name in stack[1:])))
        return result
    finally:
        for fd, _ in stack:
            if result is None or fd != result.folder:
                os.close(fd)


@dataclass
class Item:
    """One entry of a walk: where it is, its own status, and the open folder holding it
    (valid only until the walk moves on)."""

    rel: PurePosixPath
    st: os.stat_result
    folder: int
    name: str

    @property
    def shown(self) -> str:
        return self.rel.as_posix() if self.rel.parts else "."

    def found(self) -> Found:
        """The item as a Found with its own descriptor of the folder."""
        return Found(os.dup(self.folder), self.name, self.rel)


def walk(top: Found, maxdepth: int | None = None) -> Generator[Item]:
    """Every entry under `top` (itself first, then each child and its subtree, by name), as
    `find` lists them; links are listed, never entered."""
    st = top.lstat()
    if st is None:
        return
    yield Item(top.rel, st, top.folder, top.name)
    if stat.S_ISDIR(st.st_mode) and maxdepth != 0:
        try:
            fd = top.open_folder()
        except OSError:
            return
        try:
            yield from _children(fd, top.rel, 1, maxdepth)
        finally:
            os.close(fd)


def _children(folder: int, rel: PurePosixPath, depth: int, maxdepth: int | None) -> Iterator[Item]:
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return
    for name in names:
        try:
            st = os.stat(name, dir_fd=folder, follow_symlinks=False)
        except OSError:
            continue
        yield Item(rel / name, st, folder, name)
        if stat.S_ISDIR(st.st_mode) and (maxdepth is None or depth < maxdepth) and depth < MAX_DEPTH:
            try:
                fd = os.open(name, FOLDER_FLAGS, dir_fd=folder)
            except OSError:  # gone, or swapped for a link since the stat
                continue
            try:
                yield from _children(fd, rel / name, depth + 1, maxdepth)
            finally:
                os.close(fd)


def open_file(found: Found, shown: str) -> BinaryIO:
    """The entry opened to read, if it is a regular file: a missing entry, a folder, a pipe, a
    socket or a device is a ToolError, and opening never waits (a FIFO has no writer)."""
    st = found.lstat()
    if st is None:
        raise ToolError(f"{short(shown)}: no such file")
    if stat.S_ISDIR(st.st_mode):
        raise ToolError(f"{short(shown)}: is a directory (use ls or find)")
    if not stat.S_ISREG(st.st_mode):
        raise not_regular(shown)
    fd = os.open(found.name, READ_FLAGS, dir_fd=found.folder)
    if not stat.S_ISREG(os.fstat(fd).st_mode):  # swapped since the lstat
        os.close(fd)
        raise not_regular(shown)
    return os.fdopen(fd, "rb")


def create_file(found: Found, shown: str, *, append: bool = False, exclusive: bool = False) -> BinaryIO:
    """The entry opened to write (created if missing, emptied unless append), if it is or becomes
    a regular file; a link at the name is never written through."""
    flags = WRITE_FLAGS | (os.O_APPEND if append else os.O_TRUNC) | (os.O_EXCL if exclusive else 0)
    fd = os.open(found.name, flags, 0o666, dir_fd=found.folder)
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise not_regular(shown)
    return os.fdopen(fd, "ab" if append else "wb")


# The name of the new file `replace_file` writes before renaming it over the old one; a tree
# copied meanwhile (cp -r) leaves such files out.
TEMP_PREFIX, TEMP_SUFFIX = ".write-", ".tmp"
_REPLACEMENT = re.compile(re.escape(TEMP_PREFIX) + "[0-9a-f]{32}" + re.escape(TEMP_SUFFIX))


def is_replacement(name: str) -> bool:
    """Whether `name` is a file `replace_file` is writing."""
    return _REPLACEMENT.fullmatch(name) is not None


def replace_file(found: Found, shown: str, write: Callable[[BinaryIO], object]) -> None:
    """Make what `write(file)` writes the entry's whole content at once: it goes into a new file
    beside it, which is then renamed over it, so an agent reading the file meanwhile gets the old
    content or the new, never an emptied or half-written file (in place, 46-77 % of the reads made
    during rewrites came back empty). The file keeps its permission bits, and its owner when we
    are root.
    It is written in place, as `create_file` does and with its errors, when the entry is no
    regular file (a link, a pipe), has other names (hard links see the new content, as with
    `>`), may not be written, or its folder takes no new file."""
    st = found.lstat()
    in_place = st is not None and (
        not stat.S_ISREG(st.st_mode)
        or st.st_nlink > 1
        or not os.access(found.name, os.W_OK, dir_fd=found.folder, follow_symlinks=False)
    )
    if not in_place:
        temp = f"{TEMP_PREFIX}{uuid.uuid4().hex}{TEMP_SUFFIX}"  # its own name, whatever the file's length
        try:
            fd = os.open(temp, WRITE_FLAGS | os.O_EXCL, 0o666, dir_fd=found.folder)
        except PermissionError:
            in_place = True
    if in_place:
        with create_file(found, shown) as f:
            write(f)
        return
    try:
        with os.fdopen(fd, "wb") as f:
            if st is not None:
                if os.geteuid() == 0:
                    os.fchown(f.fileno(), st.st_uid, st.st_gid)
                os.fchmod(f.fileno(), stat.S_IMODE(st.st_mode))
            write(f)
        os.rename(temp, found.name, src_dir_fd=found.folder, dst_dir_fd=found.folder)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp, dir_fd=found.folder)
        raise


def not_regular(shown: str) -> ToolError:
    return ToolError(f"{short(shown)}: not a regular file (a pipe, socket or device); only files can be read")


def resolve(workspace: Path, path: str, *, must_exist: bool = False) -> Path:
    """The real path of `path` (relative to `workspace`), or a ToolError if it would escape.
    Checked once by name: only for code that runs while no agent can change the workspace
    (task setup); tools use `locate`."""
    pure = checked(path)
    root = workspace.resolve()
    try:
        real = (root / pure).resolve()
    except RuntimeError:  # Python 3.11's word for a symlink loop
        raise loops(path) from None
    except OSError as exc:
        raise ToolError(f"path {short(path)!r}: {exc.strerror or exc}") from None
    if real != root and not real.is_relative_to(root):
        raise escapes(path)
    if must_exist and not real.exists():
        raise ToolError(f"no such file or folder in the workspace: {short(path)!r}")
    return real


def relative(workspace: Path, real: Path) -> str:
    """A workspace-relative display path."""
    rel = real.relative_to(workspace.resolve())
    return rel.as_posix() or "."
