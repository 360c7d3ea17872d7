"""`mseval run --model openai-compatible:NAME --base-url …` as a user runs it: a child process.

The fake Chat Completions server runs in this process's thread on 127.0.0.1; the child
`mseval` talks to it over the socket, with no key configured (compatible servers get "EMPTY").
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from harness.store import read_episode_records
from tests.models.episodes import PRICES, TASK, delegation_script
from tests.models.fake_llm import FakeLLM

MSEVAL = Path(sys.executable).with_name("mseval")
ROOT = Path(__file__).resolve().parents[2]
CHILD_LIMIT_S = 300  # a bound on a hung child, not a timing assumption


def test_mseval_run_against_a_compatible_server(tmp_path: Path) -> None:
    store = f"sqlite:///{tmp_path}/runs.db"
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    with FakeLLM("chat", delegation_script("enterprise-data-analyst")) as fake:
        done = subprocess.run(
            [str(MSEVAL), "run", "--model", "openai-compatible:fake-qwen", "--base-url", fake.url,
             "--variant", "spec", "--tasks", TASK, "--store", store, "--runs-dir", str(tmp_path / "runs"),
             "--prices", str(PRICES), "--concurrency", "1", "--seeds", "1", "--temperature", "none"],
            cwd=ROOT, env=env, capture_output=True, text=True, timeout=CHILD_LIMIT_S, check=False,
        )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert not fake.errors
    assert len(fake.requests) == 4
    assert {s.headers["authorization"] for s in fake.requests} == {"Bearer EMPTY"}
    assert {s.body["model"] for s in fake.requests} == {"fake-qwen"}
    # `--temperature none` sends none (Kimi K2.5 refuses any but its own; 0 was always sent)
    assert not [s for s in fake.requests if "temperature" in s.body]
    (record,) = read_episode_records(store)
    assert record.model == "openai-compatible:fake-qwen" and record.variant == "spec"
    assert record.termination == "claim_done" and len(record.waves[0].subagents) == 2
    assert record.usage.input_tokens == 10500 and record.cost_usd == 0.00625  # as in test_e2e.py
