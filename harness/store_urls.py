"""Database URLs given on the command line (`--store`, `--db`), checked before anything runs:
one line naming the option and the problem (exit 2), never a traceback once a run has started."""

from __future__ import annotations

import contextlib
from pathlib import Path

from sqlalchemy import create_engine, inspect

from contracts.errors import InputError, Problem
from harness.store import EpisodeRow

# How long a pre-flight connection to a database server may take before it is reported.
CONNECT_TIMEOUT_S = 5
_SQLITE_MAGIC = b"SQLite format 3\x00"


def url_problems(url: str, option: str = "--store", *, must_exist: bool = False) -> list[Problem]:
    """What is wrong with database URL `url` given as `option`, before anything uses it.

    The URL must parse and name a dialect whose driver is installed; a SQLite file must be
    creatable (its folder not a file) or, with `must_exist` (commands that only read), exist
    and be a database; any other server must accept a connection.
    """
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError, NoSuchModuleError

    def problem(message: str) -> list[Problem]:
        return [Problem(option, None, message)]

    try:
        parsed = make_url(url)
        parsed.get_dialect()
    except NoSuchModuleError:
        return problem(f"unknown database dialect in {url!r} (sqlite:///PATH or postgresql+psycopg://…)")
    except ArgumentError:
        return problem(
            f"{url!r} is not a database URL (e.g. sqlite:///runs/mseval.db, postgresql+psycopg://user@host/db)"
        )
    if parsed.get_backend_name() == "sqlite":
        message = _sqlite_problem(parsed.database, must_exist)
        return problem(message) if message else []
    shown = parsed.render_as_string(hide_password=True)
    try:
        engine = create_engine(parsed, connect_args={"connect_timeout": CONNECT_TIMEOUT_S})
    except ImportError as exc:
        return problem(f"the driver for {parsed.drivername} is not installed ({exc.name or exc})")
    except ArgumentError as exc:
        return problem(f"{shown}: {exc}")
    try:
        with engine.connect() as connection:
            if must_exist and not inspect(connection).has_table(EpisodeRow.__tablename__):
                return problem(f"{shown} is not an mseval store (no {EpisodeRow.__tablename__} table)")
    except Exception as exc:  # any driver's error: reported as one line, nothing run
        reason = str(getattr(exc, "orig", None) or exc).strip().splitlines()
        return problem(f"cannot connect to {shown}: {reason[0] if reason else type(exc).__name__}")
    finally:
        engine.dispose()
    return []


def _sqlite_has_store(path: Path) -> bool:
    """Whether the SQLite file holds the store's episode table (read-only: nothing is created)."""
    import sqlite3

    try:
        with contextlib.closing(sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)) as db:
            found = db.execute(
                "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (EpisodeRow.__tablename__,)
            ).fetchone()
    except sqlite3.Error:
        return False
    return found is not None


def _sqlite_problem(database: str | None, must_exist: bool) -> str | None:
    if not database or database == ":memory:" or database.startswith("file:"):
        return "a store must be a file (sqlite:///PATH)" if must_exist else None
    path = Path(database)
    if path.is_dir():
        return f"{path} is a folder, not a database file"
    if must_exist:
        if not path.exists():
            return f"no store at {path} (nothing has been run into it)"
        try:
            with path.open("rb") as fh:
                head = fh.read(len(_SQLITE_MAGIC))
        except OSError as exc:
            return f"cannot read {path}: {exc.strerror or exc}"
        if head and head != _SQLITE_MAGIC:
            return f"{path} is not an SQLite database"
        return (
            None
            if _sqlite_has_store(path)
            else f"{path} is not an mseval store (no {EpisodeRow.__tablename__} table)"
        )
    return _sqlite_write_problem(path)


def _sqlite_write_problem(path: Path) -> str | None:
    """Why a run could not write its store at `path`: the file, or its folder (where SQLite
    keeps its journal), by trying to, so read-only files, folders and file systems all count."""
    import tempfile

    folder = path.parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    if not folder.is_dir():
        return f"cannot create {path}: {folder} is a file, not a folder"
    try:
        if path.exists():
            with path.open("r+b") as fh:
                head = fh.read(len(_SQLITE_MAGIC))
            if head and head != _SQLITE_MAGIC:
                return f"{path} is not an SQLite database"
    except OSError as exc:
        return f"cannot write {path}: {exc.strerror or exc}"
    try:
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as exc:
        what = f"write {path}" if path.exists() else f"create {path}"
        return f"cannot {what}: folder {folder} is not writable ({exc.strerror or exc})"
    return None


def check_url(url: str, option: str = "--store", *, must_exist: bool = False) -> None:
    """`url_problems` as an `InputError` (exit 2)."""
    problems = url_problems(url, option, must_exist=must_exist)
    if problems:
        raise InputError(problems)


def shown(url: str) -> str:
    """`url` as it may be printed: a password in it is masked (`***`)."""
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError

    try:
        return make_url(url).render_as_string(hide_password=True)
    except ArgumentError:
        return url
