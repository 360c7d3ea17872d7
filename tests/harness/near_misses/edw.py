"""Near misses of the edw tasks (see __init__.py)."""

from __future__ import annotations

from tests.harness.near_misses import NearMiss

MISSES: list[NearMiss] = []
