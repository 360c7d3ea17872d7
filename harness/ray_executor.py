"""`--executor ray`: each episode is a Ray task (SPEC §13).

The driver creates (or, with --resume, finds) the run in the store and submits its pending
episodes, `--concurrency` of them in flight at a time (the next submitted as one ends), or all at
once when a cluster joined with `--ray-address` is given no `--concurrency`; each worker builds its own world and servers and writes its events and outcome to the
same store, which should then be PostgreSQL (`--store postgresql+psycopg://...`) — or a SQLite
file on a disk every worker sees, for one machine. `--ray-address` joins a cluster; without it
a local Ray instance starts with `--concurrency` CPUs, listening on 127.0.0.1 only (see
`import_ray`). The driver holds the run's claim (renewed while it waits for the tasks), so a
second process cannot run or resume it at the same time; a --resume of a run held that way is
refused before Ray starts, and a --resume of a run with no episode left to run ends without
starting Ray, as a local one does.
"""

from __future__ import annotations

import asyncio
import dataclasses
import ipaddress
import itertools
import logging
import os
import signal
import socket
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from contracts.episode import EpisodeRecord
from contracts.errors import InputError
from harness.catalog import Task
from harness.claims import CLAIM_RENEW_S, Owner
from harness.event_stream import EventStreamer
from harness.runner import Job, Runner, RunPlan, RunResult, finished_resume, refuse_busy_resume
from harness.store import ClaimLost, StoreError, episode_key

# Ray's switch for single-machine clusters (its default on macOS and Windows): with it off, a
# local instance takes 127.0.0.1 as its node address, and its GCS, raylet, workers and runtime-env
# agent listen there only. Left on (Ray's default on Linux), they listen on every interface.
# Read by Ray once, at import, in the driver and (through the environment) in every worker.
RAY_LOOPBACK_ENV = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"


def import_ray(address: str | None) -> Any:
    """The `ray` module, imported so that a local instance started without `address`, or joined
    at a loopback `address` (127.0.0.1:PORT, localhost:PORT), is reached on 127.0.0.1 only: Ray
    otherwise puts the machine's network address for a loopback one, where a cluster listening on
    127.0.0.1 does not answer. The caller's own `RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER` stands;
    joining another host changes nothing. Must come before anything else imports ray."""
    if not address or address == "local" or _loopback(address):  # `local`: Ray starts one
        os.environ.setdefault(RAY_LOOPBACK_ENV, "0")
    try:
        import ray
    except ImportError:
        raise InputError.one("--executor", None, "ray is not installed: pip install 'mseval[ray]'") from None
    return ray


def _loopback(address: str) -> bool:
    host = address.rpartition(":")[0].strip("[]")
    try:
        return host == "localhost" or ipaddress.ip_address(host).is_loopback
    except ValueError:  # a host name, or no host:port at all (Ray tells what is wrong)
        return False


JOIN_PROBE_S = 10.0
"""How long the driver waits for the TCP connection to a --ray-address before calling it
unreachable. Ray's own wait for a cluster that does not answer is 20 tries of about 40 s."""


def _cannot_join(address: str) -> str | None:
    """Why Ray cannot join `address`, told before `ray.init` tries: a malformed one (Ray logs a
    traceback for some before it raises), or nothing answering at the address Ray would contact
    (a TCP connection to it refused, or not made within `JOIN_PROBE_S`); else None. Ray Client
    addresses (ray://…) are left to `ray.init`."""
    try:
        from ray._common.network_utils import parse_address
        from ray._private.services import canonicalize_bootstrap_address
    except ImportError:  # moved in another Ray: ray.init judges
        return None
    if address.startswith("ray://"):
        return None
    services = logging.getLogger("ray._private.services")
    was = services.disabled
    services.disabled = True
    try:
        target = canonicalize_bootstrap_address(address)
        if target is None:  # `local`: ray.init starts one
            return None
        host, port = (str(part) for part in parse_address(target))
    except Exception as exc:  # a malformed one, or `auto` with no cluster found
        return _first_line(exc)
    finally:
        services.disabled = was
    if not port.isdigit() or not 0 < int(port) < 65536:
        return f"{port!r} is not a port number (1-65535)"
    try:
        socket.create_connection((host, int(port)), timeout=JOIN_PROBE_S).close()
    except OSError as exc:
        why = "no answer" if isinstance(exc, TimeoutError) else _first_line(exc)
        return f"nothing answers at {target} ({why})"
    return None


def run_one_episode(plan: RunPlan, job: Job, run_id: str) -> dict[str, Any]:
    """Body of a Ray task: one episode, on its own event loop and store connection."""

    async def go() -> EpisodeRecord:
        runner = Runner(plan)
        try:
            async with EventStreamer(runner.store) as streamer:
                return await runner.run_episode(job, run_id, streamer)
        finally:
            await runner.close()

    return asyncio.run(go()).model_dump(mode="json", by_alias=True)


def run_with_ray(
    plan: RunPlan, address: str | None, progress: Callable[[EpisodeRecord], None] | None = None, *,
    whole_cluster: bool = False,
) -> RunResult:  # fmt: skip
    """Run `plan`'s episodes as Ray tasks, at most `plan.concurrency` of them submitted at once;
    with `whole_cluster` and an `address`, all of them at once (the cluster's CPUs decide)."""
    plan = dataclasses.replace(plan, shared_limits=True)
    # What reading the store can tell is told before Ray starts (seconds, a dozen processes): a
    # --resume of a run another process holds is refused, one with nothing left to run is done.
    refuse_busy_resume(plan)
    finished = finished_resume(plan)
    if finished is not None:
        return finished
    ray = import_ray(address)
    # Ray before any write: an address it cannot join is told before the run is in the store
    with _ray_session(ray, address, plan.concurrency):
        driver = Runner(plan)
        try:
            with driver.claimed_run() as (owner, run_id, jobs, skipped):  # held as a local run is
                limit = None if whole_cluster and address else plan.concurrency
                return _submit(ray, plan, progress, driver, owner, run_id, jobs, skipped, limit)
        finally:
            driver.store.close()


@contextmanager
def _ray_session(ray: Any, address: str | None, cpus: int) -> Iterator[None]:
    """Ray joined at `address`, or a local instance of `cpus` started (and shut down after),
    unless this process is already connected. `InputError` when Ray cannot start or join."""
    os.environ.setdefault("RAY_AUTH_MODE", "disabled")
    if ray.is_initialized():
        yield
        return
    if address and (why := _cannot_join(address)) is not None:  # Ray would retry it for minutes
        raise InputError.one("--ray-address", None, f"cannot join Ray at {address!r}: {why}")
    on_sigterm = signal.getsignal(signal.SIGTERM)
    try:
        if address:
            ray.init(address=address, log_to_driver=False)
        else:
            ray.init(num_cpus=cpus, include_dashboard=False, log_to_driver=False)
    except Exception as exc:  # a malformed or unreachable address, a cluster that refuses us
        ray.shutdown()
        where = f"cannot join Ray at {address!r}" if address else "cannot start a local Ray instance"
        raise InputError.one(
            "--ray-address" if address else "--executor", None, f"{where}: {_first_line(exc)}"
        ) from None
    finally:
        # Ray's driver handler exits 15 with a stack dump; the caller's (the CLI stops the run
        # cleanly and says how to resume) stands.
        signal.signal(signal.SIGTERM, on_sigterm)
    try:
        yield
    finally:
        ray.shutdown()


def _submit(
    ray: Any, plan: RunPlan, progress: Callable[[EpisodeRecord], None] | None, driver: Runner, owner: Owner,
    run_id: str, jobs: list[Job], skipped: int, limit: int | None = None,
) -> RunResult:  # fmt: skip
    """Submit `jobs`, no more than `limit` in flight (None: all at once), and gather their records."""
    from harness.models.ratelimit import create_shared_windows

    windows: list[Any] = []
    try:
        windows = create_shared_windows(plan.rate_limits)  # held, so alive, until the run ends
        task = ray.remote(run_one_episode)
        for_workers = ray.put(plan_for_workers(plan))  # once, not a copy per episode
        waiting = iter(jobs)
        job_of: dict[Any, Job] = {}

        def submit(count: int) -> list[Any]:
            refs = []
            for job in itertools.islice(waiting, count):
                ref = task.remote(for_workers, _job_for_workers(job), run_id)
                job_of[ref] = job
                refs.append(ref)
            return refs

        pending = submit(len(jobs) if limit is None else limit)
        records: list[EpisodeRecord] = []
        renewed = time.monotonic()
        while pending:
            done, pending = ray.wait(pending, num_returns=1, timeout=CLAIM_RENEW_S)
            pending += submit(len(done))  # a finished episode's place goes to the next one
            if time.monotonic() - renewed >= CLAIM_RENEW_S:  # the run is still held by this driver
                driver.store.renew_claim(run_id, owner)
                renewed = time.monotonic()
            for ref in done:
                try:
                    record = EpisodeRecord.model_validate(ray.get(ref))
                except ray.exceptions.RayError as exc:  # its worker died (after Ray's retries)
                    cause = getattr(exc, "cause", None)
                    recorded = (
                        _recorded(driver, job_of[ref], run_id) if isinstance(cause, ClaimLost) else None
                    )
                    if recorded is not None:  # Ray ran again a task whose worker died once it had
                        record = recorded  # recorded the outcome: that outcome stands
                    elif isinstance(cause, StoreError):  # the store or --db failed
                        for other in pending:  # the run stops, as a local one does: --resume
                            ray.cancel(other, force=True)
                        raise cause from None
                    else:
                        record = driver.record_lost(
                            job_of[ref], run_id, f"its Ray worker failed: {_first_line(exc)}"
                        )
                records.append(record)
                if progress is not None:
                    progress(record)
    finally:
        for actor in windows:
            ray.kill(actor)  # a later run on the same cluster starts with empty windows
    return RunResult(run_id=run_id, records=records, skipped=skipped, resumed=driver.resumed)


def _recorded(driver: Runner, job: Job, run_id: str) -> EpisodeRecord | None:
    """The stored outcome of `job`'s episode in run `run_id` when it is finished, else None."""
    key = episode_key(run_id, job.task.id, job.model, job.variant, job.seed)
    if key not in driver.store.finished_keys(run_id):
        return None
    same = (job.task.id, job.model, job.variant, job.seed)
    return next(
        (r for r in driver.store.records(run_id) if (r.task_id, r.model, r.variant, r.seed) == same), None
    )


def plan_for_workers(plan: RunPlan) -> RunPlan:
    """`plan` with every path a worker opens made absolute, as the driver resolves it: the
    --runs-dir, a SQLite store's file and the tasks' folders. A worker of a cluster joined with
    --ray-address runs in the cluster's folder, not the driver's, so a relative one named
    another file there (its episodes went to another store, the run's own stayed empty)."""
    return dataclasses.replace(
        plan,
        runs_dir=plan.runs_dir.absolute(),
        store_url=_absolute_sqlite(plan.store_url),
        tasks=[_task_for_workers(t) for t in plan.tasks],
    )


def _job_for_workers(job: Job) -> Job:
    return dataclasses.replace(job, task=_task_for_workers(job.task))


def _task_for_workers(task: Task) -> Task:
    return dataclasses.replace(
        task,
        folder=task.folder.absolute(),
        check_path=task.check_path.absolute(),
        prior_path=task.prior_path.absolute() if task.prior_path is not None else None,
    )


def _absolute_sqlite(url: str) -> str:
    """A SQLite store URL with its file's path made absolute; any other URL as it is."""
    from sqlalchemy.engine import make_url

    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite" or not parsed.database or parsed.database == ":memory:":
        return url
    path = Path(parsed.database)
    if path.is_absolute():
        return url
    return parsed.set(database=str(path.absolute())).render_as_string(hide_password=False)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0][:300] if text else ''}"
