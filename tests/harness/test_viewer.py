"""`mseval view` serves the store's episodes on 127.0.0.1, with a bar per sub-agent."""

from __future__ import annotations

import asyncio
import http.client
import importlib.util
import re
import urllib.request
from pathlib import Path

import pytest

from contracts.episode import EpisodeRecord
from harness.catalog import load_tasks
from harness.models.pricing import load_prices
from harness.profiles import load_profiles
from harness.runner import Runner, RunPlan
from harness.store import Store, episode_key
from harness.viewer import episode_page, index_page, serving, timeline_svg


def test_viewer_lists_episodes_and_draws_the_waves(tmp_path: Path) -> None:
    store = f"sqlite:///{tmp_path / 's.db'}"
    plan = RunPlan(settings_matrix=[("sim:oracle", "spec")], tasks=load_tasks("lms-enrollment-overview"), profiles=load_profiles(),
                   prices=load_prices(), store_url=store, runs_dir=tmp_path)  # fmt: skip
    (record,) = asyncio.run(Runner(plan).run()).records
    with serving(store) as server:
        base = f"http://127.0.0.1:{server.server_address[1]}"
        index = urllib.request.urlopen(f"{base}/").read().decode()
        assert "lms-enrollment-overview" in index and record.episode_id in index
        page = urllib.request.urlopen(f"{base}/episode/{record.episode_id}").read().decode()
        assert len(re.findall(r"<rect class='subagent'", page)) == len(record.subagents) == 4
        assert "simulated agent" in page and "wave_start" in page
        try:
            urllib.request.urlopen(f"{base}/episode/nope")
            raise AssertionError("expected 404")
        except urllib.error.HTTPError as exc:
            assert exc.code == 404


def _record(episode_id: str = "e1", status: str = "completed", sub_type: str = "coder") -> EpisodeRecord:
    waves = [] if status == "absent" else [
        {"index": 0, "main_step": 1, "subagents": [
            {"id": "a1", "type": sub_type, "description": "d", "mode": "read-only", "steps": 2, "tools": ["t"]}
        ]}
    ]  # fmt: skip
    return EpisodeRecord.model_validate({
        "task_id": "t", "model": "openai:m", "variant": "spec", "status": status,
        "success": True if status == "completed" else None, "waves": waves,
        "critical_steps": 3 if status == "completed" else None, "episode_id": episode_id, "run_id": "r1",
    })  # fmt: skip


def _stored(tmp_path: Path, *records: EpisodeRecord) -> str:
    url = f"sqlite:///{tmp_path / 'v.db'}"
    store = Store(url)
    store.create_run("r1", "m", {})
    for r in records:
        key = episode_key("r1", r.task_id, r.model, r.variant, r.seed)
        store.finish_episode(key, store.start_episode(key, "r1", r.task_id, r.model, r.variant, r.seed), r)
    store.close()
    return url


def _get(port: int, path: str, host: str | None = None, method: str = "GET") -> http.client.HTTPResponse:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.putrequest(method, path, skip_host=True)
    conn.putheader("Host", host if host is not None else f"127.0.0.1:{port}")
    conn.endheaders()
    response = conn.getresponse()
    response.read()
    conn.close()
    return response


def test_the_timeline_truncates_a_sub_agent_type_before_escaping_it() -> None:
    """`_e(s.type)[:22]` cut an entity in two: `&lt;script&gt;alert(&q`."""
    svg = timeline_svg(_record(sub_type='<script>alert("x")</script>'))
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/" in svg
    assert re.search(r"&[a-z]*</text>", svg) is None


def test_links_are_url_quoted_and_an_absent_episode_shows_a_dash() -> None:
    index = index_page([_record("run/1?x#y", status="absent")]).decode()
    assert "href='/episode/run%2F1%3Fx%23y'" in index
    assert "None" not in index
    page = episode_page(_record(status="absent"), []).decode()
    assert "critical steps —" in page and "None" not in page


def test_a_quoted_episode_id_is_found(tmp_path: Path) -> None:
    with serving(_stored(tmp_path, _record("run/1?x#y"))) as server:
        port = server.server_address[1]
        assert _get(port, "/episode/run%2F1%3Fx%23y").status == 200
        assert _get(port, "/?sort=task").status == 200


@pytest.mark.parametrize(
    "host", ["evil.example:{port}", "127.0.0.1:1", "localhost", "", "127.0.0.1.evil.example:{port}"]
)
def test_a_request_for_another_host_is_refused(tmp_path: Path, host: str) -> None:
    """DNS rebinding: a page of evil.example rebound to 127.0.0.1 sends its own Host."""
    with serving(_stored(tmp_path, _record())) as server:
        port = server.server_address[1]
        assert _get(port, "/", host.format(port=port)).status == 403
        assert _get(port, "/episode/e1", host.format(port=port)).status == 403
        assert _get(port, "/", f"LOCALHOST:{port}").status == 200


def test_pages_carry_a_content_security_policy_and_nosniff(tmp_path: Path) -> None:
    with serving(_stored(tmp_path, _record())) as server:
        port = server.server_address[1]
        for path, method in (("/", "GET"), ("/episode/e1", "GET"), ("/nope", "GET"), ("/", "HEAD")):
            response = _get(port, path, method=method)
            policy = response.getheader("Content-Security-Policy") or ""
            assert "default-src 'none'" in policy and "style-src 'unsafe-inline'" in policy, (path, policy)
            assert "script-src" not in policy  # the pages use no script
            assert response.getheader("X-Content-Type-Options") == "nosniff"


def test_the_store_is_parsed_again_only_when_an_episode_has_finished(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every page parsed every record of the store again (about 0.5 s a page on a large store)."""
    parsed: list[int] = []
    records = Store.records

    def counted(self: Store, run_id: str | None = None) -> list[EpisodeRecord]:
        parsed.append(1)
        return records(self, run_id)

    monkeypatch.setattr(Store, "records", counted)
    url = _stored(tmp_path, _record("e1"))
    with serving(url) as server:
        port = server.server_address[1]
        for path in ("/", "/episode/e1", "/", "/episode/e1"):
            assert _get(port, path).status == 200
        assert len(parsed) == 1
        store = Store(url)  # another episode finishes meanwhile
        second = _record("e2").model_copy(update={"task_id": "t2"})
        key = episode_key("r1", "t2", second.model, second.variant, second.seed)
        store.finish_episode(
            key, store.start_episode(key, "r1", "t2", second.model, second.variant, 0), second
        )
        store.close()
        assert _get(port, "/episode/e2").status == 200
        assert len(parsed) == 2


def test_an_episode_of_many_events_is_shown_a_page_at_a_time(tmp_path: Path) -> None:
    """An episode of 200k events was one 80 MB page; 2,500 events make three pages of 1,000."""
    url = _stored(tmp_path, _record("e1"))
    store = Store(url)
    key = episode_key("r1", "t", "openai:m", "spec", 0)
    store.write_events([
        {"episode_key": key, "attempt": 1, "seq": n, "t": n / 1000, "kind": "tool_call", "agent": "main",
         "data": {"marker": f"event-{n}-end"}}
        for n in range(2500)
    ])  # fmt: skip
    store.close()

    def page(query: str) -> tuple[int, str]:
        try:
            with urllib.request.urlopen(f"{base}/episode/e1{query}") as response:
                return response.status, response.read().decode()
        except urllib.error.HTTPError as exc:
            return exc.code, ""

    with serving(url) as server:
        base = f"http://127.0.0.1:{server.server_address[1]}"
        code, first = page("")
        assert code == 200 and "events 1–1,000 of 2,500 (page 1 of 3)" in first
        assert "event-0-end" in first and "event-999-end" in first and "event-1000-end" not in first
        assert "href='/episode/e1?page=2'>next" in first and "previous" not in first
        code, last = page("?page=3")
        assert code == 200 and "events 2,001–2,500 of 2,500 (page 3 of 3)" in last
        assert "event-1999-end" not in last and "event-2000-end" in last and "event-2499-end" in last
        assert "href='/episode/e1?page=2'>previous" in last and "next" not in last
        for query in ("?page=4", "?page=0", "?page=x", "?page=1&page=2", "?page=%C2%B2"):
            assert page(query)[0] == 404, query


def test_the_store_counts_the_older_runs_episodes_it_leaves_out(tmp_path: Path) -> None:
    """Export wrote the newest run's episode of each (task, model, variant, seed) and said
    nothing of the older ones it left out (72 of 78 written, no word of the other 6)."""
    url = f"sqlite:///{tmp_path / 'v.db'}"
    store = Store(url)
    for run_id in ("r1", "r2"):  # r2 made after r1
        store.create_run(run_id, "m", {})
        r = _record(f"e-{run_id}").model_copy(update={"run_id": run_id})
        key = episode_key(run_id, r.task_id, r.model, r.variant, r.seed)
        store.finish_episode(key, store.start_episode(key, run_id, r.task_id, r.model, r.variant, r.seed), r)
    assert [r.episode_id for r in store.records()] == ["e-r2"] and store.superseded == 1
    store.close()


def test_foreign_text_is_shown_with_its_control_characters_visible(tmp_path: Path) -> None:
    """A lone surrogate in a stored reason (JSON keeps `\\ud800`) made the page unencodable: the
    connection closed with no answer and a traceback on the terminal. NUL, ESC and U+202E (which
    drew the rest of a line right to left) reached the page as they were."""
    hostile = "r\ud800 \u202eRTL\x00\x1b[31m"
    record = _record("e1").model_copy(update={"reason": hostile, "task_id": "t"})
    record.waves[0].subagents[0].description = hostile
    with serving(_stored(tmp_path, record)) as server:
        port = server.server_address[1]
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        conn.request("GET", "/episode/e1")
        response = conn.getresponse()
        body = response.read().decode()
        conn.close()
    assert response.status == 200
    assert body.count("r\\ud800 \\u202eRTL\\x00\\x1b[31m") == 2  # the reason and the bar's title
    assert not any(c in body for c in "\u202e\x00\x1b")


def test_a_store_that_cannot_be_read_is_answered_with_503(tmp_path: Path) -> None:
    """A store file replaced by another file while the viewer ran: each request ended with no
    answer (curl: empty reply) and a traceback on the viewer's terminal."""
    url = _stored(tmp_path, _record())
    with serving(url) as server:
        port = server.server_address[1]
        (tmp_path / "other").write_bytes(b"not a database" * 100)
        (tmp_path / "other").replace(tmp_path / "v.db")
        for path in ("/", "/episode/e1"):
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            conn.request("GET", path)
            response = conn.getresponse()
            body = response.read().decode()
            conn.close()
            assert response.status == 503, path
            assert "could not read its episodes: file is not a database" in body


def _answer(port: int, path: str) -> tuple[int, str]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request("GET", path)
    response = conn.getresponse()
    body = response.read().decode()
    conn.close()
    return response.status, body


def test_a_store_deleted_or_replaced_while_the_viewer_runs_is_noticed(tmp_path: Path) -> None:
    """A pooled connection kept reading a store file deleted or replaced after the first page:
    the old episodes were shown, the new store's never; a deleted file is not made again."""
    url = _stored(tmp_path, _record("e1"))
    with serving(url) as server:
        port = server.server_address[1]
        assert _answer(port, "/episode/e1")[0] == 200
        other = tmp_path / "other"
        other.mkdir()
        (other / "v.db").write_bytes(
            Path(_stored(other, _record("e2")).removeprefix("sqlite:///")).read_bytes()
        )
        (other / "v.db").replace(tmp_path / "v.db")
        assert _answer(port, "/episode/e2")[0] == 200
        assert _answer(port, "/episode/e1")[0] == 404
        (tmp_path / "v.db").unlink()
        code, body = _answer(port, "/")
        assert code == 503 and "no longer exists" in body
        assert not (tmp_path / "v.db").exists()


def test_the_viewer_makes_no_tables_and_says_when_there_are_no_episodes(tmp_path: Path) -> None:
    """Opening the store made any table it lacked (a write by a command that only reads)."""
    import sqlite3

    url = _stored(tmp_path)
    with sqlite3.connect(tmp_path / "v.db") as db:
        db.execute("DROP TABLE mseval_claim")
    with serving(url) as server:
        code, body = _answer(server.server_address[1], "/")
    assert code == 200 and "No finished episodes in this store yet." in body
    with sqlite3.connect(tmp_path / "v.db") as db:
        tables = {name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert "mseval_claim" not in tables and "mseval_episode" in tables


def test_a_page_of_huge_events_reads_only_their_beginnings(tmp_path: Path) -> None:
    """Every event of a page was read whole to show 300 characters of it: a page of 1,000
    events of 1 MB each took 2 GB and 10 s. Here 8 events of 2 MB: what the page allocates."""
    import tracemalloc

    url = _stored(tmp_path, _record("e1"))
    store = Store(url)
    key = episode_key("r1", "t", "openai:m", "spec", 0)
    store.write_events([
        {"episode_key": key, "attempt": 1, "seq": n, "t": n, "kind": "tool_result", "agent": "main",
         "data": {"text": f"start-{n}-" + "y" * 2_000_000}}
        for n in range(8)
    ] + [{"episode_key": key, "attempt": 1, "seq": 8, "t": 8, "kind": "tool_result", "agent": "main",
          "data": {"text": "café\n\x1b", "n": None}}])  # fmt: skip
    store.close()
    with serving(url) as server:
        port = server.server_address[1]
        assert _answer(port, "/")[0] == 200
        tracemalloc.start()
        try:
            code, body = _answer(port, "/episode/e1")
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    assert code == 200 and peak < 4_000_000, peak  # one event alone was 2 MB
    assert all(f"{{&quot;text&quot;: &quot;start-{n}-yyy" in body for n in range(8))
    assert "{&quot;text&quot;: &quot;café\\n\\u001b&quot;, &quot;n&quot;: null}" in body  # JSON, made whole


def test_a_client_that_goes_away_leaves_no_traceback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    """A browser tab closed during a page printed a BrokenPipeError (or ConnectionResetError)
    traceback on the viewer's terminal; the server then answers the next request as before."""
    import socket
    import struct
    import threading
    from http.server import ThreadingHTTPServer

    done = threading.Event()
    shutdown_request = ThreadingHTTPServer.shutdown_request

    def finished(self: ThreadingHTTPServer, request: socket.socket) -> None:
        shutdown_request(self, request)
        done.set()  # after the request's handling, its error included

    monkeypatch.setattr(ThreadingHTTPServer, "shutdown_request", finished)
    url = _stored(tmp_path, _record("e1"))
    store = Store(url)
    key = episode_key("r1", "t", "openai:m", "spec", 0)
    store.write_events([
        {"episode_key": key, "attempt": 1, "seq": n, "t": n, "kind": "tool_call", "agent": "main", "data": {"n": n}}
        for n in range(1000)
    ])  # fmt: skip
    store.close()
    with serving(url) as server:
        port = server.server_address[1]
        client = socket.create_connection(("127.0.0.1", port))
        client.sendall(f"GET /episode/e1 HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
        client.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        client.close()  # a reset, before the page is read
        assert done.wait(30)
        assert _answer(port, "/episode/e1")[0] == 200
    err = capfd.readouterr().err
    assert "Traceback" not in err and "Error" not in err, err


CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]  # fmt: skip


@pytest.mark.browser
@pytest.mark.skipif(
    not CHROMIUM.exists(), reason="Debian chromium is not installed (apt-get install chromium)"
)
@pytest.mark.skipif(
    importlib.util.find_spec("playwright") is None, reason="the playwright package is not installed"
)
def test_hostile_text_stays_text_within_the_page_in_chromium(tmp_path: Path) -> None:
    """Markup, control characters and a 5,000-character task id and reason from an episode: no
    element, dialog, request or console message of theirs, and the page keeps its width (the long
    id made the index 830,000 pixels wide at 100,000 characters, 28,162 at 5,000)."""
    from playwright.sync_api import Dialog, sync_playwright

    hostile = (
        '<script>alert(1)</script>"><img src=x onerror=alert(2)></textarea></style>'
        "<svg onload=alert(3)> javascript:alert(4) \u202eRTL\x00\x1b[31m"
    )
    record = _record("e1").model_copy(
        update={"task_id": "t" * 5000, "reason": hostile + "r" * 5000, "model": "openai:" + hostile}
    )
    record.waves[0].subagents[0].description = hostile
    with serving(_stored(tmp_path, record)) as server, sync_playwright() as p:
        base = f"http://127.0.0.1:{server.server_address[1]}"
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 800})
            seen: list[str] = []
            page.on("console", lambda m: seen.append(f"console {m.type}: {m.text}"))
            page.on("pageerror", lambda e: seen.append(f"error: {e}"))

            def dialog(d: Dialog) -> None:
                seen.append(f"dialog: {d.message}")
                d.dismiss()

            page.on("dialog", dialog)
            page.on("request", lambda r: seen.extend([] if r.url.startswith(base + "/") else [r.url]))
            for path in ("/", "/episode/e1"):
                page.goto(base + path)
                assert page.locator("script, img, textarea, svg svg, body style").count() == 0, path
                assert page.evaluate("document.documentElement.scrollWidth") <= 1280, path
            assert "<script>alert(1)</script>" in page.locator("p.bad").inner_text()
            assert seen == []
        finally:
            browser.close()


def test_a_connection_that_sends_nothing_is_let_go(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A client that connected and never sent a request held its server thread for good; the
    socket now times out, the server closes the connection, and it answers the next client."""
    import socket

    from harness import viewer

    monkeypatch.setattr(viewer, "IDLE_TIMEOUT_S", 0.2)
    with serving(_stored(tmp_path, _record())) as server:
        port = server.server_address[1]
        with socket.create_connection(("127.0.0.1", port)) as idle:
            idle.settimeout(120)  # only a guard against a hang: the server closes it long before
            assert idle.recv(1024) == b""  # closed by the server, nothing sent
        assert _get(port, "/", f"127.0.0.1:{port}").status == 200
