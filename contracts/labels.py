"""The function-label vocabulary (SPEC §6), loaded from labels.yaml."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import yaml

Mode = Literal["read-only", "writable"]

_DATA = yaml.safe_load((Path(__file__).parent / "labels.yaml").read_text())

READ_ONLY_LABELS: dict[str, str] = dict(_DATA["read-only"])
WRITABLE_LABELS: dict[str, str] = dict(_DATA["writable"])
LABELS: dict[str, str] = {**READ_ONLY_LABELS, **WRITABLE_LABELS}


def label_mode(label: str) -> Mode:
    """The mode a label implies; KeyError for an unknown label."""
    if label in READ_ONLY_LABELS:
        return "read-only"
    if label in WRITABLE_LABELS:
        return "writable"
    raise KeyError(label)
