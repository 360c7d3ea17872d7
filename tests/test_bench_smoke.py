"""Every benchmark still runs: each `bench/*.py` at its smoke size (MSEVAL_BENCH_SMOKE=1) exits 0
and prints exactly its figures as `NAME VALUE UNIT` lines. The figures themselves are not
checked (speed is what `make bench` reports, never a test): this catches a benchmark broken by
a change elsewhere, as a context budget above the new maximum once broke `bench/overhead.py`."""

from __future__ import annotations

import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"

WAVE_SIZES = ("1", "8", "32", "128")
FIGURES: dict[str, set[str]] = {
    "episode_setup.py": {
        "template_ready_s", "episode_setup_ms_median", "episode_setup_ms_p95", "episode_setup_ms_max",
        "all_servers_start_ms", "world_template_mb", "episodes_measured",
    },
    "overhead.py": {"overhead_ms_per_step", "mcp_sdk_call_ms", "overhead_ms_per_step_excl_mcp_sdk", "steps"},
    "scoring.py": {
        "scoring_10k_episodes_tfidf_ids_s", "scoring_10k_episodes_tfidf_ids_cpu_s",
        "scoring_10k_episodes_no_ids_s", "scoring_10k_episodes_no_ids_cpu_s", "scoring_10k_parse_jsonl_s",
        "upr_60_node_complete_dag_ms", "upr_600_node_complete_dag_ms", "upr_600_node_half_dense_dag_ms",
    },
    "startup.py": {"startup_help_s", "startup_help_cpu_s", "startup_heavy_modules", "refusal_cold_cache_s", "refusal_s"},
    "waves.py": {
        *(f"{figure}_k{k}" for k in WAVE_SIZES for figure in ("wave_seconds", "wave_efficiency", "wave_cpu_ms_per_substep")),
        "peak_rss_mb", "mcp_inprocess_call_ms", "wave_efficiency_bound_k128", "mcp_stdio_call_client_cpu_ms",
        "wave_efficiency_bound_k128_stdio", "wave_efficiency_k128_latency_1s",
    },
}  # fmt: skip


def test_every_benchmark_has_its_figures_listed_here() -> None:
    scripts = {p.name for p in BENCH.glob("*.py") if not p.name.startswith("_")}
    assert scripts == set(FIGURES)


@pytest.mark.parametrize("script", sorted(FIGURES))
def test_the_benchmark_runs_at_smoke_size(script: str) -> None:
    done = subprocess.run(
        [sys.executable, str(BENCH / script)],
        env={**os.environ, "MSEVAL_BENCH_SMOKE": "1"},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "smoke run" in done.stderr  # the sizes were cut
    figures: dict[str, float] = {}
    for line in done.stdout.splitlines():
        name, value, unit = line.split(" ")
        assert name not in figures and unit, line
        figures[name] = float(value)
        assert math.isfinite(figures[name]) and figures[name] >= 0, line
    assert set(figures) == FIGURES[script]
    if script == "startup.py":  # what this figure stands for holds at any size
        assert figures["startup_heavy_modules"] == 0
