"""TF-IDF vectors and cosine similarity, the syntactic part of IDS (SPEC §9).

Pinned so IDS values are reproducible: lower-cased `\\w+` tokens — one-character tokens are
kept, so "answer is 5" and "answer is 7" differ — except that each Han, hiragana or katakana
character is a token of its own (these scripts put no spaces between words, so a `\\w+` run
would be a whole sentence), raw term counts, smoothed idf
ln((1 + n) / (1 + df)) + 1 (scikit-learn's default), L2-normalised. Fitted on the texts given
(the responses of one graph). Sparse dicts: a graph has a handful of nodes, where numpy's
per-call cost would dominate. An ASCII text is tokenised by a byte table instead of the pattern
(same tokens, a third of the time: ASCII has no CJK, and its `\\w` is [A-Za-z0-9_]).
"""

from __future__ import annotations

import math
import re
from collections import _count_elements  # type: ignore[attr-defined]  # Counter's own counting loop
from collections.abc import Collection, Sequence
from itertools import chain
from operator import mul

# Han (CJK unified ideographs, extension A, compatibility ideographs, the supplementary planes)
# and the Japanese kana: scripts written without spaces, tokenised as character unigrams.
_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003134f"
_TOKEN = re.compile(f"[{_CJK}]|[^\\W{_CJK}]+")

# ASCII bytes: word characters kept (A-Z lower-cased), every other byte a space.
_ASCII_WORDS = bytes(ord(ch.lower()) if ch.isalnum() or ch == "_" else 32 for ch in map(chr, range(128)))
_ASCII_WORDS += bytes(128)  # a translation table has 256 entries; an ASCII text uses the first 128

# ln(1 + df) for the document frequencies of graphs up to 255 texts, looked up, not computed per term.
_LOG_1P = [math.log(1 + d) for d in range(256)]

SparseVector = dict[str, float]


def tokenize(text: str) -> list[str]:
    """Lower-cased word tokens, one-character tokens included; CJK characters one by one."""
    if text.isascii():
        return text.encode().translate(_ASCII_WORDS).decode().split()
    return _TOKEN.findall(text.lower())


def has_tokens(text: str) -> bool:
    """Whether a text has any token: one without ("", "!!!") says nothing to compare."""
    return _TOKEN.search(text.lower()) is not None


def tfidf_vectors(texts: Sequence[str], only: Collection[int] | None = None) -> list[SparseVector]:
    """L2-normalised TF-IDF vectors of `texts`, fitted on all of `texts`.

    With `only`, vectors are built for those positions alone (the others stay empty): IDS
    needs the idf of the whole graph but vectors of the nodes in weighted pairs only.
    """
    return tfidf_of_tokens([tokenize(t) for t in texts], only)


def tfidf_of_tokens(
    tokens: Sequence[Sequence[str]], only: Collection[int] | None = None
) -> list[SparseVector]:
    """`tfidf_vectors` of texts already tokenised (each text's `tokenize`)."""
    # Term counts as plain dicts, filled as Counter fills them (same order), without its overhead.
    counts: list[dict[str, int]] = []
    for t in tokens:
        c: dict[str, int] = {}
        _count_elements(c, t)
        counts.append(c)
    df: dict[str, int] = {}
    _count_elements(df, chain.from_iterable(counts))  # iterating a dict yields its distinct terms
    base = math.log(1 + len(tokens)) + 1.0
    if len(tokens) < len(_LOG_1P):
        idf = {term: base - _LOG_1P[d] for term, d in df.items()}
    else:
        idf = {term: base - math.log(1 + d) for term, d in df.items()}  # not log1p: its last bit may differ
    vectors: list[SparseVector] = []
    for position, c in enumerate(counts):
        if only is not None and position not in only:
            vectors.append({})
            continue
        weights = [tf * idf[term] for term, tf in c.items()]
        norm = math.hypot(*weights)
        vectors.append({term: w / norm for term, w in zip(c, weights, strict=True)} if norm else {})
    return vectors


def cosine(a: SparseVector, b: SparseVector) -> float:
    """Cosine of two L2-normalised sparse vectors (0 when either is empty). Summed exactly
    (`math.fsum`): the shared terms come in a set's order, which changes with each process's
    string hashing, and a plain sum in that order moved IDS in its last digit from run to run."""
    common = a.keys() & b.keys()
    return math.fsum(map(mul, map(a.__getitem__, common), map(b.__getitem__, common)))
