"""The run store (SPEC §8, §12): runs, episodes and their event streams, in SQLModel tables.

SQLite at `runs/mseval.db` by default, any SQLAlchemy URL (PostgreSQL) by `--store`.
Nothing is lost and nothing is counted twice:
- an episode row is created `running` (attempt n) before the episode starts;
- its events stream in as they happen, tagged with the attempt;
- its outcome (status and the whole episode record) is written in one transaction at the end.
After a crash, `--resume` finds the run, skips every finished episode and runs the `running`
ones again as attempt n+1; readers only ever see finished attempts.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime as dt
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from sqlalchemy import JSON, Column, insert, inspect
from sqlalchemy.orm import registry as orm_registry
from sqlmodel import Field, Session, SQLModel, col, create_engine, select

from contracts.episode import EpisodeRecord
from contracts.errors import InputError, Problem
from harness.events import Event

DEFAULT_STORE = "sqlite:///runs/mseval.db"
# Events are written in batches from a worker thread; this bounds how long one can wait.
EVENT_FLUSH_INTERVAL_S = 0.25
EVENT_BATCH = 2000


class StoreModel(SQLModel, registry=orm_registry()):
    """Store tables keep their own metadata, apart from the world's server tables."""


class RunRow(StoreModel, table=True):
    __tablename__ = "mseval_run"
    run_id: str = Field(primary_key=True)
    created_at: str
    matrix_key: str = Field(index=True)
    identity: dict[str, Any] = Field(sa_column=Column(JSON, nullable=False))


class EpisodeRow(StoreModel, table=True):
    __tablename__ = "mseval_episode"
    key: str = Field(primary_key=True)
    run_id: str = Field(index=True)
    task_id: str
    model: str
    variant: str
    seed: int
    attempt: int = 1
    status: str  # running | completed | absent
    started_at: str
    ended_at: str | None = None
    record: dict[str, Any] | None = Field(default=None, sa_column=Column(JSON))


class EventRow(StoreModel, table=True):
    __tablename__ = "mseval_event"
    id: int | None = Field(default=None, primary_key=True)
    episode_key: str = Field(index=True)
    attempt: int
    seq: int
    t: float
    kind: str
    agent: str
    data: dict[str, Any] = Field(sa_column=Column(JSON, nullable=False))


def _now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds")


def episode_key(run_id: str, task_id: str, model: str, variant: str, seed: int) -> str:
    return f"{run_id}|{task_id}|{model}|{variant}|{seed}"


class Store:
    def __init__(self, url: str = DEFAULT_STORE) -> None:
        self.url = url
        if url.startswith("sqlite:///") and not url.startswith("sqlite:///:memory:"):
            Path(url.removeprefix("sqlite:///")).parent.mkdir(parents=True, exist_ok=True)
        connect_args = {"timeout": 30} if url.startswith("sqlite") else {}
        self.engine = create_engine(url, connect_args=connect_args)
        StoreModel.metadata.create_all(self.engine)

    def close(self) -> None:
        self.engine.dispose()

    # -- runs --------------------------------------------------------------------------------------
    def create_run(self, run_id: str, matrix_key: str, identity: dict[str, Any]) -> None:
        with Session(self.engine) as s:
            s.add(RunRow(run_id=run_id, created_at=_now(), matrix_key=matrix_key, identity=identity))
            s.commit()

    def latest_run(self, matrix_key: str) -> str | None:
        with Session(self.engine) as s:
            row = s.exec(
                select(RunRow).where(RunRow.matrix_key == matrix_key).order_by(col(RunRow.created_at).desc())
            ).first()
            return None if row is None else row.run_id

    def identities(self) -> list[dict[str, Any]]:
        with Session(self.engine) as s:
            return [
                {"run_id": r.run_id, **r.identity}
                for r in s.exec(select(RunRow).order_by(col(RunRow.created_at)))
            ]

    # -- episodes ------------------------------------------------------------------------------------
    def finished_keys(self, run_id: str) -> set[str]:
        with Session(self.engine) as s:
            rows = s.exec(
                select(EpisodeRow.key).where(EpisodeRow.run_id == run_id, EpisodeRow.status != "running")
            )
            return set(rows)

    def start_episode(self, key: str, run_id: str, task_id: str, model: str, variant: str, seed: int) -> int:
        """Mark an episode running; returns its attempt number (2+ when an interrupted one reruns)."""
        with Session(self.engine) as s:
            row = s.get(EpisodeRow, key)
            if row is None:
                row = EpisodeRow(
                    key=key,
                    run_id=run_id,
                    task_id=task_id,
                    model=model,
                    variant=variant,
                    seed=seed,
                    status="running",
                    started_at=_now(),
                )
            elif row.status != "running":
                raise RuntimeError(f"episode {key} is already finished")
            else:
                row.attempt += 1
                row.started_at = _now()
            s.add(row)
            s.commit()
            return row.attempt

    def finish_episode(self, key: str, attempt: int, record: EpisodeRecord) -> None:
        """The outcome, in one transaction."""
        with Session(self.engine) as s:
            row = s.get(EpisodeRow, key)
            if row is None or row.attempt != attempt:
                raise RuntimeError(f"episode {key} attempt {attempt} is not the current attempt")
            row.status = record.status
            row.ended_at = _now()
            row.record = record.model_dump(mode="json", by_alias=True)
            s.add(row)
            s.commit()

    def write_events(self, rows: list[dict[str, Any]]) -> None:
        if rows:
            with self.engine.begin() as conn:
                conn.execute(insert(EventRow.__table__), rows)  # type: ignore[attr-defined]

    def events(self, key: str) -> list[EventRow]:
        """The events of the current attempt of one episode."""
        with Session(self.engine) as s:
            row = s.get(EpisodeRow, key)
            if row is None:
                return []
            stmt = (
                select(EventRow)
                .where(EventRow.episode_key == key, EventRow.attempt == row.attempt)
                .order_by(col(EventRow.seq))
            )
            return list(s.exec(stmt))

    def records(self, run_id: str | None = None) -> list[EpisodeRecord]:
        """Finished episodes; per (task, model, variant, seed) the newest run's, so each counts once."""
        with Session(self.engine) as s:
            stmt = (
                select(EpisodeRow, RunRow.created_at)
                .join(RunRow, col(RunRow.run_id) == EpisodeRow.run_id)
                .where(EpisodeRow.status != "running")
                .order_by(col(RunRow.created_at))
            )
            if run_id is not None:
                stmt = stmt.where(EpisodeRow.run_id == run_id)
            newest: dict[tuple[str, str, str, int], EpisodeRecord] = {}
            for row, _created in s.exec(stmt):
                assert row.record is not None
                newest[(row.task_id, row.model, row.variant, row.seed)] = EpisodeRecord.model_validate(
                    row.record
                )
            return list(newest.values())


class EventStreamer:
    """Batches events from every running episode and writes them from a worker thread."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._pending: list[dict[str, Any]] = []
        self._wake = asyncio.Event()
        self._closed = False
        self._task: asyncio.Task[None] | None = None

    def sink(self, key: str, attempt: int) -> Any:
        def put(event: Event) -> None:
            self._pending.append(
                {
                    "episode_key": key,
                    "attempt": attempt,
                    "seq": event.seq,
                    "t": event.t,
                    "kind": event.kind,
                    "agent": event.agent,
                    "data": event.data,
                }
            )
            if len(self._pending) >= EVENT_BATCH:
                self._wake.set()

        return put

    async def flush(self) -> None:
        batch, self._pending = self._pending, []
        if batch:
            await asyncio.to_thread(self.store.write_events, batch)

    async def _loop(self) -> None:
        while not self._closed:
            try:
                async with asyncio.timeout(EVENT_FLUSH_INTERVAL_S):
                    await self._wake.wait()
            except TimeoutError:
                pass
            self._wake.clear()
            await self.flush()

    async def __aenter__(self) -> EventStreamer:
        self._task = asyncio.create_task(self._loop(), name="event-streamer")
        return self

    async def __aexit__(self, *exc: object) -> None:
        self._closed = True
        self._wake.set()
        if self._task is not None:
            await self._task
        await self.flush()


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


def read_episode_records(url: str) -> list[EpisodeRecord]:
    """Every finished episode in the store at `url` (the newest run's per setting, task and seed)."""
    store = Store(url)
    try:
        return store.records()
    finally:
        store.close()


def read_run_identities(url: str) -> list[dict[str, Any]]:
    store = Store(url)
    try:
        return store.identities()
    finally:
        store.close()


def export_jsonl(records: Iterable[EpisodeRecord], path: Path) -> int:
    n = 0
    with path.open("w", encoding="utf-8") as fh:
        for r in records:
            fh.write(r.to_json() + "\n")
            n += 1
    return n
