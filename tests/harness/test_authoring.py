"""The authoring docs tried as a new user would: a new task from the skeleton, an episode
recorded on it, a prior drafted from that episode, both validated."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from contracts.errors import InputError
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


def test_a_task_id_used_in_another_scenario_is_refused_naming_it(tmp_path: Path) -> None:
    """`tasks new my-task --scenario ec` after `--scenario lms` (its prior removed) made a second
    folder of the id, and every catalog command then failed; with the prior left, the refusal
    named `tasks/ec/my-task`, which did not exist."""
    from harness.authoring import new_task

    tasks, priors = tmp_path / "tasks", tmp_path / "priors"
    new_task("my-task", "lms", tasks, priors)
    with pytest.raises(InputError) as with_prior:
        new_task("my-task", "ec", tasks, priors)
    assert str(with_prior.value.problems[0].file) == str(tasks / "lms" / "my-task")
    (priors / "my-task.yaml").unlink()
    with pytest.raises(InputError) as without_prior:
        new_task("my-task", "ec", tasks, priors)
    assert str(without_prior.value.problems[0].file) == str(tasks / "lms" / "my-task")
    assert not (tasks / "ec").exists() and not (priors / "my-task.yaml").exists()


def test_a_task_id_with_only_a_prior_names_the_prior(tmp_path: Path) -> None:
    from harness.authoring import new_task

    tasks, priors = tmp_path / "tasks", tmp_path / "priors"
    priors.mkdir()
    (priors / "orphan.yaml").write_text("task: orphan\nneed_delegation: false\nwaves: []\n")
    with pytest.raises(InputError) as caught:
        new_task("orphan", "lms", tasks, priors)
    assert str(caught.value.problems[0].file) == str(priors / "orphan.yaml")
    assert not tasks.exists()


def test_overriding_a_built_in_variant_writes_a_variant(tmp_path: Path) -> None:
    """`profiles new spec --override` wrote a role named spec: `profiles validate` accepted it
    (one variant fewer) and `run --variant spec` then said 'unknown variant'."""
    from harness.authoring import new_profile
    from harness.profiles import load_profiles

    path = new_profile("spec", tmp_path, override=True)
    profiles = load_profiles([tmp_path])
    spec = profiles.variant("spec")
    assert spec.source == path and spec.header.override
    builtin = load_profiles().variant("spec")
    assert spec.header.subagents == builtin.header.subagents and spec.principles == builtin.principles
    assert len(profiles.variants) == len(load_profiles().variants)


def test_an_override_that_turns_a_variant_into_a_role_is_refused(tmp_path: Path) -> None:
    from harness.profiles import load_profiles

    (tmp_path / "spec.md").write_text(
        "---\nname: spec\noverride: true\ndescription: d\nwhenToUse: w\nmode: read-only\n"
        'tools: ["mcp__*"]\n---\nbody\n'
    )
    with pytest.raises(InputError) as caught:
        load_profiles([tmp_path])
    (problem,) = caught.value.problems
    assert (problem.file, problem.line) == (str(tmp_path / "spec.md"), 3)
    assert (
        problem.message
        == "'spec' overrides a variant with a role; an override keeps the kind (add 'delegation')"
    )


def test_priors_validate_reports_a_bad_label_and_waves_at_odds_with_need_delegation(tmp_path: Path) -> None:
    """A prior with a bad label and `need_delegation: false` with waves got only the label
    problem: the rest waited for the next run of the validator (SPEC §12: all at once)."""
    from tests.harness.cli_support import catalog_copy, line_of

    _tasks, priors, env = catalog_copy(tmp_path, "lms-enrollment-overview")
    prior = priors / "lms-enrollment-overview.yaml"
    text = prior.read_text()
    assert "need_delegation: true" in text and "label: spreadsheet-build" in text
    prior.write_text(
        text.replace("need_delegation: true", "need_delegation: false").replace(
            "label: spreadsheet-build", "label: spreadsheet-builder"
        )
    )
    need, label = line_of(prior, "need_delegation:"), line_of(prior, "label: spreadsheet-builder")
    for command in (("priors", "validate"), ("tasks", "validate", "lms-enrollment-overview")):
        result = mseval(*command, env=env)
        assert result.returncode == 2, result.stdout + result.stderr
        lines = result.stderr.strip().splitlines()
        assert f"{prior}:{label}: waves.1.0.label: unknown function label 'spreadsheet-builder'" in lines
        assert (
            f"{prior}:{need}: need_delegation: false means the main agent works alone, so waves must be empty"
            in lines
        ), lines
