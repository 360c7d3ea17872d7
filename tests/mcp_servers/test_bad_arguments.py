"""Arguments and workspace states that made tools raise unexpected exceptions (the model saw
only "Error executing tool X"): each is now a tool error that says what is wrong."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from mcp_servers.common import registry
from mcp_servers.common.tooling import MAX_ERROR_CHARS
from tests.mcp_servers.support import World, as_data, make_world, serve, text

LONG_PATH = "a/" * 3000 + "x"  # every name short, the whole path past PATH_MAX


@pytest.mark.parametrize(
    ("server", "tool", "arguments", "said"),
    [
        ("terminal", "cat", {"path": "loop.txt"}, "goes round a loop of symlinks"),
        ("terminal", "write_file", {"path": "loop.txt", "content": "x"}, "goes round a loop of symlinks"),
        ("excel", "read_sheet", {"path": "loop.txt/x.xlsx"}, "goes round a loop of symlinks"),
        ("terminal", "cat", {"path": LONG_PATH + ".txt"}, "is too long (at most 3072 bytes)"),
        ("word", "read_document", {"path": LONG_PATH + ".docx"}, "is too long (at most 3072 bytes)"),
        ("terminal", "cp", {"src": "ok.txt", "dst": "n" * 300}, "is too long (at most 255 bytes)"),
        ("terminal", "rm", {"path": "n" * 300}, "is too long (at most 255 bytes)"),
        ("mail", "list_messages", {"query": "x" * 60_000}, "a search text that long cannot be matched"),
        ("scholar", "search_papers", {"query": "x" * 60_000}, "a search text that long cannot be matched"),
    ],
)
async def test_a_bad_path_or_search_text_is_a_tool_error_that_says_why(
    world: World, server: str, tool: str, arguments: dict[str, object], said: str
) -> None:
    (world.workspace / "ok.txt").write_text("hi\n")
    os.symlink("loop.txt", world.workspace / "loop.txt")  # a link to itself, as python_execute can make
    async with serve(server, world) as client:
        result = await client.call_tool(tool, arguments)
    if said.startswith("a search text") and world.engine.dialect.name != "sqlite":
        assert not result.is_error, text(result)  # PostgreSQL matches a pattern of any length
        return
    assert result.is_error and said in text(result), text(result)


@pytest.mark.parametrize(
    ("server", "tool", "arguments", "starts"),
    [
        ("shop", "get_product", {"sku": "x" * 200_000}, "no product 'xxx"),
        ("calendar", "list_events", {"start": "x" * 200_000, "end": "2026-12-04"}, "start"),
    ],
)
async def test_an_error_quoting_a_huge_argument_is_cut(
    world: World, server: str, tool: str, arguments: dict[str, object], starts: str
) -> None:
    """A 200,000-character argument came back whole inside the error (a 200 KB message; some 40
    tool and argument pairs): the message is cut to MAX_ERROR_CHARS, the marker says by how much."""
    async with serve(server, world) as client:
        result = await client.call_tool(tool, arguments)
    said = text(result)
    message = said.removeprefix(f"Error executing tool {tool}: ")
    assert result.is_error and message.startswith(starts), said[:200]
    assert len(message) <= MAX_ERROR_CHARS + 40 and "characters cut …]" in message, len(message)
    cut = int(message.split("[… ")[1].split(" characters")[0].replace(",", ""))
    assert len(message) - len(f"[… {cut:,} characters cut …]") + cut > 200_000


async def test_ls_long_shows_a_loop_of_symlinks_instead_of_failing(world: World) -> None:
    os.symlink("loop.txt", world.workspace / "loop.txt")
    async with serve("terminal", world) as client:
        result = await client.call_tool("ls", {"path": ".", "long": True})
    assert not result.is_error and "loop.txt -> (a loop of symlinks)" in text(result), text(result)


async def test_a_page_far_past_the_last_is_empty(world: World) -> None:
    """`page` 2**63 - 1 passed the integer guard, then its offset overflowed SQLite."""
    async with serve("mail", world) as client:
        page = as_data(await client.call_tool("list_messages", {"page": 2**63 - 1}))
    assert page["items"] == [] and page["page"] == 2**63 - 1 and page["total"] >= 1


async def test_every_tool_says_it_takes_no_argument_beyond_its_own(tmp_path: Path) -> None:
    """Each tool's input schema closes its object (`additionalProperties: false`), so a model
    and any MCP client read that an argument not listed is an error, not a no-op."""
    world, open_schemas = make_world(tmp_path), []
    for name in registry.names():
        async with serve(name, world) as client:
            listed = (await client.list_tools()).tools
        open_schemas += [
            f"{name}.{t.name}" for t in listed if t.input_schema.get("additionalProperties") is not False
        ]
    world.engine.dispose()
    assert open_schemas == []


@pytest.mark.parametrize(
    ("server", "tool", "arguments", "unknown"),
    [
        # `feedback` for `comment`: the grade was saved without its comment, and the model was told it was saved
        (
            "lms",
            "set_grade",
            {"assignment_id": 1, "student": "S001", "score": 5, "feedback": "late"},
            "feedback",
        ),
        # `timeout` for `timeout_s`: the code ran under the default limit
        ("local", "python_execute", {"code": "open('made.txt', 'w').write('x')", "timeout": 5}, "timeout"),
    ],
)
async def test_an_argument_the_tool_does_not_take_is_refused_by_name_and_nothing_runs(
    world: World, server: str, tool: str, arguments: dict[str, object], unknown: str
) -> None:
    before = world.dump()
    async with serve(server, world) as client:
        result = await client.call_tool(tool, arguments)
    assert result.is_error, text(result)
    assert f"\n{unknown}\n  Extra inputs are not permitted" in text(result), text(result)
    assert world.dump() == before and not (world.workspace / "made.txt").exists()
