"""TF-IDF vectors and cosine similarity, the syntactic part of IDS (SPEC §9).

Pinned so IDS values are reproducible: lower-cased `\\w+` tokens — one-character tokens are
kept, so "answer is 5" and "answer is 7" differ —, raw term counts, smoothed idf
ln((1 + n) / (1 + df)) + 1 (scikit-learn's default), L2-normalised. Fitted on the texts given
(the responses of one graph). Sparse dicts: a graph has a handful of nodes, where numpy's
per-call cost would dominate.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence

_TOKEN = re.compile(r"\w+")

SparseVector = dict[str, float]


def tokenize(text: str) -> list[str]:
    """Lower-cased word tokens, one-character tokens included."""
    return _TOKEN.findall(text.lower())


def tfidf_vectors(texts: Sequence[str]) -> list[SparseVector]:
    """L2-normalised TF-IDF vectors of `texts`, fitted on `texts`."""
    counts = [Counter(tokenize(t)) for t in texts]
    n = len(texts)
    df: Counter[str] = Counter()
    for c in counts:
        df.update(c.keys())
    idf = {term: math.log((1 + n) / (1 + d)) + 1.0 for term, d in df.items()}
    vectors = []
    for c in counts:
        vector = {term: tf * idf[term] for term, tf in c.items()}
        norm = math.sqrt(sum(v * v for v in vector.values()))
        vectors.append({term: v / norm for term, v in vector.items()} if norm else {})
    return vectors


def cosine(a: SparseVector, b: SparseVector) -> float:
    """Cosine of two L2-normalised sparse vectors (0 when either is empty)."""
    if len(a) > len(b):
        a, b = b, a
    return sum(v * b.get(term, 0.0) for term, v in a.items())
