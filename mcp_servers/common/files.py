"""Office files that tools open, change and save in the workspace (xlsx, docx, pptx).

One `OfficeFiles` per server instance: paths must carry the right suffix and stay inside the
workspace; writes to one file are serialised by a per-file lock, since load-change-save is not
atomic and concurrent sub-agents may edit the same file; a file that will not open is a tool
error naming what it should have been.
"""

from __future__ import annotations

import threading
import zipfile
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from mcp_servers.common.tooling import ToolError
from mcp_servers.common.workspace import relative, resolve

Cell = str | int | float | bool | None

XML_TEXT_ERROR = (
    "the text holds a control character (or a NUL) that a document file cannot store; "
    "remove it (tabs and line breaks are fine)"
)

# What the office libraries raise on a file that is not what its name says (zip containers).
OPEN_ERRORS: tuple[type[BaseException], ...] = (zipfile.BadZipFile, KeyError, ValueError, OSError)


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
        self._locks: defaultdict[Path, threading.Lock] = defaultdict(threading.Lock)

    def path(self, path: str, must_exist: bool) -> Path:
        """The real path of `path`: the right suffix, inside the workspace (and existing)."""
        if not path.lower().endswith(self.suffix):
            raise ToolError(f"{path!r} is not a {self.suffix} path (e.g. {self.example!r})")
        return resolve(self.workspace, path, must_exist=must_exist)

    def lock(self, real: Path) -> threading.Lock:
        return self._locks[real]

    def open(self, real: Path) -> Any:
        try:
            return self.opener(real)
        except self.open_errors as exc:
            raise ToolError(f"cannot open {real.name} as {self.kind}: {exc}") from None

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
            obj.save(str(real))

    def listing(self) -> list[dict[str, Any]]:
        """The workspace's files with this suffix: relative path and size in bytes."""
        base = self.workspace.resolve()
        found = sorted(
            p for p in base.rglob(f"*{self.suffix}") if p.is_file() and p.resolve().is_relative_to(base)
        )
        return [{"path": relative(self.workspace, p), "bytes": p.stat().st_size} for p in found]


def cell_text(value: Cell) -> str:
    """A cell as text: empty for None, whole floats without '.0'."""
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)
