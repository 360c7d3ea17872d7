"""Start-up of the command line (SPEC §11: `mseval --help` ≤ 0.5 s; provider SDKs load lazily).

Runs `mseval --help` several times in fresh processes; prints the median wall time and the
median CPU time (user + system, which a busy machine inflates less), and whether any provider
SDK or the evaluation package was imported on the way.

Then the time to refuse a bad `mseval run` (every input checked, the tasks against the servers'
tools): once with an empty cache, which lists the tools by starting every server, and the
median of the runs after it, which read the tool list from the cache.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _common import emit, sized

ROOT = Path(__file__).resolve().parent.parent
MSEVAL = Path(sys.executable).with_name("mseval")
RUNS = sized(7, 1)


def timed(
    args: list[str], env: dict[str, str] | None = None, expect: int = 0, says: str = ""
) -> tuple[float, float]:
    """Wall and CPU (user + system) seconds of one `mseval` process, which must exit `expect`
    and print `says` on stderr (a refusal for another reason would time other work)."""
    before = os.times()
    t0 = time.perf_counter()
    done = subprocess.run([str(MSEVAL), *args], capture_output=True, text=True, env=env)
    wall = time.perf_counter() - t0
    after = os.times()
    assert done.returncode == expect and says in done.stderr, (done.returncode, done.stderr)
    cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
    return wall, cpu


def main() -> None:
    walls, cpus = zip(*(timed(["--help"]) for _ in range(RUNS)), strict=True)
    probe = "import sys, harness.cli.main as m; print(','.join(sorted({n.split('.')[0] for n in sys.modules} & {'anthropic','openai','evaluation','numpy','matplotlib','mcp'})))"
    heavy = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT, check=True
    ).stdout.strip()
    emit("startup_help_s", statistics.median(walls), "s")
    emit("startup_help_cpu_s", statistics.median(cpus), "s")
    emit("startup_heavy_modules", len([m for m in heavy.split(",") if m]), "modules")
    with tempfile.TemporaryDirectory(prefix="mseval-bench-") as tmp:
        env = {**os.environ, "MSEVAL_CACHE": tmp}
        store = f"sqlite:///{tmp}/s.db"
        refused = ["run", "-m", "sim:oracle?bogus=1", "-v", "spec", "--tasks", "all", "--store", store]
        said = "--model: sim:oracle?bogus=1: unknown option(s) ['bogus']"
        cold, _ = timed(refused, env, expect=2, says=said)
        warm = [timed(refused, env, expect=2, says=said)[0] for _ in range(RUNS)]
    emit("refusal_cold_cache_s", cold, "s")
    emit("refusal_s", statistics.median(warm), "s")


if __name__ == "__main__":
    main()
