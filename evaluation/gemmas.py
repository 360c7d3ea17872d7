"""GEMMAS process metrics over an agent graph: IDS and UPR (SPEC §9).

IDS = Σ_{i<j} w_ij (1 − SS_ij) / Σ_{i<j} w_ij with w_ij = max(S_ij, S_ji) + max(T_ij, T_ji) and
SS = λ·cos(TF-IDF) + (1 − λ)·clip₀¹(cos(embedding)); with the `tfidf` embedder SS = cos(TF-IDF).
Nodes with empty responses — or no token at all ("!!!") — are left out and counted; no weighted
pair → undefined.

UPR = 1 − |P_necessary| / |P_all| over the directed paths of the spatial graph with at least
`min_nodes` nodes (2 by default, or 1). A path is necessary when the share of its nodes that
contribute is ≥ 0.5, i.e. when (contributing − not) ≥ 0. Paths are counted, never listed: in
topological order each node keeps, per value d of (contributing − not), the number of paths
ending at it, packed into one integer (`count_paths`); a node most earlier nodes lead to takes
the sum of all earlier nodes less its non-predecessors'. A 60-node complete DAG (2^60 − 61
paths) takes a millisecond, a 600-node one a fraction of a second. A graph of at most
`SMALL_GRAPH` nodes on edges (an episode's, as a rule) is counted in one pass, its slots m + 1
bits wide (no count of all paths needed first). No path → undefined.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from contracts.episode import NORMAL_TERMINATIONS
from evaluation.embeddings import Embedder, embedder_id
from evaluation.graph import AgentGraph, Edge, Node
from evaluation.tfidf import cosine, tfidf_of_tokens, tokenize

DEFAULT_LAMBDA = 0.5
# Up to this many nodes on spatial edges, UPR's count takes one pass with slots of a fixed width
# (an episode's graph: a main chain with fans of sub-agents); past it, slots as narrow as can be.
SMALL_GRAPH = 48
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
    return {(i, j) if i < j else (j, i) for i, j in edges if i != j}


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
    vectors = tfidf_of_tokens([tokens[i] for i in kept], only={position[i] for i in used})
    syntactic = dict(zip(kept, vectors, strict=True))  # node → its TF-IDF vector
    semantic = None
    if embedder is not None:
        embedded = embedder.embed([graph.nodes[i].response for i in used])
        semantic = dict(zip(used, embedded, strict=True))
    weighted = total = 0.0
    for (i, j), w in weights.items():
        # Clipped: rounding can put the cosine of equal texts a hair above 1.
        ss = min(1.0, cosine(syntactic[i], syntactic[j]))
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
    """(all paths, necessary paths) with at least `min_nodes` nodes, counted exactly.

    The paths ending at a node, counted per d = (contributing − not), are packed into one
    integer: d's count in bits [w·(d + offset), w·(d + offset + 1)), w wide enough that no count
    (nor any sum of them) spills into the next slot. Summing two nodes' counts is then one
    integer addition, and extending every path by a node (d ± 1) one shift.
    """
    if min_nodes not in (1, 2):
        raise ValueError("min_nodes must be 1 or 2")
    unique = set(edges)
    # Only nodes on an edge lie on a path of ≥ 2 nodes; the others are single-node paths.
    on_edge = sorted({v for edge in unique for v in edge})
    local = {v: k for k, v in enumerate(on_edge)}
    m = len(on_edge)
    local_edges = [(local[i], local[j]) for i, j in unique]
    predecessors: list[list[int]] = [[] for _ in range(m)]
    for i, j in local_edges:
        predecessors[j].append(i)
    order = topological_order(m, local_edges)
    step = [1 if contributes[v] else -1 for v in on_edge]
    if m <= SMALL_GRAPH:
        ending, from_zero = _count_small(order, predecessors, step)
    else:
        plan = _addends(order, predecessors)
        ending = _sum_along(order, plan, 1, lambda _v, paths: paths)  # paths ending anywhere
        width = ending.bit_length() + 1  # every slot, and the sum of all, stays below 2^width − 1
        offset = -_lowest_d(order, predecessors, step)  # slot 0 holds the least d of any path

        def extend(v: int, into: int) -> int:  # v's own node moves every path's d by +1 or −1
            return into << width if step[v] > 0 else into >> width

        packed = _sum_along(order, plan, 1 << (width * offset), extend)
        from_zero = _digit_sum(packed >> (width * offset), width)
    total, necessary = ending - m, from_zero - step.count(1)  # single nodes left out
    if min_nodes == 1:
        total += n
        necessary += sum(1 for c in contributes if c)
    return total, necessary


def _digit_sum(packed: int, width: int) -> int:
    """The sum of `packed`'s slots of `width` bits, given that the sum is below 2^width − 1: it is
    the remainder by 2^width − 1 (2^width ≡ 1), as a number's digit sum is its remainder by 9."""
    return packed % ((1 << width) - 1)


def _count_small(order: list[int], predecessors: list[list[int]], step: list[int]) -> tuple[int, int]:
    """(paths, paths with d ≥ 0), single nodes included, of a graph of m ≤ SMALL_GRAPH nodes, in
    one pass: m + 1 bits hold any count (a path is a set of nodes: at most 2^m − 1 of them) and no
    path goes below d = −m, so neither the count of all paths nor the least d is needed first."""
    m = len(order)
    width = m + 1
    value = [0] * m
    start = 1 << (width * m)
    for v in order:
        into = start + sum(map(value.__getitem__, predecessors[v]))
        value[v] = into << width if step[v] > 0 else into >> width
    packed = sum(value)
    return _digit_sum(packed, width), _digit_sum(packed >> (width * m), width)


def _addends(order: list[int], predecessors: list[list[int]]) -> list[tuple[bool, list[int]]]:
    """Per node of `order`, how the sum over its predecessors is taken, listing the fewer nodes:
    (False, its predecessors), or (True, the earlier nodes that are not: subtracted from the sum
    of all earlier nodes), so that in a dense graph a node costs what its non-predecessors do."""
    plan: list[tuple[bool, list[int]]] = []
    for position, v in enumerate(order):
        if 2 * len(predecessors[v]) <= position:
            plan.append((False, predecessors[v]))
        else:
            leads = set(predecessors[v])
            plan.append((True, [u for u in order[:position] if u not in leads]))
    return plan


def _lowest_d(order: list[int], predecessors: list[list[int]], step: list[int]) -> int:
    """The least (contributing − not) of any path, or 0 (a path before its first node)."""
    lowest = [0] * len(order)
    for v in order:
        lowest[v] = step[v] + min(0, min((lowest[u] for u in predecessors[v]), default=0))
    return min(0, min(lowest, default=0))


def _sum_along(
    order: list[int], plan: list[tuple[bool, list[int]]], start: int, extend: Callable[[int, int], int]
) -> int:
    """Σ over the nodes v of value(v) = extend(v, start + Σ_{u → v} value(u)), in topological
    `order`, each inner sum taken as `plan` says; a value is let go after its last reader."""
    value = [0] * len(order)
    readers = Counter(u for _, listed in plan for u in listed)
    done = 0  # Σ of the values of the nodes so far
    for v, (complement, listed) in zip(order, plan, strict=True):
        into = sum(value[u] for u in listed)
        value[v] = extend(v, start + (done - into if complement else into))
        done += value[v]
        for u in listed:
            readers[u] -= 1
            if readers[u] == 0:
                value[u] = 0
        if readers[v] == 0:  # no later node reads it
            value[v] = 0
    return done


def unnecessary_path_ratio(graph: AgentGraph, contribution: Contribution, min_nodes: int = 2) -> UPRResult:
    """UPR of one graph under a contribution rule."""
    contributes = [contribution(node) for node in graph.nodes]
    total, necessary = count_paths(len(graph.nodes), graph.spatial, contributes, min_nodes)
    if total == 0:
        return UPRResult(None, f"no spatial path of at least {min_nodes} nodes", 0, 0)
    return UPRResult(1.0 - necessary / total, None, total, necessary)
