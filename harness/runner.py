"""The runner: the matrix of (task, model, variant, seed) episodes, run concurrently, recorded.

Each episode: a fresh world, fresh server instances, its own event log; its outcome goes to the
store in one transaction. A fault of ours (an exception anywhere in the harness, a server that
fails twice) ends the episode as `harness_error`, recorded as absent with the traceback.

A run is held by one process at a time (the store's claim, renewed while it runs): a second
`--resume` of a run in progress is refused (`InputError`) instead of running its episodes
twice in the same world folders. A store that fails mid-run stops the run with one
`StoreError`; the episodes it interrupted are `running` and `--resume` runs them again.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hashlib
import re
import time
import traceback
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from contracts.episode import NORMAL_TERMINATIONS, EpisodeRecord
from contracts.errors import InputError
from harness.budgets import Budgets, Termination
from harness.catalog import Task
from harness.checks import Criterion
from harness.claims import CLAIM_RENEW_S, Owner
from harness.db_text import first_line
from harness.episode import EpisodeRuntime, EpisodeSetup
from harness.event_stream import EventStreamer
from harness.events import EventLog
from harness.faults import breach_reason, first_cause, server_lost
from harness.identity import matrix_key, run_identity
from harness.mcp_client import ServerPool, Transport
from harness.models.base import ModelSettings
from harness.models.pricing import PriceTable
from harness.models.ratelimit import RateLimits
from harness.models.registry import ModelFactory
from harness.profiles import ProfileSet
from harness.records import build_record
from harness.store import (
    ClaimLost,
    RunBusy,
    Store,
    StoreError,
    WorldServerLost,
    episode_key,
)
from harness.task_check import bounded_check
from harness.world import EpisodeWorld, create_world_in_thread


@dataclass(frozen=True)
class Job:
    task: Task
    model: str
    variant: str
    seed: int


@dataclass
class RunPlan:
    """What to run: every (model, variant) setting on every task and seed."""

    settings_matrix: list[tuple[str, str]]
    tasks: list[Task]
    profiles: ProfileSet
    seeds: int = 1
    budgets: Budgets = field(default_factory=Budgets)
    settings: ModelSettings = field(default_factory=ModelSettings)
    prices: PriceTable | None = None
    store_url: str = "sqlite:///runs/mseval.db"
    transport: Transport = "inprocess"
    concurrency: int = 4
    db_base: str = "sqlite"
    runs_dir: Path = Path("runs")
    resume: bool = False
    base_url: str | None = None
    api_key_env: str | None = None
    server_options: dict[str, Any] = field(default_factory=dict)
    rate_limits: dict[str, RateLimits] = field(default_factory=dict)
    shared_limits: bool = False  # set by the Ray executor: one window for the whole cluster

    @property
    def models(self) -> list[str]:
        return list(dict.fromkeys(m for m, _ in self.settings_matrix))

    @property
    def variants(self) -> list[str]:
        return list(dict.fromkeys(v for _, v in self.settings_matrix))

    def jobs(self) -> list[Job]:
        return [
            Job(t, m, v, s) for m, v in self.settings_matrix for t in self.tasks for s in range(self.seeds)
        ]


@dataclass
class RunResult:
    run_id: str
    records: list[EpisodeRecord]
    skipped: int
    resumed: bool = False  # an earlier run of the same settings was found and continued


Progress = Callable[[EpisodeRecord], None]


MAX_ID_CHARS = 80


def _safe(text: str) -> str:
    """`text` as a folder name: itself when it is one (safe characters, at most 80), else its
    safe characters cut short and a hash of the whole, so two texts never share a name (a long
    model id cut the seed and the variant off, and episodes shared one world)."""
    safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", text)
    if safe == text and len(text) <= MAX_ID_CHARS:
        return text
    digest = hashlib.sha256(text.encode()).hexdigest()[:10]
    return f"{safe[: MAX_ID_CHARS - len(digest) - 1]}-{digest}"


def plan_identity(p: RunPlan) -> dict[str, Any]:
    """The run identity of plan `p`; runs of equal identities share a matrix key (--resume)."""
    profiles = [p.profiles.variant(v) for v in p.variants]
    profiles += [r for v in profiles for r in p.profiles.roles(v).values()]
    return run_identity(
        tasks=p.tasks, profiles=list({x.name: x for x in profiles}.values()), models=p.models, variants=p.variants,
        matrix=[f"{m}/{v}" for m, v in p.settings_matrix],
        seeds=p.seeds, settings=p.settings.model_dump(), budgets=p.budgets.model_dump(),
        price_version=p.prices.version if p.prices else None, base_url=p.base_url, server_options=p.server_options,
    )  # fmt: skip


def refuse_busy_resume(plan: RunPlan) -> None:
    """With --resume, the refusal `Runner.prepare` would give after its claim, given now: an
    `InputError` when a live process holds the run to be resumed. For a caller with costly work
    to do before it claims (the Ray driver starts Ray). Only reads, and not a store that is not
    there yet (nothing to resume); the claim still decides, as the run may be taken meanwhile."""
    if not plan.resume:
        return
    store = Store.existing(plan.store_url)
    if store is None:
        return
    try:
        run_id = store.latest_run(matrix_key(plan_identity(plan)))
        if run_id is not None:
            store.refuse_if_busy(run_id)
    except RunBusy as exc:
        raise InputError.one("--resume", None, str(exc)) from None
    finally:
        store.close()


def finished_resume(plan: RunPlan) -> RunResult | None:
    """With --resume, the `RunResult` `Runner.run` would give when the run to be resumed has no
    episode left to run (nothing run, its finished ones skipped), told now by reading the store;
    else None. For a caller with costly work to do before it claims (the Ray driver starts Ray).
    Writes nothing, and reads no store that is not there yet (nothing to resume)."""
    if not plan.resume:
        return None
    store = Store.existing(plan.store_url)
    if store is None:
        return None
    try:
        run_id = store.latest_run(matrix_key(plan_identity(plan)))
        done = store.finished_keys(run_id) if run_id is not None else set()
    finally:
        store.close()
    if run_id is None or _pending(plan, run_id, done):
        return None
    return RunResult(run_id=run_id, records=[], skipped=len(done), resumed=True)


def _pending(plan: RunPlan, run_id: str, done: set[str]) -> list[Job]:
    """The plan's jobs whose episode in run `run_id` is not among the finished `done`."""
    return [j for j in plan.jobs() if episode_key(run_id, j.task.id, j.model, j.variant, j.seed) not in done]


class Runner:
    def __init__(self, plan: RunPlan) -> None:
        self.plan = plan
        self.store = Store(plan.store_url)
        self.resumed = False  # set by `prepare` when --resume found the run
        self.factory = ModelFactory(
            settings=plan.settings, base_url=plan.base_url, api_key_env=plan.api_key_env,
            rate_limits=plan.rate_limits, shared_limits=plan.shared_limits,
        )  # fmt: skip

    def identity(self) -> dict[str, Any]:
        return plan_identity(self.plan)

    def prepare(self, owner: Owner | None = None) -> tuple[str, list[Job], int]:
        """The run (new, or with --resume the latest one of the same matrix) and its pending jobs.

        With `owner` the run is claimed for it first: `InputError` when another live process
        runs it (its pending episodes would run twice, in the same world folders)."""
        identity = self.identity()
        key = matrix_key(identity)
        run_id = self.store.latest_run(key) if self.plan.resume else None
        if run_id is None:
            run_id = uuid.uuid4().hex[:12]
            self.store.create_run(run_id, key, identity, owner)
        else:
            self.resumed = True
            if owner is not None:
                try:
                    self.store.claim_run(run_id, owner)
                except RunBusy as exc:
                    raise InputError.one("--resume", None, str(exc)) from None
        done = self.store.finished_keys(run_id)
        return run_id, _pending(self.plan, run_id, done), len(done)

    @contextlib.contextmanager
    def claimed_run(self) -> Iterator[tuple[Owner, str, list[Job], int]]:
        """`prepare` for this process, the run's claim released when the block ends (by the
        local runner and by the Ray driver alike)."""
        owner = Owner()
        run_id, jobs, skipped = self.prepare(owner)
        try:
            yield owner, run_id, jobs, skipped
        finally:
            with contextlib.suppress(StoreError):  # a store that failed keeps the claim; it goes stale
                self.store.release_claim(run_id, owner)

    async def run(self, progress: Progress | None = None) -> RunResult:
        records: list[EpisodeRecord] = []
        try:
            with self.claimed_run() as (owner, run_id, jobs, skipped):
                await self._run_jobs(run_id, jobs, owner, records, progress)
        except BaseExceptionGroup as group:
            failed = first_store_failure(group)
            if failed is None:
                raise
            raise failed from None  # one line for the command line, not a group
        finally:
            await self.close()
        return RunResult(run_id=run_id, records=records, skipped=skipped, resumed=self.resumed)

    async def _run_jobs(
        self,
        run_id: str,
        jobs: list[Job],
        owner: Owner,
        records: list[EpisodeRecord],
        progress: Progress | None,
    ) -> None:
        slots = asyncio.Semaphore(self.plan.concurrency)
        async with EventStreamer(self.store) as streamer:

            async def one(job: Job) -> None:
                async with slots:
                    record = await self.run_episode(job, run_id, streamer)
                records.append(record)
                if progress is not None:
                    progress(record)

            async with asyncio.TaskGroup() as run_group:
                claim = run_group.create_task(self._keep_claim(run_id, owner), name="run-claim")
                async with asyncio.TaskGroup() as tg:
                    for job in jobs:
                        tg.create_task(one(job))
                claim.cancel()

    async def _keep_claim(self, run_id: str, owner: Owner) -> None:
        """Renew the run's claim while it runs; a lost claim or a failing store stops the run."""
        while True:
            await asyncio.sleep(CLAIM_RENEW_S)
            await asyncio.to_thread(self.store.renew_claim, run_id, owner)

    async def close(self) -> None:
        await self.factory.aclose()
        self.store.close()

    def record_lost(self, job: Job, run_id: str, reason: str) -> EpisodeRecord:
        """Record as absent, with `reason`, an episode whose process died under it (a Ray
        worker): a new attempt that ends at once, so it is counted once and a reader sees why. If
        the process had recorded its outcome before dying, that outcome stands."""
        task = job.task
        key = episode_key(run_id, task.id, job.model, job.variant, job.seed)
        try:
            attempt = self.store.start_episode(key, run_id, task.id, job.model, job.variant, job.seed)
        except ClaimLost:  # finished: its record is there
            return next(r for r in self.store.records(run_id) if r.episode_id == _episode_id(run_id, job))
        record = build_record(
            None, task_id=task.id, model=job.model, variant=job.variant, seed=job.seed,
            episode_id=_episode_id(run_id, job), run_id=run_id, checks=None, termination="harness_error",
            reason=reason, duration_s=0.0, price_version=self.plan.prices.version if self.plan.prices else None,
        )  # fmt: skip
        self.store.finish_episode(key, attempt, record)
        return record

    async def run_episode(self, job: Job, run_id: str, streamer: EventStreamer) -> EpisodeRecord:
        plan, task = self.plan, job.task
        key = episode_key(run_id, task.id, job.model, job.variant, job.seed)
        attempt = await asyncio.to_thread(
            self.store.start_episode, key, run_id, task.id, job.model, job.variant, job.seed
        )
        episode_id = _episode_id(run_id, job)
        events = EventLog(streamer.sink(key, attempt))
        t0 = time.monotonic()
        rt: EpisodeRuntime | None = None
        checks: list[Criterion] | None = None
        termination: Termination | None = None
        reason: str | None = None
        world: EpisodeWorld | None = None
        check_finished = True
        try:
            world = await create_world_in_thread(
                task, episode_id, plan.runs_dir / "episodes" / run_id, plan.db_base
            )
            variant = plan.profiles.variant(job.variant)
            budgets = plan.budgets.merged(task.spec.budgets.as_dict() if task.spec.budgets else None)
            setup = EpisodeSetup(
                model=self.factory.for_episode(job.model, task, job.seed), settings=plan.settings, variant=variant,
                roles=plan.profiles.roles(variant), servers=task.servers, prompt=task.spec.prompt, budgets=budgets,
                prior=task.prior, prices=plan.prices,
            )  # fmt: skip
            servers = [*task.servers, "local"]
            async with ServerPool(
                servers, world.access(plan.server_options), plan.transport,
                timeout_s=budgets.tool_timeout_s, result_bytes=budgets.tool_result_bytes, events=events,
            ) as pool:  # fmt: skip
                rt = EpisodeRuntime(setup, pool, events)
                budget = asyncio.timeout(budgets.wall_time_s)
                try:
                    async with budget:
                        termination = await rt.run()
                except TimeoutError:
                    if not budget.expired():  # a TimeoutError of ours, not the budget's
                        raise
                    termination = "time_limit"
                    events.emit("budget_breach", "main", reason="time_limit", wall_time_s=budgets.wall_time_s)
            checks, check_finished = await bounded_check(task, world)
            events.emit("check", passed=all(c.passed for c in checks), criteria=[c.__dict__ for c in checks])
        except Exception as exc:  # a fault of ours: recorded with its traceback, never hidden
            if plan.db_base != "sqlite" and (lost := server_lost(exc)):
                raise WorldServerLost(f"the database server of --db stopped answering: {lost}") from exc
            cause = first_cause(exc)
            # the reason in one line (a list prints one per line); the event keeps the whole text
            termination, reason = "harness_error", f"{type(cause).__name__}: {first_line(cause)}"
            events.emit(
                "harness_error",
                error=f"{type(cause).__name__}: {cause}",
                traceback=traceback.format_exc()[-8000:],
            )
        finally:
            if world is not None:
                world.close(keep_database=not check_finished)
        if reason is None and termination is not None and termination not in NORMAL_TERMINATIONS:
            reason = breach_reason(events, termination, rt.main.run_id if rt is not None else "main")
        events.emit("termination", reason=termination)
        record_of = functools.partial(
            build_record, task_id=task.id, model=job.model, variant=job.variant, seed=job.seed,
            episode_id=episode_id, run_id=run_id, checks=checks, duration_s=time.monotonic() - t0,
            price_version=plan.prices.version if plan.prices else None,
        )  # fmt: skip
        try:
            record = record_of(rt, termination=termination, reason=reason)
        except Exception as exc:  # what the episode left cannot be a record: still recorded, once
            reason = f"the episode's record could not be built: {type(exc).__name__}: {exc}"
            events.emit("harness_error", error=reason, traceback=traceback.format_exc()[-8000:])
            record = record_of(None, termination="harness_error", reason=" ".join(reason.split()))
        await streamer.flush()
        await asyncio.to_thread(self.store.finish_episode, key, attempt, record)
        return record


def first_store_failure(group: BaseExceptionGroup[Any]) -> BaseException | None:
    """The first `StoreError` in a task group's failure `group` (what stops a run), or None."""
    failed, _ = group.split(StoreError)
    return first_cause(failed) if failed is not None else None


def _episode_id(run_id: str, job: Job) -> str:
    return _safe(f"{run_id}-{job.task.id}-{job.model}-{job.variant}-{job.seed}")
