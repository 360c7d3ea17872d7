"""Every near hit of `near_hits/` passes its task's check: a correct solution worded otherwise than
the gold one is not failed."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.catalog import load_tasks
from harness.validate import replay
from tests.harness.near_hits import NearHit, near_hits


@pytest.mark.parametrize("hit", near_hits(), ids=lambda h: f"{h.task}: {h.why}")
async def test_a_near_hit_passes_the_check(hit: NearHit, tmp_path: Path) -> None:
    (task,) = load_tasks(hit.task)
    checks, failures, _ = await replay(hit.apply(task), tmp_path, gold=True)
    assert not failures, [f.message for f in failures]  # the near hit itself ran
    failed = [f"{c.name}: {c.message}" for c in checks if not c.passed]
    assert not failed, f"{hit.task}: the check failed '{hit.why}': {failed}"
