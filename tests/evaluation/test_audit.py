"""Metrics audit: small cases whose every number is worked out by hand from SPEC §9, fed through
the real path (JSON lines as `mseval export` writes them, a priors folder, `load_episodes`,
`load_priors` and `score_records`, as `mseval score` calls them) and compared.

L = course-records-lookup (read-only), S = spreadsheet-build (writable). The arithmetic of each
case is written beside its records.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from fractions import Fraction as F
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml

from evaluation.contract import contract_lines
from evaluation.document import ScoreDocument, SettingRow
from evaluation.gemmas import information_diversity
from evaluation.graph import graph_of_record
from evaluation.identity import read_prior_sources
from evaluation.process import GraphOptions
from evaluation.records import load_episodes, load_priors
from evaluation.scoring import ScoreOptions, score_records
from tests.evaluation.builders import episode, prior, sub
from tests.harness.cli_support import mseval

L, S = "course-records-lookup", "spreadsheet-build"
MODEL = "openai:gpt-x"  # not simulated: the table prints no "(sim)"


def line(
    task: str,
    variant: str,
    seed: int,
    *,
    success: bool | None,
    main: int,
    cost: float | None,
    waves: list[list[dict[str, Any]]] | None = None,
    status: str = "completed",
) -> dict[str, Any]:
    """One `mseval.episode/1` line as a dict; waves start at main steps 1, 2, …"""
    return {
        "schema": "mseval.episode/1",
        "task_id": task,
        "model": MODEL,
        "variant": variant,
        "seed": seed,
        "status": status,
        "success": success if status == "completed" else None,
        "termination": "claim_done" if status == "completed" else "harness_error",
        "main": {"steps": main, "response": "done"},
        "waves": [{"index": i, "main_step": i + 1, "subagents": w} for i, w in enumerate(waves or [])],
        "cost_usd": cost,
    }


def write_inputs(
    tmp: Path, lines: list[dict[str, Any]], priors: dict[str, list[list[str]] | None]
) -> tuple[Path, Path]:
    episodes = tmp / "run.jsonl"
    episodes.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    folder = tmp / "priors"
    folder.mkdir()
    for task, waves in priors.items():
        (folder / f"{task}.yaml").write_text(yaml.safe_dump(prior(task, waves).model_dump()))
    return episodes, folder


def score(episodes: Path, priors: Path) -> ScoreDocument:
    """As `mseval score --embedder none` builds its document."""
    options = ScoreOptions(graph=GraphOptions(embedder=None, compute_ids=False), resamples=500)
    return score_records(
        load_episodes(episodes),
        load_priors(priors),
        prior_sources=read_prior_sources(priors),
        options=options,
    )


def row(doc: ScoreDocument, variant: str) -> SettingRow:
    return next(r for r in doc.settings if r.variant == variant)


def exact(value: float | None, expected: F | int | None) -> bool:
    """`value` is the float nearest the hand-computed fraction (or both are undefined)."""
    if expected is None or value is None:
        return value is expected
    return value == pytest.approx(float(expected), abs=1e-12)


# Case 1: two tasks × two seeds, SA and spec.
#   prior n1: need, gold waves [L, L] then [S];  prior z1: no delegation needed.
#   SA   n1/0 ok   main 10, $2     n1/1 fail main 12, $2    z1/0 ok main 4, $1    z1/1 absent
#   spec n1/0 ok   main 4, [L 3 "roster A", L 5 "roster B"] then [S 2]: CSteps 4+5+2 = 11, $3
#        n1/1 ok   main 3, [L 2 "roster A", L 2 "Roster  A."] then [S 1, L 1]: CSteps 3+2+1 = 6, $1
#                  ("Roster  A." normalises to "roster a": one unit with "roster A")
#        z1/0 ok   main 3, alone: CSteps 3, $0.5
#        z1/1 fail main 2, [L 4]: CSteps 6, $0.8 (over-delegation)
CASE_1 = [
    line("n1", "sa", 0, success=True, main=10, cost=2.0),
    line("n1", "sa", 1, success=False, main=12, cost=2.0),
    line("z1", "sa", 0, success=True, main=4, cost=1.0),
    line("z1", "sa", 1, success=None, main=0, cost=None, status="absent"),
    line(
        "n1", "spec", 0, success=True, main=4, cost=3.0,
        waves=[[sub("a", L, steps=3, description="roster A"), sub("b", L, steps=5, description="roster B")],
               [sub("c", S, steps=2, description="build the workbook")]],
    ),
    line(
        "n1", "spec", 1, success=True, main=3, cost=1.0,
        waves=[[sub("d", L, steps=2, description="roster A"), sub("e", L, steps=2, description="Roster  A.")],
               [sub("f", S, steps=1, description="build the workbook"), sub("g", L, steps=1, description="recheck")]],
    ),
    line("z1", "spec", 0, success=True, main=3, cost=0.5),
    line("z1", "spec", 1, success=False, main=2, cost=0.8, waves=[[sub("h", L, steps=4)]]),
]  # fmt: skip
PRIORS_1: dict[str, list[list[str]] | None] = {"n1": [[L, L], [S]], "z1": None}


def test_case_1_every_number_by_hand(tmp_path: Path) -> None:
    doc = score(*write_inputs(tmp_path, CASE_1, PRIORS_1))
    spec, sa = row(doc, "spec"), row(doc, "sa")
    # SR = successes / episodes (absent = failure): spec 3/4; SA n1/0 and z1/0 = 2/4, over its 3
    # completed 2/3, coverage 3/4.
    assert (spec.sr, sa.sr, sa.sr_conditional, sa.coverage) == (0.75, 0.5, pytest.approx(2 / 3), 0.75)
    # sr_diff over the 4 (task, seed) pairs: (3 − 2) / 4.
    assert spec.sr_diff == 0.25
    # Mean CSteps over completed: spec (11 + 6 + 3 + 6) / 4 = 6.5; SA (10 + 12 + 4) / 3 = 26/3.
    assert exact(spec.mean_csteps, F(13, 2)) and exact(sa.mean_csteps, F(26, 3))
    # Mean cost: spec (3 + 1 + 0.5 + 0.8) / 4 = 1.325; SA (2 + 2 + 1) / 3 = 5/3.
    assert exact(spec.mean_cost_usd, F(1325, 1000)) and exact(sa.mean_cost_usd, F(5, 3))
    # UDR: both n1 episodes delegated → 0/2. ODR: z1/1 delegated, z1/0 not → 1/2.
    assert (spec.udr, spec.odr) == (0.0, 0.5)
    # Hits: n1/0 run [L, L][S] vs gold [L, L][S] → 3 of 3 units. n1/1 run [L][S, L] (d and e one
    # unit): gold wave 0 ↔ run wave 0 gives 1, gold wave 1 ↔ run wave 1 gives 1 (S) → 2, units 3.
    # z1/1: 0 hits, 1 unit. P = (3 + 2 + 0) / (3 + 3 + 1) = 5/7; R = (3 + 2) / (3 + 3) = 5/6;
    # F1 = 2·(5/7)(5/6) / (5/7 + 5/6) = (50/42) / (65/42) = 10/13.
    assert exact(spec.p_hit, F(5, 7)) and exact(spec.r_hit, F(5, 6)) and exact(spec.f1_hit, F(10, 13))
    assert (spec.counts.run_units, spec.counts.gold_units, spec.counts.hits_delegated) == (7, 6, 5)
    # D_del = MAS completed and delegated: n1/0, n1/1, z1/1 → 3. Wins there: MAS 2 (n1/0, n1/1),
    # SA 1 (n1/0; z1/1 absent = failure). U_p = (2/3) / (2/3 + 1/3) = 2/3.
    # D_del⁺ = both solved: n1/0 alone. U_e = 10 / (10 + 11) = 10/21; U_c = 2 / (2 + 3) = 2/5.
    assert (spec.d_del, spec.d_del_plus) == (3, 1)
    assert exact(spec.u_p, F(2, 3)) and exact(spec.u_e, F(10, 21)) and exact(spec.u_c, F(2, 5))
    # Pairwise: U_p n1/0 tie ½, n1/1 win 1, z1/1 tie ½ (both fail) → 2/3; U_e and U_c: n1/0 MAS
    # more steps and costlier → 0.
    assert exact(spec.u_p_pairwise, F(2, 3)) and (spec.u_e_pairwise, spec.u_c_pairwise) == (0.0, 0.0)
    # MSQ = 10/13 × (2/3 + 10/21 + 2/5) / 3 = 10/13 × (162/105) / 3 = 10/13 × 18/35 = 36/91.
    assert exact(spec.msq, F(36, 91))
    # Taxonomy over pairs both completed (z1/1 left out: SA absent): n1/0 both ok, 11 > 10 steps,
    # $3 > $2 → CIS; n1/1 MAS ok, SA fail → F2S (DP: a wave of 2 and 6 < 12 steps); z1/0 both
    # ok, 3 < 4 steps → CES (MAO: no sub-agent).
    assert spec.taxonomy == {"F2S": 1, "CES": 1, "S2F": 0, "CIS": 1, "AES": 0, "CIF": 0, "neutral": 0}
    assert spec.counts.taxonomy_left_out == 1
    assert spec.taxonomy_reasons is not None
    assert spec.taxonomy_reasons["F2S"]["DP"] == 1 and spec.taxonomy_reasons["CES"]["MAO"] == 1
    assert sum(spec.taxonomy_reasons["CIS"].values()) == 0
    # The baseline row has its delegation fields null.
    assert (sa.udr, sa.f1_hit, sa.u_p, sa.msq, sa.baseline) == (None, None, None, None, None)


def test_case_1_intervals_hold_the_point_and_repeat(tmp_path: Path) -> None:
    """Percentile intervals of the paired bootstrap contain each point value, and a second
    scoring (the input in another order) gives the same intervals: seed 0, tasks in id order."""
    episodes, priors = write_inputs(tmp_path, CASE_1, PRIORS_1)
    first = row(score(episodes, priors), "spec")
    episodes.write_text("".join(json.dumps(x) + "\n" for x in reversed(CASE_1)), encoding="utf-8")
    second = row(score(episodes, priors), "spec")
    assert first.ci95 is not None and first.ci95 == second.ci95
    for name in ("sr_diff", "u_p", "u_e", "u_c", "f1_hit", "msq"):
        interval, point = first.ci95[name], getattr(first, name)
        assert interval is not None and point is not None, name
        assert interval.low - 1e-12 <= point <= interval.high + 1e-12, name
    # u_e and u_c need n1 (the one D_del⁺ pair): resamples without n1 are 0/0, left out and counted;
    # with n1 drawn, every value is 10/21 (U_c 2/5), so the interval is that point.
    u_e = first.ci95["u_e"]
    assert u_e is not None and u_e.undefined > 0 and u_e.low == u_e.high == pytest.approx(10 / 21)


def test_case_1_table_prints_rounded_fractions(tmp_path: Path) -> None:
    """`mseval score` prints each rate with three decimals: 10/13 → 0.769, 2/3 → 0.667,
    10/21 → 0.476, 2/5 → 0.400, 36/91 = 0.39560… → 0.396; undefined → —."""
    episodes, priors = write_inputs(tmp_path, CASE_1, PRIORS_1)
    result = mseval(
        "score", "--episodes", str(episodes), "--priors", str(priors), "--embedder", "none", "--resamples", "10",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    header, sa, spec = result.stdout.splitlines()[:3]
    assert header.split() == [
        "model", "variant", "eps", "absent", "SR", "SR|done", "UDR", "ODR", "F1_hit",
        "U_p", "U_e", "U_c", "MSQ", "IDS", "UPR",
    ]  # fmt: skip
    assert sa.split()[:12] == [MODEL, "sa", "4", "1", "0.500", "0.667", "—", "—", "—", "—", "—", "—"]
    assert spec.split()[:13] == [
        MODEL, "spec", "4", "0", "0.750", "0.750", "0.000", "0.500", "0.769", "0.667", "0.476", "0.400", "0.396",
    ]  # fmt: skip


# Case 2: the zero denominators. One need task n1 (gold [L]).
def test_no_delegation_at_all(tmp_path: Path) -> None:
    """spec never delegates and fails: UDR 1/1; P_hit null (none delegated); R_hit 0/1 → F1 0 (not
    null); D_del empty → U_p, U_e, U_c and their pairwise forms null; MSQ null (not 0).
    Both fail with 5 steps and $0: neutral."""
    lines = [
        line("n1", "sa", 0, success=False, main=5, cost=0.0),
        line("n1", "spec", 0, success=False, main=5, cost=0.0),
    ]
    spec = row(score(*write_inputs(tmp_path, lines, {"n1": [[L]]})), "spec")
    assert (spec.udr, spec.odr, spec.p_hit, spec.r_hit, spec.f1_hit) == (1.0, None, None, 0.0, 0.0)
    assert (spec.d_del, spec.u_p, spec.u_e, spec.u_c, spec.msq) == (0, None, None, None, None)
    assert (spec.u_p_pairwise, spec.u_e_pairwise, spec.u_c_pairwise) == (None, None, None)
    assert spec.sr_diff == 0.0 and spec.taxonomy is not None and spec.taxonomy["neutral"] == 1


def test_all_failed_and_free_is_undefined_never_parity(tmp_path: Path) -> None:
    """Seed 0: spec delegates and fails, SA fails. Seed 1: both solve at $0, spec delegating with
    CSteps 2 + 4 = 6 against SA's 6. D_del = both seeds: U_p = (1/2) / (1/2 + 1/2) = 1/2.
    D_del⁺ = seed 1: U_e = 6 / (6 + 6) = 1/2 (a tie, not a 0/0); U_c = 0 / (0 + 0) → null, while
    its pairwise form is a tie, ½; MSQ null. Seed 0 alone: U_p = 0 / (0 + 0) → null, never 0.5
    (pairwise: a tie, ½); D_del⁺ empty → U_e, U_c null."""
    lines = [
        line("n1", "sa", 0, success=False, main=5, cost=0.0),
        line("n1", "sa", 1, success=True, main=6, cost=0.0),
        line("n1", "spec", 0, success=False, main=5, cost=0.0, waves=[[sub("a", L, steps=2)]]),
        line("n1", "spec", 1, success=True, main=2, cost=0.0, waves=[[sub("a", L, steps=4)]]),
    ]
    episodes, priors = write_inputs(tmp_path, lines, {"n1": [[L]]})
    spec = row(score(episodes, priors), "spec")
    assert (spec.d_del, spec.d_del_plus) == (2, 1)
    assert (spec.u_p, spec.u_e, spec.u_c) == (0.5, 0.5, None)
    assert (spec.u_p_pairwise, spec.u_e_pairwise, spec.u_c_pairwise) == (0.5, 0.5, 0.5)
    assert spec.msq is None  # U_c undefined
    # Seed 0 alone: nothing solved anywhere → U_p 0/0.
    episodes.write_text("".join(json.dumps(x) + "\n" for x in lines[::2]), encoding="utf-8")
    alone = row(score(episodes, priors), "spec")
    assert (alone.d_del, alone.u_p, alone.u_p_pairwise, alone.u_e, alone.u_c) == (1, None, 0.5, None, None)
    assert alone.ci95 is not None and alone.ci95["u_p"] is None


def test_baseline_missing_for_a_task(tmp_path: Path) -> None:
    """spec ran n1 and n2, SA only n1: n2 is unpaired (left out of D_del, utilities, sr_diff and
    taxonomy, not counted as an SA failure) but stays in SR (1/2) and in the hit scores:
    n1 hits 1 of 1 unit, n2 (gold [S], run [L]) 0 of 1 → P = 1/2, R = 1/2, F1 = 1/2.
    D_del = {n1}: U_p = 1/(1 + 1) = 1/2; U_e = 8/(8 + 7) = 8/15 (spec 5 + 2, SA 8); U_c = 1/(1 + 1)."""
    lines = [
        line("n1", "sa", 0, success=True, main=8, cost=1.0),
        line("n1", "spec", 0, success=True, main=5, cost=1.0, waves=[[sub("a", L, steps=2)]]),
        line("n2", "spec", 0, success=False, main=5, cost=1.0, waves=[[sub("b", L, steps=2)]]),
    ]
    doc = score(*write_inputs(tmp_path, lines, {"n1": [[L]], "n2": [[S]]}))
    spec = row(doc, "spec")
    assert (spec.sr, spec.counts.paired, spec.counts.unpaired, spec.sr_diff) == (0.5, 1, 1, 0.0)
    assert (spec.p_hit, spec.r_hit, spec.f1_hit) == (0.5, 0.5, 0.5)
    assert (spec.d_del, spec.u_p, spec.u_c) == (1, 0.5, 0.5) and exact(spec.u_e, F(8, 15))
    assert spec.msq == pytest.approx(0.5 * (0.5 + 8 / 15 + 0.5) / 3)
    assert any("1 episode(s) have no sa record of the same (task, seed)" in w for w in doc.warnings)


def test_resumed_subagent_links_from_its_latest_run() -> None:
    """A resume continues the agent's one context whichever of its run ids it names: a1, then a2
    (resume of a1), a3 (resume of a2), a4 (resume of a1 again) are four consecutive runs of one
    agent, so the temporal edges are a1→a2→a3→a4 (a4 came from a2 before).

    IDS by hand (tfidf): every response is a different word except a3 and a4 ("gamma"), so
    1 − SS is 1 for every weighted pair but (a3, a4), where it is 0. Pairs: 8 spatial (turn k →
    its wave's sub-agent → turn k+1), 4 main temporal, 3 sub-agent temporal (a1-a2, a2-a3, a3-a4),
    weight 1 each → IDS = 14/15. With the old edge a2→a4 every pair was 1 − 0: IDS 15/15 = 1.
    """
    turns = [
        {"step": k, "text": word, "tools": ["Agent"], "tools_ok": 1}
        for k, word in enumerate(["one", "two", "three", "four", "five"], start=1)
    ]
    waves = [
        [sub("a1", L, response="alpha")],
        [sub("a2", L, response="beta", resume_of="a1")],
        [sub("a3", L, response="gamma", resume_of="a2")],
        [sub("a4", L, response="gamma", resume_of="a1")],
    ]
    record = episode("n1", main_steps=5, waves=waves, turns=turns)
    graph = graph_of_record(record)
    node = {n.name: i for i, n in enumerate(graph.nodes)}
    resumes = [(graph.nodes[i].name, graph.nodes[j].name) for i, j in graph.temporal if i >= node["sub:a1"]]
    assert resumes == [("sub:a1", "sub:a2"), ("sub:a2", "sub:a3"), ("sub:a3", "sub:a4")]
    ids = information_diversity(graph, None)
    assert ids.pairs == 15 and ids.value == pytest.approx(14 / 15)


class _OneVector:
    """An embedding model that maps every text to the same unit vector (cosine 1)."""

    id = "fake:one"

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return np.ones((len(texts), 1))


def test_contract_states_the_lambda_that_was_used(tmp_path: Path) -> None:
    """λ weighs TF-IDF against an embedding model. With `tfidf` SS = cos TF-IDF, i.e. λ = 1 in
    effect, and `none` computes no IDS: the contract (and every report's contract line) stated
    λ = 0.5 for both. With an embedding model the λ given is the one used."""
    episodes, priors = write_inputs(tmp_path, CASE_1, PRIORS_1)
    records, loaded = load_episodes(episodes), load_priors(priors)

    def contract(graph: GraphOptions) -> tuple[object, list[str]]:
        doc = score_records(records, loaded, options=ScoreOptions(graph=graph, resamples=10))
        lines = [x for x in contract_lines(doc.contract) if x.startswith("IDS embedder")]
        return doc.contract["ids_lambda"], lines

    lam, lines = contract(GraphOptions(embedder=None))
    assert lam == 1.0 and lines[0].startswith("IDS embedder: tfidf, λ = 1.0;")
    lam, lines = contract(GraphOptions(embedder=None, compute_ids=False))
    assert lam is None and lines[0].startswith("IDS embedder: none (IDS not computed); UPR")
    lam, lines = contract(GraphOptions(embedder=_OneVector(), lam=0.25))
    assert lam == 0.25 and lines[0].startswith("IDS embedder: fake:one, λ = 0.25;")


def test_gemmas_file_graph_by_hand(tmp_path: Path) -> None:
    """`mseval gemmas` on 3 nodes: 0 "answer is 5" → 1 "answer is 7" (S 0→1, T 1→0), node 2
    "lonely" isolated. TF-IDF over the 3 responses (n = 3): idf(answer) = idf(is) = ln(4/3) + 1 = a,
    idf(5) = idf(7) = ln(4/2) + 1 = b; cos(0, 1) = 2a² / (2a² + b²). One weighted pair, w = 1 + 1:
    IDS = 1 − cos(0, 1) ≈ 0.46365 (the isolated node weighs nothing). UPR with gold 5: node 0
    contributes, 1 and 2 do not. Paths of ≥ 2 nodes: 0→1, d = 0, a tie → necessary: UPR 1 − 1/1 = 0.
    Paths of ≥ 1 node: 0→1, {0}, {1}, {2}; necessary 0→1 and {0} → UPR 1 − 2/4 = 1/2."""
    graph = tmp_path / "graph.json"
    nodes = [{"prompt": "p", "response": r} for r in ("answer is 5", "answer is 7", "lonely")]
    S = [[0, 1, 0], [0, 0, 0], [0, 0, 0]]
    T = [[0, 0, 0], [1, 0, 0], [0, 0, 0]]
    graph.write_text(json.dumps({"nodes": nodes, "S": S, "T": T}), encoding="utf-8")
    a, b = math.log(4 / 3) + 1, math.log(2) + 1
    ids = 1 - 2 * a * a / (2 * a * a + b * b)
    for min_nodes, upr, paths in (("2", 0.0, 1), ("1", 0.5, 4)):
        result = mseval(
            "gemmas", str(graph), "--answer", "5", "--embedder", "tfidf", "--min-path-nodes", min_nodes, "--json",
        )  # fmt: skip
        assert result.returncode == 0, result.stderr
        out = json.loads(result.stdout)
        assert out["ids"]["value"] == pytest.approx(ids, abs=1e-12) and out["ids"]["weighted_pairs"] == 1
        assert (out["upr"]["value"], out["upr"]["paths"]) == (upr, paths)


def test_sub_agents_without_subtask_text_are_two_units(tmp_path: Path) -> None:
    """Regression (audit r1): two unlabelled sub-agents with empty description and no prompt, both
    reading papers (tools → paper-reading), were one unit: P 1/1, R 1/2, F1 2/3, MSQ 0.324.
    Each is its own unit: run [P, P] vs gold [P, P] → hits 2, P = 2/2, R = 2/2, F1 = 1.
    SA main 10, $1, ok; spec main 3 + wave max 3 = CSteps 6, $2, ok; D_del = D_del⁺ = {A}:
    U_p = 1/(1 + 1) = 1/2, U_e = 10/(10 + 6) = 5/8, U_c = 1/(1 + 2) = 1/3;
    MSQ = 1 × (1/2 + 5/8 + 1/3)/3 = 35/72 ≈ 0.486."""
    reader = {"type": "g", "mode": "read-only", "description": "", "steps": 3}
    tools = {"tools": ["mcp__scholar__read_paper_page"]}
    lines = [
        line("A", "sa", 0, success=True, main=10, cost=1.0),
        line("A", "spec", 0, success=True, main=3, cost=2.0,
             waves=[[{"id": "t1", **reader, **tools}, {"id": "t2", **reader, **tools}]]),
    ]  # fmt: skip
    doc = score(*write_inputs(tmp_path, lines, {"A": [["paper-reading", "paper-reading"]]}))
    spec = row(doc, "spec")
    assert (spec.counts.run_units, spec.counts.hits_need, spec.counts.gold_units) == (2, 2, 2)
    assert (spec.p_hit, spec.r_hit, spec.f1_hit) == (1.0, 1.0, 1.0)
    assert (spec.u_p, spec.u_e) == (0.5, 0.625) and exact(spec.u_c, F(1, 3))
    assert exact(spec.msq, F(35, 72))
