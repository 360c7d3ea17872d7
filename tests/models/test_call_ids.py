"""Tool-call ids that a server repeats or leaves out (regression: the replayed provider state
sent the server's own ids while the results carried the agent's, so they did not match).

Each provider makes the ids of one answer distinct when parsing it and writes the same ids
into the state it replays; the next request's calls and results must then pair up one to one.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from tests.models.episodes import KEY, KEY_ENV, ROUTES, delegation_script, run_episode
from tests.models.fake_llm import FakeLLM, Reply, Script, Seen

IDS = {"repeated": ("call_dup", "call_dup"), "missing": (None, None)}


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, KEY)


def with_ids(script: Script, ids: tuple[str | None, ...]) -> Script:
    """`script`, with the main agent's first two calls (its wave) given `ids`."""

    def scripted(seen: Seen) -> Reply:
        reply = script(seen)
        return dataclasses.replace(reply, call_ids=ids) if seen.is_main and seen.turn == 0 else reply

    return scripted


def calls_and_results(dialect: str, body: dict[str, Any]) -> tuple[list[str], list[str], list[str]]:
    """(ids of the replayed calls, ids the results answer, types of the replayed parts)."""
    if dialect == "anthropic":
        turn, results = body["messages"][1]["content"], body["messages"][2]["content"]
        calls = [b["id"] for b in turn if b["type"] == "tool_use"]
        return (
            calls,
            [b["tool_use_id"] for b in results if b["type"] == "tool_result"],
            [b["type"] for b in turn],
        )
    items = body["input"]
    calls = [i["call_id"] for i in items if i["type"] == "function_call"]
    answered = [i["call_id"] for i in items if i["type"] == "function_call_output"]
    return calls, answered, [i["type"] for i in items]


@pytest.mark.parametrize("name", ["anthropic", "openai-responses"])
@pytest.mark.parametrize("case", list(IDS))
async def test_repeated_or_missing_call_ids_are_made_distinct_in_the_replayed_turn(
    name: str, case: str, tmp_path: Path
) -> None:
    route = ROUTES[name]
    with FakeLLM(route.dialect, with_ids(delegation_script(route.subagent_type), IDS[case])) as fake:
        record, _ = await run_episode(fake, route, tmp_path)
    assert record.termination == "claim_done", record.reason
    calls, answered, parts = calls_and_results(route.dialect, fake.seen(main=True)[1].body)
    # the turn was replayed from the provider state (with its reasoning), not rebuilt
    assert ("thinking" if route.dialect == "anthropic" else "reasoning") in parts
    assert len(set(calls)) == 2 and calls == answered and all(calls)
    if case == "repeated":
        assert calls[0] == "call_dup" and calls[1].startswith("call_dup-")
