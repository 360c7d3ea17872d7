"""Single answers as particular servers write them, read through the real SDKs (one call each)."""

from __future__ import annotations

import pytest

from harness.models.base import ModelAPIError
from tests.models.episodes import KEY, KEY_ENV, ROUTES, one_call
from tests.models.fake_llm import FakeLLM, Reply, Script, Seen


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, KEY)


def answer(reply: Reply) -> Script:
    """A script that gives `reply` to every request."""

    def script(seen: Seen) -> Reply:
        return reply

    return script


async def test_chat_refusal_is_kept_as_the_answer_text() -> None:
    refusal = "I can't help with that."
    with FakeLLM("chat", answer(Reply(message_fields={"refusal": refusal}))) as fake:
        response = await one_call(fake, ROUTES["openai"])
    assert response.message.content == refusal and response.stop_reason == "stop"


@pytest.mark.parametrize(
    ("code", "kind"),
    [
        ("server_error", "server_error"),
        ("rate_limit_exceeded", "rate_limit"),
        ("invalid_prompt", "bad_request"),
        ("bio_policy", "bad_request"),
        ("misalignment_policy_violation", "bad_request"),
        ("invalid_image_url", "bad_request"),
        ("image_content_policy_violation", "bad_request"),
        ("context_length_exceeded", "context_overflow"),  # a compatible server's way to say it
    ],
)
async def test_failed_response_is_retried_only_for_server_and_rate_limit_errors(code: str, kind: str) -> None:
    failed = {"status": "failed", "error": {"code": code, "message": "it went wrong"}, "output": []}
    with FakeLLM("responses", answer(Reply(body_fields=failed))) as fake, pytest.raises(ModelAPIError) as exc:
        await one_call(fake, ROUTES["openai-responses"])
    assert exc.value.kind == kind and exc.value.retryable == (code in ("server_error", "rate_limit_exceeded"))
    assert exc.value.message == f"the response failed: it went wrong [{code}]"
