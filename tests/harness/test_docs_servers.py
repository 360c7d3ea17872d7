"""docs/authoring-servers.md stays true: its example server, run exactly as written, passes the
contract every server passes, and its tools do what the page says."""

from __future__ import annotations

import functools
import re
import types
from pathlib import Path
from typing import Any

from mcp import Client
from sqlmodel import Session, SQLModel

from mcp_servers.common.db import make_engine
from mcp_servers.common.spec import ServerContext, ServerSpec
from tests.mcp_servers.support import World, as_data, check_contract, text

DOC = Path(__file__).resolve().parents[2] / "docs" / "authoring-servers.md"


def blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.DOTALL)


@functools.cache  # table classes register once per process
def example() -> ServerSpec:
    (source,) = [b for b in blocks() if "SPEC = ServerSpec(" in b]
    module = types.ModuleType("doc_helpdesk")
    exec(compile(source, str(DOC), "exec"), module.__dict__)  # noqa: S102 - our own document
    spec = module.__dict__["SPEC"]
    assert isinstance(spec, ServerSpec)
    return spec


def world_for(spec: ServerSpec, tmp_path: Path) -> World:
    url = f"sqlite:///{tmp_path / 'world.sqlite'}"
    engine = make_engine(url)
    SQLModel.metadata.create_all(engine, tables=[t.__table__ for t in spec.tables])  # type: ignore[attr-defined]
    assert spec.seed is not None
    with Session(engine) as s:
        spec.seed(s)
        s.commit()
    return World(url=url, engine=engine, workspace=tmp_path)


async def test_the_example_server_passes_the_contract_and_works(tmp_path: Path) -> None:
    spec = example()
    world = world_for(spec, tmp_path)
    (contract_test,) = [b for b in blocks() if "check_contract(" in b]
    calls: dict[str, Any] = eval(contract_test[contract_test.index("{") : contract_test.rindex("}") + 1])  # noqa: S307
    try:
        async with Client(spec.build(ServerContext(engine=world.engine, workspace=tmp_path))) as client:
            await check_contract(client, world, calls)
            assigned = as_data(await client.call_tool("list_tickets", {"status": "assigned"}))
            assert [(t["id"], t["assignee"]) for t in assigned["items"]] == [(1, "it@company.example")]
            closed = await client.call_tool(
                "assign_ticket", {"ticket_id": 2, "assignee": "x@company.example"}
            )
            assert closed.is_error and "is closed" in text(closed)
            missing = await client.call_tool("close_ticket", {"ticket_id": 99})
            assert missing.is_error and "list_tickets shows the ids" in text(missing)
    finally:
        world.engine.dispose()
