"""Interchange formats shared by the runtime and evaluation.

This package imports neither `harness` nor `evaluation`; both import it. It holds what crosses
the boundary between them: the episode record (`mseval.episode/1`), the delegation prior, the
function-label vocabulary, and the loader that turns a YAML file into a validated model while
naming the file and line of every problem.
"""

from contracts.episode import EpisodeRecord, SubagentRecord, Turn, Usage, WaveRecord
from contracts.errors import InputError, Problem
from contracts.labels import LABELS, READ_ONLY_LABELS, WRITABLE_LABELS, label_mode
from contracts.prior import DelegationPrior, PriorUnit
from contracts.yamlio import load_yaml_model

__all__ = [
    "LABELS",
    "READ_ONLY_LABELS",
    "WRITABLE_LABELS",
    "DelegationPrior",
    "EpisodeRecord",
    "InputError",
    "PriorUnit",
    "Problem",
    "SubagentRecord",
    "Turn",
    "Usage",
    "WaveRecord",
    "label_mode",
    "load_yaml_model",
]
