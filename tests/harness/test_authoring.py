"""The authoring docs tried as a new user would: a new task from the skeleton, an episode
recorded on it, a prior drafted from that episode, both validated."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from contracts.errors import InputError
from tests.harness.cli_support import one_line_error
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


def test_a_new_task_that_cannot_be_written_leaves_nothing(tmp_path: Path) -> None:
    """With MSEVAL_PRIORS naming a file, `tasks new` wrote the task's three files, then crashed
    with FileExistsError (exit 1); a 300-character id crashed with "File name too long"."""
    tasks, priors = tmp_path / "tasks", tmp_path / "priors"
    tasks.mkdir()
    priors.write_text("not a folder\n")
    env = {"MSEVAL_TASKS": str(tasks), "MSEVAL_PRIORS": str(priors)}
    line = one_line_error(mseval("tasks", "new", "lms-new-one", "--scenario", "lms", env=env))
    assert line == f"{priors}: is not a folder: the new task's files go in it"
    assert list(tasks.iterdir()) == []
    priors.unlink()
    line = one_line_error(mseval("tasks", "new", "a" * 300, "--scenario", "lms", env=env))
    assert line == f"{'a' * 300}: a task id is at most 100 characters"
    assert list(tasks.iterdir()) == [] and not priors.exists()


def test_a_new_task_whose_skeleton_fails_removes_all_it_made(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Writing or loading the skeleton failing midway left the task folder, the prior and the
    folders made on the way."""
    import harness.authoring as authoring

    def fails(folder: Path, priors_dir: Path) -> None:
        raise InputError.one(folder, None, "made to fail")

    monkeypatch.setattr(authoring, "load_task", fails)
    tasks, priors = tmp_path / "tasks", tmp_path / "priors"
    with pytest.raises(InputError, match="made to fail"):
        authoring.new_task("my-task", "lms", tasks, priors)
    assert list(tmp_path.iterdir()) == []
    (tasks / "ec").mkdir(parents=True)  # folders that were there stay
    with pytest.raises(InputError, match="made to fail"):
        authoring.new_task("my-task", "lms", tasks, priors)
    assert [p.name for p in tasks.iterdir()] == ["ec"] and not priors.exists()


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


def test_a_new_variant_is_written_like_a_built_in_one(tmp_path: Path) -> None:
    """`profiles new my-variant` could write only a role, and `run -v my-variant` then said the
    variant was unknown: `--like spec` writes a new variant, spec's copy under its own name."""
    from harness.authoring import new_profile
    from harness.profiles import load_profiles

    path = new_profile("my-variant", tmp_path, like="spec")
    profiles = load_profiles([tmp_path])
    mine, spec = profiles.variant("my-variant"), profiles.variant("spec")
    assert mine.source == path and not mine.header.override
    assert mine.header.subagents == spec.header.subagents and mine.principles == spec.principles
    assert len(profiles.variants) == len(load_profiles().variants) + 1
    with pytest.raises(InputError) as caught:
        new_profile("other", tmp_path, like="planner")
    assert str(caught.value.problems[0]) == (
        "--like: 'planner' is not a built-in variant; give one of gen, oracle, plan-first, sa, spec"
    )
    assert not (tmp_path / "other.md").exists()


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


def test_a_draft_keeps_each_sub_agent_that_reads_with_the_same_tool(tmp_path: Path) -> None:
    """One sub-agent per course, all calling list_enrollments: each matched the first sub-task,
    so the draft had units s1 and s4 where the episode had sub-agents for s1..s4."""
    from harness.catalog import PRIORS_DIR

    store = f"sqlite:///{tmp_path / 's.db'}"
    ran = mseval("run", "-m", "sim:eager", "-v", "spec", "--tasks", "lms-enrollment-overview", "--store", store,
                 "--runs-dir", str(tmp_path / "runs"))  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    episodes = tmp_path / "e.jsonl"
    assert mseval("export", "--store", store, "--out", str(episodes)).returncode == 0
    (record,) = [json.loads(line) for line in episodes.read_text().splitlines()]
    out = tmp_path / "p.yaml"
    drafted = mseval("priors", "draft", "lms-enrollment-overview", "--from-episode", record["episode_id"],
                     "--store", store, "--out", str(out))  # fmt: skip
    assert drafted.returncode == 0, drafted.stderr
    draft = yaml.safe_load(out.read_text())
    gold = yaml.safe_load((PRIORS_DIR / "lms-enrollment-overview.yaml").read_text())
    assert [u for wave in draft["waves"] for u in wave] == [u for wave in gold["waves"] for u in wave]
    assert "Left out" not in out.read_text()


def _reader(id: str, course: str, *, again: str = "", tools: int = 4) -> dict[str, object]:
    return {
        "id": id, "type": "enterprise-data-analyst", "mode": "read-only", "label": "course-records-lookup",
        "description": f"read the active roster of {course}{again}", "steps": tools + 1,
        "prompt": f"Page through list_enrollments for course {course} and report the active students.",
        "tools": ["mcp__lms__list_enrollments"] * tools,
    }  # fmt: skip


def test_a_draft_matches_one_to_one_by_text_and_tools_and_names_the_left_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Sub-agents that call the same tool are told apart by their description and prompt; a
    sub-task goes to one sub-agent; whoever gets none is named in the draft, not dropped."""
    import harness.authoring as authoring
    from contracts.episode import EpisodeRecord

    builder = {
        "id": "a6", "type": "office-report-builder", "mode": "writable", "label": "spreadsheet-build",
        "description": "build Enrollment.xlsx", "steps": 3,
        "tools": ["mcp__excel__create_workbook", "mcp__excel__write_range"],
    }  # fmt: skip
    lookup = {
        "id": "a4", "type": "explorer", "mode": "read-only", "description": "list\nthe courses", "steps": 2,
        "tools": ["mcp__lms__list_courses"],
    }  # fmt: skip
    waves = [
        [_reader("a1", "CS305"), _reader("a2", "CS101")],
        [_reader("a3", "CS101", again=" again"), lookup],
        [builder, _reader("a5", "CS101", again=", its last page", tools=1)],
    ]
    record = EpisodeRecord.model_validate({
        "task_id": "lms-enrollment-overview", "model": "sim:test", "variant": "spec", "status": "completed",
        "success": True, "episode_id": "e1",
        "waves": [{"index": i, "subagents": wave} for i, wave in enumerate(waves)],
    })  # fmt: skip
    monkeypatch.setattr(authoring, "_find_record", lambda episode_id, store_url: record)
    out = tmp_path / "p.yaml"
    authoring.draft_prior("lms-enrollment-overview", "e1", "sqlite:///unused.db", out)
    draft = yaml.safe_load(out.read_text())
    assert [[(u["subtask"], u["description"]) for u in wave] for wave in draft["waves"]] == [
        [("s3", "read the active roster of CS305"), ("s1", "read the active roster of CS101")],
        [("s2", "read the active roster of CS101 again")],
        [("s4", "build Enrollment.xlsx")],
    ]
    comments = [line for line in out.read_text().splitlines() if line.startswith("#")]
    assert any("a3" in line and "s2" in line and "s1" in line for line in comments), comments
    assert any(line.startswith("#   a4 ") and "list the courses" in line for line in comments), comments
    # the wave as the record and the viewer number it (w0 first), not counted from 1
    assert any(line.startswith("#   a4 (episode wave w1, explorer)") for line in comments), comments
    assert any(line.startswith("#   a5 ") and "s1" in line for line in comments), comments

    # `priors draft` says so on stderr too, not only inside the file it wrote
    from harness.cli.catalog_cmds import priors_draft
    from harness.store import Store

    url = f"sqlite:///{tmp_path / 's.db'}"
    Store(url).close()
    capsys.readouterr()
    priors_draft("lms-enrollment-overview", "e1", url, tmp_path / "again.yaml", False)
    notes = capsys.readouterr().err.splitlines()
    assert [n.split(": ", 1)[1] for n in notes] == [
        "Left out, as no free sub-task matches them (add a unit by hand where one belongs) (see the comment at its top)",
        "Check: on a sub-task other than the one they match best, which another took (see the comment at its top)",
    ]


def test_a_draft_that_would_not_load_is_not_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An episode whose sub-agent was writable on a read-only label (a user's override made the
    explorer writable) gave a draft that failed its own check: exit 2, yet the file was left
    on disk, and with --force it replaced the valid prior."""
    import harness.authoring as authoring
    from contracts.episode import EpisodeRecord

    writable_reader = {**_reader("a1", "CS305"), "mode": "writable"}
    record = EpisodeRecord.model_validate({
        "task_id": "lms-enrollment-overview", "model": "sim:test", "variant": "spec", "status": "completed",
        "success": True, "episode_id": "e1", "waves": [{"index": 0, "subagents": [writable_reader]}],
    })  # fmt: skip
    monkeypatch.setattr(authoring, "_find_record", lambda episode_id, store_url: record)
    out = tmp_path / "new" / "p.yaml"
    with pytest.raises(InputError) as caught:
        authoring.draft_prior("lms-enrollment-overview", "e1", "sqlite:///unused.db", out)
    assert [str(p) for p in caught.value.problems] == [
        f"{out}:8: waves.0.0.mode: label 'course-records-lookup' is read-only, but the unit says writable"
    ]
    assert not out.parent.exists()
    kept = tmp_path / "kept.yaml"
    kept.write_text("a valid prior\n")
    with pytest.raises(InputError):
        authoring.draft_prior("lms-enrollment-overview", "e1", "sqlite:///unused.db", kept, force=True)
    assert kept.read_text() == "a valid prior\n"


def test_a_task_collection_without_its_priors_folder_writes_nothing_into_the_project(tmp_path: Path) -> None:
    """With MSEVAL_TASKS alone, `tasks new` wrote the task into the user's collection and its
    prior into the project's delegation_priors/ (which `priors validate` there then refused as a
    prior without its task); `priors draft` without --out did the same. Both are refused now,
    naming what to set, and nothing is written."""
    from harness.catalog import PROJECT_ROOT

    tasks = tmp_path / "tasks"
    tasks.mkdir()
    env = {"MSEVAL_TASKS": str(tasks), "MSEVAL_PRIORS": ""}
    project_prior = PROJECT_ROOT / "delegation_priors" / "lms-only-tasks-set.yaml"
    assert not project_prior.exists()
    said = (
        f"MSEVAL_PRIORS: not set while MSEVAL_TASKS is: the prior would go into the project's "
        f"{PROJECT_ROOT / 'delegation_priors'}, away from your tasks; point MSEVAL_PRIORS at your "
        "collection's priors folder too"
    )
    try:
        made = mseval("tasks", "new", "lms-only-tasks-set", "--scenario", "lms", env=env)
        assert one_line_error(made) == said
        assert not project_prior.exists() and list(tasks.iterdir()) == []
        drafted = mseval(
            "priors", "draft", "lms-only-tasks-set", "--from-episode", "e", "--store",
            f"sqlite:///{tmp_path / 'none.db'}", env=env,
        )  # fmt: skip
        assert one_line_error(drafted) == said
    finally:
        project_prior.unlink(missing_ok=True)  # what the old code wrote into the project
    priors = tmp_path / "priors"
    made = mseval(
        "tasks", "new", "lms-only-tasks-set", "--scenario", "lms", env={**env, "MSEVAL_PRIORS": str(priors)}
    )
    assert made.returncode == 0, made.stderr
    assert (priors / "lms-only-tasks-set.yaml").exists() and not project_prior.exists()


def test_generated_files_hold_no_placeholder_that_validates(tmp_path: Path) -> None:
    """The skeletons said `TODO: a one-line title`, `TODO: the instruction ...` (a prompt the
    agents would get) and, for a role, `description: "TODO: ..."`: all of it validated, so a
    forgotten placeholder went unnoticed. The task's prompt did not ask for the line its check
    wants either. Now every file is whole as it stands, and still validates."""
    from harness.authoring import new_profile, new_task

    tasks, priors = tmp_path / "tasks", tmp_path / "priors"
    made = new_task("lms-skeleton", "lms", tasks, priors)
    made += [new_profile(f"role-{mode}", tmp_path / "profiles", mode) for mode in ("read-only", "writable")]
    for path in made:
        assert "TODO" not in path.read_text(), path
    task = yaml.safe_load((tasks / "lms" / "lms-skeleton" / "task.yaml").read_text())
    assert "'notes for lms-skeleton'" in task["prompt"]
    assert "notes for lms-skeleton" in (tasks / "lms" / "lms-skeleton" / "check.py").read_text()
    checked = mseval("profiles", "validate", "--dir", str(tmp_path / "profiles"))
    assert checked.returncode == 0, checked.stderr


def test_a_draft_finds_an_episode_of_an_older_run(tmp_path: Path) -> None:
    """`priors draft --from-episode ID` looked only among each (task, model, variant, seed)'s
    newest episode: after a second run of the same setting, the first run's episode, finished
    and in the store, was "no finished episode"."""
    from harness.store import Store

    store = f"sqlite:///{tmp_path / 's.db'}"

    def run() -> None:
        ran = mseval("run", "-m", "sim:eager", "-v", "spec", "--tasks", "lms-due-reminder", "--store", store,
                     "--runs-dir", str(tmp_path / "runs"))  # fmt: skip
        assert ran.returncode == 0, ran.stderr

    run()
    s = Store(store)
    (first,) = [r.episode_id for r in s.records()]
    s.close()
    run()
    out = tmp_path / "p.yaml"
    drafted = mseval("priors", "draft", "lms-due-reminder", "--from-episode", str(first), "--store", store,
                     "--out", str(out))  # fmt: skip
    assert drafted.returncode == 0, drafted.stderr
    assert out.read_text().startswith(f"# Drafted from episode {first} ")


def test_a_draft_says_when_its_episode_failed_was_absent_or_delegated_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A draft from a failed episode, or from an absent one with no waves (`need_delegation:
    false`, as if annotated), gave no sign that its waves were no plan to copy."""
    import harness.authoring as authoring
    from contracts.episode import EpisodeRecord

    base = {"task_id": "lms-enrollment-overview", "model": "sim:test", "variant": "spec", "episode_id": "e1"}
    failed = EpisodeRecord.model_validate({
        **base, "status": "completed", "success": False, "termination": "claim_done",
        "checks": [{"name": "workbook", "passed": False, "message": "missing"}, {"name": "mail", "passed": True}],
        "waves": [{"index": 0, "subagents": [_reader("a1", "CS305")]}],
    })  # fmt: skip
    absent = EpisodeRecord.model_validate(
        {**base, "status": "absent", "success": None, "termination": "harness_error"}
    )
    done = EpisodeRecord.model_validate({**base, "status": "completed", "success": True})

    def notes(record: EpisodeRecord) -> list[str]:
        monkeypatch.setattr(authoring, "_find_record", lambda episode_id, store_url: record)
        out = authoring.draft_prior(
            "lms-enrollment-overview", "e1", "sqlite:///unused.db", tmp_path / "p.yaml", True
        )
        return [line for line in out.read_text().splitlines() if line.startswith("# Check")]

    assert notes(failed) == [
        "# Check: the episode failed (criteria failing: workbook), so its delegation may be part of why"
    ]
    none = "# Check: no sub-agent became a unit (none ran, or none matched), hence need_delegation: false"
    assert notes(absent) == [
        "# Check: the episode is absent (harness_error): it stopped before its end, so its waves may be incomplete",
        none,
    ]
    assert notes(done) == [none]
