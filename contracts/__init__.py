"""Interchange formats shared by the runtime and evaluation.

This package imports neither `harness` nor `evaluation`; both import it. It holds what crosses
the boundary between them: the episode record (`mseval.episode/1`), the delegation prior, the
function-label vocabulary, the scenarios, and the loader that turns a YAML file into a
validated model while naming the file and line of every problem.

Names are loaded on first use (PEP 562), so `from contracts.errors import InputError` — which
the command line does at start-up — costs no pydantic import.
"""

from __future__ import annotations

import importlib
from typing import Any

_WHERE = {
    "InputError": "contracts.errors",
    "Problem": "contracts.errors",
    "LABELS": "contracts.labels",
    "READ_ONLY_LABELS": "contracts.labels",
    "WRITABLE_LABELS": "contracts.labels",
    "label_mode": "contracts.labels",
    "EpisodeRecord": "contracts.episode",
    "SubagentRecord": "contracts.episode",
    "Turn": "contracts.episode",
    "Usage": "contracts.episode",
    "WaveRecord": "contracts.episode",
    "DelegationPrior": "contracts.prior",
    "PriorUnit": "contracts.prior",
    "load_yaml_model": "contracts.yamlio",
}

__all__ = sorted(_WHERE)


def __getattr__(name: str) -> Any:
    if name in _WHERE:
        return getattr(importlib.import_module(_WHERE[name]), name)
    raise AttributeError(f"module 'contracts' has no attribute {name!r}")
