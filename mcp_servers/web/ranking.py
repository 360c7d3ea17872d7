"""BM25 ranking over the corpus (k1 = 1.5, b = 0.75; the title counts twice), and snippets.

Deterministic: ties break by URL. The index is rebuilt from the rows it is given, so pages a
task adds to the world are searchable at once.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence

from mcp_servers.web.schema import WebPage

K1, B = 1.5, 0.75
TOKEN = re.compile(r"[a-z0-9]+(?:[-'][a-z0-9]+)*")
STOPWORDS = frozenset(
    "a an and are as at be by for from has have in is it its of on or that the this to was were will with".split()
)


def tokens(text: str) -> list[str]:
    return [t for t in TOKEN.findall(text.lower()) if t not in STOPWORDS]


def bm25(pages: Sequence[WebPage], query: str) -> list[tuple[float, WebPage]]:
    """Pages with a positive score for `query`, best first."""
    terms = set(tokens(query))
    if not terms:
        return []
    docs = [Counter(tokens(p.title) * 2 + tokens(p.text)) for p in pages]
    avg = sum(sum(d.values()) for d in docs) / max(1, len(docs))
    df = Counter(t for d in docs for t in terms if t in d)
    n = len(docs)
    scored = []
    for page, d in zip(pages, docs, strict=True):
        length = sum(d.values())
        s = 0.0
        for t in terms:
            f = d.get(t, 0)
            if f:
                idf = math.log(1 + (n - df[t] + 0.5) / (df[t] + 0.5))
                s += idf * f * (K1 + 1) / (f + K1 * (1 - B + B * length / avg))
        if s > 0:
            scored.append((round(s, 4), page))
    scored.sort(key=lambda x: (-x[0], x[1].url))
    return scored


def snippet(text: str, query: str, width: int = 200) -> str:
    """About `width` characters of `text` around the first query term found."""
    lower = text.lower()
    hits = [i for t in tokens(query) if (i := lower.find(t)) >= 0]
    start = max(0, min(hits) - width // 4) if hits else 0
    piece = " ".join(text[start : start + width].split())
    return ("…" if start else "") + piece + ("…" if start + width < len(text) else "")
