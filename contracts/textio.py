"""Read a text file given to mseval: unreadable, or not UTF-8, is one problem naming the file,
and for bytes that are not UTF-8 the line of the first such byte (an editor finds it there)."""

from __future__ import annotations

from pathlib import Path

from contracts.errors import InputError


def read_text(path: Path, encoding: str = "utf-8") -> str:
    """The text of `path` (`encoding` is utf-8, or utf-8-sig to read past a byte-order mark);
    `InputError` naming the file, and the line of the first byte that is not UTF-8."""
    file = str(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InputError.one(file, None, f"cannot read: {exc.strerror or exc}") from None
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise InputError.one(
            file, line, f"not UTF-8 text (byte 0x{data[exc.start]:02x} at column {column})"
        ) from None
