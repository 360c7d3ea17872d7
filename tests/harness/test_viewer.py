"""`mseval view` serves the store's episodes on 127.0.0.1, with a bar per sub-agent."""

from __future__ import annotations

import asyncio
import re
import urllib.request
from pathlib import Path

from harness.catalog import load_tasks
from harness.models.pricing import load_prices
from harness.profiles import load_profiles
from harness.runner import Runner, RunPlan
from harness.viewer import serving


def test_viewer_lists_episodes_and_draws_the_waves(tmp_path: Path) -> None:
    store = f"sqlite:///{tmp_path / 's.db'}"
    plan = RunPlan(settings_matrix=[("sim:oracle", "spec")], tasks=load_tasks("lms-enrollment-overview"), profiles=load_profiles(),
                   prices=load_prices(), store_url=store, runs_dir=tmp_path)  # fmt: skip
    (record,) = asyncio.run(Runner(plan).run()).records
    with serving(store) as server:
        base = f"http://127.0.0.1:{server.server_address[1]}"
        index = urllib.request.urlopen(f"{base}/").read().decode()
        assert "lms-enrollment-overview" in index and record.episode_id in index
        page = urllib.request.urlopen(f"{base}/episode/{record.episode_id}").read().decode()
        assert len(re.findall(r"<rect class='subagent'", page)) == len(record.subagents) == 4
        assert "simulated agent" in page and "wave_start" in page
        try:
            urllib.request.urlopen(f"{base}/episode/nope")
            raise AssertionError("expected 404")
        except urllib.error.HTTPError as exc:
            assert exc.code == 404
