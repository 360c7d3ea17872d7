"""Traces from other harnesses, written by hand from SPEC §8, as a researcher would score them.

What a record must give and what is refused with its file and line (exit 2) rather than scored
wrongly or with a traceback; and the worked example of docs/records.md, scored as printed there.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from contracts import InputError
from evaluation.records import ONE_PER_LINE, load_episodes
from tests.harness.cli_support import ROOT, mseval

TASK = "ar-delegation-survey-notes"  # a task of the project, with a prior


def _record(variant: str, **fields: Any) -> dict[str, Any]:
    return {
        "task_id": TASK,
        "model": "m",
        "variant": variant,
        "status": "completed",
        "success": True,
        **fields,
    }


def _write(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def _problems(path: Path) -> list[tuple[int | None, str]]:
    with pytest.raises(InputError) as caught:
        load_episodes(path)
    return [(p.line, p.message) for p in caught.value.problems]


def test_a_cost_or_step_count_too_large_to_sum_is_refused_on_its_line(tmp_path: Path) -> None:
    """Two records of cost 1e308 overflowed math.fsum, and critical_steps 10**400 the float
    conversion of the mean: `mseval score` died with an OverflowError traceback (exit 1)."""
    path = _write(
        tmp_path / "e.jsonl",
        [
            _record("sa", cost_usd=1e308),
            _record("sa", seed=1, critical_steps=10**400),
            _record("sa", seed=2, main={"steps": 10**10}),
            _record("sa", seed=3, waves=[{"index": 0, "subagents": [{"id": "a", "type": "x", "mode": "writable", "steps": 10**10}]}]),
            _record("sa", seed=4, cost_usd=1e9, critical_steps=10**9, main={"steps": 10**9}),  # the largest taken
        ],
    )  # fmt: skip
    assert _problems(path) == [
        (1, "cost_usd: Input should be less than or equal to 1000000000"),
        (2, "critical_steps: Input should be less than or equal to 1000000000"),
        (3, "main.steps: Input should be less than or equal to 1000000000"),
        (4, "waves.0.subagents.0.steps: Input should be less than or equal to 1000000000"),
    ]


def test_a_value_of_the_wrong_kind_is_refused_not_converted(tmp_path: Path) -> None:
    """Pydantic's lax mode took `"seed": true` as seed 1 (pairing the record with another seed's
    baseline), `"success": "yes"` or `1` as a success and `"steps": "3"` as 3, without a word. A
    whole number written as a float (3.0, as JSON Schema's `integer` takes it) stays a count."""
    wave = {
        "index": 0.0,
        "main_step": 1.0,
        "subagents": [{"id": "a", "type": "x", "mode": "read-only", "steps": 2.0}],
    }
    path = _write(
        tmp_path / "e.jsonl",
        [
            _record("sa", seed=True),
            _record("sa", seed=1, success="yes"),
            _record("sa", seed=2, success=1),
            _record("sa", seed=3, main={"steps": "3"}),
            _record("sa", seed=4, main={"steps": 2.5}, cost_usd="0.1"),
            _record("sa", seed=5, model=7, waves={}),
            _record("mas", seed=6.0, main={"steps": 3.0}, critical_steps=5.0, usage={"input_tokens": 1e3}, waves=[wave]),
        ],
    )  # fmt: skip
    assert _problems(path) == [
        (1, "seed: must be a whole number, not true"),
        (2, 'success: must be true or false, not "yes"'),
        (3, "success: must be true or false, not 1"),
        (4, 'main.steps: must be a whole number, not "3"'),
        (5, "main.steps: must be a whole number, not 2.5"),
        (5, 'cost_usd: must be a number, not "0.1"'),
        (6, "model: must be a string, not 7"),
        (6, "waves: must be a list, not {}"),
    ]
    (taken,) = load_episodes(_write(tmp_path / "ok.jsonl", [json.loads(path.read_text().splitlines()[-1])]))
    assert (taken.seed, taken.main.steps, taken.critical_steps, taken.usage.input_tokens) == (6, 3, 5, 1000)
    assert (taken.waves[0].index, taken.waves[0].main_step, taken.subagents[0].steps) == (0, 1, 2)
    assert all(type(n) is int for n in (taken.seed, taken.main.steps, taken.subagents[0].steps))


def test_score_of_an_overflowing_trace_is_bad_input_not_a_traceback(tmp_path: Path) -> None:
    path = _write(
        tmp_path / "e.jsonl", [_record("sa", cost_usd=1e308), _record("sa", seed=1, cost_usd=1e308)]
    )
    result = mseval("score", "--episodes", str(path), "--embedder", "none")
    assert result.returncode == 2, result.stderr
    assert result.stderr.splitlines() == [
        f"{path}:1: cost_usd: Input should be less than or equal to 1000000000",
        f"{path}:2: cost_usd: Input should be less than or equal to 1000000000",
    ]


def test_main_turns_repeating_a_step_are_refused_on_their_line(tmp_path: Path) -> None:
    """Two turns with step 1: the graph kept the second under that step, left the first as a
    node with no edge and gave the second a temporal edge to itself, and IDS and UPR were
    scored over that graph without a word."""
    turns = [
        {"step": 1, "text": "plan", "tools": ["Task"]},
        {"step": 1, "text": "again"},
        {"step": 2, "text": "done"},
    ]
    wave = {
        "index": 0,
        "main_step": 1,
        "subagents": [{"id": "a", "type": "x", "mode": "read-only", "steps": 1}],
    }
    path = _write(
        tmp_path / "e.jsonl",
        [_record("sa"), _record("mas", main={"steps": 3, "turns": turns}, waves=[wave])],
    )
    assert _problems(path) == [(2, "main.turns: step 1 is given by more than one turn")]


def test_a_file_from_an_editor_reads_as_docs_records_md_says(tmp_path: Path) -> None:
    """A byte-order mark, CRLF line ends, blank lines and a last line without its line end
    (docs/records.md, "The file"); a problem is still told on its line."""
    lines = [json.dumps(_record("sa", seed=seed)) for seed in range(3)]
    path = tmp_path / "e.jsonl"
    path.write_bytes(("\ufeff" + lines[0] + "\r\n\r\n" + lines[1] + "\r\n" + lines[2]).encode("utf-8"))
    assert [r.seed for r in load_episodes(path)] == [0, 1, 2]
    path.write_bytes(("\ufeff" + lines[0] + "\r\n\r\n" + '{"task_id": "t"}').encode("utf-8"))
    assert _problems(path)[0] == (3, "missing field 'model'")


def _worked_example() -> str:
    """The minimal records of docs/records.md, as printed there."""
    text = (ROOT / "docs" / "records.md").read_text(encoding="utf-8")
    found = re.search(r"```jsonl\n(.*?)```", text, re.DOTALL)
    assert found, "docs/records.md lost its ```jsonl example"
    return found.group(1)


def test_the_worked_example_of_the_records_doc_scores_as_it_says(tmp_path: Path) -> None:
    path = tmp_path / "trace.jsonl"
    path.write_text(_worked_example(), encoding="utf-8")
    result = mseval("score", "--episodes", str(path), "--embedder", "tfidf", "--json")
    assert result.returncode == 0, result.stderr
    rows = {row["variant"]: row for row in json.loads(result.stdout)["settings"]}
    sa, mas = rows["sa"], rows["claude-code-task"]
    assert (sa["sr"], sa["mean_csteps"], sa["mean_cost_usd"]) == (0.5, 14.0, 0.4)
    assert (mas["sr"], mas["sr_conditional"], mas["absent"], mas["mean_csteps"]) == (0.5, 1.0, 1, 8.0)
    assert (mas["p_hit"], mas["r_hit"], mas["f1_hit"]) == pytest.approx((1.0, 2 / 7, 4 / 9))
    assert (mas["u_p"], mas["u_e"], mas["u_c"]) == pytest.approx((0.5, 14 / 22, 0.5 / 0.85))
    assert mas["msq"] == pytest.approx(4 / 9 * (0.5 + 14 / 22 + 0.5 / 0.85) / 3)
    assert mas["upr"] == 0.0 and mas["ids"] is not None
    assert (sa["ids"], sa["upr"]) == (None, None)  # no turns: the main agent is the graph's one node
    # the figures the page prints, to three places
    assert [f"{mas[k]:.3f}" for k in ("f1_hit", "u_p", "u_e", "u_c", "msq")] == [
        "0.444", "0.500", "0.636", "0.588", "0.255",
    ]  # fmt: skip


def test_gemmas_given_episode_records_says_so_in_one_line(tmp_path: Path) -> None:
    """A researcher's first try, `mseval gemmas trace.jsonl`: it printed a line per key of the
    record ('unknown key task_id', 'missing field nodes', …), or 'invalid JSON: Extra data' for
    a file of several, without saying that gemmas takes a graph, not records."""
    for name, blank in (("trace.jsonl", ""), ("one.json", "\n")):
        path = tmp_path / name
        lines = [json.dumps(_record("sa")), json.dumps(_record("sa", seed=1))]
        path.write_text(blank + "\n".join(lines[: 2 if name.endswith("l") else 1]) + "\n", encoding="utf-8")
        result = mseval("gemmas", str(path), "--embedder", "none")
        assert result.returncode == 2, result.stderr
        line = 2 if blank else 1
        assert result.stderr.splitlines() == [
            f"{path}:{line}: an episode record (mseval.episode/1), not an agent graph: `mseval score --episodes "
            'FILE` scores records and builds the graph of each; gemmas takes {"nodes", "S", "T"}'
        ]


SPEC_EXAMPLE = """{"schema": "mseval.episode/1", "task_id": "lms-enrollment-deck", "model": "sim:oracle",
 "variant": "spec", "seed": 0,
 "status": "completed",            "//": "completed | absent (never ran to a verdict)",
 "success": true,                  "//": "checker verdict; null when absent",
 "termination": "claim_done",
 "main": {"steps": 9, "response": "final text of the main agent"},
 "critical_steps": 15,
 "cost_usd": 0.0}
"""


def test_a_record_laid_out_as_spec_shows_it_is_one_problem(tmp_path: Path) -> None:
    """SPEC §8's example copied as it is laid out (its first line opens the object and goes on)
    was told as 'invalid JSON' on each of its lines, the one-object-per-line rule nowhere."""
    path = tmp_path / "e.jsonl"
    path.write_text(SPEC_EXAMPLE, encoding="utf-8")
    assert _problems(path) == [(1, ONE_PER_LINE)]
    # a first line cut short, followed by records, is that line's problem alone
    path.write_text('{"task_id": "x",\n' + json.dumps(_record("sa")) + "\n", encoding="utf-8")
    assert _problems(path) == [(1, "invalid JSON: EOF while parsing a value at line 2 column 0")]


def test_a_sub_agent_that_ends_before_it_starts_is_refused_on_its_line(tmp_path: Path) -> None:
    """`ended_s` before `started_s` was taken, and the waves timeline drew a bar of negative
    width (a NumPy warning in the report's plot)."""
    run = {"id": "a", "type": "x", "mode": "read-only", "steps": 1}
    path = _write(
        tmp_path / "e.jsonl",
        [
            _record("mas", waves=[{"index": 0, "subagents": [{**run, "started_s": 2.5, "ended_s": 1.0}]}]),
            _record(
                "mas", seed=1, waves=[{"index": 0, "subagents": [{**run, "started_s": 1.0, "ended_s": 1.0}]}]
            ),
        ],
    )
    assert _problems(path) == [(1, "waves.0.subagents.0: ended_s 1.0 is before started_s 2.5")]


def _run(id: str) -> dict[str, Any]:
    return {"id": id, "type": "x", "mode": "read-only", "steps": 1}


def test_two_waves_of_one_index_are_refused_on_their_line(tmp_path: Path) -> None:
    """Two waves both of index 0 were scored as two waves without a word, both `w0` in the waves
    timeline and in warnings."""
    waves = [{"index": 0, "subagents": [_run("a")]}, {"index": 0, "subagents": [_run("b")]}]
    path = _write(tmp_path / "e.jsonl", [_record("sa"), _record("mas", waves=waves)])
    assert _problems(path) == [(2, "waves: index 0 is given by more than one wave")]


def test_two_sub_agents_of_one_id_in_a_record_are_refused_on_their_line(tmp_path: Path) -> None:
    """Two runs with id `a` (in one wave or two) were taken: a `resume_of: "a"` could not say
    which run it continues, and the timeline drew both on one row."""
    one_wave = [{"index": 0, "subagents": [_run("a"), _run("a")]}]
    two_waves = [{"index": 0, "subagents": [_run("a")]}, {"index": 1, "subagents": [_run("a")]}]
    resumed = [
        {"index": 0, "subagents": [_run("a")]},
        {"index": 1, "subagents": [{**_run("b"), "resume_of": "a"}]},
    ]
    path = _write(
        tmp_path / "e.jsonl",
        [_record("mas", waves=one_wave), _record("mas", seed=1, waves=two_waves), _record("mas", seed=2, waves=resumed)],
    )  # fmt: skip
    assert _problems(path) == [
        (1, "waves: id 'a' is given to more than one sub-agent"),
        (2, "waves: id 'a' is given to more than one sub-agent"),
    ]


def test_a_turn_after_the_main_agent_s_last_step_is_refused_on_its_line(tmp_path: Path) -> None:
    """`main: {"steps": 2, "turns": [… step 5]}` was taken: the agent graph had a turn at a step
    CSteps never counted."""
    turns = [{"step": 1}, {"step": 5}, {"step": 2}]
    path = _write(
        tmp_path / "e.jsonl",
        [_record("sa", main={"steps": 2, "turns": turns}), _record("sa", seed=1, main={"steps": 5, "turns": turns})],
    )  # fmt: skip
    assert _problems(path) == [
        (1, "main.turns: step 5 is after the main agent's last step (main.steps is 2)")
    ]


def test_a_wave_after_the_main_agent_s_last_step_is_refused_when_its_steps_are_known(tmp_path: Path) -> None:
    """A wave at `main_step` 9 of a main agent of 3 steps was taken: the waves timeline drew main
    steps 4 to 9, which CSteps did not count. Without `main` its steps are unknown, and a record
    without `main` is written back (`to_json`) with `main.steps` 0: both still read."""
    waves = [
        {"index": 0, "main_step": 1, "subagents": [_run("a")]},
        {"index": 1, "main_step": 9, "subagents": [_run("b")]},
    ]
    path = _write(
        tmp_path / "e.jsonl",
        [_record("mas", main={"steps": 3}, waves=waves), _record("mas", seed=1, waves=waves),
         _record("mas", seed=2, main={"steps": 9}, waves=waves)],
    )  # fmt: skip
    assert _problems(path) == [
        (1, "waves.1.main_step: 9 is after the main agent's last step (main.steps is 3)")
    ]
    path.write_text("\n".join(line for line in path.read_text().splitlines()[1:]) + "\n")
    written = tmp_path / "written.jsonl"
    written.write_text("".join(record.to_json() + "\n" for record in load_episodes(path)))
    assert [(r.seed, r.main.steps) for r in load_episodes(written)] == [(1, 0), (2, 9)]


def test_an_empty_task_model_or_variant_is_refused_on_its_line(tmp_path: Path) -> None:
    """`"task_id": ""` and `"model": ""` were scored: a row of the score table with a blank name."""
    path = _write(
        tmp_path / "e.jsonl",
        [_record("sa", task_id=""), _record("sa", model=" "), _record(""), _record("sa", model="m2")],
    )
    assert _problems(path) == [
        (1, 'task_id: must be a name, not ""'),
        (2, 'model: must be a name, not " "'),
        (3, 'variant: must be a name, not ""'),
    ]


def test_a_line_that_is_no_object_says_a_record_must_be_one(tmp_path: Path) -> None:
    """A line `[…]` or `3` was told as `: must be an object, not …`, an empty field before the colon."""
    path = tmp_path / "e.jsonl"
    path.write_text(json.dumps(_record("sa")) + "\n[1, 2]\n3\nnull\n", encoding="utf-8")
    assert _problems(path) == [
        (2, "a record must be a JSON object, not [1, 2]"),
        (3, "a record must be a JSON object, not 3"),
        (4, "a record must be a JSON object, not null"),
    ]


def test_a_key_given_twice_in_a_record_line_is_refused_on_its_line(tmp_path: Path) -> None:
    """`{"task_id": "t", "task_id": "u", …}` was read as task `u` without a word (pydantic's JSON
    parser keeps the last value), however the line was written: compact, spaced, with JSON
    text (`\\":`) inside its strings, or with another problem beside it."""
    turns = '"turns": [{"step": 1, "text": "{\\"a\\": 1}", "step": 2}]'
    lines = [
        '{"task_id":"t","model":"m","variant":"sa","status":"completed","success":true,"task_id":"u"}',
        '{"task_id": "t", "model": "m", "variant": "sa", "status": "completed", "success": true, "main": {"steps": 2, '
        + turns + "}}",
        '{"task_id" : "t", "model" : "m", "variant" : "sa", "status" : "completed", "success" : true, "seed" : 1,'
        ' "seed" : 2}',
        '{"task_id": "t", "model": "m", "variant": "sa", "status": "completed", "success": "yes", "model": "n"}',
        # no key twice: JSON text in a response, spaces before colons, `":` in a name
        '{"task_id": "t", "model": "m\\":", "variant": "sa", "status": "completed", "success": true, "seed": 9,'
        ' "main": {"steps": 1, "response": "{\\"task_id\\": \\"t\\", \\"task_id\\": 1}"}}',
        '{"task_id" : "t", "model" : "m", "variant" : "sa", "status" : "completed", "success" : true, "seed" : 8}',
    ]  # fmt: skip
    path = tmp_path / "e.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert _problems(path) == [
        (1, "duplicate key 'task_id'"),
        (2, "duplicate key 'main.turns.0.step'"),
        (3, "duplicate key 'seed'"),
        (4, 'success: must be true or false, not "yes"'),
        (4, "duplicate key 'model'"),
    ]
    path.write_text("\n".join(lines[4:]) + "\n", encoding="utf-8")
    assert [r.seed for r in load_episodes(path)] == [9, 8]


def test_score_refuses_a_run_listed_twice_beside_the_records(tmp_path: Path) -> None:
    """`mseval score` took a runs file listing run r1 twice and printed `runs 2` in its footer."""
    path = _write(tmp_path / "e.jsonl", [_record("sa", run_id="r1")])
    runs = tmp_path / "e.runs.json"
    runs.write_text('[{"run_id": "r1"},\n {"run_id": "r1"}]', encoding="utf-8")
    result = mseval("score", "--episodes", str(path), "--embedder", "none")
    assert (result.returncode, result.stdout) == (2, ""), result.stderr
    assert result.stderr.splitlines() == [
        f"{runs}:2: run identity 2: run 'r1' is listed twice (first as run identity 1)"
    ]
