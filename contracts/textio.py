"""Read a text file given to mseval: unreadable, or not UTF-8, is one problem naming the file,
and for bytes that are not UTF-8 the line of the first such byte (an editor finds it there)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from contracts.errors import InputError

MAX_INPUT_BYTES = 16 << 20
"""The most a YAML, Markdown or JSON input file (task, prior, profile, config, prices, graph) may
hold: 16 MiB, far above any real one. Records files have no such cap."""


def not_a_file(fd: int) -> str | None:
    """What the open file `fd` is when it is not a file to read to its end: a device (a link to
    /dev/zero never ends), a pipe or a socket (they wait for a writer); None for a file or a
    folder (reading a folder fails on its own: 'Is a directory')."""
    mode = os.fstat(fd).st_mode
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "is a device, not a file"
    if stat.S_ISFIFO(mode):
        return "is a pipe, not a file"
    if stat.S_ISSOCK(mode):
        return "is a socket, not a file"
    return None


def open_input(path: Path) -> int:
    """A descriptor of `path` opened for reading without waiting (opening a pipe with no writer
    waited for one); `InputError` naming the file when it is a device, a pipe or a socket."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    kind = not_a_file(fd)
    if kind is None:
        os.set_blocking(fd, True)
        return fd
    os.close(fd)
    raise InputError.one(str(path), None, kind)


def read_bytes(path: Path, max_bytes: int | None = MAX_INPUT_BYTES) -> bytes:
    """The bytes of `path`, as `read_text` reads them: a device, a pipe or a socket, a file that
    cannot be read, or one over `max_bytes` (None: no cap) is an `InputError` naming the file."""
    file = str(path)
    try:
        with open(open_input(path), "rb") as fh:
            data = fh.read() if max_bytes is None else fh.read(max_bytes + 1)
    except OSError as exc:
        raise InputError.one(file, None, f"cannot read: {exc.strerror or exc}") from None
    if max_bytes is not None and len(data) > max_bytes:
        raise InputError.one(
            file, None, f"is larger than {max_bytes >> 20} MiB: not an input file of this kind"
        )
    return data


def read_text(path: Path, encoding: str = "utf-8", max_bytes: int | None = MAX_INPUT_BYTES) -> str:
    """The text of `path` (`encoding` is utf-8, or utf-8-sig to read past a byte-order mark);
    `InputError` naming the file, and the line of the first byte that is not UTF-8. A device
    (a link to /dev/zero), a pipe or a socket is refused, and a file over `max_bytes` (None: no
    cap) is refused without being read whole."""
    file = str(path)
    data = read_bytes(path, max_bytes)
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise InputError.one(
            file, line, f"not UTF-8 text (byte 0x{data[exc.start]:02x} at column {column})"
        ) from None
