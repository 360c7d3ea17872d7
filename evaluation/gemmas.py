"""GEMMAS process metrics over an agent graph: IDS and UPR (SPEC §9).

IDS = Σ_{i<j} w_ij (1 − SS_ij) / Σ_{i<j} w_ij with w_ij = max(S_ij, S_ji) + max(T_ij, T_ji) and
SS = λ·cos(TF-IDF) + (1 − λ)·clip₀¹(cos(embedding)); with the `tfidf` embedder SS = cos(TF-IDF).
Nodes with empty responses — or no token at all ("!!!") — are left out and counted; no weighted
pair → undefined.

UPR = 1 − |P_necessary| / |P_all| over the directed paths of the spatial graph with at least
`min_nodes` nodes (2 by default, or 1). A path is necessary when the share of its nodes that
contribute is ≥ 0.5, i.e. when (contributing − not) ≥ 0. Paths are counted, never listed: in
topological order each node keeps, per value d of (contributing − not), the number of paths
ending at it, so a 60-node complete DAG (2^60 − 61 paths) takes milliseconds. No path → undefined.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from operator import add

from contracts.episode import NORMAL_TERMINATIONS
from evaluation.embeddings import Embedder, embedder_id
from evaluation.graph import AgentGraph, Edge, Node
from evaluation.tfidf import cosine, tfidf_of_tokens, tokenize

DEFAULT_LAMBDA = 0.5
ANSWER_TOLERANCE = Decimal("1e-6")

Contribution = Callable[[Node], bool]


@dataclass(frozen=True)
class IDSResult:
    value: float | None
    reason: str | None
    embedder: str
    pairs: int
    empty_nodes: int


def _undirected(edges: list[Edge]) -> set[tuple[int, int]]:
    return {(min(i, j), max(i, j)) for i, j in edges if i != j}


def information_diversity(
    graph: AgentGraph, embedder: Embedder | None, lam: float = DEFAULT_LAMBDA
) -> IDSResult:
    """IDS of one graph, with the embedder id and what was left out."""
    # A response without tokens would score cos 0 against anything, even an identical one.
    tokens = [tokenize(node.response) for node in graph.nodes]
    kept = [i for i, words in enumerate(tokens) if words]
    empty = len(graph.nodes) - len(kept)
    spatial, temporal = _undirected(graph.spatial), _undirected(graph.temporal)
    keep = set(kept)
    weights = {
        pair: (pair in spatial) + (pair in temporal)
        for pair in spatial | temporal
        if pair[0] in keep and pair[1] in keep
    }
    eid = embedder_id(embedder)
    if not weights:
        return IDSResult(
            None, "no weighted pair of nodes with responses (one agent or no edges)", eid, 0, empty
        )
    position = {node: k for k, node in enumerate(kept)}
    used = sorted({i for pair in weights for i in pair})
    syntactic = tfidf_of_tokens([tokens[i] for i in kept], only={position[i] for i in used})
    semantic = None
    if embedder is not None:
        vectors = embedder.embed([graph.nodes[i].response for i in used])
        semantic = dict(zip(used, vectors, strict=True))
    weighted = total = 0.0
    for (i, j), w in weights.items():
        # Clipped: rounding can put the cosine of equal texts a hair above 1.
        ss = min(1.0, cosine(syntactic[position[i]], syntactic[position[j]]))
        if semantic is not None:
            sem = min(1.0, max(0.0, float(semantic[i] @ semantic[j])))
            ss = lam * ss + (1.0 - lam) * sem
        weighted += w * (1.0 - ss)
        total += w
    return IDSResult(weighted / total, None, eid, len(weights), empty)


def state_contribution(node: Node) -> bool:
    """Default for state tasks. A sub-agent contributes when it ended normally and (read-only)
    its summary is non-empty or (writable) at least one write succeeded; a main turn when at
    least one of its tool calls succeeded. A trace without `termination` is taken as normal
    (a sub-agent ends by answering), one without `writes_ok` falls back to the summary rule, and
    a main turn without `tools_ok` contributes when it made a tool call (outcomes unknown)."""
    if node.contributes is not None:
        return node.contributes
    if node.kind == "main":
        return (node.tools_ok if node.tools_ok is not None else node.tool_calls) >= 1
    if node.termination is not None and node.termination not in NORMAL_TERMINATIONS:
        return False
    if node.mode == "writable" and node.writes_ok is not None:
        return node.writes_ok >= 1
    return bool(node.response.strip())


# Whole words only: "the answer isn't obvious" or "the answer issue" say no answer.
_ANSWER_IS = re.compile(r"\banswer\s+is\b\s*:?\s*(\S+)", re.IGNORECASE)
# A comma is a thousands separator only before groups of exactly three digits ("1,234"), so
# "1,2" is two numbers, not 12.
_THOUSANDS = r"-?\d{1,3}(?:,\d{3})+(?:\.\d+)?(?!\d)"
_NUMBER = re.compile(rf"{_THOUSANDS}|-?\d+(?:\.\d+)?|-?\.\d+")
_GROUPED = re.compile(_THOUSANDS)
# Sentence punctuation, math delimiters and markdown emphasis (**42**, _42_, `42`) around an answer.
_TRAILING, _LEADING = ".,;:!?)$*_`", "($*_`"


def _unwrap(answer: str) -> str:
    return answer.strip().rstrip(_TRAILING).lstrip(_LEADING)


def boxed(text: str) -> list[str]:
    """The contents of each \\boxed{...} in `text`, braces inside balanced (\\boxed{\\frac{1}{2}}
    holds \\frac{1}{2}); one never closed is left out."""
    found, at = [], text.find("\\boxed{")
    while at >= 0:
        start, depth = at + len("\\boxed{"), 1
        for end in range(start, len(text)):
            depth += {"{": 1, "}": -1}.get(text[end], 0)
            if depth == 0:
                found.append(text[start:end])
                break
        at = text.find("\\boxed{", start)
    return found


def extract_answer(text: str) -> str | None:
    """The last "answer is X", else the last \\boxed{X}, else the last number; None if none."""
    for find in (_ANSWER_IS.findall, boxed, _NUMBER.findall):
        found = find(text)
        if found:
            answer = _unwrap(found[-1])
            inner = boxed(answer)
            answer = _unwrap(inner[0]) if inner and answer == f"\\boxed{{{inner[0]}}}" else answer
            if answer:
                return answer
    return None


def _decimal(text: str) -> Decimal | None:
    text = text.replace("$", "").rstrip("%")
    if "," in text:
        if not _GROUPED.fullmatch(text):
            return None  # "1,2" is not a number (it compares as text)
        text = text.replace(",", "")
    try:
        value = Decimal(text)
    except InvalidOperation:
        return None
    return value if value.is_finite() else None


def answers_match(answer: str | None, gold: str) -> bool:
    """Equal as decimals within 1e-6; non-numeric answers compare as lower-cased text."""
    if answer is None:
        return False
    a, g = _decimal(answer), _decimal(gold.strip())
    if a is not None and g is not None:
        return abs(a - g) <= ANSWER_TOLERANCE
    return answer.strip().lower() == gold.strip().lower()


def answer_contribution(gold: str) -> Contribution:
    """For answer tasks: a node contributes when its extracted answer equals the gold one; a
    node that declares `contributes` is taken at its word, as for state tasks."""

    def contributes(node: Node) -> bool:
        if node.contributes is not None:
            return node.contributes
        return answers_match(extract_answer(node.response), gold)

    return contributes


@dataclass(frozen=True)
class UPRResult:
    value: float | None
    reason: str | None
    paths: int
    necessary: int


def topological_order(n: int, edges: list[Edge]) -> list[int]:
    """Kahn's order of the nodes; ValueError on a cycle."""
    indegree = [0] * n
    successors: list[list[int]] = [[] for _ in range(n)]
    for i, j in edges:
        successors[i].append(j)
        indegree[j] += 1
    ready = [v for v in range(n) if indegree[v] == 0]
    order: list[int] = []
    while ready:
        v = ready.pop()
        order.append(v)
        for w in successors[v]:
            indegree[w] -= 1
            if indegree[w] == 0:
                ready.append(w)
    if len(order) != n:
        raise ValueError("the spatial graph has a cycle")
    return order


def count_paths(n: int, edges: list[Edge], contributes: list[bool], min_nodes: int = 2) -> tuple[int, int]:
    """(all paths, necessary paths) with at least `min_nodes` nodes, counted exactly."""
    if min_nodes not in (1, 2):
        raise ValueError("min_nodes must be 1 or 2")
    edges = list(set(edges))
    # Only nodes on an edge lie on a path of ≥ 2 nodes; the others are single-node paths.
    on_edge = sorted({v for edge in edges for v in edge})
    local = {v: k for k, v in enumerate(on_edge)}
    m = len(on_edge)
    predecessors: list[list[int]] = [[] for _ in range(m)]
    for i, j in edges:
        predecessors[local[j]].append(local[i])
    size, offset = 2 * m + 1, m
    # ending[v][offset + d] = number of paths ending at v whose (contributing − not) is d.
    ending: list[list[int]] = [[] for _ in range(m)]
    for v in topological_order(m, [(local[i], local[j]) for i, j in edges]):
        into = [0] * size
        for u in predecessors[v]:
            into = list(map(add, into, ending[u]))
        into[offset] += 1  # the path that starts at v, before v's own node is counted
        # Adding v moves every path's d by +1 (v contributes) or −1; |d| ≤ m, so no loss.
        ending[v] = [0, *into[:-1]] if contributes[on_edge[v]] else [*into[1:], 0]
    total = sum(sum(vector) for vector in ending) - m
    necessary = sum(sum(vector[offset:]) for vector in ending) - sum(1 for v in on_edge if contributes[v])
    if min_nodes == 1:
        total += n
        necessary += sum(1 for c in contributes if c)
    return total, necessary


def unnecessary_path_ratio(graph: AgentGraph, contribution: Contribution, min_nodes: int = 2) -> UPRResult:
    """UPR of one graph under a contribution rule."""
    contributes = [contribution(node) for node in graph.nodes]
    total, necessary = count_paths(len(graph.nodes), graph.spatial, contributes, min_nodes)
    if total == 0:
        return UPRResult(None, f"no spatial path of at least {min_nodes} nodes", 0, 0)
    return UPRResult(1.0 - necessary / total, None, total, necessary)
