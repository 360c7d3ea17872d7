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


def not_a_file(fd: int) -> bool:
    """Whether the open file `fd` is a device (character or block), which never ends."""
    mode = os.fstat(fd).st_mode
    return stat.S_ISCHR(mode) or stat.S_ISBLK(mode)


def read_text(path: Path, encoding: str = "utf-8", max_bytes: int | None = MAX_INPUT_BYTES) -> str:
    """The text of `path` (`encoding` is utf-8, or utf-8-sig to read past a byte-order mark);
    `InputError` naming the file, and the line of the first byte that is not UTF-8. A device
    (a link to /dev/zero) is refused, and a file over `max_bytes` (None: no cap) is refused
    without being read whole."""
    file = str(path)
    try:
        with path.open("rb") as fh:
            if not_a_file(fh.fileno()):
                raise InputError.one(file, None, "is a device, not a file")
            data = fh.read() if max_bytes is None else fh.read(max_bytes + 1)
    except OSError as exc:
        raise InputError.one(file, None, f"cannot read: {exc.strerror or exc}") from None
    if max_bytes is not None and len(data) > max_bytes:
        raise InputError.one(
            file, None, f"is larger than {max_bytes >> 20} MiB: not an input file of this kind"
        )
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise InputError.one(
            file, line, f"not UTF-8 text (byte 0x{data[exc.start]:02x} at column {column})"
        ) from None
