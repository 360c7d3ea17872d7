"""A small benchmark run by hand: one model, SA and spec, four tasks, used across tests.

task   prior                 SA (steps, $, ok)   spec
need1  [L, L] then [S]       10, 1.0, ok         ok; wave [L(A), L(B)] at 1, [S] at 2; main 4 → CSteps 4+3+2 = 9, $3
need2  [L]                   6,  1.0, fail       ok; wave [L] at 1; main 3, sub 2 → CSteps 5, $2
none1  no delegation         4,  1.0, ok         ok; alone, main 3 → CSteps 3, $0.5
orphan (no prior)            5,  1.0, ok         absent
"""

from __future__ import annotations

from contracts import DelegationPrior, EpisodeRecord
from tests.evaluation.builders import episode, prior, sub

L, S = "course-records-lookup", "spreadsheet-build"


def priors() -> dict[str, DelegationPrior]:
    return {"need1": prior("need1", [[L, L], [S]]), "need2": prior("need2", [[L]]), "none1": prior("none1")}


def records(model: str = "sim:test") -> list[EpisodeRecord]:
    """need1 spec: main 4 steps, wave 0 max 3 steps, wave 1 2 steps → CSteps 9, cost $3."""
    return [
        episode("need1", "sa", model=model, main_steps=10, cost=1.0),
        episode("need2", "sa", model=model, main_steps=6, cost=1.0, success=False),
        episode("none1", "sa", model=model, main_steps=4, cost=1.0),
        episode("orphan", "sa", model=model, main_steps=5, cost=1.0),
        episode(
            "need1",
            "spec",
            model=model,
            main_steps=4,
            cost=3.0,
            waves=[
                [sub("a", L, description="A"), sub("b", L, description="B")],
                [sub("c", S, steps=2, writes_ok=1)],
            ],
        ),
        episode("need2", "spec", model=model, main_steps=3, cost=2.0, waves=[[sub("d", L, steps=2)]]),
        episode("none1", "spec", model=model, main_steps=3, cost=0.5),
        episode("orphan", "spec", model=model, status="absent"),
    ]
