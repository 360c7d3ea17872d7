"""`mseval view`: an episode viewer in the browser, served on 127.0.0.1 only.

`/` lists the finished episodes of the store; `/episode/<id>` shows one: its outcome, the
check's criteria, a waves timeline (one bar per sub-agent, from its recorded start and end),
the main agent's turns and the event stream. Plain HTML and inline SVG rendered here; no
scripts, no external assets, which the Content-Security-Policy holds every page to. A request
whose Host is not this server's own (127.0.0.1:PORT or localhost:PORT) is refused, so a web
page whose name is rebound to 127.0.0.1 (DNS rebinding) cannot read the episodes.

Everything shown comes from agents and tools and is treated as hostile: it is escaped; its control
and bidirectional characters (and lone surrogates) are written out as `\\xNN` / `\\uNNNN`; a long
run without a space may wrap, and at most `EVENT_DATA_READ` characters of an event's data are read.
A store that cannot be read is answered with 503 and its reason; the server stays up.
"""

from __future__ import annotations

import contextlib
import html
import json
import sys
import threading
import traceback
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, cast
from urllib.parse import parse_qs, quote, unquote, urlsplit

from contracts.episode import EpisodeRecord
from contracts.errors import InputError
from contracts.printable import printable
from harness.store import EventText, Store, StoreError, episode_key

MAX_PORT = 65535
EVENTS_PER_PAGE = 1000
"""An episode's events are shown this many to a page (one of 200k events made an 80 MB page)."""
IDLE_TIMEOUT_S = 60.0
"""How long a connection may send nothing before it is closed (one that connected and never sent
a request held its server thread for good)."""
EVENT_DATA_SHOWN = 300
"""Characters of an event's data (its JSON) shown in its row."""
EVENT_DATA_READ = 4096
"""Characters of an event's data read from the store, whole below it, else cut (a page of 1,000
events of 1 MB each read all of them: 2 GB and 10 s for 390 KB of page)."""
# Inline <style> and inline SVG only: nothing is loaded, run, framed or submitted.
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; "
    "form-action 'none'; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}
STYLE = """body{font:14px system-ui,sans-serif;margin:2em;color:#222}table{border-collapse:collapse}
td,th{border:1px solid #ccc;padding:3px 8px;text-align:left}th{background:#f3f3f3}.ok{color:#070}.bad{color:#b00}
pre{white-space:pre-wrap;background:#f7f7f7;padding:6px}svg text{font:11px sans-serif}
h1,p,td,th{overflow-wrap:anywhere}"""
# A long run without a space may break anywhere (above): a 100,000-character task id made the
# index 830,000 pixels wide.


def _page(title: str, body: str) -> bytes:
    return f"<!doctype html><html><head><meta charset='utf-8'><title>{_e(title)}</title><style>{STYLE}</style></head><body>{body}</body></html>".encode()


def _e(value: Any) -> str:
    return html.escape(printable(str(value)))


def _n(value: Any) -> str:
    """A field of a record, "—" where it has none (an absent episode's critical steps)."""
    return "—" if value is None else str(value)


def episode_href(episode_id: str | None) -> str:
    """The link to an episode's page, its id URL-quoted (`/`, `?`, `#` would cut it) and escaped."""
    return _e("/episode/" + quote(str(episode_id), safe=""))


def timeline_svg(record: EpisodeRecord, width: int = 900) -> str:
    """One bar per sub-agent, grouped by wave; time from recorded start/end (steps when absent)."""
    subs = [(w.index, s) for w in record.waves for s in w.subagents]
    if not subs:
        return "<p>No sub-agents: the main agent worked alone.</p>"
    timed = all(s.started_s is not None and s.ended_s is not None for _, s in subs)
    if timed:
        t0 = min(s.started_s or 0.0 for _, s in subs)
        spans = [((s.started_s or 0.0) - t0, (s.ended_s or 0.0) - t0) for _, s in subs]
    else:  # lay waves end to end in steps
        offset, spans, current = 0.0, [], None
        for wave, s in subs:
            if wave != current:
                offset += (
                    max((x.steps for w2, x in subs if w2 == current), default=0) if current is not None else 0
                )
                current = wave
            spans.append((offset, offset + s.steps))
    end = max(b for _, b in spans) or 1.0
    scale, row = (width - 260) / end, 18
    parts = [f"<svg xmlns='http://www.w3.org/2000/svg' width='{width}' height='{row * len(subs) + 30}'>"]
    for i, ((wave, s), (a, b)) in enumerate(zip(subs, spans, strict=True)):
        y = i * row + 5
        colour = "#4a90d9" if s.mode == "writable" else "#e8a33d"
        parts.append(f"<text x='0' y='{y + 12}'>w{wave} {_e(s.id)} {_e(s.type[:22])}</text>")
        parts.append(
            f"<rect class='subagent' x='{200 + a * scale:.1f}' y='{y}' width='{max((b - a) * scale, 2):.1f}' height='{row - 4}' fill='{colour}'><title>{_e(s.description)} — {s.steps} steps, {_e(_n(s.termination))}</title></rect>"
        )
    unit = "s" if timed else "steps"
    parts.append(
        f"<text x='200' y='{row * len(subs) + 25}'>0</text><text x='{width - 60}' y='{row * len(subs) + 25}'>{end:.2f} {unit}</text></svg>"
    )
    return "".join(parts)


def events_pager(record: EpisodeRecord, page: int, total: int) -> str:
    """Where this page's events lie among the episode's, with links to the pages around it."""
    if total <= EVENTS_PER_PAGE:
        return ""
    last = -(-total // EVENTS_PER_PAGE)
    first = (page - 1) * EVENTS_PER_PAGE
    href = episode_href(record.episode_id)
    links = [
        f"<a href='{href}?page={n}'>{label}</a>"
        for n, label in ((1, "first"), (page - 1, "previous"), (page + 1, "next"), (last, "last"))
        if 1 <= n <= last and n != page
    ]
    shown = (
        f"events {first + 1:,}–{min(first + EVENTS_PER_PAGE, total):,} of {total:,} (page {page} of {last})"
    )
    return f"<p class='pager'>{shown} · {' · '.join(links)}</p>"


def _data_shown(stored: str) -> str:
    """An event's data as its row shows it: compact JSON with its characters unescaped (as
    stored when cut at `EVENT_DATA_READ` or not JSON), at most `EVENT_DATA_SHOWN` characters."""
    text = stored
    if len(stored) <= EVENT_DATA_READ:
        with contextlib.suppress(ValueError):
            text = json.dumps(json.loads(stored), ensure_ascii=False)
    return text if len(text) <= EVENT_DATA_SHOWN else text[:EVENT_DATA_SHOWN] + "…"


def episode_page(
    record: EpisodeRecord, events: list[EventText], page: int = 1, total: int | None = None
) -> bytes:
    """One episode; `events` are those of events page `page` (1-based) of `total` in all."""
    status = "ok" if record.success else "bad"
    checks = "".join(
        f"<tr><td class='{'ok' if c.passed else 'bad'}'>{'pass' if c.passed else 'FAIL'}</td><td>{_e(c.name)}</td><td>{_e(c.message)}</td></tr>"
        for c in record.checks or []
    )
    turns = "".join(
        f"<tr><td>{t.step}</td><td>{_e(', '.join(t.tools))}</td><td>{_e(t.text[:300])}</td></tr>"
        for t in record.main.turns or []
    )
    rows = "".join(
        f"<tr><td>{e.seq}</td><td>{e.t:.3f}</td><td>{_e(e.kind)}</td><td>{_e(e.agent)}</td><td>{_e(_data_shown(e.data))}</td></tr>"
        for e in events
    )
    sim = " (simulated agent)" if record.model.startswith("sim:") else ""
    cost = "—" if record.cost_usd is None else f"${record.cost_usd:.4f}"
    outcome = "success" if record.success else "absent" if record.status == "absent" else "failure"
    body = (
        f"<p><a href='/'>all episodes</a></p><h1>{_e(record.task_id)}</h1>"
        f"<p>{_e(record.model)}{sim} · {_e(record.variant)} · seed {record.seed} · "
        f"<span class='{status}'>{outcome}</span> · {_e(_n(record.termination))} · "
        f"critical steps {_n(record.critical_steps)} · cost {cost}</p>"
        + (f"<p class='bad'>{_e(record.reason)}</p>" if record.reason else "")
        + f"<h2>Waves</h2>{timeline_svg(record)}<h2>Check</h2><table>{checks}</table>"
        f"<h2>Main agent turns</h2><table><tr><th>step</th><th>tools</th><th>text</th></tr>{turns}</table>"
        f"<h2>Events</h2>{events_pager(record, page, len(events) if total is None else total)}<table><tr><th>#</th><th>t (s)</th><th>kind</th><th>agent</th><th>data</th></tr>{rows}</table>"
    )
    return _page(record.task_id, body)


def index_page(records: list[EpisodeRecord]) -> bytes:
    rows = "".join(
        f"<tr><td><a href='{episode_href(r.episode_id)}'>{_e(r.task_id)}</a></td><td>{_e(r.model)}</td><td>{_e(r.variant)}</td>"
        f"<td>{r.seed}</td><td class='{'ok' if r.success else 'bad'}'>{_n(r.success)}</td><td>{_e(_n(r.termination))}</td>"
        f"<td>{_n(r.critical_steps)}</td><td>{len(r.waves)}</td><td>{len(r.subagents)}</td></tr>"
        for r in sorted(records, key=lambda r: (r.model, r.variant, r.task_id, r.seed))
    )
    if not records:
        return _page("mseval episodes", "<h1>Episodes</h1><p>No finished episodes in this store yet.</p>")
    head = "<tr><th>task</th><th>model</th><th>variant</th><th>seed</th><th>success</th><th>termination</th><th>CSteps</th><th>waves</th><th>sub-agents</th></tr>"
    return _page("mseval episodes", f"<h1>Episodes</h1><table>{head}{rows}</table>")


def _page_number(query: str) -> int | None:
    """The events page a query asks for (1 when none); None when it is not a page number."""
    values = parse_qs(query).get("page", ["1"])
    text = values[-1]
    if len(values) != 1 or not (text.isascii() and text.isdigit()) or len(text) > 9 or int(text) < 1:
        return None
    return int(text)


def make_handler(store: Store) -> type[BaseHTTPRequestHandler]:
    cache: dict[str, Any] = {}
    lock = threading.Lock()
    # A SQLite file the viewer was started on: SQLite would make it again, empty, when deleted.
    watched = store.file if store.file is not None and store.file.is_file() else None

    def records() -> list[EpisodeRecord]:
        """The store's finished episodes, parsed again only when one has finished since (every
        page parsed the whole store, about 0.5 s on a large one)."""
        with lock:
            if watched is not None and not watched.exists():
                raise StoreError(f"the store {store.shown} no longer exists ({watched} was deleted or moved)")
            mark = store.finished_mark()
            if cache.get("mark") != mark:
                cache["records"], cache["mark"] = store.records(), mark
            found: list[EpisodeRecord] = cache["records"]
            return found

    class Handler(BaseHTTPRequestHandler):
        timeout = IDLE_TIMEOUT_S  # the socket's: a silent client is let go

        def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
            self._send(*self._answer())

        def do_HEAD(self) -> None:  # noqa: N802 - the stdlib's name
            self._send(*self._answer(), with_body=False)

        def _answer(self) -> tuple[int, bytes]:
            """The page, or why there is none: a request that failed ended with no answer at all."""
            try:
                return self._page()
            except StoreError as exc:
                return 503, _page("store unavailable", f"<p class='bad'>{_e(exc)}</p>")
            except Exception as exc:  # a fault of the viewer: answered, and shown on its terminal
                traceback.print_exc(file=sys.stderr)
                return 500, _page("viewer error", f"<p class='bad'>{_e(type(exc).__name__)}: {_e(exc)}</p>")

        def _page(self) -> tuple[int, bytes]:
            if not self._own_host():
                return 403, _page("forbidden", "<p>This viewer answers only to 127.0.0.1 and localhost.</p>")
            path = urlsplit(self.path).path
            if path in ("/", "/index.html"):
                return 200, index_page(records())
            if path.startswith("/episode/"):
                eid = unquote(path.removeprefix("/episode/"))
                found = next((r for r in records() if r.episode_id == eid), None)
                page = _page_number(urlsplit(self.path).query)
                if found is not None and page is not None:
                    key = episode_key(
                        found.run_id or "", found.task_id, found.model, found.variant, found.seed
                    )
                    total = store.event_count(key)
                    if page == 1 or (page - 1) * EVENTS_PER_PAGE < total:
                        first = (page - 1) * EVENTS_PER_PAGE
                        events = store.event_texts(key, first, EVENTS_PER_PAGE, EVENT_DATA_READ)
                        return 200, episode_page(found, events, page, total)
            return 404, _page("not found", "<p>No such page. <a href='/'>All episodes</a></p>")

        def _own_host(self) -> bool:
            """The Host a browser sends for this server itself; a rebound name sends its own."""
            port = cast(ThreadingHTTPServer, self.server).server_port
            names = ("127.0.0.1", "localhost")
            allowed = {f"{name}:{port}" for name in names} | (set(names) if port == 80 else set())
            return (self.headers.get("Host") or "").strip().lower() in allowed

        def _send(self, code: int, body: bytes, with_body: bool = True) -> None:
            self.send_response(code)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            for name, value in SECURITY_HEADERS.items():
                self.send_header(name, value)
            self.end_headers()
            if with_body:
                self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            return None

    return Handler


class _Server(ThreadingHTTPServer):
    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that went away mid-answer is no error of the viewer's (it printed a traceback)."""
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


@contextmanager
def serving(store_url: str, port: int = 0) -> Iterator[ThreadingHTTPServer]:
    """The viewer running in a background thread on 127.0.0.1 (port 0: any free port)."""
    if not 0 <= port <= MAX_PORT:
        raise InputError.one("--port", None, f"{port} is not a port number (0 to {MAX_PORT})")
    # a viewer makes no tables, and reads a SQLite file afresh for every request (a file replaced
    # while it runs is shown as it now is)
    store = Store(store_url, create=False, pooled=False)
    try:
        server = _Server(("127.0.0.1", port), make_handler(store))
    except OSError as exc:
        store.close()
        raise InputError.one(
            "--port", None, f"cannot listen on 127.0.0.1:{port}: {exc.strerror or exc}"
        ) from None
    thread = threading.Thread(target=server.serve_forever, name="mseval-view", daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        store.close()
