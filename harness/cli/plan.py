"""Turning command-line options into a validated `RunPlan` (all input problems at once, exit 2)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from contracts.errors import InputError, Problem


def build_plan(
    *, matrix: list[tuple[str, str]], tasks: str | Sequence[str], seeds: int, concurrency: int, store: str, resume: bool,
    base_url: str | None = None, api_key_env: str | None = None, transport: str = "inprocess", db: str = "sqlite",
    budgets: Sequence[str] = (), config: Path | None = None, temperature: float | str | None = None,
    max_output_tokens: int | None = None, reasoning_effort: str | None = None, profile_dirs: Sequence[Path] = (),
    prices: Path | None = None, runs_dir: Path = Path("runs"), rpm: int | None = None, tpm: int | None = None,
    executor: str = "local", ray_address: str | None = None, server_options: Sequence[str] = (),
) -> Any:  # fmt: skip
    from pydantic import ValidationError

    from harness.budgets import Budgets
    from harness.cli.common import budget_overrides, check_cache_dir, check_out_path
    from harness.models.base import ModelSettings
    from harness.models.config import option_problems
    from harness.models.pricing import DEFAULT_PRICES, load_prices
    from harness.models.registry import endpoint_problem, preflight
    from harness.profiles import BUILTIN_DIR, load_profiles
    from mcp_servers.common.options import parse_options

    problems: list[Problem] = []
    # `-m X -m X` or `-v Y -v Y` names a setting twice: it runs once (twice, both copies shared
    # each episode's key and world, and the second overwrote the first)
    matrix = list(dict.fromkeys(matrix))

    def collect(fn: Any, *args: Any) -> Any:
        try:
            return fn(*args)
        except InputError as exc:
            problems.extend(exc.problems)
            return None

    problems += database_problems(store, db)
    if transport not in ("inprocess", "stdio", "http"):
        problems.append(Problem("--server-transport", None, f"{transport!r}: give inprocess, stdio or http"))
    if executor not in ("local", "ray"):
        problems.append(Problem("--executor", None, f"{executor!r}: give local or ray"))
    elif ray_address is not None and executor != "ray":  # it would be ignored
        problems.append(Problem("--ray-address", None, "is for --executor ray; give that too, or drop it"))
    elif ray_address is not None and not ray_address.strip():  # a local instance started instead
        problems.append(
            Problem(
                "--ray-address", None,
                "is empty (a shell variable not set?): give the cluster's HOST:PORT, or drop it to start a local Ray instance",
            )
        )  # fmt: skip
    collect(lambda: check_out_path(runs_dir, "--runs-dir", folder=True))
    collect(check_cache_dir)
    # `--temperature none`: send no temperature at all (None in the settings), as `temperature:
    # null` in the config file does; a number is checked like the config file's
    no_temperature = isinstance(temperature, str) and temperature.strip().lower() == "none"
    given_temperature: float | None = None
    if isinstance(temperature, str) and not no_temperature:
        try:
            given_temperature = float(temperature)
        except ValueError:
            problems.append(Problem("--temperature", None, f"{temperature!r}: give a number or none"))
    elif isinstance(temperature, float | int):
        given_temperature = float(temperature)
    problems += option_problems(base_url, given_temperature, max_output_tokens, reasoning_effort, api_key_env)
    task_list = collect(selected_tasks, tasks)
    problems += size_problems(len(matrix), len(task_list or ()), seeds)
    for task in task_list or ():  # a check.py that cannot be imported is found now, not per episode
        collect(task.load_check)
    profile_set = collect(
        load_profiles,
        list(profile_dirs),
        BUILTIN_DIR,
        extra_profile_problems,
    )
    if task_list and profile_set is not None:
        problems += catalog_problems(task_list, profile_set)
    settings_data: dict[str, Any] = {}
    rate_limits: dict[str, Any] = {}
    cfg = None
    if config is not None:
        from harness.models.config import load_model_config

        cfg = collect(load_model_config, config)
        if cfg is not None:
            settings_data.update(cfg.model_settings().model_dump())
            base_url = base_url or cfg.base_url
            api_key_env = api_key_env or cfg.api_key_env
            prices = prices or cfg.prices
            rate_limits = cfg.rate_limits()
    price_table = collect(load_prices, prices or DEFAULT_PRICES)
    models = list(dict.fromkeys(m for m, _ in matrix))
    if config is None or cfg is not None:  # else its base_url and api_key_env are unknown yet
        for model in models:
            collect(preflight, model, base_url, api_key_env)
        mixed = collect(endpoint_problem, models, base_url, api_key_env)
        problems += [mixed] if mixed else []
    for variant in dict.fromkeys(v for _, v in matrix):
        if profile_set is not None and (chosen := collect(profile_set.variant, variant)) is not None:
            problems += oracle_problems(chosen, task_list or ())
    for key, value in (
        ("temperature", given_temperature),
        ("max_output_tokens", max_output_tokens),
        ("reasoning_effort", reasoning_effort),
    ):
        if value is not None:
            settings_data[key] = value
    if no_temperature:
        settings_data["temperature"] = None
    if rpm or tpm:
        from harness.models.ratelimit import RateLimits
        from harness.models.registry import PROVIDERS

        given = {k: v for k, v in (("rpm", rpm), ("tpm", tpm)) if v}  # they win over the config file's
        rate_limits = {p: (rate_limits.get(p) or RateLimits()).model_copy(update=given) for p in PROVIDERS}
    overrides, budget_problems = budget_overrides(budgets)
    problems += budget_problems
    options, server_problems = parse_options(server_options, "--server-option")
    problems += server_problems
    settings = budget_model = None
    try:
        settings = ModelSettings.model_validate(settings_data)
    except ValidationError as exc:
        problems += _validation_problems(exc)
    try:  # checked even when the settings are not, so every problem is told at once
        budget_model = Budgets().merged(overrides)
    except ValidationError as exc:
        problems += _validation_problems(exc)
    if budget_model is not None:
        problems += timeout_problems(options.get("max_timeout_s"), budget_model, task_list or ())
    if not problems:  # last, as they cost: a world per task with setup steps, a daemon asked
        problems += setup_problems_applied(task_list or (), db)
        if str(options.get("sandbox", "")).startswith("docker") and executor == "local":
            problems += docker_problems(options["sandbox"])
    if problems:
        raise InputError(list(dict.fromkeys(problems)))  # a key or URL shared by models: said once
    assert settings is not None and budget_model is not None
    from harness.runner import RunPlan  # the MCP SDK's imports, ~1 s: not for input a run refuses

    return RunPlan(
        settings_matrix=matrix, tasks=task_list, profiles=profile_set, seeds=seeds, budgets=budget_model, settings=settings,
        prices=price_table, store_url=store, transport=transport, concurrency=concurrency, db_base=db, runs_dir=runs_dir,  # type: ignore[arg-type]
        resume=resume, base_url=base_url, api_key_env=api_key_env, rate_limits=rate_limits, server_options=options,
    )  # fmt: skip


def setup_problems_applied(tasks: Sequence[Any], db: str = "sqlite") -> list[Problem]:
    """Each selected task's setup applied once to a fresh world in a scratch folder, on the
    run's world database (`--db`): a step the world refuses (a NOT NULL column left out, an id
    taken, a file under a file; on PostgreSQL also text in a number column, which SQLite keeps)
    is bad input now, not a harness_error recorded for every episode of the task."""
    import secrets
    import tempfile

    from harness.world import create_world

    problems: list[Problem] = []
    with tempfile.TemporaryDirectory(prefix="mseval-setup-") as scratch:
        for task in tasks:
            if task.spec.setup:
                # a schema of its own on a shared server: beside a run, never one of its episodes'
                scratch_id = f"setup-check-{secrets.token_hex(4)}-{task.id}"
                try:
                    create_world(task, scratch_id, Path(scratch), db).close()
                except InputError as exc:
                    problems += exc.problems
    return problems


def docker_problems(sandbox: str) -> list[Problem]:
    """`sandbox=docker…` where no docker daemon answers: every python_execute would fail."""
    from mcp_servers.local.docker_sandbox import docker_available

    if docker_available():
        return []
    said = f"sandbox={sandbox}: no docker daemon answers here; start one, or give sandbox=process or auto"
    return [Problem("--server-option", None, said)]


def timeout_problems(longest: float | None, budgets: Any, tasks: Sequence[Any]) -> list[Problem]:
    """`max_timeout_s` at or above the tool_timeout_s budget an episode runs with (the run's, or
    a task's own, which wins): the harness would time python_execute out first and probe its
    server, and the model would get "timed out" instead of the tool's own timeout result."""
    if longest is None:
        return []
    owns = [(t, t.spec.budgets.tool_timeout_s if t.spec.budgets else None) for t in tasks]
    problems = []
    if longest >= budgets.tool_timeout_s and (not tasks or any(own is None for _, own in owns)):
        problems.append(
            Problem(
                "--server-option", None,
                f"max_timeout_s={longest:g} must be below the tool_timeout_s budget ({budgets.tool_timeout_s:g} s)",
            )
        )  # fmt: skip
    for task, own in owns:
        if own is not None and longest >= own:
            problems.append(
                Problem(
                    "--server-option", None,
                    f"max_timeout_s={longest:g} must be below task {task.id}'s tool_timeout_s budget "
                    f"({own:g} s, in {task.folder / 'task.yaml'})",
                )
            )  # fmt: skip
    return problems


def _validation_problems(exc: Any) -> list[Problem]:
    return [
        Problem("--budget/--config", None, f"{'.'.join(map(str, e['loc']))}: {e['msg']}")
        for e in exc.errors()
    ]


def size_problems(settings: int, tasks: int, seeds: int) -> list[Problem]:
    """A run's seeds per task and planned episodes, held to what scoring reads of a run (its
    jobs are listed before any runs: a billion seeds took 1 GB before anything was written)."""
    from contracts.episode import MAX_PLANNED_EPISODES, MAX_SEEDS

    if seeds > MAX_SEEDS:
        return [Problem("--seeds", None, f"{seeds:,}: at most {MAX_SEEDS:,} seeds per task")]
    if (planned := settings * tasks * seeds) > MAX_PLANNED_EPISODES:
        said = f"{settings} settings × {tasks} tasks × {seeds:,} seeds plan {planned:,} episodes"
        return [Problem("--seeds", None, f"{said}; a run plans at most {MAX_PLANNED_EPISODES:,}")]
    return []


def database_problems(store: str, db: str) -> list[Problem]:
    """The run store's URL, and the world databases' ('sqlite' or a PostgreSQL server)."""
    from harness.db_text import shown
    from harness.store_urls import url_problems

    if db != "sqlite" and not db.startswith("postgresql"):
        return url_problems(store, "--store") + [
            Problem(
                "--db", None, f"give 'sqlite' or a PostgreSQL URL (postgresql+psycopg://…), not {shown(db)!r}"
            )
        ]
    return url_problems(store, "--store") + (url_problems(db, "--db") if db != "sqlite" else [])


def selected_tasks(selectors: str | Sequence[str]) -> list[Any]:
    """The tasks any of `selectors` selects (each all, a scenario, a task id or a glob; a
    comma separates several in one), in the order first selected, each once."""
    from harness.catalog import load_tasks

    wanted = [
        part.strip()
        for s in ([selectors] if isinstance(selectors, str) else selectors)
        for part in s.split(",")
    ]
    chosen: dict[str, Any] = {}
    problems: list[Problem] = []
    for selector in dict.fromkeys(w for w in wanted if w):
        try:
            for task in load_tasks(selector, option="--tasks"):
                chosen.setdefault(task.id, task)
        except InputError as exc:
            problems += [p for p in exc.problems if p not in problems]
    if problems or not chosen:
        raise InputError(problems or [Problem("--tasks", None, "no task selected")])
    return list(chosen.values())


def catalog_problems(tasks: Sequence[Any], profile_set: Any) -> list[Problem]:
    """What `tasks validate` and `priors validate` would refuse and a run can see without
    replaying anything: prior units naming no sub-agent role, gold calls naming no tool."""
    from harness.catalog_rules import prior_type_problems, solution_tool_problems
    from harness.servers_catalog import tool_modes

    roles = {name for name, p in profile_set.profiles.items() if not p.is_variant}
    known = tool_modes()
    problems: list[Problem] = []
    for task in tasks:
        problems += prior_type_problems(task, roles) + solution_tool_problems(task, known)
    return problems


def oracle_problems(variant: Any, tasks: Sequence[Any]) -> list[Problem]:
    """A variant that hands the model each task's delegation prior (`delegation: oracle`) needs a
    prior for every task: without one it ran as `gen` does, and its rows said oracle."""
    if variant.header.delegation != "oracle" or not (lacking := [t.id for t in tasks if t.prior is None]):
        return []
    from harness.catalog import PRIORS_DIR

    named = ", ".join(lacking[:3]) + (f" and {len(lacking) - 3} more" if len(lacking) > 3 else "")
    return [
        Problem(
            "--variant",
            None,
            f"{variant.name} appends each task's delegation prior, and {named} "
            f"{'has' if len(lacking) == 1 else 'have'} none in {PRIORS_DIR}: write "
            f"<task-id>.yaml there (docs/annotating-priors.md), or leave this variant out",
        )
    ]


def extra_profile_problems(profiles: Sequence[Any]) -> list[Problem]:
    """The tool globs of profiles from `--profiles` folders, as `mseval profiles validate` checks
    them: those not read from the built-in folder (the folders given may not resolve: a loop)."""
    from harness.profiles import BUILTIN_DIR, glob_problems
    from harness.servers_catalog import tool_modes

    extra = [p for p in profiles if p.source.parent.resolve() != BUILTIN_DIR.resolve()]
    return glob_problems(extra, tool_modes()) if extra else []
