"""The runtime never imports evaluation (SPEC §1); they meet at the episode record in contracts/."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# The command line is the composition root: its evaluation commands (score, report, gemmas and
# the table they print) are the one place that reaches into evaluation, lazily, inside the
# command functions.
ALLOWED = {ROOT / "harness" / "cli" / name for name in ("evaluate.py", "gemmas_cmd.py", "score_table.py")}


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def test_the_runtime_never_imports_evaluation() -> None:
    offenders = [
        str(p.relative_to(ROOT))
        for p in (ROOT / "harness").rglob("*.py")
        if p not in ALLOWED
        and any(m == "evaluation" or m.startswith("evaluation.") for m in imported_modules(p))
    ]
    assert offenders == []


def test_contracts_import_neither_side() -> None:
    for p in (ROOT / "contracts").rglob("*.py"):
        mods = imported_modules(p)
        assert not any(m.split(".")[0] in ("harness", "evaluation", "mcp_servers") for m in mods), p


def test_servers_do_not_import_the_runtime() -> None:
    for p in (ROOT / "mcp_servers").rglob("*.py"):
        assert not any(m.split(".")[0] in ("harness", "evaluation") for m in imported_modules(p)), p
