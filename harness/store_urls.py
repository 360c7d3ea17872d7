"""Database URLs given on the command line (`--store`, `--db`), checked before anything runs:
one line naming the option and the problem (exit 2), never a traceback once a run has started."""

from __future__ import annotations

import contextlib
import warnings
from pathlib import Path
from urllib.parse import parse_qsl, urlencode, urlsplit

from sqlalchemy import URL, create_engine, inspect, text
from sqlalchemy.engine import Connection

from contracts.errors import InputError, Problem
from contracts.paths import lookup_problem
from harness.db_text import first_line
from harness.db_text import shown as shown_url
from harness.store import EpisodeRow, StoreModel

# How long a pre-flight connection to a database server may take before it is reported.
CONNECT_TIMEOUT_S = 5
_SQLITE_MAGIC = b"SQLite format 3\x00"
_SQLITE_URI_MODES = ("ro", "rw", "rwc", "memory")


def url_problems(
    url: str, option: str = "--store", *, must_exist: bool = False, store: bool = True
) -> list[Problem]:
    """What is wrong with database URL `url` given as `option`, before anything uses it.

    The URL must parse and name a dialect whose driver is installed and not async; a SQLite
    run store (`store`; not a served world's database) must be `sqlite:///PATH` (see
    `_sqlite_url_problem`); a SQLite file must be creatable (its folder not a file) or, with
    `must_exist` (commands that only read), exist and be a database; any other server must
    accept a connection.
    """
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import ArgumentError, NoSuchModuleError

    def problem(message: str) -> list[Problem]:
        return [Problem(option, None, message)]

    try:
        parsed = make_url(url)
        dialect = parsed.get_dialect()
    except NoSuchModuleError:
        said = shown_url(url)
        return problem(f"unknown database dialect in {said!r} (sqlite:///PATH or postgresql+psycopg://…)")
    except ArgumentError:
        return problem(
            f"{shown_url(url)!r} is not a database URL "
            "(e.g. sqlite:///runs/mseval.db, postgresql+psycopg://user@host/db)"
        )
    except ValueError:  # SQLAlchemy reads the port as a number, and raises what int() does
        return problem(
            f"the port in {shown_url(url)!r} is not a number (e.g. postgresql+psycopg://user@host:5432/db)"
        )
    if dialect.is_async:  # its engine cannot be used without asyncio; the store's is synchronous
        return problem(
            f"{parsed.drivername} is an async driver, which mseval does not use "
            "(sqlite:///PATH or postgresql+psycopg://…)"
        )
    if parsed.get_backend_name() == "sqlite":
        if store and (message := _sqlite_url_problem(parsed)):
            return problem(message)
        if not store and (message := _served_sqlite_problem(parsed, url)):
            return problem(message)
        if not parsed.database or parsed.database == ":memory:" or parsed.database.startswith("file:"):
            return []  # a served world's database (not a store) in memory or by URI: nothing more to check
        message = _sqlite_problem(Path(parsed.database), must_exist)
        return problem(message) if message else []
    shown = shown_url(parsed)
    try:
        engine = create_engine(parsed, connect_args={"connect_timeout": CONNECT_TIMEOUT_S})
    except ImportError as exc:
        return problem(f"the driver for {parsed.drivername} is not installed ({exc.name or exc})")
    except ArgumentError as exc:
        return problem(f"{shown}: {exc}")
    try:
        with engine.connect() as connection:
            if option == "--db" and store:  # a run's world server: episodes' schemas are made there
                message = _world_server_problem(connection)
                return problem(f"{shown}: {message}") if message else []
            found = inspect(connection)
            if must_exist and not found.has_table(EpisodeRow.__tablename__):
                return problem(f"{shown} is not an mseval store (no {EpisodeRow.__tablename__} table)")
            columns = {
                t: {c["name"] for c in found.get_columns(t)} for t in _store_tables() if found.has_table(t)
            }
            if message := _schema_problem(columns):
                return problem(f"{shown}: {message}")
            missing = len(columns) < len(_store_tables())  # tables a writer creates
            if not must_exist and missing and (message := _server_create_problem(connection)):
                return problem(f"{shown}: {message}")
    except Exception as exc:  # any driver's error: reported as one line, nothing run
        return problem(f"cannot connect to {shown}: {first_line(exc) or type(exc).__name__}")
    finally:
        engine.dispose()
    return []


def _world_server_problem(connection: Connection) -> str | None:
    """Why a run's episodes could not have their worlds on the PostgreSQL server of
    `connection` (`--db`): its role may not create schemas in the database (one per episode), or
    may not read the seeded template an earlier mseval of the same server code built there. Each
    episode failed on it (`permission denied`, every episode absent) after the run had started."""
    from mcp_servers.common.worldstate import pg_template_schema

    role, database, may_create = connection.execute(
        text("SELECT current_user, current_database(), has_database_privilege(current_database(), 'CREATE')")
    ).one()
    if not may_create:
        return (
            f"role {role!r} may not create schemas in database {database!r} (each episode gets one); "
            f'GRANT CREATE ON DATABASE "{database}" TO "{role}", or give another role'
        )
    template = pg_template_schema()
    readable = connection.execute(
        text("SELECT has_schema_privilege(oid, 'USAGE') FROM pg_namespace WHERE nspname = :t"),
        {"t": template},
    ).scalar()
    if readable is False:
        return (
            f"role {role!r} may not read schema {template!r}, the seeded world another role built "
            f'in database {database!r}; use that role, or GRANT USAGE ON SCHEMA "{template}" TO "{role}" '
            "and SELECT on its tables"
        )
    return None


def _server_create_problem(connection: Connection) -> str | None:
    """Why the store's tables, some missing, could not be created on the server of `connection`:
    its search_path names no schema that exists, or its role may not create tables in the one it
    names. `mseval run` said 'could not open: no schema has been selected to create in; the run
    stopped: … run the same command with --resume' (exit 1), of a run that never started."""
    role, schema, path = connection.execute(
        text("SELECT current_user, current_schema(), current_setting('search_path')")
    ).one()
    if schema is None:
        return f"no schema to create the store in: none named in its search_path ({path}) exists"
    if not connection.execute(text("SELECT has_schema_privilege(:s, 'CREATE')"), {"s": schema}).scalar():
        return (
            f"role {role!r} may not create the store's tables in schema {schema!r}; "
            f'GRANT CREATE ON SCHEMA "{schema}" TO "{role}", or give another schema (options=-csearch_path=…)'
        )
    return None


def _store_tables() -> dict[str, set[str]]:
    """The store's tables and their columns, as this mseval writes them."""
    return {name: set(table.columns.keys()) for name, table in StoreModel.metadata.tables.items()}


def _schema_problem(found: dict[str, set[str]]) -> str | None:
    """Why store tables with the columns `found` (table -> columns, for those that exist) were
    not written by this mseval: a column missing (an older store) or unknown (a newer one)."""
    for table, want in _store_tables().items():
        have = found.get(table)
        if have is None or have == want:
            continue
        missing, unknown = sorted(want - have), sorted(have - want)
        said = "; ".join(
            part
            for part in (
                f"no column {', '.join(missing)}" if missing else "",
                f"unknown column {', '.join(unknown)}" if unknown else "",
            )
            if part
        )
        return f"written by another version of mseval (table {table}: {said}); use a new store"
    return None


def _sqlite_store_problem(path: Path, must_exist: bool) -> str | None:
    """Whether the SQLite file at `path` is a sound store of this mseval (read-only: nothing is
    created): damaged pages (`quick_check`), tables of another version, or (`must_exist`) no
    store tables at all. None when sound."""
    import sqlite3

    try:
        with contextlib.closing(sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)) as db:
            (verdict,) = db.execute("PRAGMA quick_check(1)").fetchone()
            if verdict != "ok":
                return f"{path} is damaged ({'; '.join(str(verdict).splitlines())}); use a new store"
            columns = {
                t: {row[1] for row in db.execute(f"PRAGMA table_info('{t}')")}
                for (t,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
            }
    except sqlite3.DatabaseError as exc:
        return f"{path} is damaged or not a database ({exc}); use a new store"
    if message := _schema_problem({t: c for t, c in columns.items() if t in _store_tables()}):
        return f"{path}: {message}"
    if must_exist and EpisodeRow.__tablename__ not in columns:
        return f"{path} is not an mseval store (no {EpisodeRow.__tablename__} table)"
    return None


def _sqlite_url_problem(parsed: URL) -> str | None:
    """Why a SQLite URL is not `sqlite:///PATH`, the one form a store takes: an in-memory
    database is gone when mseval exits (and a run's threads each saw an empty one); a SQLite
    URI (`file:…`, `uri=true`) made folders named `file:` under the working directory; query
    parameters went unchecked to the driver (`timeout=abc` raised later); another driver
    (`sqlite+pysqlite`) was not opened as the store expects."""
    if not parsed.database or parsed.database == ":memory:":
        return "an in-memory SQLite store is gone when mseval exits; give a file, sqlite:///PATH"
    if parsed.database.startswith("file:") or "uri" in parsed.query:
        return "SQLite URIs (file:…, uri=true) are not taken; give the store's file, sqlite:///PATH"
    if parsed.query:
        given = urlencode(parsed.query, doseq=True)
        return f"a SQLite store takes no query parameters (?{given}); give sqlite:///PATH"
    if parsed.drivername != "sqlite":
        return f"give a SQLite store as sqlite:///PATH (Python's sqlite3), not {parsed.drivername}://…"
    return None


def _served_sqlite_problem(parsed: URL, url: str) -> str | None:
    """What in a served world's SQLite URL (`servers serve --db`, which may be in memory or a
    SQLite URI) would only fail once the server opens it: a driver option whose value the driver
    cannot read (`timeout=abc`, `check_same_thread=maybe`) or that is given twice (a traceback
    when the engine was made), or a database file whose folder is missing (nothing creates it)."""
    dialect = parsed.get_dialect()
    for key, value in parsed.query.items():
        if not isinstance(value, str):
            return f"{key} is given {len(value)} times in {url!r}; give it once"
    try:
        args, options = dialect().create_connect_args(parsed)
    except (ValueError, TypeError) as exc:
        with warnings.catch_warnings():  # each option alone, to name the one refused
            warnings.simplefilter("ignore")
            for key, value in parsed.query.items():
                with contextlib.suppress(ValueError, TypeError):
                    dialect().create_connect_args(parsed.set(query={key: value}))
                    continue
                return f"{key}={value!r} in {url!r} is not a value the SQLite driver takes ({exc})"
        return f"{url!r}: {exc}"
    if (parsed.database or "").startswith("file:"):
        return _sqlite_uri_problem(str(args[0]), url) if options.get("uri") else None
    if parsed.database and parsed.database != ":memory:":
        folder = Path(parsed.database).parent
        if not lookup_problem(folder) and not folder.exists():
            return f"cannot create {parsed.database}: no folder {folder}"
    return None


def _sqlite_uri_problem(uri: str, url: str) -> str | None:
    """What SQLite itself refuses in the parameters of `uri`, the `file:` URI the driver is given
    for `url` (`mode=bogus`, `cache=x`, `vfs=none`), found by opening an in-memory database with
    the same parameters, so that nothing is created. Only the URI's own parameters: whether its
    file exists is the server's. (Without uri=true the whole name is a file name: not called.)"""
    import sqlite3

    params = dict(parse_qsl(urlsplit(uri).query, keep_blank_values=True))
    if params.get("mode", "rwc") not in _SQLITE_URI_MODES:
        modes = ", ".join(_SQLITE_URI_MODES)
        return f"mode={params['mode']!r} in {url!r} is not an access mode SQLite knows ({modes})"
    probe = urlencode({**params, "mode": "memory"})
    try:
        sqlite3.connect(f"file:mseval-url-check?{probe}", uri=True).close()
    except sqlite3.Error as exc:
        return f"{url!r}: SQLite refuses it: {exc}"
    return None


def _sqlite_problem(path: Path, must_exist: bool) -> str | None:
    if reason := lookup_problem(path, file=True):
        return f"cannot use {path}: {reason}"
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
        return _sqlite_store_problem(path, must_exist=True)
    return _sqlite_write_problem(path) or (
        _sqlite_store_problem(path, must_exist=False) if path.exists() else None
    )


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
