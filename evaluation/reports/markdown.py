"""`report.md`: the score as Markdown, plots linked beside it."""

from __future__ import annotations

import re
from collections.abc import Sequence

from contracts.printable import printable
from evaluation.document import ScoreDocument
from evaluation.reports.tables import Table, preamble, tables

# Emphasis, code and strike-through marks; a `_` inside a word (P_hit) opens no emphasis and stays.
_MARKS = re.compile(r"[`*~]|(?<![^\W_])_+|_+(?![^\W_])")


def _text(text: str) -> str:
    """Foreign text (model, variant, task names from other harnesses) as literal Markdown: no
    HTML passes through (`<script>` in a name), no link or image is made (`![](http://tracker/x)`
    would load a remote image wherever report.md is rendered), no line break (`\\n`, `\\r`) ends
    a list item or a row, and `**b**` or a backtick is drawn as written, not as bold or code."""
    text = printable(text).replace("\\", "\\\\").replace("[", "\\[").replace("]", "\\]")
    text = _MARKS.sub(lambda m: "".join("\\" + c for c in m.group()), text)
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _cell(text: str) -> str:
    """`_text` that also keeps a `|` from splitting a table cell."""
    return _text(text).replace("|", "\\|")


def table_md(table: Table) -> list[str]:
    """One table as Markdown lines."""
    lines = [f"## {table.title}", ""]
    lines.append("| " + " | ".join(_cell(h) for h in table.headers) + " |")
    lines.append("|" + "---|" * len(table.headers))
    lines += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in table.rows]
    if not table.rows:
        lines.append("| " + " | ".join(["—"] * len(table.headers)) + " |")
    if table.note:
        lines += ["", f"_{table.note}_"]
    return [*lines, ""]


def render_markdown(doc: ScoreDocument, images: Sequence[tuple[str, str]], more: Sequence[Table] = ()) -> str:
    """The whole report; `images` are (title, relative file name) pairs, `more` tables after
    the score's."""
    head = preamble(doc)
    lines = ["# mseval report", ""]
    if head["warnings"]:
        lines += ["## Warnings", ""] + [f"- **Warning:** {_text(w)}" for w in head["warnings"]] + [""]
    if head["simulated"]:
        lines += [
            f"> **Simulated results.** {_text(', '.join(head['simulated']))} are deterministic simulated agents, "
            "not language models; their numbers test the harness, not a model.",
            "",
        ]
    lines += ["## Run identity", "", "| key | value |", "|---|---|"]
    lines += [f"| {_cell(k)} | {_cell(v)} |" for k, v in head["identity"]] + [""]
    lines += ["## Totals", ""] + [f"- {_text(t)}" for t in head["totals"]] + [""]
    lines += ["## Aggregation contract", ""] + [f"- {_text(c)}" for c in head["contract"]] + [""]
    for table in [*tables(doc), *more]:
        lines += table_md(table)
    if images:
        lines += ["## Plots", ""]
        lines += [f"### {title}\n\n![{title}]({name})\n" for title, name in images]
    return "\n".join(lines)
