"""`mseval run`, `mseval demo`, `mseval export`."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from harness.cli.common import DEFAULT_STORE, STORE_HELP, path_option
from harness.cli.stopping import Terminated, sync_until_terminated, until_terminated
from harness.models import DEFAULT_MAX_OUTPUT_TOKENS

DEMO_MATRIX = [
    ("sim:single", "sa"),
    ("sim:oracle", "sa"),
    ("sim:oracle", "spec"),
    ("sim:eager", "sa"),
    ("sim:eager", "spec"),
]


# Episodes at once when --concurrency is not given (RunPlan's default; not imported here, to
# keep --help quick). Under --executor ray it is the local instance's CPUs.
DEFAULT_CONCURRENCY = 4
INTERRUPTED = "finished episodes are stored; run the same command with --resume to complete the matrix"
DEMO_INTERRUPTED = (
    "finished episodes are stored; `mseval demo` runs the whole demo again (it has no --resume)"
)


NOT_STARTED = "before the run started: nothing was recorded"


def _plan(**settings: Any) -> Any:
    """`build_plan(**settings)`; a Ctrl-C or SIGTERM while it checks the settings (typer would
    end the process with 130 and not a word; SIGTERM killed it, 143 and not a word) says that
    nothing was recorded: the run does not exist yet. Exit codes as once the run has started."""
    from harness.cli.plan import build_plan

    try:
        return sync_until_terminated(lambda: build_plan(**settings))
    except KeyboardInterrupt:
        print(f"\ninterrupted {NOT_STARTED}", file=sys.stderr)
        raise typer.Exit(130) from None
    except Terminated:
        print(f"\nstopped (SIGTERM) {NOT_STARTED}", file=sys.stderr)
        raise typer.Exit(143) from None


def _whole_run(store_url: str, result: Any) -> list[Any]:
    """Every finished episode of the run (`result`'s and those a resumed run had finished)."""
    from harness.store import Store, StoreError

    try:
        store = Store(store_url)
        try:
            return store.records(result.run_id)
        finally:
            store.close()
    except StoreError:  # the run itself is recorded; the table falls back to what this process ran
        return list(result.records)


def _tell_failures(absent: list[Any], records: list[Any]) -> None:
    """List (up to 10 each) the absent episodes and those a model's API error ended; a run with
    absent episodes failed (exit 1): SPEC §10."""
    from contracts.printable import printable

    # a reason quotes what a model server said: one visible line, its escape sequences shown
    for r in absent[:10]:
        print(
            f"  absent: {printable(f'{r.task_id} {r.model} {r.variant} seed {r.seed}: {r.reason}')}",
            file=sys.stderr,
        )
    # a model's API errors (beyond the retries, a bad request) show here, not as a silent 0.00;
    # a refused key, model or quota made its episodes absent, listed above
    api_errors = [r for r in records if r.termination == "api_error" and r.status != "absent"]
    for r in api_errors[:10]:
        why = (r.reason or "").removeprefix("api_error: ")
        print(
            f"  api error: {printable(f'{r.task_id} {r.model} {r.variant} seed {r.seed}: {why}')}",
            file=sys.stderr,
        )
    if absent:
        raise typer.Exit(1)


def _execute(
    plan: Any,
    executor: str,
    ray_address: str | None,
    interrupted: str = INTERRUPTED,
    *,
    whole_cluster: bool = False,
    workers: int = 1,
    resumable: bool = True,
) -> Any:
    import asyncio

    from harness.cli.common import progress
    from harness.runner import Runner
    from harness.store import ClaimLost, StoreError, WorldServerLost

    try:
        with progress(len(plan.jobs()), "episodes") as advance:
            if executor == "ray":
                from harness.ray_executor import run_with_ray

                return sync_until_terminated(
                    lambda: run_with_ray(plan, ray_address, advance, whole_cluster=whole_cluster)
                )
            if workers > 1:
                from harness.process_executor import run_in_processes

                return sync_until_terminated(lambda: run_in_processes(plan, workers, advance))

            async def run_here() -> Any:  # the store opened (0.1 s when new) where SIGTERM is handled
                return await Runner(plan).run(advance)

            return asyncio.run(until_terminated(run_here()))
    except KeyboardInterrupt:
        print(f"\ninterrupted: {interrupted}", file=sys.stderr)
        raise typer.Exit(130) from None
    except Terminated:
        print(f"\nstopped (SIGTERM): {interrupted}", file=sys.stderr)
        raise typer.Exit(143) from None
    except StoreError as exc:
        after = (
            ""
            if isinstance(exc, ClaimLost)
            else "; the demo stopped: once the store can be written, run it again"
            if not resumable  # the demo: it has no --resume, it runs again
            else "; the run stopped: once it answers again, run the same command with --resume"
            if isinstance(exc, WorldServerLost)
            else "; the run stopped: once the store can be written, run the same command with --resume"
        )
        print(f"{exc}{after}", file=sys.stderr)
        raise typer.Exit(1) from None


def register(app: typer.Typer) -> None:
    @app.command()
    def run(
        model: Annotated[
            list[str],
            typer.Option(
                "--model",
                "-m",
                metavar="M",
                help="provider:model-id, e.g. sim:oracle, anthropic:claude-sonnet-4-5 (repeatable)",
            ),
        ],
        variant: Annotated[
            list[str],
            typer.Option(
                "--variant",
                "-v",
                metavar="V",
                help="sa, gen, spec, plan-first, oracle, or your own (repeatable)",
            ),
        ],
        tasks: Annotated[
            list[str],
            typer.Option(
                metavar="SEL", help="all, a scenario, a task id, or a glob (repeatable, or comma-separated)"
            ),
        ] = ["all"],  # noqa: B006 - typer reads the default, never mutates it
        seeds: Annotated[int, typer.Option(min=1, metavar="N", help="seeds per task")] = 1,
        concurrency: Annotated[
            int | None,
            typer.Option(
                min=1,
                metavar="N",
                help=f"episodes at once (default {DEFAULT_CONCURRENCY}; with --ray-address, as many as the cluster takes)",
            ),
        ] = None,
        store: Annotated[str, typer.Option(metavar="URL", help=STORE_HELP)] = DEFAULT_STORE,
        executor: Annotated[
            str,
            typer.Option(
                metavar="local|ray",
                help="local (asyncio, in this process) or ray (each episode a Ray task)",
            ),
        ] = "local",
        ray_address: Annotated[
            str | None,
            typer.Option(
                metavar="ADDRESS",
                help="Ray cluster to join, for --executor ray (default: start a local Ray instance)",
            ),
        ] = None,
        resume: Annotated[
            bool,
            typer.Option(help="complete the latest run of this same matrix (its finished episodes are kept)"),
        ] = False,
        base_url: Annotated[
            str | None, typer.Option(metavar="URL", help="base URL for openai-compatible (or a proxy)")
        ] = None,
        api_key_env: Annotated[
            str | None,
            typer.Option(metavar="NAME", help="name of the environment variable holding the API key"),
        ] = None,
        server_transport: Annotated[
            str,
            typer.Option(
                metavar="inprocess|stdio|http",
                help="how our MCP servers run: inprocess (in this process), or a child process each over stdio or http",
            ),
        ] = "inprocess",
        db: Annotated[
            str,
            typer.Option(
                metavar="sqlite|POSTGRES_URL",
                help="world databases: 'sqlite' (a file per episode) or a PostgreSQL URL (a schema per episode)",
            ),
        ] = "sqlite",
        budget: Annotated[
            list[str],
            typer.Option(
                metavar="KEY=VALUE",
                help="override a budget, KEY=VALUE (e.g. max_steps=50); repeatable. Keys: max_steps, "
                "wall_time_s, context_tokens, loop_repeats, api_retries, wave_concurrency, tool_timeout_s, "
                "tool_result_bytes",
            ),
        ] = [],  # noqa: B006
        server_option: Annotated[
            list[str],
            typer.Option(
                metavar="KEY=VALUE",
                help="a setting of our MCP servers, KEY=VALUE (e.g. sandbox=process); repeatable. Keys: sandbox "
                "(auto, process, docker, docker:IMAGE), memory_bytes, max_processes, file_bytes, max_timeout_s "
                "(python_execute), statement_timeout_s (warehouse)",
            ),
        ] = [],  # noqa: B006
        config: Annotated[Path | None, path_option(metavar="FILE", help="model settings file (YAML)")] = None,
        temperature: Annotated[
            str | None,
            typer.Option(
                metavar="NUMBER|none",
                help="sampling temperature (default 0), or `none` to send none (models that accept only "
                "their own, such as Kimi K2.5)",
            ),
        ] = None,
        max_output_tokens: Annotated[
            int | None,
            typer.Option(
                metavar="N", help=f"max output tokens per call (default {DEFAULT_MAX_OUTPUT_TOKENS})"
            ),
        ] = None,
        reasoning_effort: Annotated[
            str | None,
            typer.Option(
                metavar="LEVEL",
                help="reasoning effort, where the provider has it, in the provider's words (e.g. low, medium, high)",
            ),
        ] = None,
        profiles: Annotated[
            list[Path], path_option(metavar="DIR", help="extra profile folder (repeatable)")
        ] = [],  # noqa: B006
        prices: Annotated[Path | None, path_option(metavar="FILE", help="price table (YAML)")] = None,
        rpm: Annotated[
            int | None,
            typer.Option(min=1, metavar="N", help="requests per minute per provider, across the run"),
        ] = None,
        tpm: Annotated[
            int | None,
            typer.Option(min=1, metavar="N", help="tokens per minute per provider, across the run"),
        ] = None,
        runs_dir: Annotated[
            Path, path_option(metavar="DIR", help="where episode workspaces are kept")
        ] = Path("runs"),
    ) -> None:
        """Run every (model, variant) on the selected tasks and seeds; record every episode in the store."""
        from harness.cli.common import print_table, settings_table

        plan = _plan(
            matrix=[(m, v) for m in model for v in variant], tasks=tasks, seeds=seeds, store=store,
            concurrency=DEFAULT_CONCURRENCY if concurrency is None else concurrency,
            resume=resume, base_url=base_url, api_key_env=api_key_env, transport=server_transport, db=db,
            budgets=budget, config=config, temperature=temperature,
            max_output_tokens=max_output_tokens, reasoning_effort=reasoning_effort, profile_dirs=profiles,
            prices=prices, runs_dir=runs_dir, rpm=rpm, tpm=tpm, executor=executor, ray_address=ray_address,
            server_options=server_option,
        )  # fmt: skip
        from harness.db_text import shown

        result = _execute(plan, executor, ray_address, whole_cluster=concurrency is None)
        if resume and not result.resumed:  # a run of other settings cannot be continued
            print(
                f"--resume: the store has no run of these settings (models, variants, tasks with their files and "
                f"priors, seeds, budgets, sampling, profiles, price table version, --base-url, --server-option and "
                f"mseval version must be the same); started a new run {result.run_id}",
                file=sys.stderr,
            )
        # After a resume the table is the whole run's, the episodes finished before included, and
        # so are the absent ones counted.
        whole = _whole_run(store, result) if result.skipped else result.records
        print_table(settings_table(whole))
        absent = [r for r in whole if r.status == "absent"]
        print(
            f"run {result.run_id}: {len(result.records)} episode{'' if len(result.records) == 1 else 's'} run, "
            f"{result.skipped} already finished, {len(absent)} absent; store {shown(store)}"
        )
        _tell_failures(absent, result.records)

    @app.command()
    def demo(
        store: Annotated[str, typer.Option(metavar="URL", help=STORE_HELP)] = "sqlite:///runs/demo.db",
        report: Annotated[
            Path | None,
            path_option(
                metavar="DIR", help="also write the report (report.md, index.html, score.json, plots) here"
            ),
        ] = None,
        tasks: Annotated[
            str,
            typer.Option(metavar="SEL", help="all, a scenario, a task id, or a glob (or comma-separated)"),
        ] = "all",
        concurrency: Annotated[
            int, typer.Option(min=1, metavar="N", help="episodes at once (in all worker processes)")
        ] = DEFAULT_CONCURRENCY,
        workers: Annotated[
            int | None,
            typer.Option(
                min=1,
                metavar="N",
                help="processes the episodes are shared among, at most --concurrency (default: one "
                "per core); 1 runs them all in this process",
            ),
        ] = None,
    ) -> None:
        """The offline main job: sim agents under sa and spec on every task (or --tasks); prints the
        run's table and its scores, writes the store."""
        from harness.cli.common import check_out_path, print_table, settings_table
        from harness.process_executor import default_workers

        if report is not None:
            check_out_path(report, "--report", folder=True)
        plan = _plan(
            matrix=DEMO_MATRIX, tasks=tasks, seeds=1, concurrency=concurrency, store=store, resume=False
        )
        shared = default_workers(concurrency) if workers is None else min(workers, concurrency)
        result = _execute(plan, "local", None, DEMO_INTERRUPTED, workers=shared, resumable=False)
        print_table(settings_table(result.records))
        from harness.db_text import shown

        absent = [r for r in result.records if r.status == "absent"]
        print(
            f"simulated agents (sim:*), run {result.run_id}, {len(result.records)} episodes, {len(absent)} absent; "
            f"store {shown(store)}"
        )
        from harness.cli.evaluate import demo_hook  # the command line reaches evaluation only there

        demo_hook(store, report, result.run_id)
        _tell_failures(absent, result.records)  # after the scores and the report, which count them

    @app.command()
    def view(
        store: Annotated[str, typer.Option(metavar="URL", help=STORE_HELP)] = DEFAULT_STORE,
        port: Annotated[int, typer.Option(metavar="PORT", help="port on 127.0.0.1")] = 8765,
    ) -> None:
        """Browse the recorded episodes: outcomes, checks, waves timelines, event streams (1,000 events a page).

        Per (task, model, variant, seed) the newest run's episode is shown, the one scoring takes."""
        import time

        from harness.store_urls import check_url
        from harness.viewer import serving

        check_url(store, must_exist=True)
        with serving(store, port) as server:
            print(f"mseval view: http://127.0.0.1:{server.server_address[1]}/  (Ctrl-C to stop)")
            try:
                while True:
                    time.sleep(3600)
            except KeyboardInterrupt:
                print()

    @app.command()
    def export(
        out: Annotated[
            Path,
            path_option(
                metavar="FILE.jsonl",
                help="the .jsonl file to write (run identities go beside it as FILE.runs.json)",
            ),
        ],
        store: Annotated[str, typer.Option(metavar="URL", help=STORE_HELP)] = DEFAULT_STORE,
    ) -> None:
        """Write the finished episodes as `mseval.episode/1` records, one JSON per line: per (task, model, variant, seed) the newest run's."""
        import json

        from contracts.episode import runs_file_for
        from contracts.errors import InputError
        from harness.cli.common import check_out_path
        from harness.store import Store, StoreError, export_jsonl
        from harness.store_urls import check_url

        sidecar = runs_file_for(out)
        check_out_path(out, "--out", folder=False)
        check_out_path(sidecar, "--out (its run identities)", folder=False)
        check_url(store, must_exist=True)
        try:
            s = Store(store)
            try:
                records, identities = s.records(), s.identities()
            finally:
                s.close()
        except StoreError as exc:
            raise InputError.one("--store", None, str(exc)) from None
        out.parent.mkdir(parents=True, exist_ok=True)
        n = export_jsonl(records, out)
        sidecar.write_text(json.dumps(identities, indent=2, default=str))
        print(f"{n} episode records -> {out}; {len(identities)} run identities -> {sidecar}")
        if s.superseded:
            print(
                f"{s.superseded} episodes of older runs left out: the store holds newer runs of the same "
                "(task, model, variant, seed), whose episodes were written instead"
            )
