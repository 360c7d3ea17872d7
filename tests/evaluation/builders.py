"""Hand-built episode records and priors for the evaluation tests."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from contracts import DelegationPrior, EpisodeRecord

LABEL_MODES = {
    "course-records-lookup": "read-only",
    "literature-search": "read-only",
    "paper-reading": "read-only",
    "planning": "read-only",
    "web-research": "read-only",
    "spreadsheet-build": "writable",
    "slide-build": "writable",
    "email-send": "writable",
    "document-build": "writable",
}


def sub(
    id: str,
    label: str | None = None,
    *,
    steps: int = 3,
    description: str = "",
    prompt: str | None = None,
    mode: str | None = None,
    response: str = "summary",
    tools: Sequence[str] = (),
    resume_of: str | None = None,
    termination: str | None = "text_only",
    writes_ok: int | None = None,
    type: str = "explorer",
    started_s: float | None = None,
    ended_s: float | None = None,
) -> dict[str, Any]:
    """One sub-agent record as a dict (mode defaults to the label's)."""
    return {
        "id": id,
        "type": type,
        "mode": mode or LABEL_MODES.get(label or "", "read-only"),
        "description": description or f"sub-task of {id}",
        "prompt": prompt,
        "label": label,
        "resume_of": resume_of,
        "steps": steps,
        "tools": list(tools),
        "response": response,
        "termination": termination,
        "writes_ok": writes_ok,
        "started_s": started_s,
        "ended_s": ended_s,
    }


def episode(
    task: str,
    variant: str = "spec",
    *,
    model: str = "sim:test",
    seed: int = 0,
    success: bool | None = True,
    status: str = "completed",
    main_steps: int = 5,
    waves: Sequence[Sequence[dict[str, Any]]] = (),
    main_steps_of_waves: Sequence[int] | None = None,
    cost: float | None = 1.0,
    critical_steps: int | None = None,
    turns: list[dict[str, Any]] | None | bool = True,
    episode_id: str | None = None,
    termination: str | None = None,
) -> EpisodeRecord:
    """An episode; waves start at main steps 1, 2, … unless `main_steps_of_waves` says."""
    starts = list(main_steps_of_waves or range(1, len(waves) + 1))
    if turns is True:
        turns = [
            {"step": i, "text": f"main turn {i} of {task}", "tools": ["t"], "tools_ok": 1}
            for i in range(1, main_steps + 1)
        ]
    elif turns is False:
        turns = None
    return EpisodeRecord.model_validate(
        {
            "task_id": task,
            "model": model,
            "variant": variant,
            "seed": seed,
            "status": status,
            "success": success if status == "completed" else None,
            "termination": termination,
            "main": {"steps": main_steps, "response": "done", "turns": turns},
            "waves": [
                {"index": i, "main_step": starts[i], "subagents": list(w)} for i, w in enumerate(waves)
            ],
            "critical_steps": critical_steps,
            "cost_usd": cost,
            "episode_id": episode_id,
        }
    )


def prior(task: str, waves: Sequence[Sequence[str]] | None = None) -> DelegationPrior:
    """A prior whose gold waves list these labels; None → need_delegation false."""
    units = [
        [
            {
                "subtask": f"s{i}{j}",
                "description": f"gold {label}",
                "label": label,
                "mode": LABEL_MODES.get(label, "read-only"),
                "gen": "explorer",
                "spec": "enterprise-data-analyst",
            }
            for j, label in enumerate(wave)
        ]
        for i, wave in enumerate(waves or [])
    ]
    return DelegationPrior.model_validate({"task": task, "need_delegation": bool(waves), "waves": units})
