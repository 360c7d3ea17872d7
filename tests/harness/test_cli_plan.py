"""How command-line options and the config file combine into a run plan."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.cli.plan import build_plan
from harness.models.ratelimit import RateLimits


def test_command_line_rate_limits_win_over_the_config_file(tmp_path: Path) -> None:
    config = tmp_path / "models.yaml"
    config.write_text("providers:\n  openai: {rpm: 10, tpm: 1000}\n")
    plan = build_plan(
        matrix=[("sim:oracle", "sa")], tasks="lms-due-reminder", seeds=1, concurrency=1,
        store=f"sqlite:///{tmp_path / 's.db'}", resume=False, config=config, rpm=99,
    )  # fmt: skip
    assert plan.rate_limits["openai"] == RateLimits(rpm=99, tpm=1000)  # --rpm wins; the file's tpm stays
    assert plan.rate_limits["anthropic"] == RateLimits(rpm=99)
    assert not (tmp_path / "s.db").exists()


def test_a_setting_named_twice_runs_once(tmp_path: Path) -> None:
    """`-m sim:oracle -m sim:oracle` ran every episode twice under one key and in one world:
    the second copy saw the first's writes, failed its check and overwrote the record."""
    plan = build_plan(
        matrix=[("sim:oracle", "sa"), ("sim:single", "sa"), ("sim:oracle", "sa")], tasks="lms-due-reminder",
        seeds=1, concurrency=1, store=f"sqlite:///{tmp_path / 's.db'}", resume=False,
    )  # fmt: skip
    assert plan.settings_matrix == [("sim:oracle", "sa"), ("sim:single", "sa")]


def test_a_store_url_is_printed_without_its_password() -> None:
    from harness.db_text import shown

    assert shown("postgresql+psycopg://mseval:s3cret@127.0.0.1:55432/mseval") == (
        "postgresql+psycopg://mseval:***@127.0.0.1:55432/mseval"
    )
    assert shown("sqlite:////tmp/s.db") == "sqlite:////tmp/s.db"
    assert shown("postgresql+psycopg://mseval@h/db?password=s3cret&options=-csearch_path%3Dx") == (
        "postgresql+psycopg://mseval@h/db?options=-csearch_path%3Dx&password=***"
    )
    assert (
        shown("postgresql+psycopg://mseval:s3cret@h:5432x/db") == "postgresql+psycopg://mseval:***@h:5432x/db"
    )


def test_the_base_url_is_part_of_the_run_identity_without_credentials(tmp_path: Path) -> None:
    """`--resume --base-url B` continued a run made against server A: one model name served by
    two servers ended up in one run and one score. Runs without a base URL keep their identity."""
    from harness.identity import matrix_key
    from harness.runner import Runner

    def identity(base_url: str | None, model: str = "openai-compatible:m") -> dict[str, object]:
        plan = build_plan(
            matrix=[(model, "sa")], tasks="lms-due-reminder", seeds=1, concurrency=1,
            store=f"sqlite:///{tmp_path / 's.db'}", resume=False, base_url=base_url,
        )  # fmt: skip
        return Runner(plan).identity()

    a = identity("http://user:secret@127.0.0.1:8000/v1?key=abc")
    b = identity("http://127.0.0.1:8001/v1")
    assert a["base_url"] == "http://127.0.0.1:8000/v1" and b["base_url"] == "http://127.0.0.1:8001/v1"
    assert matrix_key(a) != matrix_key(b)
    assert "base_url" not in identity(None, "sim:oracle")


def test_tasks_may_be_selected_by_several_selectors(tmp_path: Path) -> None:
    """`--tasks lms --tasks ec` ran the ec tasks alone (the last option won) and `--tasks lms,ec`
    matched nothing. Each selector adds its tasks, in order, each task once."""
    plan = build_plan(
        matrix=[("sim:oracle", "sa")], tasks=["lms-due-reminder", "ec-*", "lms-due-reminder,rs-first-class-upgrade"],
        seeds=1, concurrency=1, store=f"sqlite:///{tmp_path / 's.db'}", resume=False,
    )  # fmt: skip
    ids = [t.id for t in plan.tasks]
    assert ids[0] == "lms-due-reminder" and ids[-1] == "rs-first-class-upgrade" and len(ids) == len(set(ids))
    assert len(ids) == 2 + sum(1 for i in ids if i.startswith("ec-")) and any(
        i.startswith("ec-") for i in ids
    )


@pytest.mark.parametrize(
    "command",
    [
        ("run", "-m", "sim:oracle", "-v", "sa", "--tasks", "nope-1", "--tasks", "lms,nope-2"),
        ("demo", "--tasks", "nope-1,lms,nope-2"),
    ],
    ids=["run", "demo"],
)
def test_every_unknown_selector_is_named_under_the_tasks_option(
    tmp_path: Path, command: tuple[str, ...]
) -> None:
    """A selector that matches nothing was told as `nope-1: no task matches 'nope-1' …`, naming
    the value where every other option's problem names the option."""
    from tests.harness.cli_support import mseval

    result = mseval(*command, "--store", f"sqlite:///{tmp_path / 's.db'}", cwd=tmp_path)
    assert result.returncode == 2 and result.stderr.splitlines() == [
        f"--tasks: no task matches {name!r} (all, a scenario, a task id or a glob)"
        for name in ("nope-1", "nope-2")
    ]
    assert not (tmp_path / "s.db").exists() and not (tmp_path / "runs").exists()
