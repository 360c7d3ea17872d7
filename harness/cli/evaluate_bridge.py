"""After `mseval demo`: score the store and write the report.

This module is the one place the runtime's command line reaches into `evaluation` (lazily, via
the evaluation commands); the runtime itself never imports it.
"""

from __future__ import annotations

from pathlib import Path


def score_and_report(store: str, report: Path | None) -> None:
    from harness.cli import evaluate

    evaluate.demo_hook(store, report)
