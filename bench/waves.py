"""Wave parallelism (SPEC §11: ≥ 0.95 at k = 128; peak RSS ≤ 300 MB).

The main agent starts one wave of k sub-agents (one AgentSwarm call; k = 1 uses Agent) and,
when it returns, calls claim_done. Every model call takes 50 ms (a scripted model that sleeps);
each sub-agent takes 5 steps: 4 steps with one real in-process MCP tool call each
(`mcp__local__todo_read`), then its text answer. The ideal wave time is 5 × 50 ms = 250 ms (all
k sub-agents fully in parallel, zero harness cost); efficiency = ideal / measured, measured
from the recorded wave_start and wave_end events.
"""

from __future__ import annotations

from _common import emit, peak_rss_mb, run, scripted_episode

from harness.models.scripted import call, say

LATENCY_S = 0.05
SUB_STEPS = 5


def reply(messages, tools):  # type: ignore[no-untyped-def]
    is_main = any(t.name == "mcp__local__claim_done" for t in tools)
    turns = sum(1 for m in messages if m.role == "assistant")
    if is_main:
        if turns == 0:
            k = int(messages[-1].content.rsplit(" ", 1)[-1]) if messages[-1].content.startswith("K=") else 1
            return say("", *_wave(k))
        return say("", call("mcp__local__claim_done"))
    if turns < SUB_STEPS - 1:
        return say(
            "",
            call(
                "mcp__local__todo_read",
            )
            if turns % 2 == 0
            else call("mcp__local__todo_write", items=[]),
        )
    return say("done")


K = {"k": 1}


def _wave(k: int):  # type: ignore[no-untyped-def]
    if k == 1:
        return [call("Agent", description="one", prompt="item 0", subagent_type="enterprise-data-analyst")]
    return [call("AgentSwarm", description="wave", subagent_type="enterprise-data-analyst", prompt_template="item {{item}}",
                 items=[str(i) for i in range(k)])]  # fmt: skip


def measure(k: int) -> float:
    def r(messages, tools):  # type: ignore[no-untyped-def]
        if any(t.name == "mcp__local__claim_done" for t in tools) and not any(
            m.role == "assistant" for m in messages
        ):
            return say("", *_wave(k))
        return reply(messages, tools)

    rt = run(scripted_episode(r, variant="spec", latency_s=LATENCY_S))
    start = next(e.t for e in rt.events.events if e.kind == "wave_start")
    end = next(e.t for e in rt.events.events if e.kind == "wave_end")
    assert len(rt.waves[0].runs) == k and all(x.steps == SUB_STEPS for x in rt.waves[0].runs)
    return end - start


def main() -> None:
    measure(2)  # warm
    ideal = SUB_STEPS * LATENCY_S
    for k in (1, 8, 32, 128):
        actual = measure(k)
        emit(f"wave_seconds_k{k}", actual, "s")
        emit(f"wave_efficiency_k{k}", ideal / actual, "ratio")
    emit("peak_rss_mb", peak_rss_mb(), "MB")


if __name__ == "__main__":
    main()
