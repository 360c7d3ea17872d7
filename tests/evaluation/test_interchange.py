"""Traces from other harnesses, written by hand from SPEC §8, as a researcher would score them.

What a record must give and what is refused with its file and line (exit 2) rather than scored
wrongly or with a traceback; and the worked example of docs/records.md, scored as printed there.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from contracts import InputError
from evaluation.records import load_episodes
from tests.evaluation.test_cli import mseval

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
