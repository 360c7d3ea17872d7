"""What a run does when things go wrong around its episodes (SPEC §12), in one process.

Regression tests, each named after the defect it pins: a check.py that exits, an API error
recorded without its reason.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from harness.catalog import load_tasks
from harness.models.base import ModelAPIError
from harness.models.registry import ModelFactory
from harness.models.scripted import ScriptedModel
from harness.profiles import load_profiles
from harness.runner import Runner, RunPlan

TASKS = ("lms-due-reminder", "lms-missing-work-zeros")


def _plan(tmp_path: Path, *, resume: bool = False, tasks: tuple[str, ...] = TASKS) -> RunPlan:
    return RunPlan(
        settings_matrix=[("sim:oracle", "sa")], tasks=[t for name in tasks for t in load_tasks(name)],
        profiles=load_profiles(), store_url=f"sqlite:///{tmp_path / 's.db'}", runs_dir=tmp_path, resume=resume,
    )  # fmt: skip


def test_a_check_that_calls_sys_exit_fails_its_check_instead_of_ending_the_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`sys.exit()` in a check.py ended `mseval run` silently with that exit code, its episode
    left `running`."""
    from harness.catalog import Task

    def exits(_world: Any) -> list[Any]:
        raise SystemExit(3)

    monkeypatch.setattr(Task, "load_check", lambda self: exits)
    records = asyncio.run(Runner(_plan(tmp_path)).run()).records
    assert len(records) == len(TASKS)
    for record in records:
        assert (record.status, record.success) == ("completed", False)
        assert record.checks is not None and "SystemExit(3)" in record.checks[0].message


def test_an_api_error_is_recorded_with_its_reason(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An episode that ended `api_error` (a wrong key, an unknown model) had `reason: null`: the
    record never said what the API answered."""

    def refuses(*_args: Any) -> Any:
        raise ModelAPIError("authentication", "invalid API key (HTTP 401)", status=401)

    monkeypatch.setattr(ModelFactory, "for_episode", lambda self, *a: ScriptedModel(refuses))
    (record,) = asyncio.run(Runner(_plan(tmp_path, tasks=TASKS[:1])).run()).records
    assert (record.status, record.termination) == ("completed", "api_error")
    assert record.reason is not None and record.reason.startswith("api_error: ")
    assert "invalid API key (HTTP 401)" in record.reason
