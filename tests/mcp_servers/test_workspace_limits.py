"""Limits of the workspace walk and of what file tools hold and echo: a path nested past
MAX_DEPTH is refused before it exhausts descriptors, an absolute link may name the workspace by
the path it was given, a failed call closes what it opened at once (not when the cycle
collector runs), and an error message never echoes a path of kilobytes."""

from __future__ import annotations

import gc
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from mcp_servers.common.pathrules import MAX_SHOWN_CHARS
from mcp_servers.common.workspace import MAX_DEPTH, locate
from mcp_servers.terminal import server as terminal_server
from tests.mcp_servers.support import World, make_world, serve, text


def _open_fds() -> int:
    return len(os.listdir("/proc/self/fd"))


@pytest.fixture
def no_gc() -> Iterator[None]:
    """The cycle collector off: a descriptor kept by a reference cycle then stays open."""
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    made = make_world(tmp_path)
    yield made
    made.engine.dispose()


def _nest(top: Path, depth: int) -> Path:
    """`depth` folders `a/a/...` under `top` (made relative to descriptors: the whole path may
    pass PATH_MAX); the path of the deepest within `top`."""
    fd = os.open(top, os.O_RDONLY)
    for _ in range(depth):
        os.mkdir("a", dir_fd=fd)
        inner = os.open("a", os.O_RDONLY, dir_fd=fd)
        os.close(fd)
        fd = inner
    os.close(fd)
    return Path(*["a"] * depth)


def test_a_path_deeper_than_max_depth_is_refused_holding_no_descriptor_per_level(tmp_path: Path) -> None:
    """Regression: a 1,500-level path held 1,500 descriptors at once; under RLIMIT_NOFILE 1024
    write_file failed with 'Too many open files' and echoed the whole 3 KB path."""
    _nest(tmp_path, MAX_DEPTH + 2)
    with locate(tmp_path, "/".join(["a"] * MAX_DEPTH) + "/f.txt") as found:  # the deepest allowed
        assert found.name == "f.txt"
    with pytest.raises(Exception, match="folders deep") as refused:
        locate(tmp_path, "/".join(["a"] * (MAX_DEPTH + 1)) + "/f.txt")
    assert len(str(refused.value)) < 2 * MAX_SHOWN_CHARS
    # Depth a link's target adds counts too: `deep` leads MAX_DEPTH folders down.
    os.symlink("/".join(["a"] * MAX_DEPTH), tmp_path / "deep")
    with pytest.raises(Exception, match="folders deep"):
        locate(tmp_path, "deep/a/f.txt")


async def test_write_file_on_a_1500_level_path_is_refused_briefly_and_makes_nothing(world: World) -> None:
    path = "/".join(["a"] * 1500) + "/f.txt"
    async with serve("terminal", world) as client:
        result = await client.call_tool("write_file", {"path": path, "content": "x"})
    assert result.is_error and "folders deep" in text(result), text(result)[:200]
    assert len(text(result)) < 2 * MAX_SHOWN_CHARS
    assert list(world.workspace.iterdir()) == []


async def test_an_absolute_link_may_name_the_workspace_by_its_given_path(tmp_path: Path) -> None:
    """Regression: with the workspace given as a path through a symlink, a link to
    `<that path>/data.txt` was refused as leading outside; its real path always worked."""
    made = make_world(tmp_path)
    (made.workspace / "data.txt").write_text("hello\n")
    alias = tmp_path / "alias"
    alias.symlink_to(made.workspace)
    world = World(url=made.url, engine=made.engine, workspace=alias)
    os.symlink(str(alias / "data.txt"), made.workspace / "by_given")
    os.symlink(str(made.workspace.resolve() / "data.txt"), made.workspace / "by_real")
    os.symlink(str(tmp_path / "elsewhere" / "data.txt"), made.workspace / "outside")
    try:
        async with serve("terminal", world) as client:
            for name in ("by_given", "by_real"):
                result = await client.call_tool("cat", {"path": name})
                assert not result.is_error and text(result) == "hello\n", (name, text(result))
            result = await client.call_tool("cat", {"path": "outside"})
            assert result.is_error and "outside the workspace" in text(result)
    finally:
        made.engine.dispose()


async def test_an_error_message_shortens_a_path_of_kilobytes(world: World) -> None:
    long = "/".join(["folder" * 40] * 10) + "/missing.txt"  # 2.4 KB, under MAX_PATH_BYTES
    async with serve("terminal", world) as client:
        for tool in ("cat", "ls", "rm"):
            result = await client.call_tool(tool, {"path": long})
            assert result.is_error and len(text(result)) < 2 * MAX_SHOWN_CHARS, (tool, len(text(result)))
            assert "missing.txt" in text(result)


async def test_a_workbook_that_will_not_open_is_closed_at_once(world: World, no_gc: None) -> None:
    """Regression: each failed open left its held descriptor to the cycle collector."""
    (world.workspace / "bad.xlsx").write_bytes(b"PK\x03\x04 not a zip")
    async with serve("excel", world) as client:
        await client.call_tool("list_sheets", {"path": "bad.xlsx"})  # anything lazily opened, now
        before = _open_fds()
        for _ in range(20):
            result = await client.call_tool("list_sheets", {"path": "bad.xlsx"})
            assert result.is_error and "cannot open bad.xlsx" in text(result)
        assert _open_fds() == before


async def test_a_grep_stopped_at_its_timeout_closes_the_folders_it_walked(
    world: World, no_gc: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Regression: the walk stopped mid-way kept its folders open until collected."""
    monkeypatch.setattr(terminal_server, "GREP_TIMEOUT_S", 0.0)  # every search times out at once
    deepest = world.workspace / _nest(world.workspace, 5)
    (deepest / "notes.txt").write_text("beta\n")
    async with serve("terminal", world) as client:
        await client.call_tool("grep", {"pattern": "beta", "path": ".", "recursive": True})
        before = _open_fds()
        for _ in range(5):
            result = await client.call_tool("grep", {"pattern": "beta", "path": ".", "recursive": True})
            assert result.is_error and "took longer" in text(result)
        assert _open_fds() == before
