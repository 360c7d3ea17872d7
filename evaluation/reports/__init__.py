"""Reports of a score: `report.md`, a self-contained `index.html`, PNG plots (SPEC §10), and
the score document itself as `score.json`.

Every report states the run identity and the aggregation contract, prints the warnings (runs
of different identity in one table, missing baselines, left-out tasks) before its tables, and
labels simulated models as such.

A report is written whole or not at all: its files are made in a hidden folder inside `out` and
moved over the old ones only when all are made, so a failure (a plot that cannot be drawn, a
full disk, a report file that is a folder) leaves `out` as it was.
"""

from __future__ import annotations

import errno
import os
import shutil
import tempfile
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
    score: Path


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


MARKDOWN = "report.md"
HTML = "index.html"
SCORE = "score.json"
PLOTS = ("msq_leaderboard.png", "tradeoff.png", "taxonomy.png", "waves_timeline.png")


def write_report(
    doc: ScoreDocument, records: Sequence[EpisodeRecord], out: Path, timeline: Sequence[str] = ()
) -> ReportFiles:
    """Write report.md, index.html, score.json and the PNG plots into `out`, all of them or none
    (an `OSError` naming the file, `out` left as it was; a folder it had to make is removed)."""
    made = _missing_folders(out)
    try:
        out.mkdir(parents=True, exist_ok=True)
        for name in (MARKDOWN, HTML, SCORE, *PLOTS):
            if (out / name).is_dir():  # before any file is moved in: os.replace would fail midway
                raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(out / name))
        staging = Path(tempfile.mkdtemp(prefix=".report-", dir=out))
        try:
            _write_files(doc, records, staging, timeline)
            for name in (*PLOTS, SCORE, MARKDOWN, HTML):
                os.replace(staging / name, out / name)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
    except BaseException:
        for folder in made:  # innermost first; only folders left empty
            try:
                folder.rmdir()
            except OSError:
                break
        raise
    return ReportFiles(out / MARKDOWN, out / HTML, [out / name for name in PLOTS], out / SCORE)


def _missing_folders(out: Path) -> list[Path]:
    """The folders of `out` (itself first) that do not exist yet."""
    return [folder for folder in [out, *out.parents] if not folder.exists()]


def _write_files(
    doc: ScoreDocument, records: Sequence[EpisodeRecord], folder: Path, timeline: Sequence[str]
) -> None:
    msq, trade, taxonomy, waves = (folder / name for name in PLOTS)
    plots = [
        ("MSQ leaderboard", msq_leaderboard(doc, msq)),
        ("Trade-off against the baseline", tradeoff(doc, trade)),
        ("Case taxonomy", taxonomy_bars(doc, taxonomy)),
        ("Waves timeline", waves_timeline(choose_timeline_episodes(records, timeline), waves)),
    ]
    more = [t for t in [absent_table(records)] if t is not None]
    (folder / MARKDOWN).write_text(
        render_markdown(doc, [(title, path.name) for title, path in plots], more), encoding="utf-8"
    )
    (folder / HTML).write_text(render_html(doc, plots, more), encoding="utf-8")
    (folder / SCORE).write_text(doc.to_json(indent=1), encoding="utf-8")
