"""Each model call has one overall deadline (`provider_common.request_timeout_s`), however the
server sends its answer. The deadline here is tiny and the server never finishes, so nothing
depends on how long anything takes."""

from __future__ import annotations

from pathlib import Path

import pytest

from harness.budgets import Budgets
from harness.models import provider_common
from harness.models.base import ModelSettings
from tests.models.episodes import KEY, KEY_ENV, ROUTES, delegation_script, run_episode
from tests.models.fake_llm import FakeLLM, Fault

TINY_S = 0.2


@pytest.mark.parametrize("name", ["anthropic", "openai", "openai-responses"])
async def test_a_server_that_trickles_bytes_is_cut_off_at_the_calls_deadline(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The SDKs' timeout bounds each read, not the call: a server that sent a byte every few
    milliseconds held a call past its 600 s, for as long as it kept sending. Running past the
    deadline is a timeout like the SDK's own: retried, and counted against the retry budget."""
    monkeypatch.setenv(KEY_ENV, KEY)
    monkeypatch.setattr(provider_common, "REQUEST_TIMEOUT_S", TINY_S)
    settings = ModelSettings(max_output_tokens=1)
    assert provider_common.request_timeout_s(settings.max_output_tokens) == TINY_S
    route = ROUTES[name]
    with FakeLLM(route.dialect, delegation_script(route.subagent_type)) as fake:
        fake.fail_next(Fault(200, trickle=True), Fault(200, trickle=True))
        record, events = await run_episode(fake, route, tmp_path, settings, Budgets(api_retries=1))
    assert len(fake.requests) == 2  # the first try and its one retry
    (retry,) = [e for e in events if e.kind == "model_retry"]
    assert (retry.data["error_kind"], retry.data["status"]) == ("timeout", None)
    assert retry.data["error"].startswith(f"no answer from {route.model} in time: ")
    (breach,) = [e for e in events if e.kind == "budget_breach"]
    assert breach.data["reason"] == "api_error" and breach.data["retries"] == 1
    assert record.termination == "api_error" and not [e for e in events if e.kind == "model_call"]
