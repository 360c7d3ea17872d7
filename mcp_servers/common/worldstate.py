"""World state per episode: a fresh database copied from a prebuilt, seeded template.

SQLite (default): the template is one file holding every server's seeded tables, built once
per version of the server code (`template_key`) and cached; an episode copies it (a few ms).
PostgreSQL (a URL): the template is a schema `mseval_tpl_<key>`; an episode gets its own
schema `ep_<id>`, filled by `INSERT ... SELECT` from the template, and a URL whose
search_path points at it, so raw SQL sees the episode's tables too.

When the URL's role may create roles (CREATEROLE or superuser), each episode also gets its own
login role, named like its schema, with a random password (sent as its SCRAM verifier, never in
clear) and privileges on its schema only: the episode's servers connect as that role, so raw SQL
that names another episode's schema (or the template) is refused by the database. Each episode also gets the warehouse's reader role
(`mcp_servers/warehouse/pg_role.py`: SELECT on the warehouse tables only, for its run_query),
dropped with the episode's own. Without CREATEROLE, episodes share the URL's role (one warning
says so) and are kept apart only by their search_path.
"""

from __future__ import annotations

import datetime as dt
import fcntl
import hashlib
import logging
import os
import re
import secrets
import shutil
import tempfile
from collections.abc import Iterable
from functools import cache
from pathlib import Path
from typing import Any

from sqlalchemy import Integer, Table, inspect, text
from sqlalchemy.dialects import postgresql
from sqlalchemy.engine import Connection, Engine, make_url
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.schema import AddConstraint, CreateIndex, CreateTable
from sqlmodel import Session, SQLModel

from mcp_servers.common import registry
from mcp_servers.common.codehash import (
    STALE_S,
    TOUCH_AFTER_S,
    code_key,
    default_cache_dir,
    in_use,
    remove_stale,
)
from mcp_servers.common.db import create_login_role, episode_schema, is_sqlite, make_engine, sqlite_url
from mcp_servers.common.spec import ServerSpec
from mcp_servers.warehouse import pg_role


def template_key() -> str:
    """A hash of all server code and data: any change to a schema or seed gives a new template."""
    return code_key()


def _tables(specs: Iterable[ServerSpec]) -> list[Table]:
    return [model.__table__ for s in specs for model in s.tables]  # type: ignore[attr-defined]


def seed_into(conn: Connection, specs: Iterable[ServerSpec]) -> None:
    """Create and seed the tables of `specs` on `conn` (inside the caller's transaction)."""
    specs = list(specs)
    SQLModel.metadata.create_all(conn, tables=_tables(specs))
    with Session(bind=conn) as session:
        for s in specs:
            if s.seed is not None:
                s.seed(session)
                session.flush()


STALE_TEMPLATE_S = STALE_S
"""A template of other server code unused this long is removed when a new one is built."""


def sqlite_template(cache_dir: Path | None = None) -> Path:
    """The cached template file, built on first use by one builder at a time.

    Concurrent episodes (threads of one run, or other processes on the machine) that find no
    template wait on a lock file for the one that builds it, then use its file: seeding is
    Python work, so four builders at once on one core each took four times as long (a cold
    `--concurrency 4` run waited 4-5 s for its first episodes, and so did a Ctrl-C, which lets
    world creation finish). The file still appears atomically (`os.replace`), so a reader never
    sees half a template.

    Templates of other server code are removed when a new one is built only once unused for a
    week (their files' times, refreshed at use once a day): two checkouts of different server
    code sharing the cache keep each their own instead of rebuilding them by turns."""
    cache_dir = cache_dir or default_cache_dir()
    cache_dir.mkdir(parents=True, exist_ok=True)
    path = cache_dir / f"world-{template_key()}.sqlite"
    if in_use(path):
        return path
    with open(path.with_suffix(".lock"), "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file is closed
        if in_use(path):  # built while this one waited
            return path
        _build_template(path, cache_dir)
    return path


def _build_template(path: Path, cache_dir: Path) -> None:
    fd, tmp = tempfile.mkstemp(dir=cache_dir, suffix=".sqlite.tmp")
    os.close(fd)
    try:
        engine = make_engine(sqlite_url(tmp))
        with engine.begin() as conn:
            seed_into(conn, registry.all_specs())
        with engine.connect() as conn:
            conn.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
            conn.exec_driver_sql("PRAGMA journal_mode=DELETE")
        engine.dispose()
        os.replace(tmp, path)
        # Episodes copy a template at their start, so one unused for a week is not needed (its
        # lock file goes with it); a build's files left by a killed builder are not needed after
        # a day.
        removed = remove_stale(
            [
                *((f, STALE_TEMPLATE_S) for f in cache_dir.glob("world-*.sqlite")),
                *((f, TOUCH_AFTER_S) for f in cache_dir.glob("*.sqlite.tmp*")),
            ],
            keep=path,
        )
        for stale in removed:
            if stale.suffix == ".sqlite":
                stale.with_suffix(".lock").unlink(missing_ok=True)
    finally:
        for leftover in (tmp, f"{tmp}-wal", f"{tmp}-shm"):
            if os.path.exists(leftover):
                os.unlink(leftover)


_SCHEMA_SAFE = re.compile(r"[^a-z0-9_]")


_log = logging.getLogger(__name__)


# Query parameters of a base URL that would log an episode in as the URL's role, or with its
# password: the driver takes them over the URL's user and password.
_LOGIN_PARAMS = ("user", "password")


def _pg_schema_url(base_url: str, schema: str, password: str | None = None) -> str:
    url = make_url(base_url)
    if password is not None:  # the episode's own role, and no `?password=` of the base's over it
        url = url.difference_update_query(_LOGIN_PARAMS).set(username=schema, password=password)
    return url.update_query_dict({"options": f"-csearch_path={schema}"}).render_as_string(hide_password=False)


@cache
def _roles_per_episode(base_url: str) -> bool:
    """Whether the role of `base_url` may create a role per episode; warns once when not."""
    engine = make_engine(base_url)
    try:
        with engine.connect() as conn:
            row = conn.execute(
                text(
                    "SELECT rolcreaterole OR rolsuper, current_user FROM pg_roles WHERE rolname = current_user"
                )
            ).one()
    finally:
        engine.dispose()
    if not row[0]:
        _log.warning(
            "mseval: PostgreSQL role %r may not create roles, so all episodes share it and raw SQL "
            "could name another episode's schema; ALTER ROLE %s CREATEROLE gives each episode its own role",
            row[1],
            row[1],
        )
    return bool(row[0])


_USED = "mseval world template, last used "


def pg_template_schema() -> str:
    """The name of the PostgreSQL template schema of this server code."""
    return f"mseval_tpl_{template_key()}"


def _pg_template(engine: Engine) -> str:
    """The database's template schema of this server code, built on first use. As with the
    SQLite cache, templates of other server code are dropped only once unused for a week (the
    schema's comment holds when it was last used, refreshed once a day), so two checkouts of
    different server code against one database keep each their own."""
    schema = pg_template_schema()
    now = dt.datetime.now(dt.UTC)
    with engine.begin() as conn:
        # One builder at a time across processes; the others find it done.
        conn.execute(text("SELECT pg_advisory_xact_lock(hashtext(:k))"), {"k": schema})
        rows = conn.execute(
            text(
                "SELECT nspname, obj_description(oid, 'pg_namespace') FROM pg_namespace "
                "WHERE nspname LIKE 'mseval\\_tpl\\_%'"
            )
        ).all()
        templates: dict[str, str | None] = {row[0]: row[1] for row in rows}
        if schema in templates:
            if now - _last_used(templates[schema]) > dt.timedelta(seconds=TOUCH_AFTER_S):
                _mark_used(conn, schema, now)
            return schema
        for old_schema, comment in templates.items():  # templates of other server code
            if now - _last_used(comment) > dt.timedelta(seconds=STALE_TEMPLATE_S):
                conn.execute(text(f'DROP SCHEMA "{old_schema}" CASCADE'))
        conn.execute(text(f'CREATE SCHEMA "{schema}"'))
        seed_into(conn.execution_options(schema_translate_map={None: schema}), registry.all_specs())
        _mark_used(conn, schema, now)
    return schema


def _last_used(comment: str | None) -> dt.datetime:
    """When a template schema was last used, from its comment (long ago when it has none)."""
    try:
        return dt.datetime.fromisoformat((comment or "").removeprefix(_USED))
    except ValueError:
        return dt.datetime.min.replace(tzinfo=dt.UTC)


def _mark_used(conn: Connection, schema: str, when: dt.datetime) -> None:
    conn.execute(text(f"COMMENT ON SCHEMA \"{schema}\" IS '{_USED}{when.isoformat()}'"))


def pg_schema_name(episode_id: str) -> str:
    """A PostgreSQL schema name for an episode: readable, within the 63-byte limit, and unique
    (a hash of the whole id: episodes whose ids share a long prefix must not share a schema)."""
    digest = hashlib.sha256(episode_id.encode()).hexdigest()[:12]
    return f"ep_{_SCHEMA_SAFE.sub('_', episode_id.lower())[:40]}_{digest}"


def create_episode_db(base: str, episode_id: str, dest_dir: Path, cache_dir: Path | None = None) -> str:
    """A fresh world database for one episode; returns its URL.

    `base` is "sqlite" (a file in `dest_dir`) or a PostgreSQL URL (a schema per episode).
    """
    if base == "sqlite" or is_sqlite(base):
        dest_dir.mkdir(parents=True, exist_ok=True)
        dest = dest_dir / "world.sqlite"
        # A rerun after a crash finds the killed attempt's files: a stale WAL beside a fresh
        # copy would be replayed into it, so everything goes first.
        for leftover in (dest, dest.with_name("world.sqlite-wal"), dest.with_name("world.sqlite-shm")):
            leftover.unlink(missing_ok=True)
        shutil.copyfile(sqlite_template(cache_dir), dest)
        return sqlite_url(dest)
    own_role = _roles_per_episode(base)
    password = secrets.token_hex(16) if own_role else None
    engine = make_engine(base)
    try:
        template = _pg_template(engine)
        schema = pg_schema_name(episode_id)
        with engine.begin() as conn:
            _drop_schema_and_role(conn, schema)  # left by a killed attempt of this episode
            conn.exec_driver_sql(_pg_copy_script(schema, template))
            if password is not None:
                create_login_role(conn, schema, password)
                conn.execute(text(f'GRANT USAGE, CREATE ON SCHEMA "{schema}" TO "{schema}"'))
                conn.execute(text(f'GRANT ALL ON ALL TABLES IN SCHEMA "{schema}" TO "{schema}"'))
                conn.execute(text(f'GRANT ALL ON ALL SEQUENCES IN SCHEMA "{schema}" TO "{schema}"'))
                pg_role.create_reader(conn, schema, password)
    finally:
        engine.dispose()
    return _pg_schema_url(base, schema, password)


def _pg_copy_script(schema: str, template: str) -> str:
    """The SQL that makes schema `schema` a copy of the template schema `template`, sent as one
    script inside the caller's transaction: the tables as `create_all` makes them, filled from the
    template, then their indexes and foreign keys, and each id sequence moved past the copied ids.
    Indexes are built over the filled tables and foreign keys checked once per key, not per
    inserted row: copying the ~53,000 seeded rows cost 2.2 s as `create_all` and one statement
    per table, row by row through the foreign-key triggers."""
    tables, before, after = _pg_ddl()
    copy = [f'INSERT INTO "{table}" SELECT * FROM "{template}"."{table}"' for table in tables]
    return ";\n".join(
        [f'CREATE SCHEMA "{schema}"', f'SET LOCAL search_path TO "{schema}"', *before, *copy, *after]
    )


@cache
def _pg_ddl() -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """The world's table names and its DDL for PostgreSQL, names unqualified (the script's
    search_path is the episode's schema): the tables without their foreign keys, then what comes
    after the rows are in (indexes, foreign keys, id sequences)."""
    dialect = postgresql.dialect()
    tables = _tables(registry.all_specs())
    before = [
        str(CreateTable(t, include_foreign_key_constraints=[]).compile(dialect=dialect)) for t in tables
    ]
    after = [str(CreateIndex(index).compile(dialect=dialect)) for t in tables for index in t.indexes]
    after += [
        str(AddConstraint(fk).compile(dialect=dialect)) for t in tables for fk in t.foreign_key_constraints
    ]
    after += [_setval_sql(f'"{t.name}"', col) for t in tables if (col := _integer_key(t))]
    return tuple(t.name for t in tables), tuple(before), tuple(after)


def _integer_key(table: Table) -> str | None:
    """The column of `table`'s primary key when it is one integer column (an id sequence's)."""
    pk = list(table.primary_key.columns)
    return pk[0].name if len(pk) == 1 and isinstance(pk[0].type, Integer) else None


def _setval_sql(table: str, col: str) -> str:
    """SQL that moves the id sequence of `table` (as written in SQL: quoted, maybe qualified)
    past its largest `col` (none without a sequence: setval of NULL does nothing)."""
    return (
        f"SELECT setval(pg_get_serial_sequence('{table}', '{col}'), "
        f'COALESCE(MAX("{col}"), 0) + 1, false) FROM {table}'
    )


def _drop_schema_and_role(conn: Connection, schema: str) -> None:
    conn.execute(text(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))
    if conn.execute(text("SELECT 1 FROM pg_roles WHERE rolname = :r"), {"r": schema}).first():
        conn.execute(text(f'DROP ROLE "{schema}"'))
    pg_role.drop_reader(conn, schema)


def reset_sequence(conn: Connection, schema: str, table: Table) -> None:
    """On PostgreSQL, make `table`'s id sequence continue after its largest id (rows inserted
    with explicit ids do not advance it, and the next insert would take a used id)."""
    if col := _integer_key(table):
        conn.execute(text(_setval_sql(f'"{schema}"."{table.name}"', col)))


def drop_episode_db(base: str, url: str) -> None:
    """Remove a PostgreSQL episode's schema and role, as the role of `base`, the URL the episode
    was made from (SQLite files go with the episode folder)."""
    if is_sqlite(url) or not (schema := episode_schema(url)).startswith("ep_"):
        return
    for _schema, exc in drop_schemas(base, [schema]):
        raise exc


def run_schemas(base: str, run_id: str) -> list[str]:
    """The episode schemas of run `run_id` still on the PostgreSQL server of `base`, sorted: a
    killed attempt's, or a world kept because its check did not finish. An episode's id starts
    with its run's (`<run_id>-<task>-…`), so its schema starts with `ep_<run_id>_`; a run id
    mseval did not make (12 hex digits) could share that start with another run's, and finds
    nothing."""
    if not re.fullmatch(r"[0-9a-f]{12}", run_id):
        return []
    engine = make_engine(base)
    try:
        with engine.connect() as conn:
            found = conn.execute(
                text("SELECT nspname FROM pg_namespace WHERE nspname LIKE :start"),
                {"start": f"ep\\_{run_id}\\_%"},
            ).scalars()
            return sorted(found)
    finally:
        engine.dispose()


def drop_schemas(base: str, schemas: list[str]) -> list[tuple[str, Exception]]:
    """Drop each episode schema in `schemas` and its roles, as the role of `base`, each in its
    own transaction; the ones that could not be dropped, with the error."""
    failed: list[tuple[str, Exception]] = []
    engine = make_engine(base)
    try:
        for schema in schemas:
            try:
                with engine.begin() as conn:
                    _drop_schema_and_role(conn, schema)
            except SQLAlchemyError as exc:
                failed.append((schema, exc))
    finally:
        engine.dispose()
    return failed


def dump(engine: Engine, prefix: str = "") -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every table (whose name starts with `prefix`), as stored, sorted: compare two
    dumps to prove a tool changed nothing. Each table is read whole (`SELECT *`) by its name,
    not through reflected or declared columns: a column a tool added lengthens the rows, and
    reflecting the tables on each dump cost about 0.3 s on PostgreSQL."""
    names = sorted(name for name in inspect(engine).get_table_names() if name.startswith(prefix))
    quote = engine.dialect.identifier_preparer.quote
    out: dict[str, list[tuple[Any, ...]]] = {}
    with engine.connect() as conn:
        for name in names:
            rows = conn.exec_driver_sql(f"SELECT * FROM {quote(name)}").all()
            out[name] = sorted((tuple(r) for r in rows), key=repr)
    return out
