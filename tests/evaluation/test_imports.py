"""Evaluation never imports the runtime; the CLI keeps heavy imports out of start-up."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

EVALUATION = Path(__file__).resolve().parents[2] / "evaluation"


def imported_modules(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def test_evaluation_never_imports_harness() -> None:
    files = sorted(EVALUATION.rglob("*.py"))
    assert len(files) > 10
    offenders = {
        str(f.relative_to(EVALUATION)): sorted(
            m for m in imported_modules(f) if m == "harness" or m.startswith("harness.")
        )
        for f in files
    }
    assert {f: m for f, m in offenders.items() if m} == {}


def test_cli_start_up_loads_no_scoring_stack() -> None:
    """`mseval --help` imports the command modules only: evaluation, numpy, matplotlib and
    onnxruntime load inside the commands (start-up time is measured by bench, not here)."""
    code = (
        "import json, sys\n"
        "from harness.cli import main\n"
        "print(json.dumps([m for m in ('evaluation', 'numpy', 'matplotlib', 'onnxruntime') if m in sys.modules]))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) == []
