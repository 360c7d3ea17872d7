"""Arguments and workspace states that made tools raise unexpected exceptions (the model saw
only "Error executing tool X"): each is now a tool error that says what is wrong."""

from __future__ import annotations

import os

import pytest

from tests.mcp_servers.support import World, as_data, serve, text

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
