"""report.md, index.html and the plots: identity, contract, warnings, simulated labels."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from matplotlib.colors import to_rgb
from matplotlib.figure import Figure
from matplotlib.text import Text

from contracts import EpisodeRecord
from evaluation.document import ScoreDocument
from evaluation.process import GraphOptions
from evaluation.reports import choose_timeline_episodes, write_report
from evaluation.reports.plots import timeline_bars
from evaluation.scoring import ScoreOptions, score_records
from evaluation.taxonomy import CATEGORIES
from tests.evaluation import fixtures
from tests.evaluation.builders import episode, sub

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
RUNS = [
    {"run_id": "r1", "mseval": "0.1.0", "tasks_hash": "aaa"},
    {"run_id": "r2", "mseval": "0.1.0", "tasks_hash": "bbb"},
]


def make_report(tmp_path: Path) -> tuple[str, str, list[Path]]:
    records = fixtures.records() + fixtures.records(model="openai:gpt-x")
    doc = score_records(
        records,
        fixtures.priors(),
        runs=RUNS,
        options=ScoreOptions(graph=GraphOptions(embedder=None), resamples=50),
    )
    files = write_report(doc, records, tmp_path)
    return files.markdown.read_text(), files.html.read_text(), files.plots


def test_every_report_states_identity_contract_and_warnings(tmp_path: Path) -> None:
    markdown, html, plots = make_report(tmp_path)
    for text in (markdown, html):
        assert "Run identity" in text and "tasks_hash" in text
        assert "Aggregation contract" in text and "missing-as-zero" in text
        assert "Denominator of U_e" in text
        # Runs of different identity in one table: the warning comes before any table.
        warning = text.index("runs of different identity in one table")
        assert warning < text.index("Success, critical steps and cost")
        assert "sim:test (simulated)" in text
        assert "openai:gpt-x (simulated)" not in text
    assert "Simulated results." in markdown and "Simulated results." in html
    assert [p.read_bytes()[:8] for p in plots] == [PNG_MAGIC] * 4


def test_identity_yes_or_no_values_are_written_as_score_json_writes_them(tmp_path: Path) -> None:
    """Regression: `git_dirty` showed as Python's `False` in the identity table."""
    runs = [{"run_id": "r1", "mseval": "0.1.0", "git_dirty": False}]
    doc = score_records(
        fixtures.records(),
        fixtures.priors(),
        runs=runs,
        options=ScoreOptions(graph=GraphOptions(embedder=None)),
    )
    assert doc.identity["git_dirty"] is False
    markdown = write_report(doc, fixtures.records(), tmp_path).markdown.read_text()
    assert "| git_dirty | false |" in markdown and "False" not in markdown


def test_html_is_self_contained(tmp_path: Path) -> None:
    _, html, _ = make_report(tmp_path)
    assert html.count('src="data:image/png;base64,') == 4
    assert "http://" not in html and "https://" not in html
    assert "<table>" in html


def test_undefined_values_are_written_as_undefined(tmp_path: Path) -> None:
    markdown, _, _ = make_report(tmp_path)
    assert "undefined" in markdown  # the baseline rows' delegation fields


def test_timeline_uses_seconds_when_recorded_else_critical_steps() -> None:
    """Steps: main steps 1..3, a wave of 4 and 2 steps at step 1: the main agent resumes at 1 + 4."""
    stepped = episode("t", main_steps=3, waves=[[sub("a", steps=4), sub("b", steps=2)]])
    bars, unit = timeline_bars(stepped)
    assert unit == "critical steps"
    assert bars == [
        ("main", 0.0, 1.0),
        ("w0 a", 1.0, 4.0),
        ("w0 b", 1.0, 2.0),
        ("main", 5.0, 1.0),
        ("main", 6.0, 1.0),
    ]
    timed = episode("t", waves=[[sub("a", started_s=1.0, ended_s=3.5)]])
    bars, unit = timeline_bars(timed)
    assert unit == "seconds" and ("w0 a", 1.0, 2.5) in bars


def test_the_timeline_draws_the_waves_of_a_record_without_main() -> None:
    """A foreign trace without `main` (main steps unknown, 0) whose waves give no `main_step`
    was an empty panel. By hand: wave 0 of 3 and 1 steps, then wave 1 of 2 steps, no main step
    drawn: bars from 0 and from 3 (= CSteps 3 + 2 = 5)."""
    record = EpisodeRecord.model_validate(
        {
            "task_id": "t",
            "model": "m",
            "variant": "spec",
            "status": "completed",
            "success": True,
            "waves": [
                {"index": 0, "subagents": [sub("a", steps=3), sub("b", steps=1)]},
                {"index": 1, "subagents": [sub("c", steps=2)]},
            ],
        }  # fmt: skip
    )
    bars, unit = timeline_bars(record)
    assert unit == "critical steps"
    assert bars == [("w0 a", 0.0, 3.0), ("w0 b", 0.0, 1.0), ("w1 c", 3.0, 2.0)]


def test_timeline_episodes_by_name_or_most_sub_agents() -> None:
    records = fixtures.records()
    chosen = choose_timeline_episodes(records)
    assert [(r.task_id, r.variant) for r in chosen] == [("need1", "spec")]
    assert [r.task_id for r in choose_timeline_episodes(records, ["need2"])] == ["need2", "need2"]


def test_reports_of_baseline_only_or_empty_scores_still_render(tmp_path: Path) -> None:
    """No MAD-SAE setting (or no record at all): every plot says so instead of failing."""
    baseline_only = [r for r in fixtures.records() if r.variant == "sa"]
    for name, records in (("sa", baseline_only), ("empty", [])):
        doc = score_records(records, {}, options=ScoreOptions(graph=GraphOptions(embedder=None)))
        files = write_report(doc, records, tmp_path / name)
        assert [p.read_bytes()[:8] for p in files.plots] == [PNG_MAGIC] * 4
        assert "Aggregation contract" in files.markdown.read_text()


def test_a_dollar_in_a_name_is_drawn_literally_not_as_mathtext(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Model names from a foreign trace: `a$\\frac$` crashed the report (mathtext parse error)
    and `price $5 vs $6` was drawn as an italic `price 5vs6`."""
    import matplotlib.mathtext

    def no_mathtext(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("text was parsed as mathtext")

    monkeypatch.setattr(matplotlib.mathtext.MathTextParser, "parse", no_mathtext)
    records = fixtures.records(model="openai:a$\\frac$") + fixtures.records(model="openai:price $5 vs $6")
    doc = score_records(
        records, fixtures.priors(), options=ScoreOptions(graph=GraphOptions(embedder=None), resamples=20)
    )
    files = write_report(doc, records, tmp_path)
    assert [p.read_bytes()[:8] for p in files.plots] == [PNG_MAGIC] * 4


def test_report_md_keeps_foreign_names_literal(tmp_path: Path) -> None:
    """A `<script>` in a model name from a foreign trace reached report.md raw (Markdown
    renderers that allow HTML ran it); a `|` must not split a table cell either."""
    records = fixtures.records(model="openai:<script>alert(1)</script>|x&y")
    doc = score_records(records, fixtures.priors(), options=ScoreOptions(graph=GraphOptions(embedder=None)))
    markdown = write_report(doc, records, tmp_path).markdown.read_text()
    assert "<script>" not in markdown and "</script>" not in markdown
    assert "openai:&lt;script&gt;alert(1)&lt;/script&gt;\\|x&amp;y" in markdown
    header, _, row = next(
        (lines[i], lines[i + 1], lines[i + 2])
        for lines in [markdown.splitlines()]
        for i, line in enumerate(lines)
        if line.startswith("| model") and i + 2 < len(lines) and "script" in lines[i + 2]
    )
    assert row.replace("\\|", "").count("|") == header.count("|")


def test_report_md_makes_no_link_or_image_of_a_foreign_name(tmp_path: Path) -> None:
    """`![](http://tracker/x)` as a variant name became a remote image in rendered report.md."""
    records = fixtures.records(model="openai:![](http://tracker/x)[a](http://e/)\\")
    doc = score_records(records, fixtures.priors(), options=ScoreOptions(graph=GraphOptions(embedder=None)))
    markdown = write_report(doc, records, tmp_path).markdown.read_text()
    assert "](http" not in markdown.replace("\\](http", "")
    assert "openai:!\\[\\](http://tracker/x)\\[a\\](http://e/)\\\\" in markdown


def test_the_report_says_why_episodes_are_absent(tmp_path: Path) -> None:
    """report.md showed only 'absent: 1': a refused key and a harness fault looked the same."""
    refused = "api_error: authentication: HTTP 401: refused the credentials"
    records = [
        episode("need1", "sa"),
        *[episode(t, "sa", status="absent").model_copy(update={"reason": refused}) for t in ("need2", "no1")],
        episode("need1", status="absent", termination="harness_error"),
    ]
    doc = score_records(records, fixtures.priors(), options=ScoreOptions(graph=GraphOptions(embedder=None)))
    files = write_report(doc, records, tmp_path)
    markdown, html = files.markdown.read_text(), files.html.read_text()
    assert "| sim:test (simulated) | sa | 2 | need2 (seed 0), no1 (seed 0) | " + refused + " |" in markdown
    assert "| sim:test (simulated) | spec | 1 | need1 (seed 0) | harness_error |" in markdown
    assert "<h2>Absent episodes</h2>" in html and "refused the credentials" in html
    # the note says what the scores do with them (it said "left out of the other metrics", but an
    # absent baseline episode is a failure in ΔSR and the utilities)
    assert "Absent episodes count as failures in SR and ΔSR (on either side of a pair)" in markdown
    assert "in the utilities an absent baseline episode is a failure" in markdown
    doc = score_records(
        records[:1], fixtures.priors(), options=ScoreOptions(graph=GraphOptions(embedder=None))
    )
    assert "Absent episodes" not in write_report(doc, records[:1], tmp_path / "none").markdown.read_text()


def _drawn(monkeypatch: pytest.MonkeyPatch, plot: str, doc: ScoreDocument, tmp_path: Path) -> Figure:
    """The figure `plot` saves, drawn, for its texts' places on the page."""
    from evaluation.reports import plots

    saved: list[Figure] = []
    save = plots._save

    def keep(fig: Figure, path: Path, rect: tuple[float, float, float, float] | None = None) -> Path:
        fig.tight_layout(rect=rect)
        fig.canvas.draw()
        saved.append(fig)
        return save(fig, path) if rect is None else save(fig, path, rect)

    monkeypatch.setattr(plots, "_save", keep)
    getattr(plots, plot)(doc, tmp_path / f"{plot}.png")
    return saved[0]


def _overlapping(texts: list[Text]) -> list[tuple[str, str]]:
    boxes = [(t.get_text(), t.get_window_extent()) for t in texts if t.get_visible() and t.get_text()]
    return [(a, b) for i, (a, box) in enumerate(boxes) for b, other in boxes[i + 1 :] if box.overlaps(other)]


def test_the_tradeoff_plot_names_each_setting_once_and_no_text_overlaps(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each point was named beside it: two settings with the same deltas (one plan under two
    models) had their names drawn over each other, a long name ran off its panel, and cost ticks
    such as −0.0075 ran into each other. Settings are named once, in a legend under the panels."""
    records = fixtures.records() + fixtures.records(model="openai:gpt-x")
    doc = score_records(records, fixtures.priors(), options=ScoreOptions(graph=GraphOptions(embedder=None)))
    fig = _drawn(monkeypatch, "tradeoff", doc, tmp_path)
    names = {"sim:test (simulated) / spec", "openai:gpt-x / spec"}
    shown = [t.get_text() for t in fig.findobj(Text) if t.get_text() in names]
    assert sorted(shown) == sorted(names)  # once each, not once per panel
    for ax in fig.axes:
        assert _overlapping([t for t in ax.findobj(Text) if t is not ax.title]) == []
        assert _overlapping(ax.get_xticklabels()) == []
    legend_box = fig.legends[0].get_window_extent()
    panels = [ax.get_tightbbox() for ax in fig.axes]
    assert not any(box is not None and legend_box.overlaps(box) for box in panels)


def test_each_taxonomy_case_has_a_colour_of_its_own(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """CIS (#fc8d59) and CIF (#f46d43) were two oranges the eye could not tell apart in the
    legend or the bars. Every pair of cases now differs by at least 80 in RGB (0–255 a channel)."""
    records = fixtures.records()
    doc = score_records(records, fixtures.priors(), options=ScoreOptions(graph=GraphOptions(embedder=None)))
    fig = _drawn(monkeypatch, "taxonomy_bars", doc, tmp_path)
    legend = fig.axes[0].get_legend()
    assert legend is not None
    colours = {
        text.get_text(): [255 * c for c in to_rgb(patch.get_facecolor())]
        for text, patch in zip(legend.get_texts(), legend.get_patches(), strict=True)
    }
    assert sorted(colours) == sorted(CATEGORIES)
    near = [
        (a, b, round(math.dist(colours[a], colours[b])))
        for i, a in enumerate(CATEGORIES)
        for b in CATEGORIES[i + 1 :]
        if math.dist(colours[a], colours[b]) < 80
    ]
    assert near == []


def test_the_absent_episodes_table_marks_simulated_models(tmp_path: Path) -> None:
    """The last table named `sim:*` models bare, while every other table and plot says
    "(simulated)" (SPEC §9, docs/scoring.md)."""
    records = fixtures.records()  # sim:test, one absent episode
    doc = score_records(records, fixtures.priors(), options=ScoreOptions(graph=GraphOptions(embedder=None)))
    markdown = write_report(doc, records, tmp_path).markdown.read_text()
    assert "| sim:test (simulated) | spec | 1 | orphan (seed 0) |" in markdown


HOSTILE = (
    'openai-compatible:<script>alert(1)</script>"><img src=x onerror=alert(2)></style>'
    "|`tick`|**b** _i_ ~s~ a\r\nnew|row\u2028ls \u202eRTL עברית\x00nul\x1b[31m"
)


def _md_tables(markdown: str) -> list[list[int]]:
    """Cells per row of each table of `markdown` as a CommonMark (+ GFM tables) renderer sees it."""
    import re

    markdown_it = pytest.importorskip("markdown_it")
    html = markdown_it.MarkdownIt("commonmark").enable("table").render(markdown)
    return [
        [row.count("<td") + row.count("<th") for row in re.findall(r"<tr>(.*?)</tr>", table, re.S)]
        for table in re.findall(r"<table>.*?</table>", html, re.S)
    ]


def test_report_md_tables_stay_tables_and_names_literal_with_cr_and_marks(tmp_path: Path) -> None:
    """A `\\r` in a model name ended each table row it was in (CommonMark ends a line at `\\r`):
    the success table of 2 settings rendered as 5 rows. `**b**` and backticks in a name were drawn
    bold and as code; NUL, ESC and a right-to-left override (U+202E, which turned the rest of the
    row's numbers around) went into report.md as they were."""
    records = fixtures.records(model=HOSTILE)
    doc = score_records(records, fixtures.priors(), options=ScoreOptions(graph=GraphOptions(embedder=None)))
    markdown = write_report(doc, records, tmp_path).markdown.read_text()
    success = next(t for t in _md_tables(markdown) if t[0] == 11)
    assert success == [11] * 3  # header and one row per setting
    assert all(len(set(rows)) == 1 for rows in _md_tables(markdown))
    assert not any(c in markdown for c in "\r\x00\x1b\u202e\u2028")
    assert "\\\\x00nul\\\\x1b\\[31m" in markdown and "\\\\u202eRTL" in markdown
    assert "\\|\\`tick\\`\\|\\*\\*b\\*\\* \\_i\\_ \\~s\\~ a new\\|row" in markdown
    assert "P_hit" in markdown  # a `_` inside a word is left as it is


def test_report_md_escapes_the_totals_and_contract_lines(tmp_path: Path) -> None:
    """The totals and contract lines went into report.md raw; they carry the tagger's and the
    embedder's names, which come from the command line (`st:<name-or-path>`)."""
    records = fixtures.records()
    doc = score_records(records, fixtures.priors(), options=ScoreOptions(graph=GraphOptions(embedder=None)))
    doc = doc.model_copy(update={"tagging": {**doc.tagging, "tagger": "openai-compatible:<img src=x>"}})
    markdown = write_report(doc, records, tmp_path).markdown.read_text()
    assert "<img" not in markdown
    assert "- Function labels: openai-compatible:&lt;img src=x&gt; tagger" in markdown


def test_html_shows_control_characters_and_breaks_long_names(tmp_path: Path) -> None:
    """NUL, ESC and U+202E reached index.html as they were (a right-to-left override turned the
    following names of a warning around); a name of 2,000 characters without a space could not
    wrap, and widened its table and the page to thousands of pixels."""
    long_name = "openai:" + "x" * 2000
    records = fixtures.records(model=HOSTILE) + fixtures.records(model=long_name)
    doc = score_records(records, fixtures.priors(), options=ScoreOptions(graph=GraphOptions(embedder=None)))
    html = write_report(doc, records, tmp_path).html.read_text()
    assert not any(c in html for c in "\r\x00\x1b\u202e\u2028")
    assert "\\x00nul\\x1b[31m" in html and "\\u202eRTL" in html
    assert "<script>" not in html and "<img src=x" not in html and '</style>"' not in html
    assert "x" * 31 not in html and "x" * 30 + "<wbr>" + "x" * 30 in html


def test_a_lone_surrogate_in_a_name_is_shown_not_a_crash(tmp_path: Path) -> None:
    """A JSON record may name its model "x\\ud800y" (an escape json.loads takes); the plots failed
    on it with matplotlib's TypeError, and no UTF-8 file could hold it. It is written out instead."""
    records = fixtures.records(model="openai:x\ud800y")
    doc = score_records(records, fixtures.priors(), options=ScoreOptions(graph=GraphOptions(embedder=None)))
    files = write_report(doc, records, tmp_path)
    assert "openai:x\\ud800y" in files.html.read_text()
    assert "openai:x\\\\ud800y" in files.markdown.read_text()  # its backslash escaped for Markdown
    assert json.loads(files.score.read_text())["settings"][0]["model"] == "openai:x\ud800y"


def test_the_tradeoff_plot_tells_eleven_settings_apart(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Colour and marker were both chosen by `i % 10`: settings 0 and 10 were the same blue circle
    under two names in the legend. Now every setting of up to 100 has a pair of its own."""
    records = [r for i in range(11) for r in fixtures.records(model=f"openai:m{i:02d}")]
    doc = score_records(records, fixtures.priors(), options=ScoreOptions(graph=GraphOptions(embedder=None)))
    fig = _drawn(monkeypatch, "tradeoff", doc, tmp_path)
    legend = fig.legends[0]
    styles = {
        (to_rgb(handle.get_facecolor()[0]), handle.get_paths()[0].vertices.tobytes())
        for handle in legend.legend_handles
    }
    assert len(legend.get_texts()) == 11 and len(styles) == 11


def test_long_and_control_character_names_are_drawn_short_and_visible(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A 2,000-character model name pushed the leaderboard's axes out of its figure (tight_layout
    gave up with a warning), and NUL or ESC were drawn as missing glyphs, a warning each."""
    import warnings

    records = fixtures.records(model="openai:" + "x" * 2000) + fixtures.records(model=HOSTILE)
    doc = score_records(records, fixtures.priors(), options=ScoreOptions(graph=GraphOptions(embedder=None)))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fig = _drawn(monkeypatch, "msq_leaderboard", doc, tmp_path)
    labels = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    lines = [line for label in labels for line in label.split("\n")]  # a long name on two lines
    assert len(lines) <= 2 * len(labels) and all(len(line) <= 48 + len(" (simulated)") for line in lines)
    assert not any(c in line for line in lines for c in "\r\x00\x1b\u202e")
    box = fig.axes[0].get_tightbbox()
    assert box is not None and box.x0 >= 0  # the names are inside the figure


def test_a_report_that_fails_leaves_its_folder_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A report file that is a folder (index.html) failed after report.md and the four plots were
    written, and a plot that failed left the files before it new and the rest old: a report that
    mixed two runs. It is now written whole or not at all."""
    from evaluation.reports import plots

    records = fixtures.records()
    doc = score_records(records, fixtures.priors(), options=ScoreOptions(graph=GraphOptions(embedder=None)))
    blocked = tmp_path / "blocked"
    (blocked / "index.html").mkdir(parents=True)
    with pytest.raises(IsADirectoryError) as caught:
        write_report(doc, records, blocked)
    assert caught.value.filename == str(blocked / "index.html")
    assert [p.name for p in blocked.iterdir()] == ["index.html"]

    # score.json too: a folder in its place failed after the report's files were moved in.
    blocked_score = tmp_path / "blocked-score"
    (blocked_score / "score.json").mkdir(parents=True)
    with pytest.raises(IsADirectoryError):
        write_report(doc, records, blocked_score)
    assert [p.name for p in blocked_score.iterdir()] == ["score.json"]

    kept = tmp_path / "kept"
    first = write_report(doc, records, kept)
    assert json.loads(first.score.read_text())["schema"] == "mseval.score/1"
    before = {p.name: p.read_bytes() for p in [*first.plots, first.markdown, first.score]}

    def broken(*_args: object) -> Path:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(plots, "taxonomy_bars", broken)
    monkeypatch.setattr("evaluation.reports.taxonomy_bars", broken)
    other = score_records(
        records[:4], fixtures.priors(), options=ScoreOptions(graph=GraphOptions(embedder=None))
    )
    for out in (kept, tmp_path / "new" / "deeper"):
        with pytest.raises(OSError, match="No space left"):
            write_report(other, records[:4], out)
    assert {p.name: p.read_bytes() for p in kept.iterdir() if p.name in before} == before
    assert sorted(p.name for p in kept.iterdir()) == sorted([*before, "index.html"])  # no staging left
    assert not (tmp_path / "new").exists()  # the folders it made are gone again
