"""Score a set of episode records: one `mseval.score/1` document (SPEC §9, §10).

Settings are (model, variant); each MAD-SAE setting is compared with the baseline variant of
the same model on the same (task, seed) episodes. The baseline gets a row too, with its
delegation fields null. Everything left out is counted in the row's `counts` and in the
document's `left_out`; runs of different identity produce warnings in the document (the CLI
also prints them on stderr).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from contracts import DelegationPrior, EpisodeRecord, SubagentRecord
from contracts.episode import NORMAL_TERMINATIONS, gc_paused
from contracts.labels import LABELS
from evaluation.contract import contract_block
from evaluation.delegation import cached_hits, delegation_rates, hit_scores
from evaluation.document import Counts, Interval, ScoreDocument, SettingRow
from evaluation.embeddings import Progress
from evaluation.graph import main_as_one_node
from evaluation.identity import PriorSources, identity_block, identity_warnings
from evaluation.llm_tagger import Agreement, SubagentKey
from evaluation.planned import not_run_warning, planned_without_record, runs_of
from evaluation.process import GraphOptions, graph_scores, prefetch_embeddings
from evaluation.records import (
    Setting,
    deduplicate,
    episode_key,
    group_by_setting,
    is_simulated,
)
from evaluation.stats import DEFAULT_RESAMPLES, DEFAULT_SEED, paired_bootstrap
from evaluation.success import (
    computed_critical_steps,
    has_no_verdict,
    is_abnormal_success,
    is_absent_with_verdict,
    is_completed,
    is_success,
    mean_cost,
    mean_critical_steps,
    ratio,
    success_rate,
    task_count,
    termination_of,
)
from evaluation.tagging import tag_subagent
from evaluation.taxonomy import taxonomy
from evaluation.terms import task_terms
from evaluation.units import Labeler
from evaluation.utilities import msq, pair_episodes, utilities

# Tasks without a prior that the warning names (the document lists them all): a typo in a
# foreign trace's task id is seen on stderr, not only counted.
NAMED_TASKS = 5


@dataclass(frozen=True)
class ScoreOptions:
    """How to score: the baseline variant, GEMMAS options, labels and the bootstrap."""

    baseline: str = "sa"
    graph: GraphOptions = field(default_factory=GraphOptions)
    tool_labels: Mapping[str, str] | None = None
    llm_labels: Mapping[SubagentKey, str | None] | None = None
    llm_agreement: Agreement | None = None
    resamples: int = DEFAULT_RESAMPLES
    seed: int = DEFAULT_SEED
    progress: Progress | None = None
    """Told (done, total) while responses are embedded (the long part with MiniLM)."""


def make_labeler(
    tool_labels: Mapping[str, str] | None, llm_labels: Mapping[SubagentKey, str | None] | None
) -> Labeler:
    """The record's label; else the LLM tagger's (when it gave one: an answer naming no label
    is None); else the deterministic one."""

    def label(record: EpisodeRecord, sub: SubagentRecord) -> str | None:
        if sub.label:
            return sub.label
        llm = _llm_label(llm_labels, record, sub)
        return llm if llm is not None else tag_subagent(sub, tool_labels).label

    return label


def _llm_label(
    llm_labels: Mapping[SubagentKey, str | None] | None, record: EpisodeRecord, sub: SubagentRecord
) -> str | None:
    return None if llm_labels is None else llm_labels.get((episode_key(record), sub.id))


def tagging_summary(records: Sequence[EpisodeRecord], options: ScoreOptions) -> dict[str, Any]:
    """How many sub-agent labels came from each source, and the LLM tagger's agreement."""
    llm_labels = options.llm_labels or {}
    sources: Counter[str] = Counter()
    unparsed = 0  # asked, but the answer named no label: the deterministic tagger decides
    for record in records:
        for sub in record.subagents:
            key = (episode_key(record), sub.id)
            if not sub.label and llm_labels.get(key) is not None:
                sources["llm"] += 1
                continue
            unparsed += not sub.label and key in llm_labels
            sources[tag_subagent(sub, options.tool_labels).source] += 1
    summary: dict[str, Any] = {"tagger": "llm" if options.llm_labels is not None else "deterministic"}
    summary["sources"] = dict(sorted(sources.items()))
    if options.llm_labels is not None:
        summary["llm_unparsed"] = unparsed
    if options.llm_agreement is not None:
        agreement = options.llm_agreement
        summary["llm_agreement"] = {
            "n": agreement.n,
            "agreement": agreement.agreement,
            "kappa": agreement.kappa,
        }
    return summary


def _base_row(
    setting: Setting, records: Sequence[EpisodeRecord], options: GraphOptions, duplicates: int
) -> SettingRow:
    sr = success_rate(records)
    steps, cost = mean_critical_steps(records), mean_cost(records)
    graph = graph_scores(records, options)
    counts = Counts(
        completed=sr.completed,
        successes=sr.successes,
        no_verdict=sr.no_verdict,
        abnormal_success=sr.abnormal_success,
        duplicates=duplicates,
        cost_unknown=cost.left_out,
        ids_defined=graph.ids_defined,
        ids_undefined=graph.ids_undefined,
        empty_responses=graph.empty_responses,
        upr_defined=graph.upr_defined,
        upr_undefined=graph.upr_undefined,
        graph_single_node=graph.single_node,
    )
    return SettingRow(
        model=setting[0],
        variant=setting[1],
        baseline=None,
        tasks=task_count(records),
        episodes=sr.episodes,
        absent=sr.absent,
        coverage=sr.coverage,
        sr=sr.sr,
        sr_conditional=sr.sr_conditional,
        mean_csteps=steps.value,
        mean_cost_usd=cost.value,
        ids=graph.ids,
        upr=graph.upr,
        simulated=is_simulated(setting[0]),
        ids_embedder=graph.embedder,
        counts=counts,
    )


def _delegation_row(
    row: SettingRow,
    mas: Sequence[EpisodeRecord],
    sa: Sequence[EpisodeRecord] | None,
    priors: Mapping[str, DelegationPrior],
    labeler: Labeler,
    options: ScoreOptions,
) -> SettingRow:
    rates = delegation_rates(mas, priors)
    hits_of = cached_hits(labeler)
    hits = hit_scores(mas, priors, labeler, hits_of)
    counts = row.counts.model_copy(
        update={
            "no_prior": rates.no_prior,
            "d_need": rates.d_need,
            "d_no_need": rates.d_no_need,
            "under_delegated": rates.under,
            "over_delegated": rates.over,
            "delegated": hits.delegated,
            "hits_delegated": hits.hits_delegated,
            "run_units": hits.run_units,
            "hits_need": hits.hits_need,
            "gold_units": hits.gold_units,
        }
    )
    update: dict[str, Any] = {
        "udr": rates.udr,
        "odr": rates.odr,
        "p_hit": hits.p_hit,
        "r_hit": hits.r_hit,
        "f1_hit": hits.f1_hit,
    }
    if sa is not None:
        util = utilities(mas, sa)
        tax = taxonomy(mas, sa, priors)
        pairing = pair_episodes(mas, sa)
        wins_mas = sum(1 for p in pairing.pairs if is_success(p.mas))
        wins_sa = sum(1 for p in pairing.pairs if is_success(p.sa))
        n_pairs = len(pairing.pairs)
        diff = ratio(wins_mas - wins_sa, n_pairs) if n_pairs else None
        intervals = paired_bootstrap(
            task_terms(mas, sa, priors, labeler, hits_of), options.resamples, options.seed
        )
        counts = counts.model_copy(
            update={
                "paired": n_pairs,
                "unpaired": pairing.unpaired,
                "mas_absent": util.mas_absent,
                "cost_unknown_d_del_plus": util.cost_unknown,
                "taxonomy_left_out": tax.left_out,
            }
        )
        update |= {
            "baseline": options.baseline,
            "d_del": util.d_del,
            "d_del_plus": util.d_del_plus,
            "u_p": util.u_p,
            "u_e": util.u_e,
            "u_c": util.u_c,
            "u_p_pairwise": util.u_p_pairwise,
            "u_e_pairwise": util.u_e_pairwise,
            "u_c_pairwise": util.u_c_pairwise,
            "msq": msq(hits.f1_hit, util.u_p, util.u_e, util.u_c),
            "taxonomy": tax.counts,
            "taxonomy_reasons": tax.reasons,
            "sr_diff": diff,
            "ci95": {
                name: None if iv is None else Interval(low=iv.low, high=iv.high, undefined=iv.undefined)
                for name, iv in intervals.items()
            },
        }
    update["counts"] = counts
    return row.model_copy(update=update)


def unpaired_warnings(rows: Sequence[SettingRow], baseline: str) -> list[str]:
    """One warning for episodes with no baseline record of the same (task, seed).

    A missing record may simply not have been run, so it is left out rather than counted as a
    baseline failure (as an absent record is); the warning keeps that from passing unseen.
    """
    settings = [r for r in rows if r.counts.unpaired]
    if not settings:
        return []
    total = sum(r.counts.unpaired or 0 for r in settings)
    where = ", ".join(f"{r.model}/{r.variant} {r.counts.unpaired}" for r in settings)
    return [
        f"{total} episode(s) have no {baseline} record of the same (task, seed) ({where}): left out of "
        f"D_del, utilities, sr_diff and taxonomy (counts.unpaired), not counted as {baseline} failures"
    ]


def cost_warnings(records: Sequence[EpisodeRecord]) -> list[str]:
    """One warning for completed episodes without a cost (a model the price table lacks)."""
    unpriced = [r for r in records if is_completed(r) and r.cost_usd is None]
    if not unpriced:
        return []
    models = ", ".join(sorted({r.model for r in unpriced}))
    return [
        f"{len(unpriced)} completed episode(s) have no cost ({models}; a model the price table "
        "lacks, which `mseval run --prices` can price, or a trace that gives none): mean cost and "
        "U_c leave them out, and the case taxonomy "
        "compares their pairs on critical steps alone, so none of them can be CIS (MAD strictly costlier)"
    ]


def critical_steps_warnings(records: Sequence[EpisodeRecord]) -> list[str]:
    """One warning for records whose critical steps disagree with their own steps and waves."""
    differ = sum(
        1 for r in records if r.critical_steps is not None and r.critical_steps != computed_critical_steps(r)
    )
    if not differ:
        return []
    return [
        f"{differ} episode(s) record critical_steps other than S_main + the sum over waves of the "
        "longest sub-agent (SPEC §2) computed from their own steps: the recorded value is used"
    ]


def verdict_warnings(records: Sequence[EpisodeRecord]) -> list[str]:
    """Traces whose verdict is overruled or missing: scored as failures, and said so."""
    warnings = []
    no_verdict = sum(1 for r in records if has_no_verdict(r))
    if no_verdict:
        warnings.append(
            f"{no_verdict} completed episode(s) have no verdict (success null): counted as failures"
        )
    contradicted = sum(1 for r in records if is_absent_with_verdict(r))
    if contradicted:
        warnings.append(
            f"{contradicted} absent episode(s) (status absent, or ended harness_error) give a verdict "
            "(success true or false): not read, as an absent episode never ran to one"
        )
    abnormal = Counter(str(termination_of(r)) for r in records if is_abnormal_success(r))
    if abnormal:
        seen = ", ".join(f"{t!r} {n}" for t, n in sorted(abnormal.items()))
        warnings.append(
            f"{sum(abnormal.values())} episode(s) record success true after a termination that is not "
            f"a normal one ({seen}; normal: {', '.join(repr(t) for t in sorted(NORMAL_TERMINATIONS))}): "
            "counted as failures"
        )
    return warnings


def record_warnings(records: Sequence[EpisodeRecord], duplicates: int) -> list[str]:
    """What a trace left out that scoring then assumed, or gave twice: said, not silent.

    `records` are those scored (the duplicates left out), so each count is of records whose
    numbers the assumption changed."""
    warnings = []
    if duplicates:
        warnings.append(
            f"{duplicates} record(s) repeat a (model, variant, task, seed) given earlier in the input: "
            "left out, the first kept (left_out.duplicates)"
        )
    no_main = sum(1 for r in records if is_completed(r) and "main" not in r.model_fields_set)
    if no_main:
        warnings.append(
            f"{no_main} completed record(s) have no 'main': their main agent counts 0 steps in CSteps"
        )
    no_seed = sum(1 for r in records if "seed" not in r.model_fields_set)
    if no_seed:
        warnings.append(
            f"{no_seed} record(s) have no 'seed': taken as seed 0, so they pair and repeat as such"
        )
    single = sum(1 for r in records if is_completed(r) and main_as_one_node(r) is not None)
    if single:
        warnings.append(
            f"{single} completed record(s) give no main.turns, or a wave without main_step: their main "
            "agent is one node of the agent graph, its sub-agents hanging off it (IDS and UPR are undefined "
            "without sub-agents)"
        )
    unknown = Counter(s.label for r in records for s in r.subagents if s.label and s.label not in LABELS)
    if unknown:
        named = ", ".join(f"{label!r}" for label in sorted(unknown)[:5])
        warnings.append(
            f"{sum(unknown.values())} sub-agent label(s) are not among the 24 function labels ({named}): "
            "they hit no prior unit"
        )
    return warnings


def _row_order(setting: Setting, baseline: str) -> tuple[str, int, str]:
    return (setting[0], 0 if setting[1] == baseline else 1, setting[1])


@gc_paused()
def score_records(
    records: Sequence[EpisodeRecord],
    priors: Mapping[str, DelegationPrior],
    *,
    runs: Sequence[Mapping[str, Any]] = (),
    prior_sources: PriorSources | None = None,
    options: ScoreOptions | None = None,
) -> ScoreDocument:
    """Score records against priors; see the module docstring.

    `runs` are the run identities the records come from; `prior_sources` the prior files
    (name → bytes) behind `priors`, for the priors hash. A second record of the same
    (model, variant, task, seed) is left out and counted.
    """
    options = options or ScoreOptions()
    unique = deduplicate(records)
    duplicates = Counter((r.model, r.variant) for r in records)
    duplicates.subtract(Counter((r.model, r.variant) for r in unique.records))
    records = unique.records
    graph_options = prefetch_embeddings(records, options.graph, options.progress)
    labeler = make_labeler(options.tool_labels, options.llm_labels)
    not_run = planned_without_record(records, runs)
    runs = runs_of([*records, *not_run], runs)  # a run with only planned episodes counts too
    warnings = identity_warnings(runs, prior_sources, records)
    if not records:
        warnings.append("no episode record to score: the input holds none (an empty file or store?)")
    if not_run:
        records = [*records, *not_run]
        warnings.append(not_run_warning(not_run))
    groups = group_by_setting(records)
    rows: list[SettingRow] = []
    for setting in sorted(groups, key=lambda s: _row_order(s, options.baseline)):
        mas = groups[setting]
        row = _base_row(setting, mas, graph_options, duplicates[setting])
        if setting[1] == options.baseline:
            rows.append(row)
            continue
        sa = groups.get((setting[0], options.baseline))
        if sa is None:
            warnings.append(
                f"no {options.baseline} baseline for model {setting[0]}: utilities, MSQ and taxonomy of "
                f"{setting[0]}/{setting[1]} are null"
            )
        rows.append(_delegation_row(row, mas, sa, priors, labeler, options))
    warnings += unpaired_warnings(rows, options.baseline)
    without_prior = sorted({r.task_id for r in records if r.task_id not in priors})
    if without_prior:
        named = ", ".join(without_prior[:NAMED_TASKS]) + (", …" if len(without_prior) > NAMED_TASKS else "")
        warnings.append(
            f"{len(without_prior)} task(s) have no delegation prior and are left out of UDR, ODR and hits: {named}"
        )
    warnings += verdict_warnings(records) + critical_steps_warnings(records) + cost_warnings(records)
    warnings += record_warnings(unique.records, unique.duplicates)
    tagging = tagging_summary(records, options)
    if tagging.get("llm_unparsed"):
        warnings.append(
            f"{tagging['llm_unparsed']} sub-agent(s): the LLM tagger's answer named no label; "
            "the deterministic label is used"
        )
    simulated = sorted({r.model for r in records if is_simulated(r.model)})
    if simulated:
        warnings.append(f"simulated models (not real LLMs): {', '.join(simulated)}")
    return ScoreDocument(
        identity=identity_block(runs, prior_sources, records),
        contract=contract_block(
            graph_options.embedder_id,
            graph_options.lam,
            graph_options.min_nodes,
            options.resamples,
            options.seed,
        ),
        warnings=warnings,
        left_out={
            "duplicates": unique.duplicates,
            "tasks_without_prior": without_prior,
            "absent_episodes": sum(1 for r in records if not is_completed(r)),
        },
        tagging=tagging,
        settings=rows,
    )
