"""An episode's world: a fresh database, a workspace folder, and the task's setup applied."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import and_, delete, insert, text, update
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import (
    DataError,
    DBAPIError,
    IntegrityError,
    ProgrammingError,
    SQLAlchemyError,
    StatementError,
)
from sqlmodel import SQLModel

from contracts.errors import InputError
from contracts.yamlio import line_of, read_yaml
from harness.catalog import SetupStep, Task
from harness.checks import World
from harness.db_text import first_line
from harness.mcp_client import WorldAccess
from mcp_servers.common import registry, worldstate
from mcp_servers.common.db import episode_schema, make_engine

_log = logging.getLogger(__name__)


@dataclass
class EpisodeWorld:
    folder: Path
    db_url: str
    engine: Engine
    workspace: Path
    db_base: str = "sqlite"

    def access(self, options: dict[str, Any] | None = None) -> WorldAccess:
        return WorldAccess(
            db_url=self.db_url, engine=self.engine, workspace=self.workspace, options=options or {}
        )

    def for_check(self) -> World:
        return World(self.engine, self.workspace)

    def close(self, keep_database: bool = False) -> None:
        """Done with the world: its engine closed and (unless `keep_database`) its database
        dropped. A database that cannot be dropped (its PostgreSQL server gone for a moment, a
        lost connection) is told in a warning naming what stays: the episode's outcome does not
        depend on it. Raised, it went out of the runner's `finally` and stopped the whole run,
        the outcome of every running episode unrecorded."""
        try:
            self.drop(keep_database)
        except SQLAlchemyError as exc:
            schema = episode_schema(self.db_url)
            _log.warning(
                "mseval: the world of episode %s could not be dropped (%s); schema %s and its roles "
                "stay on the server (DROP SCHEMA ... CASCADE, DROP ROLE)",
                self.folder.name,
                first_line(exc) or type(exc).__name__,
                schema or "?",
            )

    def drop(self, keep_database: bool = False) -> None:
        """`close`, raising what the database raises."""
        self.engine.dispose()
        if keep_database:
            return
        worldstate.drop_episode_db(self.db_base, self.db_url)
        shutil.rmtree(self.folder / "db", ignore_errors=True)


def create_world(
    task: Task, episode_id: str, root: Path, db_base: str = "sqlite", cache_dir: Path | None = None
) -> EpisodeWorld:
    """A fresh world for one episode, its task's setup applied. When anything after the database
    fails (most often a setup step the world refuses), the database is dropped before the error
    goes on (the episode never ran: nothing to inspect), as `EpisodeWorld.close` does."""
    folder = root / episode_id
    url = worldstate.create_episode_db(db_base, episode_id, folder / "db", cache_dir)
    world = EpisodeWorld(
        folder=folder, db_url=url, engine=make_engine(url), workspace=folder / "workspace", db_base=db_base
    )
    try:
        if world.workspace.exists():
            shutil.rmtree(world.workspace)
        world.workspace.mkdir(parents=True)
        apply_setup(task, world.engine, world.workspace)
    except BaseException as exc:
        try:
            world.drop()
        except Exception as cleanup:  # the setup's failure stays the reason; this one rides along
            exc.add_note(f"and its world database could not be dropped: {type(cleanup).__name__}: {cleanup}")
        raise
    return world


async def create_world_in_thread(
    task: Task, episode_id: str, root: Path, db_base: str = "sqlite"
) -> EpisodeWorld:
    """`create_world` in a worker thread, off the event loop. A thread cannot be stopped: when
    the caller is cancelled (Ctrl-C, SIGTERM) while it runs, the cancellation waits for it and
    closes the world it made before going on. Left to itself, the thread finished unseen and its
    world's database (a SQLite file, a PostgreSQL schema and login role) stayed behind."""
    making = asyncio.ensure_future(asyncio.to_thread(create_world, task, episode_id, root, db_base))
    try:
        return await asyncio.shield(making)
    except asyncio.CancelledError:
        while not making.done():  # another cancellation must not leave the world behind either
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.wait([making])
        if not making.cancelled() and making.exception() is None:  # failed: it dropped its own
            try:
                making.result().close()
            except Exception as exc:  # the cancellation stays what goes on; this is told
                _log.warning("world %s could not be dropped: %s: %s", episode_id, type(exc).__name__, exc)
        raise


def apply_setup(task: Task, engine: Engine, workspace: Path) -> None:
    """The task's changes to the seeded world (tables and columns are checked at load, too). A
    step that cannot be applied (a row the schema refuses, a file path that is a folder) is an
    `InputError` at its line of task.yaml; the database changes of the others are undone."""
    if not task.spec.setup:
        return
    registry.all_specs()  # table classes register on import; a cached template imports none
    file = str(task.folder / "task.yaml")
    with engine.begin() as conn:
        for i, step in enumerate(task.spec.setup):
            try:
                _apply_step(conn, step, workspace, file, i)
            except (StatementError, IsADirectoryError, NotADirectoryError, FileExistsError) as exc:
                # what the step itself asks for is refused (a row the schema or the driver
                # refuses); a locked database, a lost connection or a full disk are not the
                # task's fault and stay what they are
                if isinstance(exc, DBAPIError) and not isinstance(
                    exc, IntegrityError | DataError | ProgrammingError
                ):
                    raise
                why = exc.orig if isinstance(exc, DBAPIError) else getattr(exc, "strerror", None) or exc
                first = (str(why).strip().splitlines() or [type(exc).__name__])[0][:300]
                raise InputError.one(
                    file, _setup_line(Path(file), i), f"setup step {i + 1} cannot be applied: {first}"
                ) from None


def _setup_line(task_yaml: Path, step: int) -> int | None:
    try:  # read again only now, on the way out: the file may have changed or be elsewhere
        return line_of(read_yaml(task_yaml)[1], ("setup", step))
    except InputError:
        return None


def _apply_step(conn: Connection, step: SetupStep, workspace: Path, file: str, i: int) -> None:
    tables = SQLModel.metadata.tables
    table_name = step.insert or step.update or step.delete
    if table_name is not None and table_name not in tables:
        raise InputError.one(file, None, f"setup step {i + 1}: unknown table {table_name!r}")
    if step.insert and step.rows:
        conn.execute(insert(tables[step.insert]), step.rows)
        if conn.dialect.name == "postgresql":  # rows with explicit ids: the sequence follows
            schema = conn.execute(text("SELECT current_schema()")).scalar_one()
            worldstate.reset_sequence(conn, schema, tables[step.insert])
    elif step.update:
        conn.execute(
            update(tables[step.update]).where(_where(tables[step.update], step)).values(**(step.values or {}))
        )
    elif step.delete:
        conn.execute(delete(tables[step.delete]).where(_where(tables[step.delete], step)))
    elif step.file is not None:
        _write_file(workspace, step, file, i)


def _where(table: Any, step: SetupStep) -> Any:
    return and_(*(table.c[k] == v for k, v in (step.where or {}).items()))


def _write_file(workspace: Path, step: SetupStep, file: str, i: int) -> None:
    from mcp_servers.common.workspace import resolve

    try:
        target = resolve(workspace, step.file or "")
    except Exception as exc:
        raise InputError.one(file, None, f"setup step {i + 1}: {exc}") from None
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(step.content or "", encoding="utf-8")
