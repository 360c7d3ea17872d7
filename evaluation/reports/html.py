"""`index.html`: the score as one self-contained page (inline CSS, PNGs as data URIs)."""

from __future__ import annotations

import base64
import re
from collections.abc import Sequence
from html import escape as _escape
from pathlib import Path

from contracts.printable import printable
from evaluation.document import ScoreDocument
from evaluation.reports.tables import Table, preamble, tables

_CSS = """
body{font-family:system-ui,sans-serif;margin:2em auto;max-width:1200px;color:#222;padding:0 1em}
table{border-collapse:collapse;margin:.5em 0 .3em;font-size:13px}
th,td{border:1px solid #ccc;padding:3px 7px;text-align:left;vertical-align:top}
th{background:#f0f3f7} .warn{background:#fff3cd;border:1px solid #e0c060;padding:.4em .8em;margin:.3em 0}
.sim{background:#e8f0fe;border:1px solid #9ab;padding:.4em .8em} .note{color:#555;font-size:12px}
img{max-width:100%;border:1px solid #ddd;margin:.5em 0}
"""


# A run of more characters than this without a space may break after every this many: a
# 2,000-character model name or reason widened its table, and the page, to thousands of pixels.
LONGEST_UNBROKEN = 30
_PIECES = re.compile(rf"\S{{1,{LONGEST_UNBROKEN}}}|\s+")


def escape(text: str) -> str:
    """Text as HTML: control and bidirectional characters made visible (`tables.printable`), and
    a long run without a space given a place to wrap (`<wbr>`) every `LONGEST_UNBROKEN` characters."""
    pieces = _PIECES.findall(printable(text))
    return "".join(
        ("<wbr>" if i and not piece.isspace() and not pieces[i - 1].isspace() else "") + _escape(piece)
        for i, piece in enumerate(pieces)
    )


def _table(table: Table) -> str:
    head = "".join(f"<th>{escape(h)}</th>" for h in table.headers)
    body = "".join("<tr>" + "".join(f"<td>{escape(c)}</td>" for c in row) + "</tr>" for row in table.rows)
    note = f'<p class="note">{escape(table.note)}</p>' if table.note else ""
    return f"<h2>{escape(table.title)}</h2><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>{note}"


def _image(title: str, path: Path) -> str:
    data = base64.b64encode(path.read_bytes()).decode("ascii")
    return f'<h3>{escape(title)}</h3><img alt="{_escape(title)}" src="data:image/png;base64,{data}">'


def render_html(doc: ScoreDocument, images: Sequence[tuple[str, Path]], more: Sequence[Table] = ()) -> str:
    """The whole page; `images` are (title, PNG path) pairs embedded in it, `more` tables after
    the score's."""
    head = preamble(doc)
    parts = ["<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>mseval report</title>"]
    parts.append(f"<style>{_CSS}</style></head><body><h1>mseval report</h1>")
    if head["warnings"]:
        parts.append("<h2>Warnings</h2>")
        parts += [f'<div class="warn"><b>Warning:</b> {escape(w)}</div>' for w in head["warnings"]]
    if head["simulated"]:
        names = escape(", ".join(head["simulated"]))
        parts.append(
            f'<p class="sim"><b>Simulated results.</b> {names} are deterministic simulated agents, '
            "not language models; their numbers test the harness, not a model.</p>"
        )
    identity = Table("Run identity", ["key", "value"], [list(row) for row in head["identity"]])
    parts.append(_table(identity))
    parts.append("<h2>Totals</h2><ul>" + "".join(f"<li>{escape(t)}</li>" for t in head["totals"]) + "</ul>")
    parts.append(
        "<h2>Aggregation contract</h2><ul>"
        + "".join(f"<li>{escape(c)}</li>" for c in head["contract"])
        + "</ul>"
    )
    parts += [_table(t) for t in [*tables(doc), *more]]
    if images:
        parts.append("<h2>Plots</h2>")
        parts += [_image(title, path) for title, path in images]
    parts.append("</body></html>")
    return "\n".join(parts)
