"""Loading episode records, run identities and priors: problems name file and line."""

from __future__ import annotations

import gc
import json
import os
from pathlib import Path
from typing import Any

import pytest

from contracts import InputError
from contracts.episode import gc_paused, runs_file_for
from evaluation.records import deduplicate, load_episodes, load_priors, load_run_identities
from tests.evaluation.builders import episode


def test_jsonl_round_trip_skips_blank_lines(tmp_path: Path) -> None:
    path = tmp_path / "e.jsonl"
    path.write_text(episode("t1").to_json() + "\n\n" + episode("t2").to_json() + "\n")
    assert [r.task_id for r in load_episodes(path)] == ["t1", "t2"]


def test_malformed_lines_are_all_reported_with_their_line(tmp_path: Path) -> None:
    path = tmp_path / "e.jsonl"
    good = episode("t1").to_json()
    path.write_text(f"{good}\n{{not json\n{good}\n" + json.dumps({**json.loads(good), "colour": 1}) + "\n")
    with pytest.raises(InputError) as caught:
        load_episodes(path)
    lines = [(p.line, p.message) for p in caught.value.problems]
    assert lines[0][0] == 2 and "invalid JSON" in lines[0][1]
    assert lines[1] == (4, "unknown key 'colour'")
    assert all(p.file == str(path) for p in caught.value.problems)


def test_reading_records_pauses_the_garbage_collector_and_restores_it(tmp_path: Path) -> None:
    path = tmp_path / "e.jsonl"
    path.write_text(episode("t1").to_json() + "\n{not json\n")
    seen: list[bool] = []
    with gc_paused():
        seen.append(gc.isenabled())
    seen.append(gc.isenabled())
    with pytest.raises(InputError):
        load_episodes(path)  # a bad file still gives the collector back
    seen.append(gc.isenabled())
    gc.disable()
    try:
        path.write_text(episode("t1").to_json() + "\n")
        load_episodes(path)
        seen.append(gc.isenabled())  # a caller that had it off keeps it off
    finally:
        gc.enable()
    assert seen == [False, True, True, False]


def test_runs_file_sits_beside_the_export(tmp_path: Path) -> None:
    episodes = tmp_path / "out.jsonl"
    assert runs_file_for(episodes) == tmp_path / "out.runs.json"
    runs = [{"tasks_hash": "a"}, {"tasks_hash": "b"}]
    runs_file_for(episodes).write_text(json.dumps(runs))
    assert load_run_identities(runs_file_for(episodes)) == runs


def test_bad_runs_file_is_input_error(tmp_path: Path) -> None:
    path = tmp_path / "x.runs.json"
    path.write_text('{"not": "a list"}')
    with pytest.raises(InputError, match="list of run-identity"):
        load_run_identities(path)


def test_priors_load_and_a_bad_prior_names_file_and_line(tmp_path: Path) -> None:
    (tmp_path / "good.yaml").write_text("task: good\nneed_delegation: false\n")
    (tmp_path / "bad.yaml").write_text(
        "task: bad\nneed_delegation: true\nwaves:\n  - - {subtask: s1, description: d, label: no-such-label,\n"
        "       mode: read-only, gen: explorer, spec: x}\n"
    )
    (tmp_path / "renamed.yaml").write_text("task: other\nneed_delegation: false\n")
    with pytest.raises(InputError) as caught:
        load_priors(tmp_path)
    problems = {(Path(p.file).name, p.line): p.message for p in caught.value.problems}
    assert "unknown function label" in problems[("bad.yaml", 4)]
    assert "does not match the file name" in problems[("renamed.yaml", 1)]
    (tmp_path / "bad.yaml").unlink()
    (tmp_path / "renamed.yaml").unlink()
    assert list(load_priors(tmp_path)) == ["good"]


def test_missing_priors_folder_means_no_priors(tmp_path: Path) -> None:
    assert load_priors(tmp_path / "absent") == {}


def test_duplicates_keep_the_first_and_are_counted() -> None:
    first, again, other_seed = episode("t", success=True), episode("t", success=False), episode("t", seed=1)
    result = deduplicate([first, again, other_seed])
    assert result.records == [first, other_seed]
    assert result.duplicates == 1


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b'[{"x": "\xe9"}]', "not UTF-8 text"),
        (b"[" * 100_000 + b"]" * 100_000, "invalid JSON: nested too deeply"),
        (b'[{"seed": 1' + b"0" * 5000 + b"}]", "invalid JSON: Exceeds the limit"),
    ],
)
def test_an_unreadable_runs_file_is_one_problem(tmp_path: Path, content: bytes, message: str) -> None:
    """Non-UTF-8 bytes, deep nesting or a huge integer in FILE.runs.json gave a traceback."""
    path = tmp_path / "e.runs.json"
    path.write_bytes(content)
    with pytest.raises(InputError) as caught:
        load_run_identities(path)
    (problem,) = caught.value.problems
    assert problem.file == str(path) and problem.message.startswith(message)


def test_an_export_with_a_byte_order_mark_loads(tmp_path: Path) -> None:
    """A BOM gave "invalid JSON: expected value at line 1 column 1"."""
    path = tmp_path / "e.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + (episode("t1").to_json() + "\n").encode())
    assert [r.task_id for r in load_episodes(path)] == ["t1"]


def test_a_priors_folder_that_cannot_be_listed_is_one_problem(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An unreadable priors folder (its permissions) gave a PermissionError traceback."""
    folder = tmp_path / "priors"
    folder.mkdir()
    real_iterdir = Path.iterdir

    def refused(self: Path) -> Any:
        if self == folder:
            raise PermissionError(13, "Permission denied")
        return real_iterdir(self)

    monkeypatch.setattr(Path, "iterdir", refused)
    with pytest.raises(InputError) as caught:
        load_priors(folder)
    assert [str(p) for p in caught.value.problems] == [
        f"{folder}: cannot read this folder: Permission denied"
    ]


def test_a_run_identity_value_of_the_wrong_kind_is_a_problem_on_its_line(tmp_path: Path) -> None:
    """A foreign identity with `tasks_hash: {...}` made `mseval score` fail with a TypeError
    traceback, and `run_id: 7` left it out of the count of runs; one run listed twice was counted
    twice. Other keys stay free."""
    path = tmp_path / "e.runs.json"
    path.write_text(
        '[\n  {"run_id": "a", "contract": {"any": 1}, "extra": [1]},\n'
        '  {"tasks_hash": {"a": [1]}},\n  {"tasks": [1, 2]},\n  {"models": 3}\n]'
    )
    with pytest.raises(InputError) as caught:
        load_run_identities(path)
    assert [(p.line, p.message) for p in caught.value.problems] == [
        (3, "run identity 2: 'tasks_hash' must be a string, not {\"a\": [1]}"),
        (4, "run identity 3: 'tasks' must be a list of strings, not [1, 2]"),
        (5, "run identity 4: 'models' must be a string or a list of strings, not 3"),
    ]
    path.write_text('[{"seeds": true}, {"seeds": 0}, {"seeds": 2.5}]')
    with pytest.raises(InputError) as caught:
        load_run_identities(path)
    assert [p.message.split(",")[0] for p in caught.value.problems] == [
        f"run identity {n}: 'seeds' must be a whole number from 1 to 100" for n in (1, 2, 3)
    ]
    path.write_text('[{"run_id": "a", "models": "m", "tasks": null, "seeds": 3, "contract": {"any": 1}}]')
    assert load_run_identities(path)[0]["models"] == "m"
    # one run listed twice (two exports' runs files pasted together): the footer said `runs 2`
    path.write_text(
        '[\n  {"run_id": "r1", "tasks_hash": "a"},\n  {"run_id": "r2"},\n  {"tasks_hash": "b"},\n  {"tasks_hash": "b"},\n'
        '  {"tasks": [1],\n   "run_id": "r1"},\n  {"run_id": "r1", "harness": {"name": "other"}}\n]'
    )
    with pytest.raises(InputError) as caught:
        load_run_identities(path)
    assert [(p.line, p.message) for p in caught.value.problems] == [
        (6, "run identity 5: 'tasks' must be a list of strings, not [1]"),
        (7, "run identity 5: run 'r1' is listed twice (first as run identity 1)"),
        (8, "run identity 6: run 'r1' is listed twice (first as run identity 1)"),
    ]
    path.write_text(
        '[{"run_id": "r1", "harness": {"name": "other"}}, {"run_id": "r2"}, {"run_id": null}, {}]'
    )
    assert len(load_run_identities(path)) == 4


def test_a_key_given_twice_in_a_runs_file_is_a_problem_on_its_line(tmp_path: Path) -> None:
    """`{"seeds": 1, "seeds": 900}` was read as 900 without a word (JSON parsers keep the last)."""
    path = tmp_path / "e.runs.json"
    path.write_text('[\n  {"run_id": "a", "seeds": 1,\n   "seeds": 900}\n]')
    with pytest.raises(InputError) as caught:
        load_run_identities(path)
    assert [str(p) for p in caught.value.problems] == [f"{path}:3: duplicate key 'seeds' (first at line 2)"]


def test_json_values_are_found_on_their_lines(tmp_path: Path) -> None:
    """The walk that finds each value's line reads strings holding brackets, braces, quotes and
    escapes, empty containers, and rows of scalars (told at the row's line)."""
    from contracts.jsonio import read_json
    from contracts.yamlio import line_of

    path = tmp_path / "d.json"
    path.write_text(
        '{"a": "x]}\\"{[",\n "b": [{}, [],\n  {"c": [1,\n   2]}, "]"],\n "d": {"e": null, "f": [true, "[", {"g": 1.5e3}]}\n}'
    )
    doc = read_json(path)
    assert doc.data["a"] == 'x]}"{[' and doc.data["b"][3] == "]"
    assert doc.lines == {
        (): 1, ("a",): 1, ("b",): 2, ("b", 0): 2, ("b", 1): 2, ("b", 2): 3, ("b", 2, "c"): 3, ("b", 3): 4,
        ("d",): 5, ("d", "e"): 5, ("d", "f"): 5, ("d", "f", 0): 5, ("d", "f", 1): 5, ("d", "f", 2): 5,
        ("d", "f", 2, "g"): 5,
    }  # fmt: skip
    assert line_of(doc.lines, ("b", 2, "c", 1)) == 3 and line_of(doc.lines, ("d", "nope")) == 5
    path.write_text("[1, 2]")
    assert read_json(path).lines == {(): 1}


@pytest.mark.parametrize(
    ("text", "line"), [('[\n  {"run_id": "a",\n   "seeds": 1}\n]\n', 1), ('\n{\n  "task_id": "t1"\n}\n', 2)]
)
def test_a_json_document_given_as_episodes_is_one_problem(tmp_path: Path, text: str, line: int) -> None:
    """`score --episodes out.runs.json` (or a pretty-printed record) printed a problem for every
    line of it: 96 lines for the demo's runs file."""
    path = tmp_path / "e.jsonl"
    path.write_text(text)
    with pytest.raises(InputError) as caught:
        load_episodes(path)
    (problem,) = caught.value.problems
    assert problem.line == line and "one mseval.episode/1 object per line" in problem.message


def test_a_run_identity_may_plan_at_most_a_million_episodes(tmp_path: Path) -> None:
    """len(matrix) × len(tasks) × seeds, which `unfinished` enumerates, was never bounded."""
    path = tmp_path / "e.runs.json"
    matrix, tasks = [f"m{i}/sa" for i in range(100)], [f"t{i}" for i in range(100)]
    path.write_text(json.dumps([{"matrix": matrix, "tasks": tasks, "seeds": 100}]))
    assert len(load_run_identities(path)) == 1  # 1,000,000 exactly
    path.write_text(json.dumps([{"matrix": matrix, "tasks": [*tasks, "t100"], "seeds": 100}]))
    with pytest.raises(InputError) as caught:
        load_run_identities(path)
    assert [str(p) for p in caught.value.problems] == [
        f"{path}:1: run identity 1: its 'matrix' (100) × 'tasks' (101) × 'seeds' (100) plan 1,010,000 "
        "episodes; a run plans at most 1,000,000"
    ]


def test_a_prior_reports_its_field_and_cross_field_problems_together(tmp_path: Path) -> None:
    """SPEC §12: all problems at once, each on its line. A bad label hid `need_delegation:
    false` with waves, and a bad description hid a unit's mode at odds with its label: pydantic
    skips a model's after-validator once one of its fields fails."""
    (tmp_path / "both.yaml").write_text(
        "task: both\n"
        "need_delegation: false\n"
        "waves:\n"
        "  - - {subtask: s1, description: d, label: no-such-label,\n"
        "       mode: read-only, gen: explorer, spec: x}\n"
        "    - subtask: s2\n"
        "      description: ''\n"
        "      label: spreadsheet-build\n"
        "      mode: read-only\n"
        "      gen: coder\n"
        "      spec: office-report-builder\n"
        "  - []\n"
    )
    (tmp_path / "empty.yaml").write_text("task: ''\nneed_delegation: true\n")
    with pytest.raises(InputError) as caught:
        load_priors(tmp_path)
    problems = sorted((Path(p.file).name, p.line or 0, p.message) for p in caught.value.problems)
    assert problems == [
        ("both.yaml", 2, "need_delegation: false means the main agent works alone, so waves must be empty"),
        ("both.yaml", 4, "waves.0.0.label: unknown function label 'no-such-label'"),
        ("both.yaml", 7, "waves.0.1.description: String should have at least 1 character"),
        (
            "both.yaml",
            9,
            "waves.0.1.mode: label 'spreadsheet-build' is writable, but the unit says read-only",
        ),
        ("both.yaml", 12, "waves.1: a wave must list at least one sub-agent"),
        ("empty.yaml", 1, "task: String should have at least 1 character"),
        ("empty.yaml", 2, "need_delegation: true needs at least one wave"),
    ]


def test_a_prior_named_for_another_task_is_reported_with_its_other_problems(tmp_path: Path) -> None:
    """The file-name check waited for the prior to be valid: a renamed file with a bad label
    reported the label, and only after that fix its `task`."""
    (tmp_path / "renamed.yaml").write_text(
        "need_delegation: true\ntask: other\nwaves:\n  - - {subtask: s1, description: d, label: no-such-label,\n"
        "       mode: read-only, gen: explorer, spec: x}\n"
    )
    with pytest.raises(InputError) as caught:
        load_priors(tmp_path)
    assert sorted((p.line, p.message) for p in caught.value.problems) == [
        (2, "task 'other' does not match the file name"),
        (4, "waves.0.0.label: unknown function label 'no-such-label'"),
    ]


def test_a_records_file_that_is_a_device_or_a_pipe_is_refused_unread(tmp_path: Path) -> None:
    """`--episodes` linked to /dev/zero was read as one endless line until memory ran out; a
    named pipe waited for a writer that never came."""
    link = tmp_path / "episodes.jsonl"
    link.symlink_to("/dev/zero")
    pipe = tmp_path / "pipe.jsonl"
    os.mkfifo(pipe)
    for path, kind in ((link, "a device"), (pipe, "a pipe")):
        with pytest.raises(InputError) as caught:
            load_episodes(path)
        assert [str(p) for p in caught.value.problems] == [f"{path}: is {kind}, not a file"]


def test_a_prior_s_need_delegation_is_true_or_false_not_a_number_or_word(tmp_path: Path) -> None:
    """`need_delegation: 0` was read as false and "yes" as true (told only as 'true needs at
    least one wave')."""
    (tmp_path / "zero.yaml").write_text("task: zero\nneed_delegation: 0\n")
    (tmp_path / "yes.yaml").write_text("task: 'yes'\nneed_delegation: 'yes'\n")
    # YAML 1.1's bare yes/no/on/off were read as true/false: `need_delegation: no` passed.
    for word in ("no", "on", "off"):
        (tmp_path / f"{word}.yaml").write_text(f"task: '{word}'\nneed_delegation: {word}\n")
    with pytest.raises(InputError) as caught:
        load_priors(tmp_path)
    assert sorted((Path(p.file).name, p.line, p.message) for p in caught.value.problems) == [
        (f"{name}.yaml", 2, "need_delegation: Input should be a valid boolean")
        for name in ("no", "off", "on", "yes", "zero")
    ]


def test_nan_or_infinity_in_a_run_identity_is_a_problem_on_its_line(tmp_path: Path) -> None:
    """Python's JSON parser takes NaN and Infinity, which JSON has not: in a key scoring does not
    read (a foreign harness's `budgets`), the value was kept and went out as `null` in the score
    document's `identity.runs`, the run identity changed without a word."""
    path = tmp_path / "e.runs.json"
    path.write_text(
        '[\n  {"run_id": "a", "budgets": {"wall_time_s": Infinity}},\n  {"run_id": "b", "extra": [1, NaN]},\n'
        '  {"run_id": "c", "budgets": {"wall_time_s": 1e999}},\n  {"run_id": "d", "budgets": {"wall_time_s": 1e308}}\n]'
    )
    with pytest.raises(InputError) as caught:
        load_run_identities(path)
    assert [(p.line, p.message) for p in caught.value.problems] == [
        (
            2,
            "run identity 1: 'budgets' holds NaN or Infinity, which are not JSON numbers: {\"wall_time_s\": Infinity}",
        ),
        (3, "run identity 2: 'extra' holds NaN or Infinity, which are not JSON numbers: [1, NaN]"),
        (
            4,
            "run identity 3: 'budgets' holds NaN or Infinity, which are not JSON numbers: {\"wall_time_s\": Infinity}",
        ),
    ]
