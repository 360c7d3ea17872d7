"""Near-hit solutions: a task's gold solution changed in one way the prompt allows (other wording,
an extra remark, a figure rounded as the prompt shows it), which its check must PASS.
`test_near_hits.py` replays each on a fresh world; each scenario's are in `<scenario>.py` here.

They pin checks that once failed a correct solution. A near hit is written like a near miss
(`tests/harness/near_misses`): literal `replace`ments in the gold calls' JSON, `drop`ped tools
and `extra` calls appended after the gold ones.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass

from tests.harness.near_misses import NearMiss


@dataclass(frozen=True)
class NearHit(NearMiss):
    """The same edits of the gold solution as a near miss; the check must pass the result."""


SCENARIOS = ("lms", "edw", "ec", "sm", "vp", "rs", "ar", "fc")


def near_hits() -> list[NearHit]:
    """Every scenario module's `HITS` (one module per scenario, `near_hits/<scenario>.py`)."""
    found: list[NearHit] = []
    for scenario in SCENARIOS:
        module = importlib.import_module(f"{__name__}.{scenario}")
        found += module.HITS
    return found
