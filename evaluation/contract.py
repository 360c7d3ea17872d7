"""The aggregation contract (SPEC §9): how every number of a score is aggregated.

One source for the score's `contract` block and for the text every report prints, so the two
cannot drift apart.
"""

from __future__ import annotations

from typing import Any

from evaluation.efficiency import NORMALIZER as SQUAD_NORMALIZER
from evaluation.embeddings import lambda_used
from evaluation.stats import DEFAULT_RESAMPLES, DEFAULT_SEED, LEVEL

COMMUNICATION = (
    "MASBench communication efficiency is defined for answer tasks only and takes each sample's "
    "communication from the caller; the state tasks scored here report none. Cost uses each "
    "record's cost_usd: uncached input, cached input, cache-written input (5-minute and 1-hour) and "
    "output tokens, each at the price table's rate for it."
)
UNIT_NORMALIZER = (
    "sub-task text (description and prompt): NFKC; lower case; articles a/an/the removed where a word "
    "follows (a trailing 'course A' keeps its A); punctuation removed; spaces collapsed; equal after this "
    "= near-identical"
)
TFIDF_TOKENS = (
    "TF-IDF: lower-cased \\w+ tokens (one-character tokens kept; Han and kana characters one by one), "
    "smoothed idf, L2; responses without a token are left out like empty ones"
)
ANSWER_RULE = (
    'answer tasks: last "answer is X", else last \\boxed{X}, else last number; punctuation, $ and markdown '
    "emphasis around it stripped; commas only as thousands separators (1,234); decimals within 1e-6"
)


def contract_block(
    embedder: str | None,
    lam: float,
    min_nodes: int,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> dict[str, Any]:
    """The `contract` object of a score document."""
    return {
        "missing": "zero",
        "sr_conditional": "over completed episodes, with coverage = completed / episodes",
        "utilities": "ratio",
        "utilities_diagnostic": "pairwise (win 1, tie 1/2, loss 0)",
        "hit_average": "micro",
        "pairing": "(task, seed)",
        "trial": "episode: SR, UDR and ODR count (task, seed) episodes",
        "embedder": embedder if embedder is not None else "none (IDS not computed)",
        "ids_lambda": lambda_used(embedder, lam),
        "upr_min_path_nodes": min_nodes,
        "upr_contribution": "state tasks: sub-agent ended normally and (read-only) non-empty summary or "
        "(writable) a write succeeded; main turn: a tool call succeeded (no tools_ok recorded: it made one)",
        "bootstrap": {"unit": "task", "paired": True, "resamples": resamples, "seed": seed, "level": LEVEL},
        "communication": COMMUNICATION,
        "normalizers": {
            "units": UNIT_NORMALIZER,
            "ids": TFIDF_TOKENS,
            "upr_answers": ANSWER_RULE,
            "token_f1": SQUAD_NORMALIZER,
        },
    }


DENOMINATORS = [
    ("SR", "successes / episodes; absent episodes count as failures (missing-as-zero)"),
    ("SR (conditional)", "successes / completed episodes, always shown with coverage = completed / episodes"),
    ("UDR", "D_need episodes with no sub-agent / completed D_need episodes (tasks with a prior)"),
    ("ODR", "D_no-need episodes with a sub-agent / completed D_no-need episodes"),
    ("P_hit", "Σ hits / Σ run units over completed episodes that delegated"),
    ("R_hit", "Σ hits / Σ gold units over completed D_need episodes"),
    ("F1_hit", "2PR/(P+R); 0 when R_hit = 0; null when R_hit is null"),
    ("U_p", "SR_MAS / (SR_MAS + SR_SA) over D_del (MAS completed and delegated; absent SA = failure)"),
    ("U_e", "C̄_SA / (C̄_SA + C̄_MAS) over D_del⁺ (both solved), C̄ mean critical steps"),
    ("U_c", "c̄_SA / (c̄_SA + c̄_MAS) over D_del⁺ pairs with both costs recorded"),
    ("MSQ", "F1_hit × (U_p + U_e + U_c) / 3; null when any term is null"),
    ("mean CSteps, cost", "over completed episodes (cost: those that recorded one)"),
    ("IDS, UPR", "mean over completed episodes where defined; undefined ones counted"),
    ("taxonomy", "pairs where both episodes completed; the others counted as left out"),
]


def _lambda_text(lam: Any) -> str:
    return "" if lam is None else f", λ = {lam}"


def contract_lines(contract: dict[str, Any]) -> list[str]:
    """The contract as human-readable lines for reports."""
    boot = contract.get("bootstrap", {})
    lines = [
        f"Missing episodes: {contract['missing']} (absent = failure); conditional SR {contract['sr_conditional']}.",
        f"Utilities: {contract['utilities']} form (headline); {contract['utilities_diagnostic']} beside it.",
        f"Hit scores: {contract['hit_average']}-averaged; episodes pair by {contract['pairing']}.",
        f"IDS embedder: {contract['embedder']}{_lambda_text(contract.get('ids_lambda'))}; UPR paths of ≥ "
        f"{contract['upr_min_path_nodes']} nodes; contribution — {contract['upr_contribution']}.",
        f"Intervals: paired bootstrap over tasks, {boot.get('resamples')} resamples, seed {boot.get('seed')}, "
        f"{int(100 * boot.get('level', LEVEL))}% percentile.",
        f"Communication: {contract['communication']}",
    ]
    lines += [f"Normalizer ({name}): {rule}" for name, rule in contract["normalizers"].items()]
    lines += [f"Denominator of {name}: {rule}" for name, rule in DENOMINATORS]
    return lines
