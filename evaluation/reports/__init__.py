"""Reports of a score: `report.md`, a self-contained `index.html`, and PNG plots (SPEC §10).

Every report states the run identity and the aggregation contract, prints the warnings (runs
of different identity in one table, missing baselines, left-out tasks) before its tables, and
labels simulated models as such.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from contracts import EpisodeRecord
from evaluation.document import ScoreDocument
from evaluation.reports.html import render_html
from evaluation.reports.markdown import render_markdown
from evaluation.reports.plots import msq_leaderboard, taxonomy_bars, tradeoff, waves_timeline
from evaluation.reports.tables import absent_table
from evaluation.success import is_completed

__all__ = ["ReportFiles", "choose_timeline_episodes", "write_report"]

# A timeline panel per episode stays legible up to about this many panels.
MAX_TIMELINES = 4


@dataclass(frozen=True)
class ReportFiles:
    markdown: Path
    html: Path
    plots: list[Path]


def choose_timeline_episodes(
    records: Sequence[EpisodeRecord], wanted: Sequence[str] = (), limit: int = MAX_TIMELINES
) -> list[EpisodeRecord]:
    """Episodes for the waves timeline: those named (episode id or task id), else per
    setting the completed episode with the most sub-agents."""
    if wanted:
        return [r for r in records if r.episode_id in wanted or r.task_id in wanted][:limit]
    best: dict[tuple[str, str], EpisodeRecord] = {}
    for record in records:
        if not (is_completed(record) and record.delegated):
            continue
        key = (record.model, record.variant)
        if key not in best or len(record.subagents) > len(best[key].subagents):
            best[key] = record
    return list(best.values())[:limit]


def write_report(
    doc: ScoreDocument, records: Sequence[EpisodeRecord], out: Path, timeline: Sequence[str] = ()
) -> ReportFiles:
    """Write report.md, index.html and the PNG plots into `out`."""
    out.mkdir(parents=True, exist_ok=True)
    plots = [
        ("MSQ leaderboard", msq_leaderboard(doc, out / "msq_leaderboard.png")),
        ("Trade-off against the baseline", tradeoff(doc, out / "tradeoff.png")),
        ("Case taxonomy", taxonomy_bars(doc, out / "taxonomy.png")),
        (
            "Waves timeline",
            waves_timeline(choose_timeline_episodes(records, timeline), out / "waves_timeline.png"),
        ),
    ]
    more = [t for t in [absent_table(records)] if t is not None]
    markdown = out / "report.md"
    markdown.write_text(
        render_markdown(doc, [(title, path.name) for title, path in plots], more), encoding="utf-8"
    )
    html = out / "index.html"
    html.write_text(render_html(doc, plots, more), encoding="utf-8")
    return ReportFiles(markdown, html, [path for _, path in plots])
