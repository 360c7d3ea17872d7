"""End-to-end episodes through each provider: the real SDK, a real socket, the real runtime.

One wave of two sub-agents, then `claim_done`, against a FakeLLM speaking the provider's wire
format. Usage and cost are checked against hand-computed sums (tests/models/prices-test.yaml).

Calls (harness usage: input = total input, cached = cache reads, written = cache writes; only
Anthropic reports cache writes, the OpenAI wire formats have no such field):
  main 1: input 3000, cached 0,    written 2000, output 100 (reasoning 30)
  sub A:  input  800, cached 0,    written    0, output  50
  sub B:  input  900, cached 300,  written    0, output  70
  main 2: input 5800, cached 5000, written  300, output  40
  episode: input 10500, cached 5300, written 2300, output 260, reasoning 30;
  main: 8800 / 5000 / 2300 / 140.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from contracts.episode import Usage
from harness.models.base import ModelSettings
from tests.models.episodes import CLAIM_DONE, KEY, KEY_ENV, ROUTES, Route, delegation_script, run_episode
from tests.models.fake_llm import FakeLLM, Seen

EPISODE_USAGE = Usage(input_tokens=10500, cached_input_tokens=5300, output_tokens=260, reasoning_tokens=30)
MAIN_USAGE = Usage(input_tokens=8800, cached_input_tokens=5000, output_tokens=140, reasoning_tokens=30)
CACHE_WRITES = {"episode": 2300, "main": 2300}  # Anthropic only
CACHE_WRITES_1H = {"episode": 500, "main": 500}  # of those, to the 1-hour cache
SUB_USAGE = {
    "A": Usage(input_tokens=800, cached_input_tokens=0, output_tokens=50),
    "B": Usage(input_tokens=900, cached_input_tokens=300, output_tokens=70),
}
# cost = (input − cached − written)·p_in + cached·p_cached + (written − written_1h)·p_write
#        + written_1h·p_write_1h + output·p_out, per million tokens
COST_USD = {
    # anthropic:fake-* 3.0 / 0.3 / write 3.75 / write 1h 6.0 / 15.0, above 5000 input tokens
    # 6.0 / 0.6 / 7.5 (1-hour writes: 7.5 too, the tier has no 1-hour price) / 22.5:
    #   main 1: 1000·3 + 1500·3.75 + 500·6 + 100·15 = 13125;  sub A: 800·3 + 50·15 = 3150
    #   sub B: 600·3 + 300·0.3 + 70·15 = 2940
    #   main 2 (tier): 500·6 + 5000·0.6 + 300·7.5 + 40·22.5 = 9150
    #   28365 / 1e6
    "anthropic": 0.028365,
    # openai:fake-* 2.0 / 0.5 / 8.0:
    #   main 1: 3000·2 + 100·8 = 6800;  sub A: 800·2 + 50·8 = 2000
    #   sub B: 600·2 + 300·0.5 + 70·8 = 1910;  main 2: 800·2 + 5000·0.5 + 40·8 = 4420;  15130 / 1e6
    "openai": 0.01513,
    "openai-responses": 0.01513,
    # openai-compatible:fake-* CNY 7.0 / 0.7 / 14.0 at 7 CNY per USD:
    #   main 1: 3000·7 + 100·14 = 22400;  sub A: 800·7 + 50·14 = 6300
    #   sub B: 600·7 + 300·0.7 + 70·14 = 5390;  main 2: 800·7 + 5000·0.7 + 40·14 = 9660
    #   43750 / 1e6 / 7
    "openai-compatible": 0.00625,
}
SETTINGS = ModelSettings(temperature=0.0, max_output_tokens=2048, reasoning_effort="high")


def check_anthropic(main_2: Seen, subs: list[Seen]) -> None:
    body = main_2.body
    assert body["model"] == "fake-claude" and body["max_tokens"] == 2048
    assert "temperature" not in body  # the API version the SDK speaks rejects sampling parameters
    assert body["thinking"] == {"type": "adaptive"} and body["output_config"] == {"effort": "high"}
    assert "main agent" in body["system"]
    tools = {t["name"]: t for t in body["tools"]}
    assert set(tools["Agent"]) == {"name", "description", "input_schema"}
    assert tools["Agent"]["input_schema"]["type"] == "object" and CLAIM_DONE in tools
    user, assistant, results = body["messages"]
    assert user["role"] == "user" and assistant["role"] == "assistant" and results["role"] == "user"
    thinking, text, *uses = assistant["content"]
    assert thinking["type"] == "thinking" and thinking["signature"].startswith(
        "sig-"
    )  # sent back as received
    assert text == {"type": "text", "text": "Two independent look-ups: I start them together."}
    assert [u["type"] for u in uses] == ["tool_use", "tool_use"]
    # both results of the step in ONE user message, in call order, answering each tool_use id
    assert [b["type"] for b in results["content"]] == ["tool_result", "tool_result"]
    assert [b["tool_use_id"] for b in results["content"]] == [u["id"] for u in uses]
    assert all(b["is_error"] is False for b in results["content"])
    assert "Part A" in results["content"][0]["content"] and "Part B" in results["content"][1]["content"]
    for sub in subs:
        assert sub.body["messages"][0]["role"] == "user" and len(sub.body["messages"]) == 1


def check_chat(main_2: Seen, subs: list[Seen], compatible: bool) -> None:
    body = main_2.body
    assert body["temperature"] == 0.0
    assert body["max_tokens" if compatible else "max_completion_tokens"] == 2048
    assert body["reasoning_effort"] == "high"
    for tool in body["tools"]:
        assert tool["type"] == "function" and set(tool["function"]) == {"name", "description", "parameters"}
    roles = [m["role"] for m in body["messages"]]
    assert roles == ["system", "user", "assistant", "tool", "tool"]
    assistant, tool_a, tool_b = body["messages"][2:]
    calls = assistant["tool_calls"]
    assert [c["function"]["name"] for c in calls] == ["Agent", "Agent"]
    assert json.loads(calls[0]["function"]["arguments"])["prompt"].endswith("[part A]")
    assert assistant["reasoning_content"] == "plan: two look-ups in one wave"  # round-tripped
    assert [tool_a["tool_call_id"], tool_b["tool_call_id"]] == [c["id"] for c in calls]
    assert "Part A" in tool_a["content"] and "Part B" in tool_b["content"]
    for sub in subs:
        assert [m["role"] for m in sub.body["messages"]] == ["system", "user"]


def check_responses(main_2: Seen, subs: list[Seen]) -> None:
    body = main_2.body
    assert body["store"] is False and body["max_output_tokens"] == 2048 and body["temperature"] == 0.0
    assert body["reasoning"] == {"effort": "high"} and body["include"] == ["reasoning.encrypted_content"]
    assert "main agent" in body["instructions"]
    for tool in body["tools"]:
        assert tool["type"] == "function" and {"name", "description", "parameters"} <= set(tool)
    kinds = [i.get("type") for i in body["input"]]
    assert (
        kinds
        == ["message", "reasoning", "message", "function_call", "function_call"]
        + ["function_call_output"] * 2
    )
    reasoning, message, call_a, call_b, out_a, out_b = body["input"][1:]
    assert reasoning["encrypted_content"] == "plan: two look-ups in one wave"
    assert all("id" not in item for item in (reasoning, message, call_a, call_b))  # stateless replay
    assert [out_a["call_id"], out_b["call_id"]] == [call_a["call_id"], call_b["call_id"]]
    assert "Part A" in out_a["output"] and "Part B" in out_b["output"]
    for sub in subs:
        assert [i["role"] for i in sub.body["input"]] == ["user"]


@pytest.mark.parametrize("name", list(ROUTES))
async def test_wave_of_two_then_claim_done(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(KEY_ENV, KEY)
    route: Route = ROUTES[name]
    with FakeLLM(route.dialect, delegation_script(route.subagent_type)) as fake:
        record, events = await run_episode(fake, route, tmp_path, SETTINGS)

    assert record.status == "completed" and record.termination == "claim_done", record.reason
    assert record.main is not None and record.main.steps == 2 and record.critical_steps == 3
    (wave,) = record.waves
    assert [s.steps for s in wave.subagents] == [1, 1]
    # usage: recorded per sub-agent, for the main agent and for the episode
    by_part = {s.response[5]: s for s in wave.subagents}  # "Part A: …"
    assert by_part["A"].usage == SUB_USAGE["A"] and by_part["B"].usage == SUB_USAGE["B"]
    writes = name == "anthropic"
    for usage, of in ((record.main.usage, "main"), (record.usage, "episode")):
        assert usage == (MAIN_USAGE if of == "main" else EPISODE_USAGE).model_copy(
            update={
                "cache_write_input_tokens": CACHE_WRITES[of] if writes else 0,
                "cache_write_1h_input_tokens": CACHE_WRITES_1H[of] if writes else 0,
            }
        )
    assert record.cost_usd == pytest.approx(COST_USD[name], abs=1e-9)
    assert record.price_version == "test-prices-1"
    calls = [e for e in events if e.kind == "model_call"]
    assert len(calls) == 4 and all(e.data["latency_s"] > 0 for e in calls)
    assert sum(e.data["cost_usd"] for e in calls) == pytest.approx(COST_USD[name], abs=1e-9)

    # the wire: what the fake server received
    assert len(fake.requests) == 4
    mains, subs = fake.seen(main=True), fake.seen(main=False)
    assert [s.turn for s in mains] == [0, 1] and len(subs) == 2
    for seen in fake.requests:
        auth: Any = seen.headers.get("authorization") or seen.headers.get("x-api-key")
        assert KEY in auth
    for sub in subs:
        assert "Agent" not in sub.tools and CLAIM_DONE not in sub.tools
    if route.dialect == "anthropic":
        check_anthropic(mains[1], subs)
    elif route.dialect == "chat":
        check_chat(mains[1], subs, compatible=route.model.startswith("openai-compatible:"))
    else:
        check_responses(mains[1], subs)
