"""The way to a model server: proxies, endpoints that cannot be reached, keys a server quotes.

Everything runs on 127.0.0.1: the fake model server, and a "proxy" that only records who
connects to it (and hangs up), so nothing here leaves the machine.
"""

from __future__ import annotations

import socket
import threading
from pathlib import Path
from types import TracebackType
from typing import Literal

import pytest

from harness.budgets import Budgets
from harness.models.base import ModelAPIError, ModelSettings, UserMessage
from harness.models.provider_common import direct_client, hide_key, loopback_host
from harness.runner import Runner
from tests.models.episodes import (
    KEY,
    KEY_ENV,
    ROUTES,
    delegation_script,
    one_call,
    plan_for,
    run_episode,
)
from tests.models.fake_llm import FakeLLM, Fault, Reply, Seen

PROXY_VARIABLES = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy")


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, KEY)


class RecordingProxy:
    """A listener on 127.0.0.1 that keeps the first bytes of every connection and hangs up."""

    POLL_S = 0.05  # how often the listener looks whether it should stop (not a timing assumption)

    def __init__(self) -> None:
        self.seen: list[bytes] = []
        self._stop = threading.Event()
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._sock.bind(("127.0.0.1", 0))
        self._sock.listen(8)
        self._sock.settimeout(self.POLL_S)
        self.url = f"http://127.0.0.1:{self._sock.getsockname()[1]}"
        self._thread = threading.Thread(target=self._serve, daemon=True)

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._sock.accept()
            except TimeoutError:
                continue
            with conn:
                conn.settimeout(5.0)  # a bound on a client that sends nothing
                try:
                    self.seen.append(conn.recv(300))
                except TimeoutError:
                    self.seen.append(b"")

    def __enter__(self) -> RecordingProxy:
        self._thread.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._stop.set()
        self._thread.join()
        self._sock.close()


def _via(monkeypatch: pytest.MonkeyPatch, proxy: RecordingProxy) -> None:
    for name in PROXY_VARIABLES:
        monkeypatch.setenv(name, proxy.url)
    for name in ("NO_PROXY", "no_proxy"):
        monkeypatch.delenv(name, raising=False)


def _hello(seen: Seen) -> Reply:
    return Reply(text="hello")


@pytest.mark.parametrize("name", list(ROUTES))
async def test_a_proxy_in_the_environment_does_not_carry_calls_to_a_local_server(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With HTTP_PROXY set (as on many cluster and corporate machines) and no NO_PROXY, calls
    to a model server on 127.0.0.1 went to the proxy, the API key in their headers; this one
    hangs up, so every call failed as "Connection error." and the episode ended absent."""
    route = ROUTES[name]
    with RecordingProxy() as proxy, FakeLLM(route.dialect, _hello) as fake:
        _via(monkeypatch, proxy)
        response = await one_call(fake, route)
    assert response.message.content == "hello" and len(fake.requests) == 1
    assert proxy.seen == []


async def test_localhost_is_reached_directly_too(monkeypatch: pytest.MonkeyPatch) -> None:
    from harness.models.openai_provider import make_compatible

    with RecordingProxy() as proxy, FakeLLM("chat", _hello) as fake:
        _via(monkeypatch, proxy)
        model = make_compatible("fake-qwen", ModelSettings(), f"http://localhost:{fake.port}/v1", None)
        try:
            response = await model.generate([UserMessage(content="go")], [], ModelSettings())
        finally:
            await model.aclose()
    assert response.message.content == "hello" and proxy.seen == []


def test_only_this_machine_bypasses_a_proxy() -> None:
    import openai

    for url in (
        "http://127.0.0.1:8000/v1",
        "http://127.1.2.3/v1",
        "http://[::1]:8000/v1",
        "http://localhost",
    ):
        assert loopback_host(url) is not None, url
    for url in ("https://api.openai.com/v1", "http://10.0.0.5:8000/v1", "http://my-gpu-box:8000/v1", None):
        assert loopback_host(url) is None, url
        assert direct_client(openai, url) is None  # the SDK's own client, proxies honoured


@pytest.mark.parametrize("name", ["anthropic", "openai", "openai-compatible"])
async def test_a_key_the_server_quotes_in_its_error_is_never_recorded(name: str, tmp_path: Path) -> None:
    """A server that quotes the key it refused ("Incorrect API key provided: sk-…") put the key
    into the `model_retry` events, the episode's reason and so its export."""
    route = ROUTES[name]
    quoting = f"Incorrect API key provided: {KEY}."
    with FakeLLM(route.dialect, delegation_script(route.subagent_type)) as fake:
        fake.fail_next(
            Fault(503, {"retry-after-ms": "1"}, f"upstream refused {KEY}"),
            Fault(401, message=quoting, code="invalid_api_key"),
        )
        record, events = await run_episode(fake, route, tmp_path)
    assert (record.status, record.termination) == ("absent", "api_error")
    assert record.reason is not None and "Incorrect API key provided: [API key]." in record.reason
    (retry,) = [e for e in events if e.kind == "model_retry"]
    assert retry.data["error"].startswith("HTTP 503: upstream refused [API key]")
    stored = _store_bytes(tmp_path)
    assert stored and KEY.encode() not in stored


def _store_bytes(folder: Path) -> bytes:
    """The store's files (the database and any journal beside it), as bytes."""
    return b"".join(p.read_bytes() for p in sorted(folder.glob("m.db*")))


def test_a_short_key_is_hidden_only_where_it_stands_alone() -> None:
    error = hide_key(ModelAPIError("authentication", "HTTP 401: key 'k1x' refused; k1xy is not it"), "k1x")
    assert error.message == "HTTP 401: key '[API key]' refused; k1xy is not it"
    assert str(error) == f"authentication: {error.message}"


async def test_an_unreachable_endpoint_says_why(tmp_path: Path) -> None:
    """A refused connection, a TLS failure and a name that does not resolve were all recorded
    as "cannot reach …: Connection error.", which left the user to guess which."""
    from harness.models.openai_provider import make_compatible

    route = ROUTES["openai"]
    with FakeLLM(route.dialect, _hello) as fake:
        # TLS to a server that speaks plain HTTP (a self-hosted server's certificate fails alike)
        tls = f"https://127.0.0.1:{fake.port}/v1"
        model = make_compatible("fake-qwen", ModelSettings(), tls, None)
        try:
            with pytest.raises(ModelAPIError) as caught:
                await model.generate([UserMessage(content="go")], [], ModelSettings())
        finally:
            await model.aclose()
        plan = plan_for(fake, route, tmp_path, budgets=Budgets(api_retries=0))
    assert caught.value.kind == "connection"
    assert "cannot reach openai-compatible:fake-qwen: Connection error. (SSLError: " in str(caught.value)
    # the fake server has stopped: its port now refuses connections
    (record,) = (await Runner(plan).run()).records
    assert record.status == "absent" and record.reason is not None
    assert "Connection error. (ConnectionRefusedError: " in record.reason, record.reason


@pytest.mark.parametrize(
    ("provider", "dialect", "path", "hint"),
    [
        ("anthropic", "anthropic", "/v1", "check --base-url, to which the SDK appends /v1/messages"),
        ("openai", "chat", "", "check --base-url, which usually ends in /v1"),
    ],
)
async def test_a_404_at_a_given_base_url_says_how_the_sdk_builds_the_path(
    provider: str, dialect: Literal["anthropic", "chat"], path: str, hint: str
) -> None:
    """`--base-url https://gateway/v1` for Anthropic (the SDK appends /v1/messages: a request to
    /v1/v1/messages), or a gateway for `openai:` without its /v1, ended every episode absent on a
    bare "HTTP 404: Not Found"; only openai-compatible models were told to check --base-url."""
    from harness.models.anthropic_provider import make as make_anthropic
    from harness.models.openai_provider import make as make_openai

    make = make_anthropic if provider == "anthropic" else make_openai
    with FakeLLM(dialect, _hello) as fake:
        model = make("fake", ModelSettings(), f"http://127.0.0.1:{fake.port}{path}", KEY_ENV)
        try:
            with pytest.raises(ModelAPIError) as caught:
                await model.generate([UserMessage(content="go")], [], ModelSettings())
        finally:
            await model.aclose()
    assert caught.value.status == 404 and hint in caught.value.message, caught.value.message
