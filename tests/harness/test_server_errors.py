"""A live server that answers a tool call with a JSON-RPC error instead of a result.

An error that puts the fault on the call (invalid parameters, an unknown method) is a malformed
tool call: the model gets it as a tool error and the server keeps serving (SPEC §12). Any other
error is the server failing: restarted once, and a second failure ends the episode.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from mcp.shared.exceptions import MCPError
from mcp.types import INTERNAL_ERROR, INVALID_PARAMS, METHOD_NOT_FOUND

from harness.events import EventLog
from harness.mcp_client import ServerFailure, ServerPool
from harness.models.base import AssistantMessage
from harness.models.scripted import call, say
from harness.world import EpisodeWorld
from mcp_servers.common import registry
from mcp_servers.common.spec import ServerContext, ServerSpec
from tests.harness.support import View, a_world, run_scripted


@pytest.fixture
def refusing(monkeypatch: pytest.MonkeyPatch) -> None:
    """The `local` server gains `refuse(code, message)`, which answers with that JSON-RPC error."""
    spec_of = registry.spec

    def build(ctx: ServerContext):  # type: ignore[no-untyped-def]
        server = spec_of("local").build(ctx)

        @server.tool()
        def refuse(code: int, message: str) -> str:
            raise MCPError(code, message, data={"code": code})

        return server

    def spec(name: str) -> ServerSpec:
        return replace(spec_of(name), build=build) if name == "local" else spec_of(name)

    monkeypatch.setattr(registry, "spec", spec)


@pytest.fixture
def world(tmp_path: Path) -> Iterator[EpisodeWorld]:
    with a_world(tmp_path) as world:
        yield world


@pytest.mark.parametrize("code", [INVALID_PARAMS, METHOD_NOT_FOUND])
async def test_an_error_that_faults_the_call_is_a_tool_error_and_nothing_restarts(
    world: EpisodeWorld, refusing: None, code: int
) -> None:
    events = EventLog()
    async with ServerPool(["local"], world.access(), events=events) as pool:
        for _ in range(3):  # a model repeating its mistake: the old code ended the episode at the 2nd
            outcome = await pool.call("local", "refuse", {"code": code, "message": "n must be odd"})
            assert outcome.is_error
            assert outcome.text == (
                f'mcp__local__refuse refused the call: n must be odd ({{"code": {code}}}) [JSON-RPC error {code}]'
            )
        assert not (await pool.call("local", "todo_read", {})).is_error
        assert pool._conns["local"].starts == 1 and not events.of_kind("server_restart")


async def test_an_internal_error_is_the_server_failing(world: EpisodeWorld, refusing: None) -> None:
    events = EventLog()
    internal = {"code": INTERNAL_ERROR, "message": "database is gone"}
    async with ServerPool(["local"], world.access(), events=events) as pool:
        outcome = await pool.call("local", "refuse", internal)
        assert (
            outcome.is_error and outcome.text == "server local failed (MCPError) and was restarted; try again"
        )
        assert pool._conns["local"].starts == 2
        (restart,) = events.of_kind("server_restart")
        assert restart.data["cause"] == "MCPError: database is gone"
        with pytest.raises(ServerFailure, match="local failed again after a restart"):
            await pool.call("local", "refuse", internal)


async def test_the_model_sees_the_refusal_and_the_episode_goes_on(tmp_path: Path, refusing: None) -> None:
    """In a run: the refusal is the step's tool result, and the episode ends as the model chooses."""
    seen: list[str] = []

    def main(v: View) -> AssistantMessage:
        seen[:] = [m.content for m in v.messages if m.role == "tool"]
        if len(seen) < 2:
            return say("", call("mcp__local__refuse", code=INVALID_PARAMS, message="no such week"))
        return say("done")

    out = await run_scripted(tmp_path, main, variant="sa", task="lms-due-reminder")
    assert out.rt.termination == "text_only" and len(out.rt.main_turns) == 3
    assert all("refused the call: no such week" in s for s in seen) and len(seen) == 2
    assert not out.kinds("server_restart")
