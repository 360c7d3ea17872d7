"""Single answers as particular servers write them, read through the real SDKs (one call each)."""

from __future__ import annotations

import pytest

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
