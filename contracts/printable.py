"""Foreign text (names, reasons, agent and tool output from records and stores) as one visible
line, for every place mseval draws it: reports, the score table, the episode viewer."""

from __future__ import annotations

import re
import unicodedata

# Tabs and line breaks of any kind (CommonMark ends a line at \r too: a \r in a model name split
# each report.md table row it was in).
_BREAKS = re.compile("\r\n|[\t\n\r\v\f\x1c-\x1e\x85\u2028\u2029]")
# Bidirectional embeddings, overrides and isolates: a U+202E in a model name drew the rest of its
# line (a report row's numbers, the viewer's row) right to left.
_BIDI = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def printable(text: str) -> str:
    """`text` as one visible line: tabs and line breaks become spaces; other control characters
    (NUL, ESC, …), bidirectional controls and lone surrogates (which no UTF-8 page or terminal can
    take: the viewer's page was not sent at all) are written as `\\xNN` / `\\uNNNN`, so they are
    seen rather than dropped, drawn as tofu or obeyed."""
    return "".join(
        (f"\\x{ord(c):02x}" if ord(c) < 0x100 else f"\\u{ord(c):04x}")
        if c in _BIDI or unicodedata.category(c) in ("Cc", "Cs")
        else c
        for c in _BREAKS.sub(" ", text)
    )
