"""Scoring speed (SPEC §11): `mseval score` work on 10,000 synthetic episodes, and UPR's exact
path count on a 60-node complete DAG (and on 600-node dense ones). Prints `NAME VALUE UNIT` lines.

The 10,000-episode figures cover parsing the `.jsonl` export and scoring every setting
(bootstrap included), once with IDS on the `tfidf` embedder and once without IDS (named in the
figure): MiniLM would embed every response of every episode and dominate, so its per-text cost
is a separate figure. Targets: ≤ 5 s; ≤ 50 ms.
"""

from __future__ import annotations

import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from _common import SMOKE, sized

import harness.cli  # noqa: F401  (the `mseval` process's settings, numpy's one BLAS thread among them)
from contracts import DelegationPrior, EpisodeRecord
from evaluation.gemmas import count_paths
from evaluation.process import GraphOptions
from evaluation.records import load_episodes
from evaluation.scoring import ScoreOptions, score_records

MODELS = ("sim:oracle", "sim:eager")
VARIANTS = ("sa", "gen", "spec", "plan-first", "oracle")
TASKS = sized(200, 4)
SEEDS = sized(5, 1)  # 2 models × 5 variants × 200 tasks × 5 seeds = 10,000 episodes
LABELS = ("course-records-lookup", "literature-search", "web-research", "spreadsheet-build", "email-send")
WORDS = (
    "roster course grade paper author sales order ticket train video recipe total report sheet mail".split()
)


def text(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n)) + f" {rng.randint(0, 999)}"


def prior(task: str, rng: random.Random) -> DelegationPrior:
    if rng.random() < 0.5:
        return DelegationPrior(task=task, need_delegation=False)
    waves = [
        [
            {"subtask": f"s{i}{j}", "description": f"sub-task {i}{j}", "label": (label := rng.choice(LABELS)),
             "mode": "writable" if label in ("spreadsheet-build", "email-send") else "read-only", "gen": "explorer", "spec": "x"}
            for j in range(rng.randint(1, 3))
        ]
        for i in range(rng.randint(1, 3))
    ]  # fmt: skip
    return DelegationPrior.model_validate({"task": task, "need_delegation": True, "waves": waves})


def episode(task: str, model: str, variant: str, seed: int, rng: random.Random) -> EpisodeRecord:
    steps = rng.randint(4, 20)
    turns = [
        {"step": s, "text": text(rng, 12), "tools": ["mcp__lms__list"], "tools_ok": rng.randint(0, 1)}
        for s in range(1, steps + 1)
    ]
    waves: list[dict[str, Any]] = []
    if variant != "sa":
        for index in range(rng.choice((0, 1, 1, 2, 3))):
            subs = [
                {"id": f"a{index}{k}", "type": "explorer", "mode": "read-only", "description": f"read item {k}",
                 "label": rng.choice(LABELS[:3]), "steps": rng.randint(1, 8), "response": text(rng, 20),
                 "termination": "text_only"}
                for k in range(rng.randint(1, 5))
            ]  # fmt: skip
            waves.append({"index": index, "main_step": min(steps, 1 + 2 * index), "subagents": subs})
    status = "absent" if rng.random() < 0.02 else "completed"
    # The runtime records critical steps with every episode; so do these.
    csteps = steps + sum(max(s["steps"] for s in w["subagents"]) for w in waves)
    return EpisodeRecord.model_validate(
        {"task_id": task, "model": model, "variant": variant, "seed": seed, "status": status,
         "success": (rng.random() < 0.6) if status == "completed" else None,
         "main": {"steps": steps, "response": "done", "turns": turns}, "waves": waves, "critical_steps": csteps,
         "cost_usd": round(rng.uniform(0.01, 2.0), 4)}
    )  # fmt: skip


def main() -> None:
    rng = random.Random(0)
    tasks = [f"task-{i:03d}" for i in range(TASKS)]
    priors = {t: prior(t, rng) for t in tasks}
    records = [
        episode(t, m, v, s, rng) for m in MODELS for v in VARIANTS for t in tasks for s in range(SEEDS)
    ]
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "episodes.jsonl"
        path.write_text("".join(r.to_json() + "\n" for r in records), encoding="utf-8")
        start, cpu = time.perf_counter(), time.process_time()
        loaded = load_episodes(path)
        parse, parse_cpu = time.perf_counter() - start, time.process_time() - cpu
    # Wall time is the target; CPU time is printed beside it because this machine is shared.
    for name, graph in (
        ("tfidf_ids", GraphOptions(embedder=None)),
        ("no_ids", GraphOptions(compute_ids=False)),
    ):
        start, cpu = time.perf_counter(), time.process_time()
        doc = score_records(loaded, priors, options=ScoreOptions(graph=graph))
        wall, used = time.perf_counter() - start, time.process_time() - cpu
        assert len(loaded) == len(records) and len(doc.settings) == len(MODELS) * len(VARIANTS)
        print(f"scoring_10k_episodes_{name}_s {parse + wall:.2f} s")
        print(f"scoring_10k_episodes_{name}_cpu_s {parse_cpu + used:.2f} s")
    print(f"scoring_10k_parse_jsonl_s {parse:.2f} s")

    upr_figures()

    if SMOKE:
        return
    try:
        from evaluation.embeddings import MiniLMEmbedder

        embedder = MiniLMEmbedder()
    except Exception as exc:  # the figure is optional: say why it is missing
        print(f"minilm figure skipped: {exc}", file=sys.stderr)
        return
    texts = [text(rng, 20) for _ in range(256)]
    start = time.perf_counter()
    embedder.embed(texts)
    print(f"minilm_embed_ms_per_text {1000 * (time.perf_counter() - start) / len(texts):.2f} ms")


def upr_figures() -> None:
    """UPR's exact path count on complete DAGs of 60 and 600 nodes (2^600 paths), and on a
    600-node random DAG where each forward edge is there with probability ½ (the dense graph
    where neither a node's predecessors nor its non-predecessors are few)."""
    rng = random.Random(0)
    for name, n, p, repeats in (
        ("60_node_complete_dag", 60, 1.0, 5),
        ("600_node_complete_dag", 600, 1.0, 3),
        ("600_node_half_dense_dag", 600, 0.5, 3),
    ):
        edges = [(i, j) for i in range(n) for j in range(i + 1, n) if p == 1.0 or rng.random() < p]
        contributes = [i % 3 != 0 for i in range(n)]
        runs = []
        for _ in range(sized(repeats, 1)):
            start = time.perf_counter()
            total, _ = count_paths(n, edges, contributes)
            runs.append(time.perf_counter() - start)
        assert p < 1.0 or total == 2**n - 1 - n
        print(f"upr_{name}_ms {1000 * min(runs):.1f} ms")


if __name__ == "__main__":
    main()
