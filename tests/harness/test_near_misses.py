"""Every near miss of `near_misses.py` fails its task's check (and the gold solution passes:
`mseval tasks validate` and tests/test_benchmark.py show that)."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.catalog import load_tasks
from harness.validate import replay
from tests.harness.near_misses import NearMiss, near_misses


@pytest.mark.parametrize("miss", near_misses(), ids=lambda m: f"{m.task}: {m.why}")
async def test_a_near_miss_fails_the_check(miss: NearMiss, tmp_path: Path) -> None:
    (task,) = load_tasks(miss.task)
    checks, failures, _ = await replay(miss.apply(task), tmp_path, gold=True)
    assert not failures, [f.message for f in failures]  # the near miss itself ran
    assert not all(c.passed for c in checks), f"{miss.task}: the check passed '{miss.why}'"
