"""Office files that tools open, change and save in the workspace (xlsx, docx, pptx).

One `OfficeFiles` per server instance: paths must carry the right suffix and stay inside the
workspace; writes to one file are serialised by a per-file lock, since load-change-save is not
atomic and concurrent sub-agents may edit the same file; a save goes into memory, then over the
file at once (`OfficeFiles.save`), and the read tools take the file's lock too, for the files a
save must still rewrite in place (`workspace.replace_file` says which); a file that will not open
is a tool error naming what it should have been.

`path` locates the file with `workspace.locate` (no link is ever followed by the kernel, so a
folder the agent swaps for a link mid-call cannot lead out) and holds it open: what it returns
is a `HeldFile`, a path `/proc/self/fd/N` to that open file, which the office libraries open and
save by name as they always do and which reaches only that file, wherever the agent moves it.
A file to be created is created (empty) right then, and removed again if nothing was saved.
Only regular files are opened, and a zip whose members unpack to more than
MAX_UNZIPPED_BYTES, or too many members, or at a ratio of a zip bomb, is refused before parsing,
as is one with an XML part that declares a DTD (`check_prologs`).
"""

from __future__ import annotations

import errno
import io
import os
import stat
import threading
import weakref
import zipfile
import zlib
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path, PosixPath, PurePosixPath
from typing import IO, Any
from xml.parsers import expat

from mcp_servers.common.tooling import ToolError
from mcp_servers.common.workspace import READ_FLAGS, Found, locate, not_regular, replace_file, short, walk

Cell = str | int | float | bool | None

XML_TEXT_ERROR = (
    "the text holds a control character (or a NUL) that a document file cannot store; "
    "remove it (tabs and line breaks are fine)"
)

# What the office libraries raise on a file that is not what its name says (zip containers),
# or a damaged one: a part whose compressed data is corrupt (zlib) or cut short (EOFError, which
# says nothing of its own), or whose XML is not well-formed (SyntaxError: ElementTree's
# ParseError, lxml's XMLSyntaxError).
OPEN_ERRORS: tuple[type[BaseException], ...] = (
    zipfile.BadZipFile, KeyError, ValueError, OSError, zlib.error, EOFError, SyntaxError,
)  # fmt: skip
# Parsing costs ~0.3 s and ~8 MB of memory per MB of XML (the audit's 4.4 MB workbook unpacked
# to 103 MB and took 30 s and 854 MB): one call may cost at most ~12 s.
MAX_UNZIPPED_BYTES = 40_000_000
# Real office files hold tens of parts; a zip of many thousands is made to exhaust the parser.
MAX_ZIP_MEMBERS = 5000
# Office XML compresses 5-30x; far past that it is made of repetition (checked above 1 MB).
MAX_ZIP_RATIO = 100
PROC_FDS = Path("/proc/self/fd")


class HeldFile(PosixPath):
    """A workspace file held open, named by its descriptor's path in /proc: opening or saving
    to it by name reaches that file and no other. `shown` is the path the tool was given;
    `rel` where it is in the workspace; `existed` whether it was there before `path` made it."""

    shown: str
    rel: PurePosixPath
    existed: bool
    settle: Callable[[], None]  # removes the file if `path` made it and nothing was saved
    release: Callable[[], Any]  # closes the file now (else when the HeldFile is collected)
    replace_whole: Callable[[bytes], None]  # makes these bytes the file at its name, at once

    def exists(self, *, follow_symlinks: bool = True) -> bool:
        """Whether the file was there before this call (one made empty by `path` was not)."""
        return self.existed

    def read(self, size: int = -1) -> bytes:
        """The held file's bytes from its start. Being readable makes openpyxl take this for a
        file object and skip its check of the name's extension (a /proc path has none); it
        then opens it by name all the same."""
        with open(self, "rb") as f:
            return f.read(size)


def _discard_if_unsaved(fd: int, found: Found) -> None:
    """Remove a file `hold` made for a save that never came (still empty, still at its name)."""
    try:
        st, held = found.lstat(), os.fstat(fd)
        if held.st_size == 0 and st is not None and (st.st_dev, st.st_ino) == (held.st_dev, held.st_ino):
            os.unlink(found.name, dir_fd=found.folder)
    except OSError:
        pass


def _close(fd: int, found: Found, existed: bool) -> None:
    if not existed:
        _discard_if_unsaved(fd, found)
    os.close(fd)
    found.close()


def _save_whole(fd: int, found: Found, shown: str, data: bytes) -> None:
    """Save `data` over the held file at once (`replace_file`) while its name still names it; if
    the agent moved or removed it during the call, into the held file itself, wherever it went,
    as a save by the held file's path always did (over its name, the save would bring back a
    file the agent had moved away, and leave the moved one unchanged)."""
    st, held = found.lstat(), os.fstat(fd)
    if st is not None and (st.st_dev, st.st_ino) == (held.st_dev, held.st_ino):
        replace_file(found, shown, lambda f: f.write(data))
        return
    with open(PROC_FDS / str(fd), "wb") as f:
        f.write(data)


def hold(found: Found, shown: str, *, create: bool) -> HeldFile:
    """The entry held open as a HeldFile (created empty when missing and `create`)."""
    existed = True
    try:
        if create:
            try:
                fd = os.open(found.name, READ_FLAGS | os.O_CREAT | os.O_EXCL, 0o666, dir_fd=found.folder)
                existed = False
            except FileExistsError:
                fd = os.open(found.name, READ_FLAGS, dir_fd=found.folder)
        else:
            fd = os.open(found.name, READ_FLAGS, dir_fd=found.folder)
    except OSError as exc:
        found.close()
        if exc.errno == errno.ENOENT:
            raise ToolError(f"no such file or folder in the workspace: {short(shown)!r}") from None
        if exc.errno == errno.ELOOP:
            raise ToolError(f"{short(shown)}: it changed into a symlink while in use; try again") from None
        raise ToolError(f"{short(shown)}: {exc.strerror or exc}") from None
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        found.close()
        if stat.S_ISDIR(mode):
            raise ToolError(f"{short(shown)}: is a folder, not a file")
        raise not_regular(shown)
    held = HeldFile(PROC_FDS / str(fd))
    held.shown, held.rel, held.existed = shown, found.rel, existed
    held.replace_whole = lambda data: _save_whole(fd, found, shown, data)
    closer = weakref.finalize(held, _close, fd, found, existed)
    held.release = closer
    held.settle = lambda: None if existed or not closer.alive else _discard_if_unsaved(fd, found)
    return held


def check_zip(real: Path, shown: str) -> None:
    """A ToolError for a zip that would unpack too large (a zip bomb) or holds too many parts;
    the sizes are those its directory declares, which `zipfile` never reads past."""
    with zipfile.ZipFile(real) as z:
        members = z.infolist()
    unzipped = sum(m.file_size for m in members)
    packed = sum(m.compress_size for m in members)
    if len(members) > MAX_ZIP_MEMBERS:
        raise ToolError(f"{short(shown)}: refused: it holds {len(members)} parts (at most {MAX_ZIP_MEMBERS})")
    if unzipped > MAX_UNZIPPED_BYTES:
        raise ToolError(
            f"{short(shown)}: refused: it unpacks to {unzipped // 1_000_000} MB "
            f"(at most {MAX_UNZIPPED_BYTES // 1_000_000} MB); split it into smaller files"
        )
    if unzipped > 1_000_000 and unzipped > MAX_ZIP_RATIO * max(packed, 1):
        raise ToolError(
            f"{short(shown)}: refused: it unpacks {unzipped // max(packed, 1)}x larger than it is "
            f"(at most {MAX_ZIP_RATIO}x), as a zip bomb does"
        )


class _Prolog(Exception):
    """Stops `_declares_dtd`'s parser at the first thing it looked for."""

    def __init__(self, dtd: bool) -> None:
        self.dtd = dtd


def _declares_dtd(part: IO[bytes]) -> bool:
    """Whether the XML `part` has a document type declaration (`<!DOCTYPE …>`), where entities
    are declared; read up to its root element only. What is not XML is the parser's to tell."""
    parser = expat.ParserCreate()

    def stop(dtd: bool) -> Callable[..., None]:
        def handler(*_args: Any) -> None:
            raise _Prolog(dtd)

        return handler

    parser.StartDoctypeDeclHandler = stop(True)
    parser.StartElementHandler = stop(False)
    try:
        while chunk := part.read(4096):
            parser.Parse(chunk, False)
        parser.Parse(b"", True)
    except _Prolog as found:
        return found.dtd
    except expat.ExpatError:
        pass
    return False


def check_prologs(real: Path) -> None:
    """A ValueError for a file with an XML part that declares a DTD. No Office file has one
    (OPC forbids it), and the libraries' parsers expand the entities declared there (a "billion
    laughs"), fail on them with a bare ParseError (the agent saw 'Error executing tool
    read_sheet'), or skip the part (a docx read as empty). Run after `check_zip`."""
    with zipfile.ZipFile(real) as z:
        for info in z.infolist():  # every part: XML hides under other names too (.vml, .rels)
            with z.open(info) as part:
                if _declares_dtd(part):
                    raise ValueError(
                        f"its part {info.filename} declares a DTD (<!DOCTYPE …>, with XML "
                        "entities); entity declarations are refused"
                    )


class OfficeFiles:
    def __init__(
        self, workspace: Path, suffix: str, kind: str, opener: Callable[[Path], Any], example: str,
        open_errors: tuple[type[BaseException], ...] = (),
    ) -> None:  # fmt: skip
        self.workspace = workspace
        self.suffix = suffix
        self.kind = kind
        self.opener = opener
        self.example = example
        self.open_errors = OPEN_ERRORS + open_errors
        self._locks: defaultdict[Any, threading.Lock] = defaultdict(threading.Lock)

    def path(self, path: str, must_exist: bool) -> HeldFile:
        """The file `path` held open (a path to pass to the office library): the right suffix,
        inside the workspace, a regular file; created empty when missing and not must_exist,
        missing folders on the way too."""
        if not path.lower().endswith(self.suffix):
            raise ToolError(f"{short(path)!r} is not a {self.suffix} path (e.g. {self.example!r})")
        try:
            found = locate(self.workspace, path, make_parents=not must_exist)
        except (FileNotFoundError, NotADirectoryError):
            raise ToolError(f"no such file or folder in the workspace: {short(path)!r}") from None
        except OSError as exc:
            raise ToolError(f"{short(path)}: {exc.strerror or exc}") from None
        return hold(found, path, create=not must_exist)

    @contextmanager
    def lock(self, real: Path) -> Iterator[None]:
        """Hold the file's lock; on leaving, a file `path` made that was not saved is removed."""
        with self._locks[getattr(real, "rel", real)]:
            try:
                yield
            finally:
                if isinstance(real, HeldFile):
                    real.settle()

    def open(self, real: Path) -> Any:
        """The file parsed by the library; one that will not parse is a ToolError, and a held
        file is then closed at once (a traceback that keeps it would otherwise keep its
        descriptor open until the cycle collector runs)."""
        shown = getattr(real, "shown", real.name)
        try:
            check_zip(real, shown)
            check_prologs(real)
            return self.opener(real)
        except BaseException as exc:
            if isinstance(real, HeldFile):
                real.release()
            if isinstance(exc, self.open_errors):
                raise ToolError(
                    f"cannot open {short(shown)} as {self.kind}: {exc or 'it is cut short'}"
                ) from None
            raise

    def read(self, path: str) -> Any:
        """An existing file parsed under its lock, so never half-written (saves were made in
        place, and an agent reading a file while another edited it got a torn zip: 'File is not a
        zip file', 'Bad magic number'; some still are, see `save`). The libraries read every part
        when they open a file, so the lock is held only while it is parsed."""
        real = self.path(path, True)
        with self.lock(real):
            return self.open(real)

    @contextmanager
    def editing(self, path: str) -> Iterator[Any]:
        """Open an existing file under its lock, yield it, save it. Text an XML file cannot hold
        (control characters) is a tool error, and the file is left as it was."""
        real = self.path(path, True)
        with self.lock(real):
            obj = self.open(real)
            try:
                yield obj
            except ValueError as exc:
                if "XML compatible" not in str(exc):
                    raise
                raise ToolError(XML_TEXT_ERROR) from None
            self.save(obj, real)

    @staticmethod
    def save(obj: Any, real: HeldFile) -> None:
        """Save `obj` (a workbook, document or deck) as the file `real`, whole: into memory, then
        over the file at once (`workspace.replace_file`), so whatever reads the file meanwhile (the
        terminal, a mail attachment, python_execute) gets the old content or the new, never a
        save half-done. A file `workspace.replace_file` cannot swap (one with other names, say)
        is still rewritten in place."""
        buffer = io.BytesIO()
        obj.save(buffer)
        real.replace_whole(buffer.getvalue())

    def listing(self) -> list[dict[str, Any]]:
        """The workspace's files with this suffix (regular files; links are not followed):
        relative path and size in bytes."""
        with locate(self.workspace, ".") as top:
            found = [
                {"path": item.shown, "bytes": item.st.st_size}
                for item in walk(top)
                if stat.S_ISREG(item.st.st_mode) and item.rel.name.endswith(self.suffix)
            ]
        return sorted(found, key=lambda f: PurePosixPath(f["path"]).parts)


def cell_text(value: Cell) -> str:
    """A cell as text: empty for None, whole floats without '.0'."""
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)
