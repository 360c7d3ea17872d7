"""GEMMAS IDS and UPR over the episodes of a setting (SPEC §9).

Per episode: build its agent graph, compute IDS (with the chosen embedder) and UPR (with the
state-task contribution rule unless another is given). Per setting: the mean over completed
episodes where each is defined; the undefined ones, nodes with empty responses and records
reduced to a single node are counted.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from contracts import EpisodeRecord
from evaluation.embeddings import Embedder, MemoEmbedder, Progress, embedder_id
from evaluation.gemmas import (
    DEFAULT_LAMBDA,
    Contribution,
    IDSResult,
    UPRResult,
    information_diversity,
    state_contribution,
    unnecessary_path_ratio,
)
from evaluation.graph import graph_of_record
from evaluation.success import is_completed
from evaluation.tfidf import has_tokens


@dataclass(frozen=True)
class GraphOptions:
    """IDS and UPR settings: embedder (None = tfidf), λ, UPR's shortest path, contribution."""

    embedder: Embedder | None = None
    """None: the `tfidf` embedder (syntactic part alone)."""
    compute_ids: bool = True
    lam: float = DEFAULT_LAMBDA
    min_nodes: int = 2
    contribution: Contribution = state_contribution

    @property
    def embedder_id(self) -> str | None:
        return embedder_id(self.embedder) if self.compute_ids else None


@dataclass(frozen=True)
class EpisodeGraphScores:
    ids: IDSResult | None
    upr: UPRResult
    single_node: bool


@dataclass(frozen=True)
class GraphScores:
    ids: float | None
    upr: float | None
    embedder: str | None
    ids_defined: int
    ids_undefined: int
    empty_responses: int
    upr_defined: int
    upr_undefined: int
    single_node: int


def episode_graph_scores(record: EpisodeRecord, options: GraphOptions) -> EpisodeGraphScores:
    """IDS and UPR of one episode's agent graph."""
    graph = graph_of_record(record)
    ids = information_diversity(graph, options.embedder, options.lam) if options.compute_ids else None
    upr = unnecessary_path_ratio(graph, options.contribution, options.min_nodes)
    return EpisodeGraphScores(ids, upr, graph.fallback is not None)


def prefetch_embeddings(
    records: Sequence[EpisodeRecord], options: GraphOptions, progress: Progress | None = None
) -> GraphOptions:
    """Embed every response once, in sorted batches, before the per-graph work."""
    if not options.compute_ids or options.embedder is None:
        return options
    memo = options.embedder if isinstance(options.embedder, MemoEmbedder) else MemoEmbedder(options.embedder)
    texts = [
        node.response
        for record in records
        if is_completed(record)
        for node in graph_of_record(record).nodes
        if has_tokens(node.response)  # the nodes IDS keeps
    ]
    memo.prefetch(texts, progress)
    return GraphOptions(memo, options.compute_ids, options.lam, options.min_nodes, options.contribution)


def graph_scores(records: Sequence[EpisodeRecord], options: GraphOptions) -> GraphScores:
    """Mean IDS and UPR over completed episodes, with the counts of what was undefined."""
    ids_values: list[float] = []
    upr_values: list[float] = []
    ids_undefined = upr_undefined = empty = single = 0
    for record in records:
        if not is_completed(record):
            continue
        scores = episode_graph_scores(record, options)
        single += scores.single_node
        if scores.ids is not None:
            empty += scores.ids.empty_nodes
            if scores.ids.value is None:
                ids_undefined += 1
            else:
                ids_values.append(scores.ids.value)
        if scores.upr.value is None:
            upr_undefined += 1
        else:
            upr_values.append(scores.upr.value)
    return GraphScores(
        ids=math.fsum(ids_values) / len(ids_values) if ids_values else None,
        upr=math.fsum(upr_values) / len(upr_values) if upr_values else None,
        embedder=options.embedder_id,
        ids_defined=len(ids_values),
        ids_undefined=ids_undefined,
        empty_responses=empty,
        upr_defined=len(upr_values),
        upr_undefined=upr_undefined,
        single_node=single,
    )
