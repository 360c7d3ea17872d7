"""Pure scoring over recorded episodes (SPEC §9–§10): metrics, contracts, reports, plots.

Evaluation reads `contracts.EpisodeRecord` lists and `contracts.DelegationPrior`s and never
imports the runtime (`harness`): the episode record is the whole interface. Each module holds
one idea, named as in the paper: `success` (SR, critical steps, cost), `units` (function units,
wave alignment), `delegation` (UDR, ODR, hit scores), `utilities` (U_p, U_e, U_c, MSQ),
`taxonomy`, `graph` + `gemmas` (IDS, UPR), `efficiency` (MASBench form), `stats` (bootstrap),
`tagging` / `llm_tagger` (function labels), `embeddings`, `identity`, `contract`, `scoring`
(the `mseval.score/1` document) and `reports`.
"""

from contracts.episode import runs_file_for
from evaluation.delegation import DelegationRates, HitScores, delegation_rates, episode_hits, hit_scores
from evaluation.document import ScoreDocument, SettingRow
from evaluation.efficiency import Efficiency, Sample, communication_efficiency, token_f1
from evaluation.gemmas import (
    IDSResult,
    UPRResult,
    answer_contribution,
    count_paths,
    extract_answer,
    information_diversity,
    state_contribution,
    unnecessary_path_ratio,
)
from evaluation.graph import AgentGraph, Node, graph_of_record, load_graph_file
from evaluation.identity import SCORER_VERSION, priors_hash
from evaluation.llm_tagger import Agreement, Complete, LLMTagging, cohen_kappa, llm_tag
from evaluation.process import GraphOptions
from evaluation.records import load_episodes, load_priors, load_run_identities
from evaluation.scoring import ScoreOptions, score_records
from evaluation.success import SuccessRate, critical_steps, success_rate
from evaluation.tagging import Tag, tag_subagent
from evaluation.taxonomy import Taxonomy, classify, taxonomy
from evaluation.units import Unit, run_units, wave_alignment_hits
from evaluation.utilities import Utilities, msq, utilities

__all__ = [
    "SCORER_VERSION",
    "AgentGraph",
    "Agreement",
    "Complete",
    "DelegationRates",
    "Efficiency",
    "GraphOptions",
    "HitScores",
    "IDSResult",
    "LLMTagging",
    "Node",
    "Sample",
    "ScoreDocument",
    "ScoreOptions",
    "SettingRow",
    "SuccessRate",
    "Tag",
    "Taxonomy",
    "UPRResult",
    "Unit",
    "Utilities",
    "answer_contribution",
    "classify",
    "cohen_kappa",
    "communication_efficiency",
    "count_paths",
    "critical_steps",
    "delegation_rates",
    "episode_hits",
    "extract_answer",
    "graph_of_record",
    "hit_scores",
    "information_diversity",
    "llm_tag",
    "load_episodes",
    "load_graph_file",
    "load_priors",
    "load_run_identities",
    "msq",
    "priors_hash",
    "run_units",
    "runs_file_for",
    "score_records",
    "state_contribution",
    "success_rate",
    "tag_subagent",
    "taxonomy",
    "token_f1",
    "unnecessary_path_ratio",
    "utilities",
    "wave_alignment_hits",
]
