"""Whole runs of a store: their summaries (`mseval runs list`), deleting them, and shrinking the
file after (`mseval runs delete`)."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from sqlalchemy import delete, func
from sqlalchemy import select as sa_select
from sqlalchemy.exc import SQLAlchemyError
from sqlmodel import select

from harness.claims import Owner, claim_alive
from harness.db_text import error_reason
from harness.store import (
    ClaimRow,
    EpisodeRow,
    EventRow,
    RunBusy,
    RunRow,
    Store,
)


@dataclass(frozen=True)
class RunSummary:
    """One run of a store, as `mseval runs list` shows it."""

    run_id: str
    created_at: str
    matrix_key: str
    identity: dict[str, Any]
    episodes: dict[str, int]  # by status: completed, absent, running
    in_use: int  # finished episodes that no newer run replaces: those scoring and export take
    events: int
    busy: bool  # a live process holds the run


def summaries(store: Store) -> list[RunSummary]:
    runs_t, episodes = RunRow.__table__, EpisodeRow.__table__  # type: ignore[attr-defined]
    events_t, claims = EventRow.__table__, ClaimRow.__table__  # type: ignore[attr-defined]
    with store.failing("read its runs"), store.engine.connect() as conn:
        runs = conn.execute(runs_t.select().order_by(runs_t.c.created_at)).all()
        counts: dict[str, dict[str, int]] = {r.run_id: {} for r in runs}
        newest: dict[tuple[str, str, str, int], str] = {}
        e = episodes.c
        # In the order `records()` reads them, so the same episodes count as in use.
        in_order = (
            sa_select(e.run_id, e.status, e.task_id, e.model, e.variant, e.seed)
            .join(runs_t, runs_t.c.run_id == e.run_id)
            .order_by(runs_t.c.created_at)
        )
        for run_id, status, task, model, variant, seed in conn.execute(in_order):
            if run_id not in counts:  # a run created after the runs were read
                continue
            by_status = counts[run_id]
            by_status[status] = by_status.get(status, 0) + 1
            if status != "running":
                newest[(task, model, variant, seed)] = run_id
        in_use: dict[str, int] = {}
        for run_id in newest.values():
            in_use[run_id] = in_use.get(run_id, 0) + 1
        per_run = (
            sa_select(e.run_id, func.count(events_t.c.id))
            .join(events_t, events_t.c.episode_key == e.key)
            .group_by(e.run_id)
        )
        events: dict[str, int] = dict(conn.execute(per_run).all())
        now = time.time()
        busy = {c.run_id for c in conn.execute(claims.select()) if claim_alive(c, now)}
    return [
        RunSummary(
            r.run_id,
            r.created_at,
            r.matrix_key,
            r.identity,
            counts.get(r.run_id, {}),
            in_use.get(r.run_id, 0),
            int(events.get(r.run_id, 0)),
            r.run_id in busy,
        )  # fmt: skip
        for r in runs
    ]


def delete_runs(store: Store, run_ids: list[str]) -> tuple[int, int]:
    """Delete the runs, their episodes, events and claims; (episodes, events). Each run's claim is
    taken first, as `--resume` takes it, so no process can start or resume one of them while it
    goes (`RunBusy`, and nothing deleted, when a live process holds one); then every row goes in
    one transaction."""
    runs, episodes = RunRow.__table__, EpisodeRow.__table__  # type: ignore[attr-defined]
    events, claims = EventRow.__table__, ClaimRow.__table__  # type: ignore[attr-defined]
    deleter = Owner()
    taken: list[str] = []
    try:
        for run_id in run_ids:
            store.claim_run(run_id, deleter)
            taken.append(run_id)
    except RunBusy:
        for run_id in taken:
            store.release_claim(run_id, deleter)
        raise
    with store.failing("delete runs"), store.engine.begin() as conn:
        keys = select(episodes.c.key).where(episodes.c.run_id.in_(run_ids)).scalar_subquery()
        gone_events = conn.execute(delete(events).where(events.c.episode_key.in_(keys))).rowcount
        gone_episodes = conn.execute(delete(episodes).where(episodes.c.run_id.in_(run_ids))).rowcount
        conn.execute(delete(claims).where(claims.c.run_id.in_(run_ids)))
        conn.execute(delete(runs).where(runs.c.run_id.in_(run_ids)))
    return int(gone_episodes), int(gone_events)


def vacuum(store: Store) -> str | None:
    """Give a SQLite store's freed pages back to the file system; None when done, else why not
    (not SQLite, a live process writing to it, or VACUUM failed: a lock, no room for its copy)."""
    if store.file is None:
        return "not a SQLite store"
    claims = ClaimRow.__table__  # type: ignore[attr-defined]
    try:
        with store.engine.connect() as conn:
            now = time.time()
            if any(claim_alive(c, now) for c in conn.execute(claims.select())):
                return "a run is going on in it (VACUUM would lock it out)"
            conn.exec_driver_sql("VACUUM")
    except SQLAlchemyError as exc:
        return f"VACUUM failed: {error_reason(exc)}"
    return None
