"""Start-up of the command line (SPEC §11: `mseval --help` ≤ 0.5 s; provider SDKs load lazily).

Runs `mseval --help` several times in fresh processes; prints the median wall time and the
median CPU time (user + system, which a busy machine inflates less), and whether any provider
SDK or the evaluation package was imported on the way.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from _common import emit, sized

ROOT = Path(__file__).resolve().parent.parent
MSEVAL = Path(sys.executable).with_name("mseval")
RUNS = sized(7, 1)


def main() -> None:
    walls, cpus = [], []
    for _ in range(RUNS):
        before = os.times()
        t0 = time.perf_counter()
        subprocess.run([str(MSEVAL), "--help"], check=True, capture_output=True)
        walls.append(time.perf_counter() - t0)
        after = os.times()
        cpus.append(
            (after.children_user - before.children_user) + (after.children_system - before.children_system)
        )
    probe = "import sys, harness.cli.main as m; print(','.join(sorted({n.split('.')[0] for n in sys.modules} & {'anthropic','openai','evaluation','numpy','matplotlib','mcp'})))"
    heavy = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT, check=True
    ).stdout.strip()
    emit("startup_help_s", statistics.median(walls), "s")
    emit("startup_help_cpu_s", statistics.median(cpus), "s")
    emit("startup_heavy_modules", len([m for m in heavy.split(",") if m]), "modules")


if __name__ == "__main__":
    main()
