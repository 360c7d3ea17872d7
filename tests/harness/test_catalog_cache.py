"""The tool catalog is listed by starting every server once per version of the code, then read
from `$MSEVAL_CACHE/catalog-<key>.json`; a cache that cannot be used is passed over."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from harness import servers_catalog
from harness.models.base import ToolSpec
from harness.tools import ToolInfo
from mcp_servers.common.codehash import code_key

FAKE = ToolInfo(
    server="lms", tool="list_courses", read_only=True, label="course-records-lookup",
    spec=ToolSpec(name="mcp__lms__list_courses", description="d", input_schema={"type": "object"}),
)  # fmt: skip


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """An empty cache of this test's own, and no catalog kept in memory before or after."""
    monkeypatch.setenv("MSEVAL_CACHE", str(tmp_path / "cache"))
    servers_catalog.tool_catalog.cache_clear()
    yield tmp_path / "cache"
    servers_catalog.tool_catalog.cache_clear()


@pytest.fixture
def listings(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Listing by starting the servers is replaced by FAKE; each listing is counted."""
    calls: list[int] = []

    async def fake() -> list[ToolInfo]:
        calls.append(1)
        return [FAKE]

    monkeypatch.setattr(servers_catalog, "_catalog", fake)
    return calls


def test_the_servers_are_listed_once_then_the_cache_is_read(cache: Path) -> None:
    listed = servers_catalog.tool_catalog()
    (file,) = cache.glob("catalog-*.json")
    assert file.name == f"catalog-{servers_catalog.catalog_key()}.json"
    servers_catalog.tool_catalog.cache_clear()

    async def no_listing() -> list[ToolInfo]:
        raise AssertionError("listed again with a cache in place")

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(servers_catalog, "_catalog", no_listing)
        assert servers_catalog.tool_catalog() == listed
    assert len(listed) > 100 and {t.server for t in listed} >= {"local", "lms", "excel"}


@pytest.mark.parametrize("content", ['[{"server": "lms"', "[]x", '[{"server": "lms"}]', "{}", "[]"])
def test_a_damaged_cache_file_is_listed_again_and_rewritten(
    cache: Path, listings: list[int], content: str
) -> None:
    cache.mkdir()
    file = cache / f"catalog-{servers_catalog.catalog_key()}.json"
    file.write_text(content)
    assert servers_catalog.tool_catalog() == (FAKE,) and listings == [1]
    assert json.loads(file.read_text())[0]["spec"]["name"] == "mcp__lms__list_courses"


def test_a_cache_that_cannot_be_written_is_passed_over(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, listings: list[int]
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv("MSEVAL_CACHE", str(blocker / "cache"))
    servers_catalog.tool_catalog.cache_clear()
    try:
        assert servers_catalog.tool_catalog() == (FAKE,) and listings == [1]
    finally:
        servers_catalog.tool_catalog.cache_clear()
    assert blocker.read_text() == ""


def test_the_key_changes_with_the_code_and_names_the_versions(tmp_path: Path) -> None:
    extra = tmp_path / "reader.py"
    extra.write_text("a = 1\n")
    before = code_key(extra)
    extra.write_text("a = 2\n")
    code_key.cache_clear()
    assert code_key(extra) != before and code_key(extra) != code_key()
    from importlib.metadata import version

    assert servers_catalog.catalog_key().endswith(f"-mcp{version('mcp')}-pydantic{version('pydantic')}")


def test_a_new_catalog_removes_those_of_other_code_unused_for_a_week(
    cache: Path, listings: list[int]
) -> None:
    cache.mkdir()
    old, recent = cache / "catalog-old.json", cache / "catalog-recent.json"
    for file, days in ((old, 8), (recent, 6)):
        file.write_text("[]")
        stamp = time.time() - days * 24 * 3600
        os.utime(file, (stamp, stamp))
    servers_catalog.tool_catalog()
    assert sorted(p.name for p in cache.iterdir()) == sorted(
        [recent.name, f"catalog-{servers_catalog.catalog_key()}.json"]
    )
