"""`mseval score --llm-tagger`: a real provider (OpenAI-compatible, over a socket on 127.0.0.1)
tags every sub-agent; its agreement with the deterministic tagger is reported."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

from evaluation.document import ScoreDocument
from harness.catalog import load_tasks
from harness.cli.score_table import summary_table
from harness.profiles import load_profiles
from harness.runner import Runner, RunPlan
from tests.models.fake_llm import FakeLLM, Fault, Reply, Seen

MSEVAL = Path(sys.executable).with_name("mseval")
ROOT = Path(__file__).resolve().parents[2]


def test_llm_tagger_agreement_over_a_foreign_trace(tmp_path: Path) -> None:
    plan = RunPlan(settings_matrix=[("sim:oracle", "spec"), ("sim:oracle", "sa")], tasks=load_tasks("lms-enrollment-overview"),
                   profiles=load_profiles(), store_url=f"sqlite:///{tmp_path / 's.db'}", runs_dir=tmp_path)  # fmt: skip
    records = asyncio.run(Runner(plan).run()).records
    # A trace from another harness: no labels in the records.
    episodes = tmp_path / "foreign.jsonl"
    lines = []
    for r in records:
        data = r.model_dump(mode="json", by_alias=True)
        for wave in data["waves"]:
            for sub in wave["subagents"]:
                sub["label"] = None
        lines.append(json.dumps(data))
    episodes.write_text("\n".join(lines) + "\n")

    def script(seen: Seen) -> Reply:  # the tagger calls this "model" for every sub-agent
        return Reply(text="course-records-lookup")

    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    with FakeLLM("chat", script) as fake:
        fake.fail_next(Fault(503, {"retry-after-ms": "1"}, "overloaded"))  # crashed the command, unretried
        done = subprocess.run(
            [str(MSEVAL), "score", "--episodes", str(episodes), "--json", "--embedder", "tfidf", "--resamples", "50",
             "--llm-tagger", "openai-compatible:fake-tagger", "--base-url", fake.url],
            cwd=ROOT, env=env, capture_output=True, text=True, timeout=300, check=False,
        )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    doc = json.loads(done.stdout)
    # Four sub-agents: three roster readers and one workbook builder. The deterministic tagger
    # (from the harness's tool labels) says course-records-lookup ×3 and spreadsheet-build ×1;
    # the LLM says course-records-lookup ×4: agreement 3/4 = 0.75; chance agreement
    # (3·4 + 1·0)/16 = 0.75, so kappa = (0.75 − 0.75)/(1 − 0.75) = 0.
    assert doc["tagging"]["llm_agreement"] == {"n": 4, "agreement": 0.75, "kappa": 0.0}
    # the text table says so too, as --llm-tagger's help promises (it was in --json alone)
    table = summary_table(ScoreDocument.model_validate(doc)).splitlines()
    assert table[-1].endswith(
        "; LLM vs deterministic agreement 0.750, Cohen's kappa 0.000 over 4 sub-agents."
    ), table[-1]
    assert len(fake.requests) == 5 and all("Label" in json.dumps(s.body) for s in fake.requests)
    # room for a reasoning model to think before its one-word label (64 gave empty answers)
    assert {s.body["max_tokens"] for s in fake.requests} == {1024}
