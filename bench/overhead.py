"""Harness CPU per agent step (SPEC §11: ≤ 1.5 ms; Inspect AI's react agent ~15 ms per turn here).

A single agent takes N steps against a zero-latency scripted model; each step makes one tool
call to a real in-process MCP server (`mcp__local__todo_read`). CPU time (process time) of the
whole episode is divided by the steps. Printed beside it: the CPU of the same MCP call made
directly with the SDK client (the part of a step that is the MCP SDK's, not the harness's),
and the step cost with that subtracted.
"""

from __future__ import annotations

import time

from _common import emit, mcp_sdk_call_ms, run, scripted_episode, sized

from harness.budgets import MAX_CONTEXT_TOKENS, Budgets
from harness.models.base import AssistantMessage
from harness.models.scripted import call, say

STEPS = sized(2000, 20)


def main() -> None:
    counter = {"n": 0}

    def reply(messages, tools) -> AssistantMessage:  # type: ignore[no-untyped-def]
        counter["n"] += 1
        if counter["n"] >= STEPS:
            return say("done", call("mcp__local__claim_done"))
        # Alternate arguments so the loop detector never fires.
        return say(
            "",
            call("mcp__local__todo_read") if counter["n"] % 2 else call("mcp__local__todo_write", items=[]),
        )

    run(
        scripted_episode(lambda m, t: say("", call("mcp__local__claim_done")))
    )  # warm: imports, template, schemas
    t0 = time.process_time()
    rt = run(
        scripted_episode(reply, budgets=Budgets(max_steps=STEPS + 10, context_tokens=MAX_CONTEXT_TOKENS))
    )
    cpu = time.process_time() - t0
    assert rt.termination == "claim_done" and rt.main.steps == STEPS, (rt.termination, rt.main.steps)
    per_step = cpu / STEPS * 1e3
    mcp = run(mcp_sdk_call_ms())
    emit("overhead_ms_per_step", per_step, "ms")
    emit("mcp_sdk_call_ms", mcp, "ms")
    emit("overhead_ms_per_step_excl_mcp_sdk", per_step - mcp, "ms")
    emit("steps", STEPS, "steps")


if __name__ == "__main__":
    main()
