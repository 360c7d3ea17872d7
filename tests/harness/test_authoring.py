"""The authoring docs tried as a new user would: a new task from the skeleton, an episode
recorded on it, a prior drafted from that episode, both validated."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from tests.harness.test_cli import mseval


def test_new_task_record_draft_prior_validate(tmp_path: Path) -> None:
    tasks, priors = tmp_path / "tasks", tmp_path / "priors"
    tasks.mkdir()
    priors.mkdir()
    env = {"MSEVAL_TASKS": str(tasks), "MSEVAL_PRIORS": str(priors)}
    store = f"sqlite:///{tmp_path / 'store.db'}"

    made = mseval("tasks", "new", "lms-walkthrough", "--scenario", "lms", env=env)
    assert made.returncode == 0, made.stderr
    assert (tasks / "lms" / "lms-walkthrough" / "check.py").exists()
    ok = mseval("tasks", "validate", "lms-walkthrough", env=env)
    assert ok.returncode == 0, ok.stdout + ok.stderr

    # Record an episode that delegates (sim:eager gives each sub-task its own wave).
    ran = mseval("run", "--model", "sim:eager", "--variant", "spec", "--tasks", "lms-walkthrough", "--store", store,
                 "--runs-dir", str(tmp_path / "runs"), env=env)  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    out = tmp_path / "episodes.jsonl"
    assert mseval("export", "--store", store, "--out", str(out), env=env).returncode == 0
    (record,) = [json.loads(line) for line in out.read_text().splitlines()]
    assert record["success"] is True and len(record["waves"]) == 2

    drafted = mseval(
        "priors",
        "draft",
        "lms-walkthrough",
        "--from-episode",
        record["episode_id"],
        "--store",
        store,
        env=env,
    )
    assert drafted.returncode == 0, drafted.stderr
    prior = yaml.safe_load((priors / "lms-walkthrough.yaml").read_text())
    assert prior["need_delegation"] is True
    assert [[u["subtask"] for u in wave] for wave in prior["waves"]] == [["s1"], ["s2"]]
    assert prior["waves"][1][0] == {
        "subtask": "s2", "description": "write NOTES.md", "label": "file-build", "mode": "writable",
        "gen": "coder", "spec": "office-report-builder",
    }  # fmt: skip

    assert mseval("priors", "validate", env=env).returncode == 0
    again = mseval("tasks", "validate", "lms-walkthrough", env=env)
    assert again.returncode == 0, again.stdout
