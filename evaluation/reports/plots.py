"""PNG plots of a score (matplotlib, Agg backend): MSQ leaderboard, trade-offs against the
baseline, taxonomy bars, and a waves timeline of chosen episodes.

Simulated models carry "(simulated)" in every label. Each function writes one file and
returns its path. Names are drawn as written: a `$` in a model, variant or task name (traces
from other harnesses) is not matplotlib mathtext.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, ParamSpec

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402  (the backend must be chosen first)
from matplotlib.ticker import MaxNLocator  # noqa: E402

from contracts import EpisodeRecord  # noqa: E402
from contracts.printable import printable  # noqa: E402
from evaluation.document import ScoreDocument, SettingRow  # noqa: E402
from evaluation.records import is_simulated  # noqa: E402
from evaluation.reports.tables import simulated_name  # noqa: E402
from evaluation.success import critical_steps  # noqa: E402
from evaluation.taxonomy import CATEGORIES  # noqa: E402

P = ParamSpec("P")
DPI = 100
_COLORS = {
    "F2S": "#1a9850",
    "CES": "#91cf60",
    "S2F": "#d73027",
    "CIS": "#fc8d59",
    "AES": "#fee08b",
    "CIF": "#762a83",  # not a third orange-red: CIS and S2F are beside it in the legend
    "neutral": "#bdbdbd",
}


def literal_text(plot: Callable[P, Path]) -> Callable[P, Path]:
    """Draw every text of `plot` literally: with mathtext, `$5 vs $6` lost its dollars and
    `a$\\frac$` raised a parse error that left the report unwritten."""

    @functools.wraps(plot)
    def drawn(*args: P.args, **kwargs: P.kwargs) -> Path:
        with plt.rc_context({"text.parse_math": False}):  # until saved: tick labels appear at draw time
            return plot(*args, **kwargs)

    return drawn


# Longest name drawn whole; a longer one keeps its start and end around "…". A 2,000-character
# model name pushed the axes out of the figure ("Tight layout not applied") and its bars with it.
MAX_NAME = 48


def shown(name: str, limit: int = MAX_NAME) -> str:
    """A foreign name (model, variant, task, sub-agent id) as drawn: on one line, its control
    characters visible (`tables.printable`: NUL or ESC were drawn as tofu with a warning per
    glyph), and at most `limit` characters."""
    name = printable(name)
    if len(name) <= limit:
        return name
    keep = limit - 1
    return name[: keep - keep // 2] + "…" + name[len(name) - keep // 2 :]


def label(row: SettingRow) -> str:
    """A setting's name in plots, marking simulated models; a long one on two lines."""
    model = simulated_name(shown(row.model), simulated=row.simulated)
    variant = shown(row.variant)
    return f"{model} / {variant}" if len(model) + len(variant) <= MAX_NAME else f"{model}\n/ {variant}"


def _save(fig: Any, path: Path, rect: tuple[float, float, float, float] | None = None) -> Path:
    fig.tight_layout(rect=rect)
    fig.savefig(path, dpi=DPI)
    plt.close(fig)
    return path


def _empty(ax: Any, text: str) -> None:
    ax.text(0.5, 0.5, text, ha="center", va="center", transform=ax.transAxes)
    ax.set_xticks([])
    ax.set_yticks([])


@literal_text
def msq_leaderboard(doc: ScoreDocument, path: Path) -> Path:
    """Horizontal bars of MSQ with 95% intervals; undefined MSQ is written, not drawn as 0."""
    rows = [r for r in doc.settings if r.baseline is not None]
    rows.sort(key=lambda r: (r.msq is not None, r.msq or 0.0))
    fig, ax = plt.subplots(figsize=(8, 1.2 + 0.5 * max(1, len(rows))))
    if not rows:
        _empty(ax, "no MAD-SAE setting with a baseline")
    for y, row in enumerate(rows):
        if row.msq is None:
            ax.text(0.005, y, "undefined", va="center", fontsize=9, color="#555555")
            continue
        ci = (row.ci95 or {}).get("msq")
        err = [[row.msq - ci.low], [ci.high - row.msq]] if ci else None
        ax.barh(y, row.msq, xerr=err, color="#4575b4", capsize=3)
        ax.text((ci.high if ci else row.msq) + 0.01, y, f"{row.msq:.3f}", va="center", fontsize=9)
    ax.set_yticks(range(len(rows)), [label(r) for r in rows])
    ax.set_xlim(0, 1)
    ax.set_xlabel("MSQ = F1_hit × mean(U_p, U_e, U_c)")
    ax.set_title("MSQ leaderboard")
    return _save(fig, path)


def _baseline_of(doc: ScoreDocument, row: SettingRow) -> SettingRow | None:
    return next((r for r in doc.settings if r.model == row.model and r.variant == row.baseline), None)


_MARKERS = "osD^vP*Xph"


def _style(i: int, colours: Sequence[str]) -> dict[str, str]:
    """Colour and marker of the i-th setting: both change from one setting to the next, and the
    marker is shifted by one more each time the colours come round again, so the first
    len(colours) × len(_MARKERS) settings (100) each have a pair of their own. Both by `i % 10`
    gave settings 0 and 10 the same blue circle under two names."""
    colour = i % len(colours)
    return {"color": colours[colour], "marker": _MARKERS[(colour + i // len(colours)) % len(_MARKERS)]}


@literal_text
def tradeoff(doc: ScoreDocument, path: Path) -> Path:
    """ΔSR against Δcost and against ΔCSteps, each MAD-SAE setting relative to its baseline.

    Settings are named in one legend under the panels, each with its own colour and marker,
    rather than beside their points: settings with equal deltas (the same plan under two
    models) drew their names over each other, and a long name ran off the panel."""
    points = []
    for row in doc.settings:
        base = _baseline_of(doc, row) if row.baseline else None
        if base is not None and row.sr_diff is not None:
            points.append((row, base))
    lines = max((label(row).count("\n") + 1 for row, _ in points), default=1)  # a long name takes two
    legend_rows = (len(points) + 1) // 2 * lines
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.5 + 0.25 * legend_rows))
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    legend: dict[tuple[str, str], tuple[Any, str]] = {}  # by setting: shortened labels may coincide
    for ax, (attr, name) in zip(
        axes, (("mean_cost_usd", "Δ mean cost (USD)"), ("mean_csteps", "Δ mean critical steps")), strict=True
    ):
        ax.axhline(0, color="#888888", lw=0.8)
        ax.axvline(0, color="#888888", lw=0.8)
        drawn = 0
        for i, (row, base) in enumerate(points):
            mas_value, sa_value = getattr(row, attr), getattr(base, attr)
            if mas_value is None or sa_value is None or row.sr_diff is None:
                continue
            x, y = mas_value - sa_value, row.sr_diff
            legend[(row.model, row.variant)] = (
                ax.scatter([x], [y], s=40, alpha=0.8, **_style(i, colours)),
                label(row),
            )
            drawn += 1
        if not drawn:
            _empty(ax, "no setting with a baseline")
        else:
            ax.xaxis.set_major_locator(MaxNLocator(nbins=5))  # long cost ticks ran into each other
        ax.margins(0.35)
        ax.set_xlabel(f"{name}, MAD-SAE − baseline")
        ax.set_ylabel("ΔSR (paired), MAD-SAE − baseline")
    axes[0].set_title("Success vs cost")
    axes[1].set_title("Success vs critical steps")
    if not legend:
        return _save(fig, path)
    handles, names = zip(*legend.values(), strict=True)
    fig.legend(handles, names, loc="lower center", ncol=min(2, len(legend)), fontsize=8)
    inches = fig.get_figheight()
    return _save(fig, path, rect=(0, (0.1 + 0.25 * legend_rows) / inches, 1, 1))


@literal_text
def taxonomy_bars(doc: ScoreDocument, path: Path) -> Path:
    """Stacked bars of the case taxonomy per MAD-SAE setting."""
    rows = [r for r in doc.settings if r.taxonomy is not None]
    fig, ax = plt.subplots(figsize=(10, 1.8 + 0.5 * max(1, len(rows))))
    if not rows:
        _empty(ax, "no taxonomy (no setting with a baseline)")
    for y, row in enumerate(rows):
        left = 0
        for category in CATEGORIES:
            count = (row.taxonomy or {}).get(category, 0)
            if count:
                ax.barh(y, count, left=left, color=_COLORS[category], label=category if y == 0 else None)
                ax.text(left + count / 2, y, str(count), ha="center", va="center", fontsize=8)
                left += count
    if rows:
        ax.set_yticks(range(len(rows)), [label(r) for r in rows])
        handles = [plt.Rectangle((0, 0), 1, 1, color=_COLORS[c]) for c in CATEGORIES]
        ax.legend(handles, CATEGORIES, fontsize=8, loc="center left", bbox_to_anchor=(1.01, 0.5))
    ax.set_xlabel("cases (task, seed)")
    ax.set_title("Case taxonomy against the baseline")
    return _save(fig, path)


def _timed(record: EpisodeRecord) -> bool:
    subs = record.subagents
    return bool(subs) and all(s.started_s is not None and s.ended_s is not None for s in subs)


def timeline_bars(record: EpisodeRecord) -> tuple[list[tuple[str, float, float]], str]:
    """(row name, start, length) bars of an episode and the axis unit: seconds when every
    sub-agent has `started_s`/`ended_s`, else critical steps (main steps, waves at their step)."""
    if _timed(record):
        subs = record.subagents
        end = max([s.ended_s or 0.0 for s in subs] + [record.duration_s or 0.0])
        timed = [("main", 0.0, end)]
        timed += [
            (f"w{w.index} {s.id}", s.started_s or 0.0, (s.ended_s or 0.0) - (s.started_s or 0.0))
            for w in record.waves
            for s in w.subagents
        ]
        return timed, "seconds"
    waves_at: dict[int, list[Any]] = {}
    for wave in record.waves:
        if wave.subagents:
            waves_at.setdefault(wave.main_step or record.main.steps, []).append(wave)
    bars: list[tuple[str, float, float]] = []
    cursor = 0.0
    # Step 0: the waves of a record without `main` (main steps unknown) and without `main_step`,
    # which were drawn nowhere: an empty panel for an episode of CSteps = its sub-agents.
    for step in range(0, max(record.main.steps, max(waves_at, default=0)) + 1):
        if step:
            bars.append(("main", cursor, 1.0))
            cursor += 1.0
        for wave in waves_at.get(step, []):
            bars += [(f"w{wave.index} {s.id}", cursor, float(s.steps)) for s in wave.subagents]
            cursor += max(s.steps for s in wave.subagents)
    return bars, "critical steps"


@literal_text
def waves_timeline(records: Sequence[EpisodeRecord], path: Path) -> Path:
    """One Gantt panel per chosen episode: the main agent and each sub-agent by wave."""
    fig, axes = plt.subplots(
        max(1, len(records)), 1, figsize=(10, 1.5 + 2.2 * max(1, len(records))), squeeze=False
    )
    if not records:
        _empty(axes[0][0], "no episode chosen")
    for ax, record in zip(axes[:, 0], records, strict=False):
        bars, unit = timeline_bars(record)
        names = list(dict.fromkeys(name for name, _, _ in bars))
        for name, start, length in bars:
            color = "#4575b4" if name == "main" else "#fc8d59"
            ax.barh(names.index(name), length, left=start, color=color, edgecolor="white")
        ax.set_yticks(range(len(names)), [shown(name) for name in names], fontsize=8)
        ax.invert_yaxis()
        ax.set_xlabel(unit)
        model = simulated_name(shown(record.model), simulated=is_simulated(record.model))
        ax.set_title(
            f"{shown(record.task_id)} · {model} / {shown(record.variant)} · seed {record.seed} · "
            f"CSteps {critical_steps(record)}",
            fontsize=9,
        )
    return _save(fig, path)
