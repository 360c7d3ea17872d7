"""index.html as a person sees it: headless Debian Chromium renders its tables and images.

Needs /usr/bin/chromium (`apt-get install chromium`; .ci/setup.d/chromium.sh installs it)
and the playwright package, driven with the system browser (never `playwright install`).
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from contracts import EpisodeRecord
from evaluation.process import GraphOptions
from evaluation.reports import write_report
from evaluation.scoring import ScoreOptions, score_records
from tests.evaluation import fixtures

CHROMIUM = Path("/usr/bin/chromium")
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(
        not CHROMIUM.exists(), reason="Debian chromium is not installed (apt-get install chromium)"
    ),
    pytest.mark.skipif(
        importlib.util.find_spec("playwright") is None, reason="the playwright package is not installed"
    ),
]


@contextmanager
def report_page(records: list[EpisodeRecord], folder: Path, resamples: int) -> Iterator[tuple[Any, Path]]:
    """A Chromium page (1280 × 800) and the index.html of the report of `records`, not yet opened."""
    from playwright.sync_api import sync_playwright

    doc = score_records(
        records,
        fixtures.priors(),
        options=ScoreOptions(graph=GraphOptions(embedder=None), resamples=resamples),
    )
    html = write_report(doc, records, folder).html
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            yield browser.new_page(viewport={"width": 1280, "height": 800}), html
        finally:
            browser.close()


def test_tables_and_images_render_in_chromium(tmp_path: Path) -> None:
    with report_page(fixtures.records(), tmp_path, resamples=50) as (page, html):
        page.goto(html.as_uri())
        assert page.title() == "mseval report"
        widths = page.eval_on_selector_all("img", "imgs => imgs.map(i => i.complete ? i.naturalWidth : 0)")
        assert len(widths) == 4 and all(w > 0 for w in widths)
        assert page.locator("table").count() == 7  # identity + five metric tables + absent episodes
        rows = page.locator("table").nth(1).locator("tbody tr")
        assert rows.count() == 2
        assert "sim:test (simulated)" in rows.nth(0).inner_text()
        assert page.locator(".warn").count() >= 1
        page.screenshot(path=str(tmp_path / "page.png"), full_page=True)


def test_hostile_names_render_as_text_within_the_page(tmp_path: Path) -> None:
    """Names from foreign traces (markup, a 2,000-character name, control characters) stay text:
    no element, dialog, request or console message of theirs, and the page keeps its width (a long
    name without a space widened the page to 15,000 pixels)."""
    hostile = (
        'openai-compatible:<script>alert(1)</script>"><img src=x onerror=alert(2)></style>'
        "|`t`|\r\nrow \u202eRTL\x00\x1b[31m"
    )
    records = fixtures.records(model=hostile) + fixtures.records(model="openai:" + "x" * 2000)
    with report_page(records, tmp_path, resamples=20) as (page, html):
        seen: list[str] = []
        page.on("console", lambda m: seen.append(f"console {m.type}: {m.text}"))
        page.on("pageerror", lambda e: seen.append(f"error: {e}"))
        page.on("dialog", lambda d: (seen.append(f"dialog: {d.message}"), d.dismiss()))
        page.on("request", lambda r: None if r.url == html.as_uri() else seen.append(f"request {r.url}"))
        page.goto(html.as_uri())
        assert page.locator("script").count() == 0 and page.locator("style").count() == 1
        assert page.locator("img").count() == 4  # the plots, none of a name
        assert page.evaluate("document.documentElement.scrollWidth") <= 1280
        assert seen == []
