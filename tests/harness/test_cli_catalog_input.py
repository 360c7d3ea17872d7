"""Bad task catalogs are reported at load, one line per problem with file and line, exit 2."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from contracts.errors import InputError
from contracts.scenarios import SCENARIOS
from harness.catalog import TASKS_DIR
from tests.harness.cli_support import ROOT, catalog_copy, line_of, mseval, one_line_error


def overview_files(tmp_path: Path) -> tuple[Path, Path, Path, dict[str, str]]:
    """task.yaml, solution.yaml and the prior of a private copy of lms-enrollment-overview, and the
    environment that points mseval at that catalog."""
    tasks, priors, env = catalog_copy(tmp_path, "lms-enrollment-overview")
    folder = tasks / "lms" / "lms-enrollment-overview"
    return folder / "task.yaml", folder / "solution.yaml", priors / "lms-enrollment-overview.yaml", env


def _run(tmp_path: Path, env: dict[str, str]) -> str:
    store = tmp_path / "store.db"
    result = mseval("run", "-m", "sim:oracle", "-v", "spec", "--store", f"sqlite:///{store}",
                    "--runs-dir", str(tmp_path / "runs"), env=env)  # fmt: skip
    line = one_line_error(result)
    assert not store.exists() and not (tmp_path / "runs").exists()
    return line


def test_a_task_id_in_two_scenario_folders_names_both(tmp_path: Path) -> None:
    tasks, _priors, env = catalog_copy(tmp_path)
    shutil.copytree(tasks / "lms" / "lms-due-reminder", tasks / "ec" / "lms-due-reminder")
    task_yaml = tasks / "ec" / "lms-due-reminder" / "task.yaml"
    task_yaml.write_text(
        task_yaml.read_text().replace("scenario: lms", "scenario: ec").replace("- lms", "- lms\n- shop")
    )
    line = _run(tmp_path, env)
    assert line.startswith(f"{tasks / 'lms' / 'lms-due-reminder' / 'task.yaml'}: ")
    assert f"task id 'lms-due-reminder' is also used by {tasks / 'ec' / 'lms-due-reminder'}" in line


def test_a_setup_step_naming_an_unknown_table_fails_at_load(tmp_path: Path) -> None:
    tasks, _priors, env = catalog_copy(tmp_path)
    task_yaml = tasks / "lms" / "lms-due-reminder" / "task.yaml"
    task_yaml.write_text(
        task_yaml.read_text() + "setup:\n- update: announcements\n  where: {id: 1}\n  values: {title: x}\n"
    )
    line = _run(tmp_path, env)
    assert (
        line
        == f"{task_yaml}:{line_of(task_yaml, 'update: announcements')}: setup step 1: unknown table 'announcements'"
    )


def test_a_setup_step_naming_an_unknown_column_fails_at_load(tmp_path: Path) -> None:
    tasks, _priors, env = catalog_copy(tmp_path)
    task_yaml = tasks / "lms" / "lms-due-reminder" / "task.yaml"
    task_yaml.write_text(task_yaml.read_text() + "setup:\n- delete: lms_announcement\n  where: {nosuch: 1}\n")
    line = one_line_error(mseval("tasks", "list", env=env))
    assert line == (
        f"{task_yaml}:{line_of(task_yaml, 'where: {nosuch')}: setup step 1: table 'lms_announcement' has no column 'nosuch'"
    )


def test_a_check_py_that_does_not_compile_fails_at_load(tmp_path: Path) -> None:
    tasks, _priors, env = catalog_copy(tmp_path)
    check = tasks / "lms" / "lms-due-reminder" / "check.py"
    check.write_text(check.read_text() + "\ndef broken(:\n")
    line = _run(tmp_path, env)
    assert line.startswith(f"{check}:{line_of(check, 'def broken(')}: syntax error")


def test_a_check_py_too_deep_to_compile_fails_at_load(tmp_path: Path) -> None:
    """An expression of 200,000 terms made `compile()` raise RecursionError, a traceback."""
    tasks, _priors, env = catalog_copy(tmp_path)
    check = tasks / "lms" / "lms-due-reminder" / "check.py"
    check.write_text(check.read_text() + "\nx = 1" + "+1" * 200_000 + "\n")
    line = _run(tmp_path, env)
    assert line.startswith(f"{check}: cannot compile check.py: maximum recursion depth exceeded"), line


def test_a_check_py_without_check_fails_at_load_and_is_not_executed(tmp_path: Path) -> None:
    tasks, _priors, env = catalog_copy(tmp_path)
    check = tasks / "lms" / "lms-due-reminder" / "check.py"
    marker = tmp_path / "imported"
    check.write_text(f"open({str(marker)!r}, 'w').close()\n\ndef verify(world):\n    return []\n")
    line = one_line_error(mseval("tasks", "list", env=env))
    assert line == f"{check}: check.py must define check(world) -> list[Criterion]"
    assert not marker.exists()


def test_a_prior_with_problems_of_its_own_is_still_checked_against_the_solution(tmp_path: Path) -> None:
    """A bad label in a prior hid its unit naming a sub-task the solution lacks, and the prior's
    wrong task name: each surfaced only once the label was fixed (SPEC §12: all at once)."""
    tasks, priors, env = catalog_copy(tmp_path, "lms-enrollment-overview")
    prior = priors / "lms-enrollment-overview.yaml"
    text = prior.read_text().replace("label: course-records-lookup", "label: roster-lookup", 1)
    prior.write_text(text.replace("subtask: s3", "subtask: s9", 1).replace("task: lms-", "task: lms-x-", 1))
    result = mseval("tasks", "list", env=env)
    assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr
    assert result.stderr.strip().splitlines() == [
        f"{prior}:{line_of(prior, 'roster-lookup')}: waves.0.0.label: unknown function label 'roster-lookup'",
        f"{prior}:1: prior is for task 'lms-x-enrollment-overview', not 'lms-enrollment-overview'",
        f"{prior}:{line_of(prior, 'subtask: s9')}: sub-task 's9' is not in lms-enrollment-overview's solution",
    ]


@pytest.mark.parametrize("label", ["[course-records-lookup]", "{course-records-lookup: 1}"])
def test_a_prior_label_that_is_not_a_string_is_a_problem_of_its_line(tmp_path: Path, label: str) -> None:
    """A list or mapping as a unit's label crashed `tasks validate` and `score --priors` with
    `TypeError: unhashable type` (the mode-vs-label rule looked it up before its type was checked)."""
    tasks, priors, env = catalog_copy(tmp_path, "lms-enrollment-overview")
    prior = priors / "lms-enrollment-overview.yaml"
    prior.write_text(prior.read_text().replace("label: course-records-lookup", f"label: {label}", 1))
    expected = f"{prior}:{line_of(prior, label)}: waves.0.0.label: Input should be a valid string"
    assert one_line_error(mseval("tasks", "validate", env=env)) == expected
    episodes = tmp_path / "e.jsonl"
    episodes.write_text("")
    result = mseval("score", "--episodes", str(episodes), "--priors", str(priors), "--embedder", "none")
    assert one_line_error(result) == expected


def test_a_file_with_problems_does_not_hide_the_others_checks(tmp_path: Path) -> None:
    """A task.yaml with an unknown key hid the solution's repeated sub-task id, and a solution
    with a bad label hid task.yaml's unknown server: one fix-and-rerun round each."""
    tasks, _priors, env = catalog_copy(tmp_path, "lms-enrollment-overview")
    folder = tasks / "lms" / "lms-enrollment-overview"
    task_yaml, solution = folder / "task.yaml", folder / "solution.yaml"
    original_task, original_solution = task_yaml.read_text(), solution.read_text()
    task_yaml.write_text(original_task.replace("title:", "colour: blue\ntitle:", 1))
    solution.write_text(original_solution.replace("- id: s2", "- id: s1", 1))
    result = mseval("tasks", "list", env=env)
    assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr
    second_s1 = [i for i, ln in enumerate(solution.read_text().splitlines(), 1) if "- id: s1" in ln][1]
    assert f"{solution}:{second_s1}: sub-task id 's1' is used twice; ids must be unique" in result.stderr
    assert f"{task_yaml}:{line_of(task_yaml, 'colour')}:" in result.stderr
    task_yaml.write_text(original_task.replace("- excel", "- excel\n- nosuchserver", 1))
    solution.write_text(original_solution.replace("label: course-records-lookup", "label: roster-lookup", 1))
    result = mseval("tasks", "list", env=env)
    assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr
    assert (
        f"{task_yaml}:{line_of(task_yaml, '- nosuchserver')}: unknown server 'nosuchserver'" in result.stderr
    )
    assert (
        f"{solution}:{line_of(solution, 'label: roster-lookup')}: subtasks.0.label: unknown function label 'roster-lookup'"
        in result.stderr
    )


def test_a_field_with_problems_does_not_hide_the_file_s_other_checks(tmp_path: Path) -> None:
    """`title: 5` in task.yaml hid its unknown scenario and server, its unknown setup table and the
    solution naming another task; a bad label in one sub-task hid another's tool off the task's
    servers and the prior naming a sub-task the solution lacks: one fix-and-rerun round each."""
    task_yaml, solution, prior, env = overview_files(tmp_path)
    text = (
        task_yaml.read_text()
        .replace("title:", "title: 5\nold-title:", 1)
        .replace("- excel", "- excel\n- nosuchserver")
    )
    task_yaml.write_text(
        text.replace("scenario: lms", "scenario: zz")
        + "setup:\n- {insert: no_such_table, rows: []}\n- {bad: 1}\n"
    )
    result = mseval("tasks", "list", env=env)
    assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr
    lines = result.stderr.strip().splitlines()
    for line in (
        f"{task_yaml}:{line_of(task_yaml, 'title: 5')}: title: Input should be a valid string",
        f"{task_yaml}:{line_of(task_yaml, 'scenario: zz')}: unknown scenario 'zz'; known: {', '.join(SCENARIOS)}",
        f"{task_yaml}:{line_of(task_yaml, 'no_such_table')}: setup step 1: unknown table 'no_such_table'",
        f"{task_yaml}:{line_of(task_yaml, '{bad: 1}')}: unknown key 'bad'",
    ):
        assert line in lines
    assert (
        f"{task_yaml}:{line_of(task_yaml, '- nosuchserver')}: unknown server 'nosuchserver'" in result.stderr
    )
    task_yaml.write_text(text.replace("id: lms-enrollment-overview", "id: other-id"))
    result = mseval("tasks", "list", env=env)
    assert (
        f"{task_yaml}:1: id 'other-id' must match the folder name 'lms-enrollment-overview'" in result.stderr
    )
    assert f"{solution}:1: solution is for task 'lms-enrollment-overview', not 'other-id'" in result.stderr
    shutil.copy(TASKS_DIR / "lms" / "lms-enrollment-overview" / "task.yaml", task_yaml)
    gold = solution.read_text()
    solution.write_text(
        gold.replace("label: course-records-lookup", "label: roster-lookup", 1).replace(
            "tool: mcp__excel__", "tool: mcp__shop__", 1
        )
    )
    prior.write_text(prior.read_text().replace("subtask: s3", "subtask: s9", 1))
    result = mseval("tasks", "list", env=env)
    assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr
    shop = line_of(solution, "tool: mcp__shop__")
    lines = result.stderr.strip().splitlines()
    assert (
        f"{solution}:{line_of(solution, 'label: roster-lookup')}: subtasks.0.label: unknown function label 'roster-lookup'"
        in lines
    )
    assert any(
        ln.startswith(f"{solution}:{shop}: sub-task s") and "is not on the task's servers" in ln
        for ln in lines
    )
    assert (
        f"{prior}:{line_of(prior, 'subtask: s9')}: sub-task 's9' is not in lms-enrollment-overview's solution"
        in lines
    )
    assert len(lines) == 3, lines


def test_a_gold_argument_that_is_not_json_is_refused_at_load(tmp_path: Path) -> None:
    """An unquoted date as a tool argument (`course: 2026-01-01`) loaded, and each episode of
    the task was recorded absent: "Object of type date is not JSON serializable"."""
    tasks, _priors, env = catalog_copy(tmp_path)
    solution = tasks / "lms" / "lms-due-reminder" / "solution.yaml"
    solution.write_text(solution.read_text().replace("course: CS101", "course: 2026-01-01", 1))
    assert _run(tmp_path, env) == (
        f"{solution}:{line_of(solution, 'course: 2026')}: subtasks.0.calls.0.arguments.course: "
        "2026-01-01 is read as a date, not a JSON value; quote it to give text"
    )


def test_cross_file_problems_carry_the_line_of_the_key(tmp_path: Path) -> None:
    task_yaml, solution, prior, env = overview_files(tmp_path)
    task_yaml.write_text(task_yaml.read_text().replace("- excel", "- excel\n- nosuchserver"))
    solution.write_text(solution.read_text().replace("- id: s2", "- id: s1", 1))
    prior.write_text(prior.read_text().replace("subtask: s3", "subtask: s9", 1))
    result = mseval("tasks", "list", env=env)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert (
        f"{task_yaml}:{line_of(task_yaml, '- nosuchserver')}: unknown server 'nosuchserver'" in result.stderr
    )
    second_s1 = [i for i, ln in enumerate(solution.read_text().splitlines(), 1) if "- id: s1" in ln][1]
    assert f"{solution}:{second_s1}: sub-task id 's1' is used twice; ids must be unique" in lines
    assert (
        f"{prior}:{line_of(prior, 'subtask: s9')}: sub-task 's9' is not in lms-enrollment-overview's solution"
        in lines
    )


def test_priors_validate_names_an_unknown_sub_agent_type(tmp_path: Path) -> None:
    _tasks, priors, env = catalog_copy(tmp_path, "lms-enrollment-overview")
    prior = priors / "lms-enrollment-overview.yaml"
    prior.write_text(prior.read_text().replace("gen: explorer", "gen: no-such-role", 1))
    line = one_line_error(mseval("priors", "validate", env=env))
    assert (
        line
        == f"{prior}:{line_of(prior, 'no-such-role')}: sub-task s1: unknown gen sub-agent type 'no-such-role'"
    )


def test_validate_commands_know_the_roles_of_the_profile_folders_given(tmp_path: Path) -> None:
    """A prior may name a team's own role, which `run --profiles DIR` offers; `priors validate`
    and `tasks validate` knew only the built-in roles and refused such a prior for good."""
    _tasks, priors, env = catalog_copy(tmp_path, "lms-enrollment-overview")
    prior = priors / "lms-enrollment-overview.yaml"
    prior.write_text(prior.read_text().replace("gen: explorer", "gen: roster-reader", 1))
    roles = tmp_path / "roles"
    roles.mkdir()
    explorer = (ROOT / "subagent_profiles" / "explorer.md").read_text()
    (roles / "roster-reader.md").write_text(explorer.replace("name: explorer", "name: roster-reader", 1))
    assert one_line_error(mseval("priors", "validate", env=env)).endswith(
        "sub-task s1: unknown gen sub-agent type 'roster-reader'"
    )
    result = mseval("priors", "validate", "--profiles", str(roles), env=env)
    assert result.returncode == 0 and result.stdout.startswith("1 priors valid"), result.stderr
    refused = mseval("tasks", "validate", "lms-enrollment-overview", env=env)
    assert refused.returncode == 1 and "roster-reader" in refused.stdout, refused.stdout
    result = mseval("tasks", "validate", "lms-enrollment-overview", "--profiles", str(roles), env=env)
    assert result.returncode == 0 and result.stdout.startswith("ok  lms-enrollment-overview"), result.stdout


def test_priors_validate_names_an_unknown_type_beside_the_prior_s_other_problems(tmp_path: Path) -> None:
    """A unit's wrong mode (the prior does not load) hid the unknown types of every prior and a
    prior without a task: they were told only once the mode was fixed."""
    _tasks, priors, env = catalog_copy(tmp_path, "lms-enrollment-overview", "lms-midterm-grade-report")
    prior = priors / "lms-enrollment-overview.yaml"
    prior.write_text(
        prior.read_text()
        .replace("mode: read-only", "mode: writable", 1)
        .replace("gen: explorer", "gen: wizard", 1)
    )
    other = priors / "lms-midterm-grade-report.yaml"
    other.write_text(other.read_text().replace("spec: ", "spec: nobody #", 1))
    stray = priors / "lms-gone.yaml"
    stray.write_text("task: lms-gone\nneed_delegation: false\nwaves: []\n")
    lines = mseval("priors", "validate", env=env).stderr.strip().splitlines()
    assert (
        f"{prior}:{line_of(prior, 'mode: writable')}: waves.0.0.mode: label 'course-records-lookup' is read-only, but the unit says writable"
        in lines
    )
    assert (
        f"{prior}:{line_of(prior, 'gen: wizard')}: sub-task s1: unknown gen sub-agent type 'wizard'" in lines
    )
    assert any(
        ln.startswith(f"{other}:{line_of(other, 'spec: nobody')}: sub-task ")
        and ln.endswith("unknown spec sub-agent type 'nobody'")
        for ln in lines
    ), lines
    assert f"{stray}: no task 'lms-gone' for this prior" in lines
    assert len(lines) == 4, lines


def test_run_refuses_an_unknown_sub_agent_type_and_an_unknown_gold_tool_before_anything_runs(
    tmp_path: Path,
) -> None:
    """Both were found only by `priors validate` / `tasks validate`: `run` went ahead and the
    sim agents' calls failed per episode, scored as the model's failures."""
    tasks, priors, env = catalog_copy(tmp_path, "lms-enrollment-overview")
    prior = priors / "lms-enrollment-overview.yaml"
    prior.write_text(prior.read_text().replace("gen: explorer", "gen: no-such-role", 1))
    solution = tasks / "lms" / "lms-enrollment-overview" / "solution.yaml"
    solution.write_text(
        solution.read_text().replace("mcp__lms__list_enrollments", "mcp__lms__no_such_tool", 1)
    )
    store = tmp_path / "store.db"
    result = mseval("run", "-m", "sim:oracle", "-v", "spec", "--store", f"sqlite:///{store}",
                    "--runs-dir", str(tmp_path / "runs"), env=env)  # fmt: skip
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.strip().splitlines() == [
        f"{prior}:{line_of(prior, 'no-such-role')}: sub-task s1: unknown gen sub-agent type 'no-such-role'",
        f"{solution}:{line_of(solution, 'mcp__lms__no_such_tool')}: sub-task s1: no tool mcp__lms__no_such_tool",
    ]
    assert not store.exists() and not (tmp_path / "runs").exists()


def test_missing_catalog_folders_are_named(tmp_path: Path) -> None:
    _tasks, _priors, env = catalog_copy(tmp_path)
    missing = str(tmp_path / "nowhere")
    line = one_line_error(mseval("tasks", "list", env={**env, "MSEVAL_TASKS": missing}))
    assert line == f"{missing}: no such folder of tasks (from MSEVAL_TASKS)"
    line = one_line_error(mseval("tasks", "list", env={**env, "MSEVAL_PRIORS": missing}))
    assert line == f"{missing}: no such folder of delegation priors (from MSEVAL_PRIORS)"
    line = one_line_error(mseval("profiles", "list", "--dir", missing))
    assert line == f"{missing}: no such folder of profiles"


def test_a_file_given_as_a_folder_is_named_a_file(tmp_path: Path) -> None:
    """`--dir FILE` and `--priors FILE` said 'no such folder', though the path was there."""
    afile = tmp_path / "afile"
    afile.write_text("x")
    for command in (("profiles", "validate"), ("profiles", "list")):
        line = one_line_error(mseval(*command, "--dir", str(afile)))
        assert line == f"{afile}: a file, not a folder of profiles"
    line = one_line_error(mseval("score", "--episodes", str(afile), "--priors", str(afile)))
    assert line == f"{afile}: a file, not a folder of delegation priors (--priors)"


def test_an_unreadable_profile_folder_is_named_not_read_as_empty(tmp_path: Path, monkeypatch: Any) -> None:
    """A profile folder that could not be listed (its permissions) was globbed as empty: its
    profiles were missing without a word."""

    from contracts.errors import InputError
    from harness.profiles import load_profiles

    folder = tmp_path / "profiles"
    folder.mkdir()
    (folder / "mine.md").write_text("not read\n")
    refuse_listing(monkeypatch, folder)
    with pytest.raises(InputError) as caught:
        load_profiles([folder])
    assert [str(p) for p in caught.value.problems] == [
        f"{folder}: cannot read this folder: Permission denied"
    ]


def test_catalog_variables_set_but_empty_count_as_unset(tmp_path: Path) -> None:
    """`MSEVAL_PRIORS=` made the current folder the priors folder (every task "no prior"), and
    `MSEVAL_TASKS=` the tasks folder (no task found), where `mseval score` took empty as unset."""
    result = mseval("tasks", "list", "lms", env={"MSEVAL_TASKS": "", "MSEVAL_PRIORS": ""}, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    rows = [line.split() for line in result.stdout.splitlines()]
    assert len(rows) >= 3 and all(row[1] == "lms" for row in rows)
    assert {row[2] for row in rows} <= {"D_need", "D_no-need"}  # every task found its prior


def test_run_checks_the_tool_globs_of_extra_profiles(tmp_path: Path) -> None:
    _tasks, _priors, env = catalog_copy(tmp_path)
    folder = tmp_path / "profiles"
    folder.mkdir()
    role = folder / "helper.md"
    role.write_text('---\nname: helper\ndescription: d\nwhenToUse: w\ntools: ["mcp__nosuch__*"]\n---\nbody\n')
    store = tmp_path / "store.db"
    result = mseval("run", "-m", "sim:oracle", "-v", "spec", "--profiles", str(folder),
                    "--store", f"sqlite:///{store}", env=env)  # fmt: skip
    line = one_line_error(result)
    assert line == f"{role}:5: tools glob 'mcp__nosuch__*' matches no known tool"
    assert not store.exists()


def test_score_reads_priors_from_mseval_priors(tmp_path: Path) -> None:
    episodes = tmp_path / "e.jsonl"
    episodes.write_text("")
    priors = tmp_path / "priors"
    priors.mkdir()
    (priors / "t1.yaml").write_text("task: t1\nneed_delegation: false\nwaves: []\nbogus: 1\n")
    env = {"MSEVAL_PRIORS": str(priors)}
    for command in (("score",), ("report", "--out", str(tmp_path / "rep"))):
        result = mseval(*command, "--episodes", str(episodes), "--embedder", "none", env=env)
        assert one_line_error(result) == f"{priors / 't1.yaml'}:4: unknown key 'bogus'"
    missing = tmp_path / "nowhere"
    result = mseval(
        "score", "--episodes", str(episodes), "--embedder", "none", env={"MSEVAL_PRIORS": str(missing)}
    )
    assert one_line_error(result) == f"{missing}: no such folder of delegation priors (MSEVAL_PRIORS)"


def test_tasks_validate_checks_splits_only_of_scenarios_the_catalog_covers(tmp_path: Path) -> None:
    *_, env = catalog_copy(tmp_path, "lms-due-reminder", "lms-enrollment-overview")
    result = mseval("tasks", "validate", env=env)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.strip().splitlines()[-1] == "2 tasks, 0 problems"


def test_tasks_validate_names_the_file_and_line_of_a_failing_gold_call(tmp_path: Path) -> None:
    tasks, _priors, env = catalog_copy(tmp_path, "lms-due-reminder", "lms-enrollment-overview")
    solution = tasks / "lms" / "lms-enrollment-overview" / "solution.yaml"
    solution.write_text(
        solution.read_text()
        .replace("mcp__lms__list_enrollments", "mcp__lms__no_such_tool", 1)
        .replace("mcp__excel__create_workbook", "mcp__excel__no_such_tool", 1)
    )
    result = mseval("tasks", "validate", env=env)
    assert result.returncode == 1, result.stdout + result.stderr  # a validation failure, not bad input
    line = line_of(solution, "mcp__lms__no_such_tool")
    assert f"    {solution}:{line}: sub-task s1: no tool mcp__lms__no_such_tool" in result.stdout.splitlines()
    problems = sum(1 for text in result.stdout.splitlines() if text.startswith("    "))
    assert problems >= 3, result.stdout  # the two calls, the writes to the missing workbook, the check
    # each told once: not also as a tool that the sub-task's gen and spec types cannot call
    assert "cannot call" not in result.stdout
    # the last line counted failing tasks as "problems" (1 problems under 4 problem lines)
    assert result.stdout.splitlines()[-1] == f"2 tasks, 1 failing ({problems} problems)"


def test_run_refuses_a_check_that_cannot_be_imported_before_anything_runs(tmp_path: Path) -> None:
    """A check.py that failed at import (a missing module, `check = 5`, `raise SystemExit`) was
    found only per episode: the run went through and scored the model as failing."""
    tasks, _priors, env = catalog_copy(tmp_path)
    check = tasks / "lms" / "lms-due-reminder" / "check.py"
    store, runs = tmp_path / "s.db", tmp_path / "runs"
    run = ("run", "-m", "sim:oracle", "-v", "sa", "--store", f"sqlite:///{store}", "--runs-dir", str(runs))
    source = check.read_text()
    for first_line, message in [
        ("import no_such_module_here\n", "importing check.py failed: ModuleNotFoundError(\"No module named 'no_such_module_here'\")"),
        ("raise SystemExit(0)\n", "importing check.py failed: SystemExit(0)"),
    ]:  # fmt: skip
        check.write_text(source + "\n" + first_line)  # the line that fails is told
        line = len(source.splitlines()) + 2
        assert one_line_error(mseval(*run, env=env)) == f"{check}:{line}: {message}"
        # `tasks validate` too (it reported a failing task, exit 1, against its help's exit 2)
        assert (
            one_line_error(mseval("tasks", "validate", "lms-due-reminder", env=env))
            == f"{check}:{line}: {message}"
        )
    check.write_text(source.replace("def check(", "def _check(", 1) + "\ncheck = 5\n")
    assert (
        one_line_error(mseval(*run, env=env))
        == f"{check}: check.py must define check(world) -> list[Criterion]"
    )
    assert not store.exists() and not runs.exists()


def test_a_setup_file_outside_the_workspace_is_refused_at_load(tmp_path: Path) -> None:
    """`setup: - file: ../../escape.txt` was refused only when an episode started (exit 1, the
    episode recorded absent, the store written)."""
    tasks, _priors, env = catalog_copy(tmp_path)
    spec = tasks / "lms" / "lms-due-reminder" / "task.yaml"
    spec.write_text(
        spec.read_text().replace("servers:", "setup:\n- file: ../../escape.txt\n  content: x\nservers:", 1)
    )
    line = one_line_error(mseval("tasks", "list", env=env))
    assert line == (
        f"{spec}:{line_of(spec, 'escape.txt')}: setup step 1: path '../../escape.txt' refused: '..' may not leave the workspace"
    )


def test_a_task_folder_without_task_yaml_is_named_not_passed_over(tmp_path: Path) -> None:
    """A task whose task.yaml was renamed (task.yml) was silently left out of `all` and of its
    scenario, and `--tasks <its id>` said only that no task matches."""
    tasks, _priors, env = catalog_copy(tmp_path, "lms-due-reminder", "lms-missing-work-zeros")
    folder = tasks / "lms" / "lms-missing-work-zeros"
    (folder / "task.yaml").rename(folder / "task.yml")
    for selector in ("all", "lms", "lms-missing-work-zeros"):
        line = one_line_error(mseval("tasks", "list", selector, env=env))
        assert line == f"{folder}: a task folder without task.yaml", selector


def test_a_catalog_folder_that_cannot_be_listed_is_one_problem(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An unreadable priors folder (its permissions) gave a PermissionError traceback."""

    from contracts.errors import InputError
    from harness.catalog import load_tasks

    tasks, priors, _env = catalog_copy(tmp_path)
    refuse_listing(monkeypatch, priors)
    with pytest.raises(InputError) as caught:
        load_tasks("all", tasks, priors)
    assert [str(p) for p in caught.value.problems] == [
        f"{priors}: cannot read this folder: Permission denied"
    ]


def test_a_setup_step_the_world_refuses_is_named_at_its_line(tmp_path: Path) -> None:
    """A setup row the schema refuses (or a file step naming a folder) ended `tasks validate`
    in a traceback, and each `run` episode absent with a bare IntegrityError. Then, told only
    when an episode started, `mseval run` recorded each episode of the task absent (exit 1, the
    store and workspaces written) instead of refusing the input before the run."""
    tasks, _priors, env = catalog_copy(tmp_path)
    spec = tasks / "lms" / "lms-due-reminder" / "task.yaml"
    original = spec.read_text()
    steps = {
        "- insert: lms_course\n  rows: [{id: 1, code: X, title: T, term: F}]\n": (
            "- insert: lms_course", 1, "NOT NULL constraint failed: lms_course.instructor",
        ),
        "- file: .\n  content: x\n": ("- file: .", 1, "Is a directory"),
        "- file: a.txt\n  content: a\n- file: a.txt/b\n  content: b\n": ("- file: a.txt/b", 2, "File exists"),
    }  # fmt: skip
    for step, (needle, number, why) in steps.items():
        spec.write_text(original.replace("servers:", f"setup:\n{step}servers:", 1))
        said = f"{spec}:{line_of(spec, needle)}: setup step {number} cannot be applied: {why}"
        result = mseval("tasks", "validate", "lms-due-reminder", env=env)
        assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
        assert said in result.stdout
        assert _run(tmp_path, env) == said


def refuse_listing(monkeypatch: Any, folder: Path) -> None:
    """`os.scandir(folder)` fails as a folder without read permission does (tests run as root,
    whom permission bits do not stop)."""
    import os

    real_scandir = os.scandir

    def refused(path: Any) -> Any:
        if Path(path) == folder:
            raise PermissionError(13, "Permission denied")
        return real_scandir(path)

    monkeypatch.setattr(os, "scandir", refused)


@pytest.mark.parametrize("name", ["task.yaml", "check.py"])
def test_a_task_file_that_is_a_folder_is_one_problem_saying_so(tmp_path: Path, name: str) -> None:
    """A task.yaml that was a folder was two problems ('a task folder without task.yaml' and
    'cannot read: Is a directory'); a check.py that was a folder was 'missing file'."""
    tasks, _priors, env = catalog_copy(tmp_path)
    path = tasks / "lms" / "lms-due-reminder" / name
    path.unlink()
    path.mkdir()
    assert _run(tmp_path, env) == f"{path}: cannot read: Is a directory"


def test_run_refuses_the_oracle_variant_on_a_task_without_a_prior(tmp_path: Path) -> None:
    """`oracle` hands the model each task's delegation prior: on a task without one it ran as
    `gen` does, silently, and its rows were scored as oracle's."""
    tasks, priors, env = catalog_copy(tmp_path, "lms-due-reminder", "lms-enrollment-overview")
    (priors / "lms-due-reminder.yaml").unlink()
    store = tmp_path / "store.db"
    result = mseval("run", "-m", "sim:oracle", "-v", "gen", "-v", "oracle", "--store", f"sqlite:///{store}",
                    "--runs-dir", str(tmp_path / "runs"), env=env)  # fmt: skip
    assert one_line_error(result) == (
        f"--variant: oracle appends each task's delegation prior, and lms-due-reminder has none in {priors}: "
        "write <task-id>.yaml there (docs/annotating-priors.md), or leave this variant out"
    )
    assert not store.exists() and not (tmp_path / "runs").exists()


def test_a_check_py_that_never_finishes_importing_is_bad_input(tmp_path: Path, monkeypatch: Any) -> None:
    """A check.py stuck at import (`while True: pass` at the top level) held `tasks validate`
    and `run` for ever; it is now told, with the line it is stuck at, once the import has run
    as long as a check may. Here it waits for an event set only after the answer: it cannot
    finish first, whatever the machine's speed."""
    import sys
    import threading

    from harness import catalog

    tasks, priors, _env = catalog_copy(tmp_path)
    folder = tasks / "lms" / "lms-due-reminder"
    gate = threading.Event()
    monkeypatch.setitem(sys.modules, "mseval_test_gate", gate)  # type: ignore[arg-type]
    check = folder / "check.py"
    check.write_text(check.read_text() + "\nimport sys\n\nsys.modules['mseval_test_gate'].wait()\n")
    monkeypatch.setattr(catalog, "CHECK_IMPORT_TIMEOUT_S", 0.1)
    task = catalog.load_task(folder, priors)
    try:
        with pytest.raises(InputError) as caught:
            task.load_check()
    finally:
        gate.set()
    (problem,) = caught.value.problems
    assert (problem.file, problem.line) == (str(check), len(check.read_text().splitlines()))
    assert problem.message == "importing check.py did not finish within 0.1 s"


def test_a_prior_saved_as_yml_is_named_not_passed_over(tmp_path: Path) -> None:
    """Priors are read from <task-id>.yaml: one saved as .yml was never read, and its task ran and
    was scored as one without a prior, without a word."""
    _tasks, priors, env = catalog_copy(tmp_path)
    (priors / "lms-due-reminder.yaml").rename(priors / "lms-due-reminder.yml")
    assert one_line_error(mseval("tasks", "list", env=env)) == (
        f"{priors / 'lms-due-reminder.yml'}: a prior is read from lms-due-reminder.yaml only: rename this file"
    )


def test_a_yml_prior_beside_the_yaml_or_naming_no_task_is_refused_too(tmp_path: Path) -> None:
    """A .yml beside the task's .yaml (edits to it changed nothing) and one naming no task passed
    `priors validate` without a word, though the docs say a .yml is refused."""
    _tasks, priors, env = catalog_copy(tmp_path)
    shutil.copy(priors / "lms-due-reminder.yaml", priors / "lms-due-reminder.yml")
    assert one_line_error(mseval("priors", "validate", env=env)) == (
        f"{priors / 'lms-due-reminder.yml'}: a prior is read from lms-due-reminder.yaml only: "
        "remove this file or merge it into that one"
    )
    (priors / "lms-due-reminder.yml").rename(priors / "other-task.yml")
    assert one_line_error(mseval("priors", "validate", env=env)) == (
        f"{priors / 'other-task.yml'}: no task 'other-task' for this prior, and a prior is read from .yaml files only"
    )


def test_setup_values_that_are_not_one_value_or_match_every_row_are_refused_at_load(tmp_path: Path) -> None:
    """A list as a column's value ended `tasks validate` in a traceback (the driver cannot bind
    it); `where: {}` deleted every row of the table; `file: inbox/` wrote a file named inbox."""
    tasks, _priors, env = catalog_copy(tmp_path)
    spec = tasks / "lms" / "lms-due-reminder" / "task.yaml"
    original = spec.read_text()
    steps = {
        "- update: lms_enrollment\n  where: {id: 5}\n  values: {status: [1, 2]}\n": (
            "- update: lms_enrollment",
            "setup.0: a column's value is one value, not a list or a mapping",
        ),
        "- delete: lms_grade\n  where: {}\n": (
            "- delete: lms_grade",
            "setup.0: delete needs a non-empty where (an empty one matches every row)",
        ),
        "- file: inbox/\n  content: hello\n": (
            "- file: inbox/",
            "setup step 1: 'inbox/' names a folder; give the file's name",
        ),
    }
    for step, (needle, why) in steps.items():
        spec.write_text(original.replace("servers:", f"setup:\n{step}servers:", 1))
        assert one_line_error(mseval("tasks", "validate", "lms-due-reminder", env=env)) == (
            f"{spec}:{line_of(spec, needle)}: {why}"
        ), step


def test_a_check_that_cannot_take_the_world_is_refused_before_a_run(tmp_path: Path) -> None:
    """`def check():` was imported fine and raised TypeError in every episode: each counted as
    the model failing the task."""
    tasks, _priors, env = catalog_copy(tmp_path)
    check = tasks / "lms" / "lms-due-reminder" / "check.py"
    source = check.read_text()
    check.write_text(source.replace("def check(world: World)", "def check()", 1))
    line = line_of(check, "def check(")
    assert _run(tmp_path, env) == (
        f"{check}:{line}: check must take one argument, the world: check(world) -> list[Criterion]"
    )


def test_a_task_file_that_is_a_device_a_pipe_or_too_large_is_refused_unread(tmp_path: Path) -> None:
    """A task.yaml linked to /dev/zero was read until the machine ran out of memory (24 GB); one
    that was a named pipe waited for a writer that never came."""
    tasks, _priors, env = catalog_copy(tmp_path)
    spec = tasks / "lms" / "lms-due-reminder" / "task.yaml"
    text = spec.read_text()
    spec.unlink()
    spec.symlink_to("/dev/zero")
    assert _run(tmp_path, env) == f"{spec}: is a device, not a file"
    spec.unlink()
    os.mkfifo(spec)
    assert _run(tmp_path, env) == f"{spec}: is a pipe, not a file"
    spec.unlink()
    spec.write_text(text + "# " + "x" * (16 << 20) + "\n")
    assert _run(tmp_path, env) == f"{spec}: is larger than 16 MiB: not an input file of this kind"


def test_a_check_py_that_is_a_pipe_or_a_device_is_refused_unread(tmp_path: Path) -> None:
    """The catalog compiles each check.py at load: one that was a named pipe waited for a writer
    that never came, and one linked to /dev/zero was read until memory ran out, where task.yaml
    and solution.yaml were refused in one line."""
    tasks, _priors, env = catalog_copy(tmp_path)
    check = tasks / "lms" / "lms-due-reminder" / "check.py"
    check.unlink()
    os.mkfifo(check)
    assert _run(tmp_path, env) == f"{check}: is a pipe, not a file"
    check.unlink()
    check.symlink_to("/dev/zero")
    assert _run(tmp_path, env) == f"{check}: is a device, not a file"
