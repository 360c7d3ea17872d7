"""The report's tables and preamble as plain data, rendered by `markdown` and `html` alike.

Every report states the run identity, the warnings (runs of different identity, simulated
models, left-out tasks) before any table, and the aggregation contract (SPEC §9).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from contracts import EpisodeRecord
from evaluation.contract import contract_lines
from evaluation.document import Interval, ScoreDocument, SettingRow
from evaluation.records import is_simulated
from evaluation.success import is_completed
from evaluation.taxonomy import CATEGORIES

UNDEFINED = "undefined"


@dataclass(frozen=True)
class Table:
    title: str
    headers: list[str]
    rows: list[list[str]]
    note: str = ""


def fmt(value: float | int | None, digits: int = 3) -> str:
    """A number for a table; `undefined` for null."""
    if value is None:
        return UNDEFINED
    if isinstance(value, int):
        return str(value)
    return f"{value:.{digits}f}"


def with_ci(value: float | None, interval: Interval | None) -> str:
    """A value with its 95% interval."""
    if value is None:
        return UNDEFINED
    if interval is None:
        return fmt(value)
    return f"{fmt(value)} [{fmt(interval.low)}, {fmt(interval.high)}]"


def model_name(row: SettingRow) -> str:
    """A model's name in tables, marking simulated models."""
    return simulated_name(row.model, simulated=row.simulated)


def simulated_name(model: str, *, simulated: bool | None = None) -> str:
    """`model`, marked "(simulated)" when it is a simulated agent (by default: by its name)."""
    if simulated is None:
        simulated = is_simulated(model)
    return f"{model} (simulated)" if simulated else model


def _ci(row: SettingRow, name: str) -> Interval | None:
    return (row.ci95 or {}).get(name)


def _of(numerator: int | None, denominator: int | None) -> str:
    return "" if numerator is None or denominator is None else f" ({numerator}/{denominator})"


def identity_rows(doc: ScoreDocument) -> list[list[str]]:
    """Key/value rows of the run identity (the run list summarised)."""
    rows = []
    for key, value in doc.identity.items():
        if key == "runs":
            rows.append(["runs", str(len(value))])
        elif isinstance(value, list):
            rows.append([key, ", ".join(_shown(v) for v in value) or "—"])
        else:
            rows.append([key, "—" if value is None else _shown(value)])
    return rows


def _shown(value: object) -> str:
    """An identity value as score.json writes it (`false`, not Python's `False`)."""
    return json.dumps(value) if isinstance(value, bool) else str(value)


def totals_lines(doc: ScoreDocument) -> list[str]:
    """Total tasks, episodes, absent episodes and coverage, as the contract asks."""
    tasks = {row.tasks for row in doc.settings}
    episodes = sum(row.episodes for row in doc.settings)
    absent = sum(row.absent for row in doc.settings)
    coverage = fmt((episodes - absent) / episodes) if episodes else UNDEFINED
    return [
        f"Settings: {len(doc.settings)}; tasks per setting: {', '.join(str(t) for t in sorted(tasks)) or '0'}; "
        f"episodes: {episodes}; absent: {absent}; coverage: {coverage}.",
        f"Left out: {doc.left_out.get('duplicates', 0)} duplicate record(s); "
        f"{len(doc.left_out.get('tasks_without_prior', []))} task(s) without a delegation prior.",
        tagging_line(doc),
    ]


def tagging_line(doc: ScoreDocument) -> str:
    """Where the function labels came from and, with an LLM tagger, its agreement."""
    return (
        f"Function labels: {doc.tagging.get('tagger', 'deterministic')} tagger; sources "
        f"{_sources(doc.tagging)}" + _agreement(doc.tagging) + "."
    )


def _sources(tagging: dict[str, Any]) -> str:
    sources = tagging.get("sources", {})
    return ", ".join(f"{k} {v}" for k, v in sources.items()) or "none (no sub-agents)"


def _agreement(tagging: dict[str, Any]) -> str:
    agreement = tagging.get("llm_agreement")
    unparsed = tagging.get("llm_unparsed")
    text = f"; {unparsed} LLM answer(s) named no label (deterministic label used)" if unparsed else ""
    if not agreement:
        return text
    return text + (
        f"; LLM vs deterministic agreement {fmt(agreement['agreement'])}, Cohen's kappa "
        f"{fmt(agreement['kappa'])} over {agreement['n']} sub-agents"
    )


def preamble(doc: ScoreDocument) -> dict[str, Any]:
    """What comes before the tables: warnings, simulated models, totals, contract."""
    simulated = sorted({row.model for row in doc.settings if row.simulated})
    return {
        "warnings": list(doc.warnings),
        "simulated": simulated,
        "totals": totals_lines(doc),
        "contract": contract_lines(doc.contract),
        "identity": identity_rows(doc),
    }


MAX_LISTED = 5


def absent_table(records: Sequence[EpisodeRecord]) -> Table | None:
    """Why episodes are absent, per setting and reason (a refused key, a harness fault, a lost
    worker), so a reader of the report can tell them apart; None when none is."""
    groups: dict[tuple[str, str, str], list[str]] = {}
    for r in records:
        if not is_completed(r):
            reason = r.reason or r.termination or "no reason recorded"
            groups.setdefault((r.model, r.variant, reason), []).append(f"{r.task_id} (seed {r.seed})")
    if not groups:
        return None
    rows = [
        [
            simulated_name(model),
            variant,
            str(len(which)),
            ", ".join(which[:MAX_LISTED]) + (" …" if len(which) > MAX_LISTED else ""),
            reason[:500],
        ]
        for (model, variant, reason), which in sorted(groups.items())
    ]
    note = (
        "Absent episodes count as failures in SR and ΔSR (on either side of a pair); in the utilities "
        "an absent baseline episode is a failure and an absent delegating one is left out; they are "
        "left out of the taxonomy, the means, UDR/ODR and the hit scores (SPEC §9, docs/scoring.md)."
    )
    return Table("Absent episodes", ["model", "variant", "episodes", "which", "reason"], rows, note)


def tables(doc: ScoreDocument) -> list[Table]:
    """The report's tables, in reading order."""
    rows = doc.settings
    success = Table(
        "Success, critical steps and cost",
        [
            "model",
            "variant",
            "tasks",
            "episodes",
            "absent",
            "coverage",
            "SR",
            "SR (conditional)",
            "ΔSR vs baseline [95% CI]",
            "mean CSteps",
            "mean cost (USD)",
        ],
        [
            [
                model_name(r),
                r.variant,
                fmt(r.tasks),
                fmt(r.episodes),
                fmt(r.absent),
                fmt(r.coverage),
                fmt(r.sr),
                fmt(r.sr_conditional),
                with_ci(r.sr_diff, _ci(r, "sr_diff")) if r.baseline else "—",
                fmt(r.mean_csteps, 2),
                fmt(r.mean_cost_usd, 4),
            ]
            for r in rows
        ],
        "SR counts absent episodes as failures; the conditional SR is over completed episodes.",
    )
    mas = [r for r in rows if r.baseline is not None or r.udr is not None or r.f1_hit is not None]
    delegation = Table(
        "Delegation appropriateness",
        ["model", "variant", "UDR", "ODR", "P_hit", "R_hit", "F1_hit [95% CI]", "left out (no prior)"],
        [
            [
                model_name(r),
                r.variant,
                fmt(r.udr) + _of(r.counts.under_delegated, r.counts.d_need),
                fmt(r.odr) + _of(r.counts.over_delegated, r.counts.d_no_need),
                fmt(r.p_hit) + _of(r.counts.hits_delegated, r.counts.run_units),
                fmt(r.r_hit) + _of(r.counts.hits_need, r.counts.gold_units),
                with_ci(r.f1_hit, _ci(r, "f1_hit")),
                fmt(r.counts.no_prior),
            ]
            for r in mas
        ],
        "Completed episodes of tasks with a prior; (numerator/denominator) beside each rate.",
    )
    utilities = Table(
        "Orchestration utilities and MSQ (0.5 = parity with the baseline)",
        [
            "model",
            "variant",
            "D_del",
            "D_del⁺",
            "U_p [95% CI]",
            "U_e [95% CI]",
            "U_c [95% CI]",
            "pairwise U_p / U_e / U_c",
            "MSQ [95% CI]",
            "unpaired",
        ],
        [
            [
                model_name(r),
                r.variant,
                fmt(r.d_del),
                fmt(r.d_del_plus),
                with_ci(r.u_p, _ci(r, "u_p")),
                with_ci(r.u_e, _ci(r, "u_e")),
                with_ci(r.u_c, _ci(r, "u_c")),
                f"{fmt(r.u_p_pairwise)} / {fmt(r.u_e_pairwise)} / {fmt(r.u_c_pairwise)}",
                with_ci(r.msq, _ci(r, "msq")),
                fmt(r.counts.unpaired),
            ]
            for r in mas
        ],
        "Ratio form is the headline; 0/0 is undefined, never 50%.",
    )
    taxonomy = Table(
        "Case taxonomy against the baseline",
        ["model", "variant", *CATEGORIES, "left out", "reasons"],
        [
            [
                model_name(r),
                r.variant,
                *[fmt((r.taxonomy or {}).get(c)) for c in CATEGORIES],
                fmt(r.counts.taxonomy_left_out),
                _reasons(r),
            ]
            for r in mas
        ],
        "Pairs where both episodes completed. Reasons: MAO, UD, UDP, DP (a case may carry several).",
    )
    gemmas = Table(
        "GEMMAS process metrics",
        [
            "model",
            "variant",
            "IDS",
            "embedder",
            "IDS defined / undefined",
            "empty responses",
            "UPR",
            "UPR defined / undefined",
            "main agent as one node",
        ],
        [
            [
                model_name(r),
                r.variant,
                fmt(r.ids),
                r.ids_embedder or "not computed",
                f"{r.counts.ids_defined} / {r.counts.ids_undefined}",
                fmt(r.counts.empty_responses),
                fmt(r.upr),
                f"{r.counts.upr_defined} / {r.counts.upr_undefined}",
                fmt(r.counts.graph_single_node),
            ]
            for r in rows
        ],
        "Means over completed episodes where defined. IDS values from different embedders are not comparable. "
        "Main agent as one node: records without main.turns (or whose wave names no turn), graphed as one "
        "main node with its sub-agents.",
    )
    return [success, delegation, utilities, taxonomy, gemmas]


def _reasons(row: SettingRow) -> str:
    parts = []
    for category, reasons in (row.taxonomy_reasons or {}).items():
        named = ", ".join(f"{reason} {count}" for reason, count in reasons.items() if count)
        if named:
            parts.append(f"{category}: {named}")
    return "; ".join(parts) or "—"
