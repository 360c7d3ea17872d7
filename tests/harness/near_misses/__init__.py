"""Near-miss solutions: a task's gold solution changed in one way a careless agent might, which
its check must fail. `test_near_misses.py` replays each on a fresh world; each scenario's are in `<scenario>.py` here.

A near miss is written against the gold calls' JSON: `replace` substitutes literal text in
it (a wrong figure, recipient, name), `drop` leaves out the calls to some tools (a missing
deliverable), and `extra` appends calls after the gold ones (damage, duplicates).
"""

from __future__ import annotations

import importlib
import json
from dataclasses import dataclass, field, replace
from typing import Any

from harness.catalog import Solution, Task


@dataclass(frozen=True)
class NearMiss:
    task: str
    why: str
    replace: tuple[tuple[str, str], ...] = ()
    drop: tuple[str, ...] = ()
    extra: tuple[tuple[str, dict[str, Any]], ...] = field(default=())

    def apply(self, task: Task) -> Task:
        data = task.solution.model_dump()
        for sub in data["subtasks"]:
            sub["calls"] = [c for c in sub["calls"] if c["tool"] not in self.drop]
        text = json.dumps(data, ensure_ascii=False)
        for old, new in self.replace:
            assert old in text, f"{self.task}: {old!r} is not in the gold solution"
            text = text.replace(old, new)
        data = json.loads(text)
        data["subtasks"][-1]["calls"] += [{"tool": t, "arguments": a} for t, a in self.extra]
        return replace(task, solution=Solution.model_validate(data))


SCENARIOS = ("lms", "edw", "ec", "sm", "vp", "rs", "ar", "fc")


def near_misses() -> list[NearMiss]:
    """Every scenario module's `MISSES` (one module per scenario, `near_misses/<scenario>.py`)."""
    found: list[NearMiss] = []
    for scenario in SCENARIOS:
        module = importlib.import_module(f"{__name__}.{scenario}")
        found += module.MISSES
    return found
