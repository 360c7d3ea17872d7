"""GEMMAS: the agent graph of a record, IDS, UPR (exact path counting), answer extraction."""

from __future__ import annotations

import itertools
import math
import os
import random
from collections import Counter
from collections.abc import Sequence

import numpy as np
import pytest

from evaluation import gemmas, tfidf
from evaluation.gemmas import (
    answer_contribution,
    answers_match,
    count_paths,
    extract_answer,
    information_diversity,
    state_contribution,
    unnecessary_path_ratio,
)
from evaluation.graph import AgentGraph, Node, graph_of_record
from evaluation.tfidf import tokenize
from tests.evaluation.builders import episode, sub

L = "course-records-lookup"


def agents(*responses: str) -> list[Node]:
    return [Node("agent", f"n{i}", response=r) for i, r in enumerate(responses)]


class FixedEmbedder:
    """A stand-in embedder with chosen vectors, so the semantic part is computed by hand."""

    def __init__(self, vectors: dict[str, Sequence[float]]):
        self.vectors = vectors

    @property
    def id(self) -> str:
        return "fixed"

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        return np.array([self.vectors[t] for t in texts], dtype=float)


# --- the graph of a record ---------------------------------------------------------------


def test_graph_of_a_record_with_a_wave_and_a_resume() -> None:
    """Turns 1..3; wave 0 at step 1 starts a and b; wave 1 at step 2 starts c, resuming a.
    Nodes: m1 m2 m3 a b c (indices 0..5).
    Spatial: m1→a, a→m2, m1→b, b→m2, m2→c, c→m3. Temporal: m1→m2, m2→m3, a→c."""
    record = episode(
        "t",
        main_steps=3,
        waves=[[sub("a", L), sub("b", L)], [sub("c", L, resume_of="a")]],
        main_steps_of_waves=[1, 2],
    )
    graph = graph_of_record(record)
    assert [n.name for n in graph.nodes] == ["main:1", "main:2", "main:3", "sub:a", "sub:b", "sub:c"]
    assert sorted(graph.spatial) == sorted([(0, 3), (3, 1), (0, 4), (4, 1), (1, 5), (5, 2)])
    assert sorted(graph.temporal) == [(0, 1), (1, 2), (3, 5)]
    assert graph.fallback is None


def test_a_wave_at_the_last_step_has_no_reader() -> None:
    graph = graph_of_record(episode("t", main_steps=2, waves=[[sub("a", L)]], main_steps_of_waves=[2]))
    assert graph.spatial == [(1, 2)]


def test_record_without_turns_is_one_main_node_over_its_sub_agents() -> None:
    """SPEC §8: a record without turns is scored "with the main agent as a single node". It was
    the whole graph (its sub-agents dropped, so IDS and UPR were always undefined); now the main
    agent is one node and each sub-agent run hangs off it, with no edge back (a cycle).
    Waves [a, b] then [c resuming a]: nodes main a b c; spatial main→a, main→b, main→c;
    temporal a→c. IDS (tfidf): b's response is empty, left out; pairs (main,a), (main,c) share
    no token → 1 − 0 each; (a,c) say the same → 1 − 1; IDS = (1 + 1 + 0)/3 = 2/3.
    UPR: three 2-node paths; the main node contributes (it delegated: no turns to say how), so
    each path is ≥ 1/2 contributing and necessary: UPR = 1 − 3/3 = 0."""
    record = episode(
        "t",
        turns=False,
        waves=[
            [sub("a", L, response="alpha"), sub("b", L, response="")],
            [sub("c", L, response="alpha", resume_of="a")],
        ],
    )
    graph = graph_of_record(record)
    assert [n.name for n in graph.nodes] == ["main", "sub:a", "sub:b", "sub:c"]
    assert (graph.spatial, graph.temporal) == ([(0, 1), (0, 2), (0, 3)], [(1, 3)])
    assert graph.fallback == "no main.turns in the record"
    ids = information_diversity(graph, None)
    assert (ids.value, ids.pairs, ids.empty_nodes) == (pytest.approx(2 / 3), 3, 1)
    upr = unnecessary_path_ratio(graph, state_contribution)
    assert (upr.value, upr.paths) == (0.0, 3)
    alone = graph_of_record(episode("t", turns=False))
    assert [n.name for n in alone.nodes] == ["main"] and unnecessary_path_ratio(
        alone, state_contribution
    ).value is None


def test_wave_whose_main_step_names_no_turn_falls_back_to_one_main_node() -> None:
    """Two turns with one successful tool call each, and a wave said to start at step 7 of 7,
    which no turn gives: the main agent is one node (tools_ok 1 + 1 = 2), the sub-agent hangs
    off it."""
    turns = [{"step": step, "tools": ["t"], "tools_ok": 1} for step in (1, 2)]
    graph = graph_of_record(
        episode("t", main_steps=7, turns=turns, waves=[[sub("a", L)]], main_steps_of_waves=[7])
    )
    assert [n.name for n in graph.nodes] == ["main", "sub:a"]
    assert (graph.spatial, graph.temporal) == ([(0, 1)], [])
    assert (graph.nodes[0].tools_ok, graph.nodes[0].tool_calls) == (2, 2)
    assert graph.fallback == "wave 0 has no main_step naming a turn"


# --- IDS ----------------------------------------------------------------------------------


def test_ids_tfidf_keeps_one_character_tokens() -> None:
    """'answer is 5' vs 'answer is 7', one spatial edge, tfidf only.
    idf(answer) = idf(is) = ln(3/3) + 1 = 1; idf(5) = idf(7) = ln(3/2) + 1.
    cos = (1 + 1) / (2 + idf(5)²); IDS = 1 − cos ≈ 0.4969."""
    graph = AgentGraph(agents("answer is 5", "answer is 7"), spatial=[(0, 1)])
    idf = math.log(1.5) + 1
    result = information_diversity(graph, None)
    assert result.value == pytest.approx(1 - 2 / (2 + idf**2))
    assert (result.embedder, result.pairs, result.empty_nodes) == ("tfidf", 1, 0)


def test_ids_weights_spatial_plus_temporal() -> None:
    """A→B spatial and temporal (w = 2), B→C temporal (w = 1). A = B textually (SS = 1),
    B and C share no token (SS = 0): IDS = (2·0 + 1·1) / 3 = 1/3."""
    graph = AgentGraph(
        agents("alpha beta", "alpha beta", "gamma"), spatial=[(0, 1)], temporal=[(0, 1), (1, 2)]
    )
    assert information_diversity(graph, None).value == pytest.approx(1 / 3)


def test_ids_mixes_tfidf_and_clipped_embedding_cosine() -> None:
    """x, y disjoint tokens (tfidf cos 0); embedding cos((1,0), (0.6,0.8)) = 0.6.
    SS = 0.5·0 + 0.5·0.6 = 0.3 → IDS = 0.7. With λ = 0.2: SS = 0.8·0.6 = 0.48 → 0.52.
    A negative cosine (x vs z = (−1, 0)) is clipped to 0: SS = 0 → IDS = 1."""
    embedder = FixedEmbedder({"x": (1.0, 0.0), "y": (0.6, 0.8), "z": (-1.0, 0.0)})
    graph = AgentGraph(agents("x", "y"), spatial=[(0, 1)])
    result = information_diversity(graph, embedder)
    assert result.value == pytest.approx(0.7)
    assert result.embedder == "fixed"
    assert information_diversity(graph, embedder, lam=0.2).value == pytest.approx(0.52)
    assert information_diversity(
        AgentGraph(agents("x", "z"), spatial=[(0, 1)]), embedder
    ).value == pytest.approx(1.0)


def test_ids_single_agent_graph_is_undefined() -> None:
    result = information_diversity(AgentGraph(agents("only me")), None)
    assert result.value is None and result.reason is not None
    unconnected = information_diversity(AgentGraph(agents("a", "b")), None)
    assert unconnected.value is None


def test_ids_leaves_out_empty_responses_and_counts_them() -> None:
    """A→B, B→C; B's response is blank: both pairs touch B, so no weighted pair is left."""
    graph = AgentGraph(agents("alpha", "  ", "beta"), spatial=[(0, 1), (1, 2)])
    result = information_diversity(graph, None)
    assert (result.value, result.empty_nodes) == (None, 1)
    graph = AgentGraph(agents("alpha", "", "beta"), spatial=[(0, 1), (0, 2)])
    result = information_diversity(graph, None)
    assert (result.value, result.empty_nodes, result.pairs) == (1.0, 1, 1)


def test_ids_leaves_out_token_less_responses_like_empty_ones() -> None:
    """Regression: two identical "!!!" responses (no \\w token) gave cos 0, IDS 1.0. They say
    nothing to compare: both are left out and counted, and no weighted pair is left (undefined).
    With a third node: A "alpha" → B "!!!" → C "alpha", A → C: only A–C is weighted, SS = 1, IDS 0."""
    result = information_diversity(AgentGraph(agents("!!!", "!!!"), spatial=[(0, 1)]), None)
    assert (result.value, result.empty_nodes, result.pairs) == (None, 2, 0)
    graph = AgentGraph(agents("alpha", "!!!", "alpha"), spatial=[(0, 1), (1, 2), (0, 2)])
    result = information_diversity(graph, None)
    assert (result.value, result.empty_nodes, result.pairs) == (0.0, 1, 1)


def test_ids_tokenises_cjk_characters_one_by_one() -> None:
    """Regression: "答案是五" was one token, so it shared nothing with "答案是六" (IDS 1.0).
    As character unigrams: 答, 案, 是 in both (idf ln(3/3) + 1 = 1), 五 / 六 in one
    (idf ln(3/2) + 1): cos = 3 / (3 + idf²) ≈ 0.6030, IDS ≈ 0.3970."""
    graph = AgentGraph(agents("答案是五", "答案是六"), spatial=[(0, 1)])
    idf = math.log(1.5) + 1
    assert information_diversity(graph, None).value == pytest.approx(1 - 3 / (3 + idf**2))
    assert tokenize("Answer 5: 答案是五, café") == ["answer", "5", "答", "案", "是", "五", "café"]


def test_ascii_texts_are_tokenised_as_the_pattern_tokenises_them() -> None:
    """An ASCII text takes a byte table instead of the pattern: the same tokens for every ASCII
    character between two letters, and for random ASCII strings."""
    pattern = tfidf._TOKEN
    for code in range(128):
        text = f"aB{chr(code)}Zb 1_x{chr(code)}"
        assert tokenize(text) == pattern.findall(text.lower()), code
    rng = random.Random(0)
    for _ in range(2000):
        text = "".join(chr(rng.randrange(128)) for _ in range(rng.randint(0, 40)))
        assert tokenize(text) == pattern.findall(text.lower()), text


@pytest.mark.parametrize("texts", [40, 300])
def test_tfidf_vectors_equal_the_formula_bit_for_bit(texts: int) -> None:
    """Counts, idf and weights are taken by table and map (ln(1 + df) looked up for up to 255
    texts, computed past them): every weight equals the formula's, bit for bit."""
    rng = random.Random(texts)
    words = "a b c d e f g h 1 2 3 x_y".split()
    docs = [" ".join(rng.choice(words) for _ in range(rng.randint(1, 12))) for _ in range(texts)]
    tokens = [tokenize(d) for d in docs]
    df = Counter(term for t in tokens for term in set(t))
    expected = []
    for t in tokens:
        weights = {
            term: tf * (math.log(1 + texts) + 1.0 - math.log(1 + df[term])) for term, tf in Counter(t).items()
        }
        norm = math.hypot(*weights.values())
        expected.append({term: w / norm for term, w in weights.items()})
    assert tfidf.tfidf_vectors(docs) == expected


# --- UPR ----------------------------------------------------------------------------------


def test_upr_on_a_three_node_path_by_hand() -> None:
    """m1 → a → m2. m1 called a tool that worked, a ended normally with a summary,
    m2 had no successful tool call: contributions (1, 1, 0).
    Paths ≥ 2 nodes: m1a (2/2), am2 (1/2: a tie counts as necessary), m1am2 (2/3): UPR = 0.
    With a's summary empty: m1a (1/2) necessary, am2 (0/2) and m1am2 (1/3) not: UPR = 2/3."""
    record = episode("t", main_steps=2, waves=[[sub("a", L)]])
    record.main.turns[1].tools_ok = 0  # type: ignore[index]
    graph = graph_of_record(record)
    result = unnecessary_path_ratio(graph, state_contribution)
    assert (result.value, result.paths, result.necessary) == (0.0, 3, 3)
    record.waves[0].subagents[0].response = ""
    result = unnecessary_path_ratio(graph_of_record(record), state_contribution)
    assert result.value == pytest.approx(2 / 3)


def test_upr_min_path_nodes_one_counts_single_nodes() -> None:
    """Same graph with contributions (1, 0, 0) and single-node paths: 6 paths (3 singles,
    2 pairs, 1 triple); necessary: m1 (1/1), m1a (1/2) → UPR = 1 − 2/6."""
    graph = AgentGraph(agents("", "", ""), spatial=[(0, 1), (1, 2)])
    result = unnecessary_path_ratio(graph, lambda node: node.name == "n0", min_nodes=1)
    assert (result.paths, result.necessary) == (6, 2)
    assert result.value == pytest.approx(4 / 6)


def test_upr_without_a_path_is_undefined() -> None:
    result = unnecessary_path_ratio(AgentGraph(agents("x")), state_contribution)
    assert result.value is None and result.paths == 0
    sa_graph = graph_of_record(episode("t", "sa", main_steps=4))  # only temporal edges
    assert unnecessary_path_ratio(sa_graph, state_contribution).value is None


def brute_force(
    n: int, edges: list[tuple[int, int]], contributes: list[bool], min_nodes: int
) -> tuple[int, int]:
    """Enumerate every path explicitly (the definition, for small graphs)."""
    successors: dict[int, list[int]] = {v: [] for v in range(n)}
    for i, j in set(edges):
        successors[i].append(j)
    total = necessary = 0
    stack = [(v, [v]) for v in range(n)]
    while stack:
        v, path = stack.pop()
        if len(path) >= min_nodes:
            total += 1
            good = sum(contributes[u] for u in path)
            necessary += good >= len(path) - good
        stack.extend((w, [*path, w]) for w in successors[v])
    return total, necessary


@pytest.mark.parametrize("seed", range(8))
def test_exact_path_counts_equal_brute_force_on_random_dags(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(25):
        n = rng.randint(1, 9)
        order = list(range(n))
        rng.shuffle(order)  # node ids not in topological order
        edges = [(order[i], order[j]) for i in range(n) for j in range(i + 1, n) if rng.random() < 0.45]
        contributes = [rng.random() < 0.5 for _ in range(n)]
        for min_nodes in (1, 2):
            assert count_paths(n, edges, contributes, min_nodes) == brute_force(
                n, edges, contributes, min_nodes
            )


@pytest.mark.parametrize("density", [0.2, 0.6, 0.95])
def test_exact_path_counts_equal_brute_force_on_random_dags_sparse_to_nearly_complete(density: float) -> None:
    """Dense graphs take a node's sum as all earlier nodes' minus its non-predecessors': both
    ways, and their mix, agree with the enumeration."""
    rng = random.Random(int(density * 100))
    for _ in range(20):
        n = rng.randint(2, 11)
        order = list(range(n))
        rng.shuffle(order)
        edges = [(order[i], order[j]) for i in range(n) for j in range(i + 1, n) if rng.random() < density]
        edges += edges[:2]  # an edge given twice is one edge
        contributes = [rng.random() < 0.5 for _ in range(n)]
        for min_nodes in (1, 2):
            assert count_paths(n, edges, contributes, min_nodes) == brute_force(
                n, edges, contributes, min_nodes
            )


@pytest.mark.parametrize("seed", range(4))
def test_small_graphs_one_pass_count_agrees_with_the_packed_count(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Up to SMALL_GRAPH nodes on edges, paths are counted in one pass with (m + 1)-bit slots;
    past it, with slots as narrow as the count of all paths allows. On random DAGs up to that
    size, sparse to dense, both give the same counts (the brute-force tests above reach 11 nodes)."""
    rng = random.Random(seed)
    cases = []
    for _ in range(40):
        n = rng.randint(1, gemmas.SMALL_GRAPH)
        order = list(range(n))
        rng.shuffle(order)
        density = rng.choice((0.05, 0.2, 0.6, 1.0))
        edges = [(order[i], order[j]) for i in range(n) for j in range(i + 1, n) if rng.random() < density]
        cases.append((n, edges, [rng.random() < rng.random() for _ in range(n)]))
    one_pass = [count_paths(n, e, c, min_nodes) for n, e, c in cases for min_nodes in (1, 2)]
    monkeypatch.setattr(gemmas, "SMALL_GRAPH", 0)
    assert [count_paths(n, e, c, min_nodes) for n, e, c in cases for min_nodes in (1, 2)] == one_pass


def test_gemmas_path_count_is_not_cubic_in_graph_size() -> None:
    """Each node kept a list of 2m + 1 counts (m nodes on an edge), and every edge added two such
    lists: a 600-node complete DAG took 12–16 s, and a 4,000-node chain held 4,000 lists of 8,001
    counts (over 250 MB). Now a node holds only the counts that can occur, and lets them go after
    its last reader. Chain 0 → 1 → … → N−1, even nodes contributing: the paths of ≥ 2 nodes are
    its segments of length L (N − L + 1 of them); an even one is a tie (necessary), an odd one is
    necessary when it starts on an even node ((N − L) // 2 + 1 of them)."""
    import tracemalloc

    n = 4000
    edges = [(i, i + 1) for i in range(n - 1)]
    contributes = [i % 2 == 0 for i in range(n)]
    tracemalloc.start()
    try:
        total, necessary = count_paths(n, edges, contributes)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert total == n * (n - 1) // 2
    assert necessary == sum(
        n - length + 1 if length % 2 == 0 else (n - length) // 2 + 1 for length in range(2, n + 1)
    )
    assert peak < 20_000_000  # bytes: a few MB of edges and small counts


def test_a_600_node_complete_dag_is_counted_exactly() -> None:
    """Every subset of ≥ 2 nodes is a path: 2^600 − 601 of them. Nodes 0..299 contribute: a subset
    with c contributing and k not is necessary when c ≥ k (the 300 contributing singletons are
    not paths here)."""
    n, half = 600, 300
    edges = [(i, j) for i in range(n) for j in range(i + 1, n)]
    total, necessary = count_paths(n, edges, [i < half for i in range(n)])
    assert total == 2**n - 1 - n
    by_size = [math.comb(half, c) for c in range(half + 1)]
    prefix = list(itertools.accumulate(by_size))  # prefix[c] = Σ_{k ≤ c} C(300, k)
    assert necessary == sum(by_size[c] * prefix[c] for c in range(half + 1)) - 1 - half


def test_sixty_node_complete_dag_is_counted_exactly() -> None:
    """Complete DAG on 60 nodes: a path is any subset of ≥ 2 nodes, 2^60 − 1 − 60 of them.
    With nodes 0..29 contributing and 30..59 not, a subset with c contributing and k not is
    necessary when c ≥ k: Σ_{c ≥ k} C(30, c)·C(30, k), minus the 30 contributing singletons."""
    n = 60
    edges = [(i, j) for i in range(n) for j in range(i + 1, n)]
    contributes = [i < 30 for i in range(n)]
    total, necessary = count_paths(n, edges, contributes)
    assert total == 2**60 - 1 - 60
    expected = (
        sum(
            math.comb(30, c) * math.comb(30, k) for c in range(31) for k in range(31) if c >= k and c + k >= 1
        )
        - 30
    )
    assert necessary == expected


def test_cycle_is_rejected() -> None:
    with pytest.raises(ValueError, match="cycle"):
        count_paths(2, [(0, 1), (1, 0)], [True, True])


# --- contributions and answers -------------------------------------------------------------


def test_state_contribution_rules() -> None:
    def node(**kw: object) -> Node:
        return Node("sub", "s", **kw)  # type: ignore[arg-type]

    assert state_contribution(node(mode="read-only", response="found 3", termination="text_only"))
    assert not state_contribution(node(mode="read-only", response="", termination="text_only"))
    assert not state_contribution(node(mode="read-only", response="partial", termination="step_limit"))
    assert state_contribution(node(mode="read-only", response="ok", termination=None))
    assert state_contribution(node(mode="writable", response="", termination="claim_done", writes_ok=1))
    assert not state_contribution(
        node(mode="writable", response="wrote it", termination="text_only", writes_ok=0)
    )
    assert state_contribution(Node("main", "m", tools_ok=2))
    assert not state_contribution(Node("main", "m", tools_ok=0))
    assert not state_contribution(Node("main", "m"))


def test_upr_main_turn_without_tools_ok_contributes_when_it_called_a_tool() -> None:
    """Regression: a foreign trace's turns have no `tools_ok`, so no main turn contributed.
    Turn 1 delegates (tools [Agent], no tools_ok: contributes), sub-agent a reports (contributes),
    turn 2 calls no tool (does not). Spatial paths m1→a (2/2), a→m2 (1/2), m1→a→m2 (2/3): all
    necessary, UPR = 0 (it was 1/3, with m1→a→m2 at 1/3 unnecessary)."""
    turns = [{"step": 1, "text": "delegate", "tools": ["Agent"]}, {"step": 2, "text": "done", "tools": []}]
    record = episode("t", main_steps=2, turns=turns, waves=[[sub("a", L, response="roster read")]])
    assert unnecessary_path_ratio(graph_of_record(record), state_contribution).value == 0.0
    assert state_contribution(Node("main", "m", tool_calls=1))
    assert not state_contribution(Node("main", "m", tools_ok=0, tool_calls=2))


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        ("so the answer is 42.", "42"),
        ("The answer is 3, no wait, the answer is $1,250.50!", "1,250.50"),
        ("we get \\boxed{7} then \\boxed{8}", "8"),
        ("first 3 then 4.5 apples", "4.5"),
        ("The answer is: B", "B"),
        ("no numbers here", None),
        ("", None),
    ],
)
def test_answer_extraction(text: str, answer: str | None) -> None:
    assert extract_answer(text) == answer


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        ("The answer is **42**.", "42"),
        ("The answer is: **42**", "42"),
        ("the answer is `7`", "7"),
        ("the answer is _B_!", "B"),
        ("Answer is $-3$.", "-3"),
        ("the answer is \\boxed{8}.", "8"),
        ("values 1,2 and 3; total 1,2", "2"),
        ("from 1,234 to 12,345,678.5", "12,345,678.5"),
        ("ids 1,2345", "2345"),
    ],
)
def test_answer_extraction_strips_emphasis_and_reads_commas_as_thousands_only(text: str, answer: str) -> None:
    """Regression: "**42**" kept its asterisks (never equal to 42), "1,2" was read as 12. Markdown
    emphasis and math delimiters around an answer are stripped; a comma separates thousands only
    before groups of exactly three digits."""
    assert extract_answer(text) == answer


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        ("So \\boxed{7}. The answer isn't obvious at first.", "7"),
        ("Result: 42. The answer issue was resolved.", "42"),
        ("the reanswer is 3, so 5", "5"),
        ("ANSWER IS 9", "9"),
    ],
)
def test_answer_is_matches_whole_words_only(text: str, answer: str) -> None:
    """Regression: "the answer isn't obvious" gave the answer "n't", "answer issue" gave "sue"."""
    assert extract_answer(text) == answer


@pytest.mark.parametrize(
    ("text", "answer"),
    [
        ("so \\boxed{\\frac{1}{2}}.", "\\frac{1}{2}"),
        ("\\boxed{2^{10}} in all", "2^{10}"),
        ("the answer is \\boxed{\\frac{3}{4}}", "\\frac{3}{4}"),
        ("\\boxed{7} then \\boxed{8", "7"),
    ],
)
def test_boxed_answers_keep_their_inner_braces(text: str, answer: str) -> None:
    """Regression: \\boxed{} took no braces inside, so \\boxed{\\frac{1}{2}} fell through to the
    last number (2, a false match for 2) and \\boxed{2^{10}} to 10. A \\boxed never closed is
    not an answer."""
    assert extract_answer(text) == answer


def test_answers_compare_as_decimals_within_tolerance() -> None:
    assert answers_match("1,250.50", "1250.5")
    assert answers_match("0.30000000001", "0.3")
    assert not answers_match("0.301", "0.3")
    assert answers_match("b", "B")
    assert not answers_match(None, "5")
    assert not answers_match("1,2", "12") and answers_match("12,345,678.5", "12345678.5")
    contributes = answer_contribution("5")
    assert contributes(Node("agent", "a", response="I think the answer is 5"))
    assert not contributes(Node("agent", "a", response="the answer is 7"))
    # a node that declares `contributes` is taken at its word (--answer overrode it silently)
    assert contributes(Node("agent", "a", response="the answer is 7", contributes=True))
    assert not contributes(Node("agent", "a", response="the answer is 5", contributes=False))


def test_tfidf_cosine_is_the_same_whatever_the_process_s_string_hashing() -> None:
    """The shared terms of two vectors come in a set's order, which follows each process's
    string hashing (PYTHONHASHSEED); summed plainly in that order, the cosine (and so IDS)
    moved in its last digit from one `mseval score` to the next (the bench's sim:oracle/sa IDS:
    ...1644 vs ...1643). Here the old sum gave three different values over six seeds."""
    import subprocess
    import sys

    program = (
        "import random; from evaluation.tfidf import cosine, tfidf_vectors; "
        "rng = random.Random(0); words = [f'w{i}' for i in range(300)]; "
        "a, b = tfidf_vectors([' '.join(rng.choices(words, k=rng.randint(50, 400))) for _ in range(2)]); "
        "print(repr(cosine(a, b)))"
    )
    values = {
        subprocess.run(
            [sys.executable, "-c", program], env={**os.environ, "PYTHONHASHSEED": str(seed)},
            capture_output=True, text=True, check=True,
        ).stdout.strip()
        for seed in range(6)
    }  # fmt: skip
    assert len(values) == 1, values
