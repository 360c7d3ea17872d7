"""Paths given to mseval: the ways one cannot even be looked up, said before anything uses it.

`Path.exists()` and `Path.is_dir()` raise on a name over 255 bytes, and say "absent" for a loop
of symbolic links or one that points nowhere, which a write then trips over; `lookup_problem`
tells all three as one reason."""

from __future__ import annotations

import os
from pathlib import Path


def lookup_problem(path: Path, *, file: bool = False) -> str | None:
    """Why `path` cannot be looked up (a name too long, a loop of symbolic links) or created
    (it, or a folder on its way, is a symbolic link to nothing); None when it is there, or
    absent and can be created. With `file`, `path` itself may be a link to a file not made yet
    whose folder is there: writing it creates that file, as SQLite and `open` do. The reason
    names `path` only when a folder above it is at fault."""
    try:
        path.stat()
        return None
    except (FileNotFoundError, NotADirectoryError):
        pass
    except OSError as exc:  # ENAMETOOLONG, ELOOP, …
        return exc.strerror or str(exc)
    # Absent: fine, unless it (or a folder above it) is a link to nothing, which a write
    # follows (creating a file elsewhere, or failing) and mkdir refuses.
    for at in (path, *path.parents):
        if file and at == path and at.is_symlink() and (at.parent / os.readlink(at)).parent.is_dir():
            continue
        if at.is_symlink() and not at.exists():
            link = f"a symbolic link to {os.readlink(at)}, which does not exist"
            return link if at == path else f"{at} is {link}"
    return None


def unreadable_folder(exc: OSError) -> str:
    """The reason given for a folder that is there but cannot be listed."""
    return f"cannot read this folder: {exc.strerror or exc}"


def folder_problem(folder: Path, kind: str) -> str | None:
    """Why `folder` cannot be read as the folder of `kind` (profiles, delegation priors, …):
    it cannot be looked up, is not there (or not a folder), or cannot be listed; None when
    it can be read."""
    if reason := lookup_problem(folder):
        return f"cannot read this folder: {reason}"
    if folder.exists() and not folder.is_dir():
        return f"a file, not a folder of {kind}"
    if not folder.is_dir():
        return f"no such folder of {kind}"
    try:
        with os.scandir(folder):
            return None
    except OSError as exc:
        return unreadable_folder(exc)
