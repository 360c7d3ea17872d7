"""The run store (SPEC §8, §12): runs, episodes and their event streams, in SQLModel tables.

SQLite at `runs/mseval.db` by default, any SQLAlchemy URL (PostgreSQL) by `--store`.
Nothing is lost and nothing is counted twice:
- an episode row is created `running` (attempt n) before the episode starts;
- its events stream in as they happen, tagged with the attempt;
- its outcome (status and the whole episode record) is written in one transaction at the end.
After a crash, `--resume` finds the run, skips every finished episode and runs the `running`
ones again as attempt n+1; readers only ever see finished attempts.

One process runs a run at a time: it holds the run's claim (a row naming its host and pid),
renewed every `CLAIM_RENEW_S` (harness/claims.py) while it runs and released when it stops. Another process may
take the run over only when the claim is abandoned: its process is gone (same host) or it has
not been renewed for `CLAIM_STALE_S`. A store that cannot be read or written raises
`StoreError`, one line naming the store.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import socket
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import JSON, Column, Text, delete, func, insert, inspect, update
from sqlalchemy import cast as sa_cast
from sqlalchemy import select as sa_select
from sqlalchemy.engine import make_url
from sqlalchemy.exc import IntegrityError, SQLAlchemyError
from sqlalchemy.orm import registry as orm_registry
from sqlalchemy.pool import NullPool
from sqlmodel import Field, Session, SQLModel, col, create_engine, select

from contracts.episode import EpisodeRecord, gc_paused
from harness.claims import Owner, claim_alive
from harness.db_text import error_reason, shown

if TYPE_CHECKING:
    from harness.store_runs import RunSummary

DEFAULT_STORE = "sqlite:///runs/mseval.db"


class StoreError(Exception):
    """The store could not be read or written (read-only, deleted, disk full, server gone)."""


class ClaimLost(StoreError):
    """Another process took this run over (this one was presumed dead); this one must stop."""


class WorldServerLost(StoreError):
    """The PostgreSQL server of the episodes' worlds (`--db`) stopped answering. The run stops as
    for a failing store, its interrupted episodes left to `--resume`: recorded absent one by one,
    every episode left would have been lost to the outage, and `--resume` runs no absent one."""


class RunBusy(StoreError):
    """The run is held by a live process: a second one must not run the same episodes."""

    def __init__(self, run_id: str, holder: str) -> None:
        super().__init__(
            f"run {run_id} is being run by another mseval process ({holder}); "
            "let it finish, or stop it and run this command again"
        )


@dataclass(frozen=True)
class EventText:
    """An event with its data as stored JSON text, whole or cut (`Store.event_texts`)."""

    seq: int
    t: float
    kind: str
    agent: str
    data: str


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


class ClaimRow(StoreModel, table=True):
    __tablename__ = "mseval_claim"
    run_id: str = Field(primary_key=True)
    token: str  # this claim, as opposed to an earlier one of the same process
    host: str
    pid: int
    heartbeat_at: float  # seconds since the epoch


def _refuse_if_alive(run_id: str, held: Any) -> None:
    """`RunBusy` naming the holder when the claim `held` is a live process's."""
    now = time.time()
    if claim_alive(held, now):
        where = "" if held.host == socket.gethostname() else f" on {held.host}"
        seen = max(now - held.heartbeat_at, 0)
        raise RunBusy(run_id, f"pid {held.pid}{where}, last seen {seen:.0f} s ago")


def _now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="microseconds")


def episode_key(run_id: str, task_id: str, model: str, variant: str, seed: int) -> str:
    return f"{run_id}|{task_id}|{model}|{variant}|{seed}"


class Store:
    def __init__(self, url: str = DEFAULT_STORE, *, create: bool = True, pooled: bool = True) -> None:
        """The store at `url`, its file and tables made when missing (`create`; without it the
        caller checks they are there: see `existing`). A SQLite store not `pooled` opens its file
        afresh for every use (a reader that lives long, as the viewer: a pooled connection kept
        reading a file deleted or replaced meanwhile)."""
        self.url = url
        self.shown = shown(url)  # for messages
        self.file: Path | None = None  # a SQLite store's file
        self._opened = False
        self.superseded = 0  # older runs' episodes the last `records()` left out
        with self.failing("open"):
            parsed = make_url(url)
            sqlite = parsed.get_backend_name() == "sqlite"
            # The file SQLAlchemy opens: the URL's path as it decodes it (`my%20file.db`).
            if sqlite and parsed.database and parsed.database != ":memory:":
                self.file = Path(parsed.database)
            if self.file is not None and create:
                self.file.parent.mkdir(parents=True, exist_ok=True)
            connect_args = {"timeout": 30} if sqlite else {}
            # A server's connection may die while it waits in the pool (a restarted server, a
            # backend ended by pg_terminate_backend or an idle timeout): each is tried before use
            # and replaced, or the run stopped at its next write though the server was back.
            fresh = {"poolclass": NullPool} if sqlite and not pooled else {}
            self.engine = create_engine(url, connect_args=connect_args, pool_pre_ping=not sqlite, **fresh)
            if create:
                StoreModel.metadata.create_all(self.engine)
        self._opened = True

    @classmethod
    def existing(cls, url: str) -> Store | None:
        """The store at `url` when it is already there (its runs table), else None; nothing is
        written either way (a reader that must not leave an empty store behind)."""
        store = cls(url, create=False)
        try:
            there = store.file is None or store.file.exists()  # a connection would make the file
            if there:
                with store.failing("open"):
                    there = inspect(store.engine).has_table(RunRow.__tablename__)
        except BaseException:
            store.close()
            raise
        if not there:
            store.close()
            return None
        return store

    def close(self) -> None:
        self.engine.dispose()

    @contextlib.contextmanager
    def failing(self, doing: str) -> Iterator[None]:
        """A database or file-system error while `doing` something, as one-line `StoreError`."""
        try:
            yield
        except (SQLAlchemyError, OSError) as exc:
            gone = self._opened and self.file is not None and not self.file.exists()
            note = f" ({self.file} no longer exists)" if gone else ""
            raise StoreError(f"the store {self.shown} could not {doing}: {error_reason(exc)}{note}") from exc

    # -- runs --------------------------------------------------------------------------------------
    def create_run(
        self, run_id: str, matrix_key: str, identity: dict[str, Any], owner: Owner | None = None
    ) -> None:
        """A new run, claimed by `owner` in the same transaction (nobody can resume it meanwhile)."""
        with self.failing("record a new run"), Session(self.engine) as s:
            s.add(RunRow(run_id=run_id, created_at=_now(), matrix_key=matrix_key, identity=identity))
            if owner is not None:
                s.add(ClaimRow(**owner.row(run_id)))
            s.commit()

    def claim_run(self, run_id: str, owner: Owner) -> None:
        """Claim a run for `owner`, taking over an abandoned claim; `RunBusy` when a live process holds it."""
        with self.failing("claim the run"):
            for _ in range(3):  # another process claimed it between our read and our write: read again
                with contextlib.suppress(IntegrityError):
                    if self._take_claim(run_id, owner):
                        return
        raise RunBusy(run_id, "it claimed the run as this one tried to")

    def refuse_if_busy(self, run_id: str) -> None:
        """`RunBusy` when a live process holds the run now. Only a look: `claim_run` decides
        (the run may be taken between the two)."""
        claims = ClaimRow.__table__  # type: ignore[attr-defined]
        with self.failing("read the run's claim"), self.engine.connect() as conn:
            held = conn.execute(claims.select().where(claims.c.run_id == run_id)).first()
        if held is not None:
            _refuse_if_alive(run_id, held)

    def _take_claim(self, run_id: str, owner: Owner) -> bool:
        claims = ClaimRow.__table__  # type: ignore[attr-defined]
        with self.engine.begin() as conn:
            held = conn.execute(claims.select().where(claims.c.run_id == run_id)).first()
            if held is None:
                conn.execute(insert(claims), owner.row(run_id))
                return True
            _refuse_if_alive(run_id, held)
            taken = conn.execute(
                update(claims)
                .where(claims.c.run_id == run_id, claims.c.token == held.token)
                .values(owner.row(run_id))
            )
            return taken.rowcount == 1

    def renew_claim(self, run_id: str, owner: Owner) -> None:
        """Say `owner` still runs the run; `ClaimLost` when another process has taken it over."""
        claims = ClaimRow.__table__  # type: ignore[attr-defined]
        with self.failing("renew the run's claim"), self.engine.begin() as conn:
            renewed = conn.execute(
                update(claims)
                .where(claims.c.run_id == run_id, claims.c.token == owner.token)
                .values(heartbeat_at=time.time())
            )
        if renewed.rowcount != 1:
            raise ClaimLost(f"run {run_id} was taken over by another mseval process; this one stopped")

    def release_claim(self, run_id: str, owner: Owner) -> None:
        claims = ClaimRow.__table__  # type: ignore[attr-defined]
        with self.failing("release the run's claim"), self.engine.begin() as conn:
            conn.execute(delete(claims).where(claims.c.run_id == run_id, claims.c.token == owner.token))

    def latest_run(self, matrix_key: str) -> str | None:
        with self.failing("read its runs"), Session(self.engine) as s:
            row = s.exec(
                select(RunRow).where(RunRow.matrix_key == matrix_key).order_by(col(RunRow.created_at).desc())
            ).first()
            return None if row is None else row.run_id

    def identities(self) -> list[dict[str, Any]]:
        with self.failing("read its runs"), Session(self.engine) as s:
            return [
                {"run_id": r.run_id, **r.identity}
                for r in s.exec(select(RunRow).order_by(col(RunRow.created_at)))
            ]

    def runs(self) -> list[RunSummary]:
        """Every run, oldest first, with its episode counts (`mseval runs list`)."""
        from harness.store_runs import summaries

        return summaries(self)

    def delete_runs(self, run_ids: list[str]) -> tuple[int, int]:
        """Delete whole runs (`mseval runs delete`); (episodes, events) deleted."""
        from harness.store_runs import delete_runs

        return delete_runs(self, run_ids)

    def vacuum(self) -> str | None:
        """Shrink a SQLite store's file after a delete; None when done, else why not."""
        from harness.store_runs import vacuum

        return vacuum(self)

    # -- episodes ------------------------------------------------------------------------------------
    def finished_keys(self, run_id: str) -> set[str]:
        with self.failing("read the run's episodes"), Session(self.engine) as s:
            rows = s.exec(
                select(EpisodeRow.key).where(EpisodeRow.run_id == run_id, EpisodeRow.status != "running")
            )
            return set(rows)

    def start_episode(self, key: str, run_id: str, task_id: str, model: str, variant: str, seed: int) -> int:
        """Mark an episode running; returns its attempt number (2+ when an interrupted one reruns)."""
        with self.failing("record an episode's start"), Session(self.engine) as s:
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
                raise ClaimLost(f"episode {key} was finished by another mseval process; this one stopped")
            else:
                row.attempt += 1
                row.started_at = _now()
            s.add(row)
            s.commit()
            return row.attempt

    def finish_episode(self, key: str, attempt: int, record: EpisodeRecord) -> None:
        """The outcome, in one transaction."""
        with self.failing("record an episode's outcome"), Session(self.engine) as s:
            row = s.get(EpisodeRow, key)
            if row is None or row.attempt != attempt:
                raise ClaimLost(f"episode {key} was run again by another mseval process; this one stopped")
            row.status = record.status
            row.ended_at = _now()
            row.record = record.model_dump(mode="json", by_alias=True)
            s.add(row)
            s.commit()

    def write_events(self, rows: list[dict[str, Any]]) -> None:
        if rows:
            with self.failing("record events"), self.engine.begin() as conn:
                conn.execute(insert(EventRow.__table__), rows)  # type: ignore[attr-defined]

    def events(self, key: str) -> list[EventRow]:
        """The events of the current attempt of one episode, in order."""
        with self.failing("read events"), Session(self.engine) as s:
            row = s.get(EpisodeRow, key)
            if row is None:
                return []
            stmt = (
                select(EventRow)
                .where(EventRow.episode_key == key, EventRow.attempt == row.attempt)
                .order_by(col(EventRow.seq))
            )
            return list(s.exec(stmt))

    def event_texts(self, key: str, first: int, limit: int, chars: int) -> list[EventText]:
        """Events `first`… (at most `limit`) of the current attempt of one episode, each with its
        data as JSON text of which at most `chars` + 1 characters are read (more: it was cut), a
        slice taken in the database (the viewer pages an episode of 200k events, of 1 MB each)."""
        events, episodes = EventRow.__table__.c, EpisodeRow.__table__.c  # type: ignore[attr-defined]
        text = func.substr(sa_cast(events.data, Text), 1, chars + 1)
        attempt = sa_select(episodes.attempt).where(episodes.key == key).scalar_subquery()
        stmt = (
            sa_select(events.seq, events.t, events.kind, events.agent, text)
            .where(events.episode_key == key, events.attempt == attempt)
            .order_by(events.seq)
            .offset(first)
            .limit(limit)
        )
        with self.failing("read events"), self.engine.connect() as conn:
            return [EventText(*row) for row in conn.execute(stmt).all()]

    def event_count(self, key: str) -> int:
        """How many events the current attempt of one episode has."""
        with self.failing("read events"), Session(self.engine) as s:
            row = s.get(EpisodeRow, key)
            if row is None:
                return 0
            stmt = select(func.count()).where(EventRow.episode_key == key, EventRow.attempt == row.attempt)
            return int(s.exec(stmt).one())

    def finished_mark(self) -> tuple[int, str | None, int]:
        """What changes whenever an episode finishes or a run starts: (finished episodes, the
        latest end, runs). A reader that keeps `records()` may reuse them while it is the same."""
        with self.failing("read its episodes"), Session(self.engine) as s:
            count, latest = s.exec(
                select(func.count(), func.max(EpisodeRow.ended_at)).where(EpisodeRow.status != "running")
            ).one()
            runs = s.exec(select(func.count()).select_from(RunRow)).one()
            return int(count), latest, int(runs)

    def records(self, run_id: str | None = None) -> list[EpisodeRecord]:
        """Finished episodes; per (task, model, variant, seed) the newest run's, so each counts
        once (`superseded` then says how many older runs' episodes were left out)."""
        with self.failing("read its episodes"), Session(self.engine) as s, gc_paused():
            stmt = (
                select(EpisodeRow, RunRow.created_at)
                .join(RunRow, col(RunRow.run_id) == EpisodeRow.run_id)
                .where(EpisodeRow.status != "running")
                .order_by(col(RunRow.created_at))
            )
            if run_id is not None:
                stmt = stmt.where(EpisodeRow.run_id == run_id)
            newest: dict[tuple[str, str, str, int], dict[str, Any]] = {}
            rows = 0
            for row, _created in s.exec(stmt):
                assert row.record is not None
                newest[(row.task_id, row.model, row.variant, row.seed)] = row.record
                rows += 1
            self.superseded = rows - len(newest)
            return [EpisodeRecord.model_validate(record) for record in newest.values()]


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
