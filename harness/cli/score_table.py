"""The score as `mseval score`, `report` and `demo` print it: the headline table of each setting
and the warnings, names from the records shown, never obeyed (their control characters)."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from evaluation.document import ScoreDocument


def warn(doc: ScoreDocument) -> None:
    from contracts.printable import printable

    for warning in doc.warnings:  # names from the records: their control characters shown, not obeyed
        print(f"warning: {printable(warning)}", file=sys.stderr)


def fmt(value: float | None) -> str:
    return "—" if value is None else f"{value:.3f}"


def summary_table(doc: ScoreDocument) -> str:
    """A plain-text table of the headline numbers (the full document is `--json`)."""
    from contracts.printable import printable

    columns = [
        "model",
        "variant",
        "eps",
        "absent",
        "SR",
        "SR|done",
        "UDR",
        "ODR",
        "F1_hit",
        "U_p",
        "U_e",
        "U_c",
        "MSQ",
        "IDS",
        "UPR",
    ]
    rows = [
        [
            printable(row.model) + (" (sim)" if row.simulated else ""),  # an ESC in a name is not obeyed
            printable(row.variant),
            str(row.episodes),
            str(row.absent),
            *(
                fmt(v)
                for v in (
                    row.sr,
                    row.sr_conditional,
                    row.udr,
                    row.odr,
                    row.f1_hit,
                    row.u_p,
                    row.u_e,
                    row.u_c,
                    row.msq,
                    row.ids,
                    row.upr,
                )
            ),
        ]
        for row in doc.settings
    ]
    widths = [max(len(c), *(len(r[i]) for r in rows)) if rows else len(c) for i, c in enumerate(columns)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(columns, widths, strict=True))]
    lines += ["  ".join(v.ljust(w) for v, w in zip(r, widths, strict=True)) for r in rows]
    identity = doc.identity
    priors = (identity.get("priors_hash") or "none")[:12]
    tasks = identity.get("tasks_hash")
    tasks = "differ between runs" if isinstance(tasks, list) else (tasks or "unknown")[:12]
    prices = identity.get("price_version")
    prices = ", ".join(prices) if isinstance(prices, list) else prices or "unknown"
    lines.append(
        f"scorer {identity['scorer']}; tasks {tasks}; priors {priors}; prices {prices}; "
        f"runs {len(identity.get('runs', []))}; "
        f"IDS embedder {doc.contract['embedder']}; absent episodes count as failures; '—' = undefined."
    )
    if doc.tagging.get("llm_agreement") or doc.tagging.get("llm_unparsed"):  # what --llm-tagger asked
        from evaluation.reports.tables import tagging_line

        lines.append(tagging_line(doc))
    return "\n".join(lines)
