"""Worker processes on this machine (`mseval demo --workers N`): a run's episodes shared among N
processes, for runs bound by this machine's CPU rather than by a model's latency. The simulated
agents are such a run: in one process the demo's episodes kept ~1.2 of two cores busy (one
interpreter runs one thread of Python at a time).

The driver claims the run, as a local run does, and starts N worker processes (spawned: a fresh
interpreter each), each with a pipe to it. A worker runs `lanes` episodes at a time on its own
event loop, with its own store connection, worlds and servers; the driver hands each worker a
job a lane (its index in the run's jobs) and another one for each outcome the worker sends
back, and "none" once all are handed out, which ends a lane. So the driver knows which episodes
each worker holds: when one dies (killed, out of memory), the driver records those as absent,
with the reason (as the Ray driver does for a lost worker), and starts another worker in its
place if jobs are left: at most N replacements in a run, so a worker that dies as it starts
cannot loop; jobs left after that are recorded absent too. Every episode is recorded exactly
once. The driver also renews the run's claim and tells the progress bar.

A store failure in a worker stops the run as it stops a local run. Ctrl-C and SIGTERM stop the
workers: they ignore SIGINT, and start with it blocked (a terminal's Ctrl-C reaches the whole
process group), and the driver sends each a SIGTERM, on which a worker cancels its episodes as a
local run does.

Rate limits (`--rpm`, `--tpm`) are windows kept in one process, so this is for runs without them:
the demo's.
"""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import os
import signal
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from multiprocessing import resource_tracker
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess

from contracts.episode import EpisodeRecord
from harness.claims import CLAIM_RENEW_S, Owner
from harness.db_text import first_line
from harness.event_stream import EventStreamer
from harness.faults import first_cause
from harness.ray_executor import plan_for_workers
from harness.runner import Job, Progress, Runner, RunPlan, RunResult, first_store_failure
from harness.store import ClaimLost, StoreError, WorldServerLost

STOP_WAIT_S = 30.0
"""How long a stopped worker has to close its episodes before it is killed."""

_STORE_ERRORS = {cls.__name__: cls for cls in (StoreError, ClaimLost, WorldServerLost)}


def default_workers(concurrency: int) -> int:
    """One worker per core this process may use, no more than `concurrency` (each runs one
    episode at least)."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return max(1, min(cores, concurrency))


def run_in_processes(plan: RunPlan, workers: int, progress: Progress | None = None) -> RunResult:
    """Run `plan`'s episodes in `workers` processes, `plan.concurrency` of them at once in all."""
    driver = Runner(plan)
    try:
        with driver.claimed_run() as (owner, run_id, jobs, skipped):
            records = _Share(plan, driver, owner, run_id, jobs, workers, progress).run() if jobs else []
    finally:
        driver.store.close()
    return RunResult(run_id=run_id, records=records, skipped=skipped, resumed=driver.resumed)


@dataclass
class _Worker:
    wid: int
    process: BaseProcess
    pipe: Connection  # the driver's end
    holds: set[int] = field(default_factory=set)  # the jobs handed to it and not yet back
    error: str | None = None  # what the worker said when it failed


class _Share:
    """One run's jobs shared among worker processes, driven from this (the driver's) thread."""

    def __init__(
        self, plan: RunPlan, driver: Runner, owner: Owner, run_id: str, jobs: list[Job], workers: int,
        progress: Progress | None,
    ) -> None:  # fmt: skip
        self.driver, self.owner, self.run_id, self.jobs, self.progress = driver, owner, run_id, jobs, progress
        self.count = max(1, min(workers, len(jobs)))
        self.lanes = -(-plan.concurrency // self.count)  # the run's concurrency, over the workers
        self.replacements = self.count
        self.ctx = multiprocessing.get_context("spawn")
        self.plan = plan_for_workers(plan)
        self.next_job = 0  # the first job not handed out
        self.records: list[EpisodeRecord] = []
        self.workers: dict[int, _Worker] = {}
        self.next_wid = 0

    def run(self) -> list[EpisodeRecord]:
        try:
            for _ in range(self.count):
                self._start()
            renewed = time.monotonic()
            while self.workers:
                ends = [w.pipe for w in self.workers.values()] + [
                    w.process.sentinel for w in self.workers.values()
                ]
                wait(ends, timeout=CLAIM_RENEW_S)
                if time.monotonic() - renewed >= CLAIM_RENEW_S:  # the run is still held by this driver
                    self.driver.store.renew_claim(self.run_id, self.owner)
                    renewed = time.monotonic()
                for w in list(self.workers.values()):
                    ended = not w.process.is_alive()  # before reading: all it sent is then in the pipe
                    self._read(w)
                    if ended:
                        self._ended(w)
            for i in range(self.next_job, len(self.jobs)):  # every worker died, none may replace them
                self._lost(i, "no worker process was left to run it (the run's workers kept dying)")
        finally:
            self._stop()
        return self.records

    def _start(self) -> None:
        wid, self.next_wid = self.next_wid, self.next_wid + 1
        mine, theirs = self.ctx.Pipe()
        process = self.ctx.Process(
            target=_work,
            name=f"mseval-worker-{wid}",
            args=(self.plan, self.jobs, self.run_id, self.lanes, theirs),
        )
        held = start_deferring_signals(process)
        theirs.close()  # the worker's end, held by the worker alone: its death ends the pipe
        w = self.workers[wid] = _Worker(wid, process, mine)
        deliver(held)  # a Ctrl-C or SIGTERM now stops the run, this worker with it
        for _ in range(self.lanes):
            self._hand(w)

    def _hand(self, w: _Worker) -> None:
        """Give `w` the next job, or None (a lane of it ends) when every job is handed out."""
        i = self.next_job if self.next_job < len(self.jobs) else None
        with contextlib.suppress(OSError):  # it died: `_ended` tells
            w.pipe.send(i)
            if i is not None:
                w.holds.add(i)
                self.next_job += 1

    def _read(self, w: _Worker) -> None:
        with contextlib.suppress(EOFError, OSError):  # the worker is gone and everything was read
            while w.pipe.poll():
                message = w.pipe.recv()
                if message[0] == "done":
                    _, i, record = message
                    w.holds.discard(i)
                    self._recorded(EpisodeRecord.model_validate(record))
                    self._hand(w)
                elif message[0] == "store":  # the store failed: the run stops, as a local one does
                    _, kind, text = message
                    raise _STORE_ERRORS.get(kind, StoreError)(text)
                else:
                    w.error = message[1]

    def _ended(self, w: _Worker) -> None:
        w.process.join()
        w.pipe.close()
        del self.workers[w.wid]
        code = w.process.exitcode
        if code == 0 and not w.holds:
            return
        how = w.error or (
            f"killed by {signal.Signals(-code).name}" if code and code < 0 else f"exit code {code}"
        )
        for i in sorted(w.holds):
            self._lost(i, f"its worker process died before the episode ended ({how})")
        if self.next_job < len(self.jobs) and self.replacements > 0:
            self.replacements -= 1
            self._start()

    def _lost(self, i: int, reason: str) -> None:
        self._recorded(self.driver.record_lost(self.jobs[i], self.run_id, reason))

    def _recorded(self, record: EpisodeRecord) -> None:
        self.records.append(record)
        if self.progress is not None:
            self.progress(record)

    def _stop(self) -> None:
        """Stop the workers still running (Ctrl-C, SIGTERM, a failed store): each closes its
        episodes on SIGTERM; one that does not within `STOP_WAIT_S` is killed."""
        for w in self.workers.values():
            w.process.terminate()
        for w in self.workers.values():
            w.process.join(STOP_WAIT_S)
            if w.process.is_alive():
                w.process.kill()
                w.process.join()
            w.pipe.close()
        self.workers.clear()


DEFERRED = (signal.SIGINT, signal.SIGTERM)


def start_deferring_signals(process: BaseProcess) -> list[int]:
    """Start `process` with SIGINT blocked from its first instruction, and return the signals
    of `DEFERRED` that came to this process meanwhile, held back; `deliver` them once the
    process is looked after. Call it from the main thread.

    A Ctrl-C while a worker still imported its modules (a second or two) printed its
    KeyboardInterrupt traceback under the demo's message; one while the driver was still
    sending a new worker its work (the pickled plan) cut that short, and the worker's traceback
    of a truncated pickle showed. A child inherits the signal mask of the thread that forks it,
    through exec; the driver's handlers are put back before this returns."""
    # multiprocessing starts its resource tracker at the first spawn, with SIGINT blocked and then
    # unblocked (not restored), which would undo the block below: it is started first.
    resource_tracker.ensure_running()
    came: list[int] = []
    handlers = {sig: signal.signal(sig, lambda signum, _frame: came.append(signum)) for sig in DEFERRED}
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        process.start()
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        for sig, handler in handlers.items():
            signal.signal(sig, handler if handler is not None else signal.SIG_DFL)
    return list(dict.fromkeys(came))


def deliver(signals: list[int]) -> None:
    """Raise again, to this process's own handlers, the signals `start_deferring_signals` held."""
    for sig in signals:
        signal.raise_signal(sig)


def _work(plan: RunPlan, jobs: Sequence[Job], run_id: str, lanes: int, pipe: Connection) -> None:
    """A worker process: the episodes the driver hands it, `lanes` at a time, each outcome sent
    back; a lane ends when the driver hands it None."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the driver stops the workers
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})  # blocked until now; ignored from now
    from harness.cli.stopping import Terminated, until_terminated
    from harness.memory import limit_malloc_arenas

    limit_malloc_arenas()  # as the command line does for itself, before any thread

    async def episodes() -> None:
        handed: asyncio.Queue[int | None] = asyncio.Queue()
        loop = asyncio.get_running_loop()

        def receive() -> None:
            try:
                handed.put_nowait(pipe.recv())
            except (EOFError, OSError):  # the driver is gone: every lane ends after its episode
                loop.remove_reader(pipe.fileno())
                for _ in range(lanes):
                    handed.put_nowait(None)

        loop.add_reader(pipe.fileno(), receive)
        runner = Runner(plan)
        try:
            async with EventStreamer(runner.store) as streamer:

                async def lane() -> None:
                    while (i := await handed.get()) is not None:
                        record = await runner.run_episode(jobs[i], run_id, streamer)
                        pipe.send(("done", i, record.model_dump(mode="json", by_alias=True)))

                async with asyncio.TaskGroup() as tg:
                    for _ in range(lanes):
                        tg.create_task(lane())
        finally:
            loop.remove_reader(pipe.fileno())
            await runner.close()

    try:
        asyncio.run(until_terminated(episodes()))
    except Terminated:  # stopped by the driver, which records nothing more
        return
    except BaseException as exc:
        cause = exc
        if isinstance(exc, BaseExceptionGroup):  # a lane's failure: a store's first, as a local run
            cause = first_store_failure(exc) or first_cause(exc)
        with contextlib.suppress(OSError):
            if isinstance(cause, StoreError):
                pipe.send(("store", type(cause).__name__, str(cause)))
            else:
                pipe.send(("error", f"{type(cause).__name__}: {first_line(cause)}"))
        raise SystemExit(1) from None
