"""Office files the tools open: a zip that would unpack far larger than it is (a zip bomb) is
refused before any parser sees it, with a reason the model can act on."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest
from openpyxl import Workbook

from tests.mcp_servers.support import World, serve, text


def _workbook_with(path: Path, name: str, data: bytes, count: int = 1) -> None:
    """A valid workbook with `count` extra parts of `data` (which the parser itself ignores)."""
    Workbook().save(path)
    with zipfile.ZipFile(path, "a", zipfile.ZIP_DEFLATED) as z:
        for i in range(count):
            z.writestr(f"xl/{name}{i}.bin", data)


@pytest.mark.parametrize(
    ("data", "count", "reason"),
    [
        (b"\0" * 40_000_001, 1, "unpacks to 40 MB (at most 40 MB)"),
        (b"\0" * 2_000_000, 1, "larger than it is (at most 100x)"),
        (b"x", 5000, "parts (at most 5000)"),
    ],
    ids=["size", "ratio", "members"],
)
async def test_a_zip_bomb_is_refused_before_it_is_parsed(
    world: World, data: bytes, count: int, reason: str
) -> None:
    """Regression: a 4.4 MB .xlsx that unpacked to 103 MB took 30 s of CPU and 854 MB."""
    if world.base != "sqlite":
        pytest.skip("file checks do not depend on the database")
    _workbook_with(world.workspace / "b.xlsx", "pad", data, count)
    async with serve("excel", world) as client:
        result = await client.call_tool("list_sheets", {"path": "b.xlsx"})
    assert result.is_error and "refused" in text(result) and reason in text(result), text(result)


async def test_an_ordinary_workbook_still_opens(world: World) -> None:
    if world.base != "sqlite":
        pytest.skip("file checks do not depend on the database")
    _workbook_with(world.workspace / "ok.xlsx", "pad", b"some text " * 1000, 3)  # ~100x, 30 KB
    async with serve("excel", world) as client:
        result = await client.call_tool("list_sheets", {"path": "ok.xlsx"})
    assert not result.is_error, text(result)
