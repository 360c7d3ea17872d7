"""Regression: a path was checked once by name (`resolve`) and then opened by name again, so
an agent running code beside the tools (`python_execute`) could swap a checked folder for a
symlink to `/` or `/proc/self` in between and make cat, cp, mv, rm, write_file and the office
tools read, copy, move, delete or write files outside the workspace (the audit copied the
server's `/proc/self/environ`, API keys included).

The swap here happens deterministically: right before the k-th file open of a tool call (for
every k the call makes), `real/` and the link `lnk -> outside` trade places, as
`renameat2(RENAME_EXCHANGE)` does. Whatever k, nothing outside may be read, written or
removed; the code before the fix escaped at k=1."""

from __future__ import annotations

import asyncio
import builtins
import io
import os
import shutil
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

import pytest
from openpyxl import Workbook

from tests.mcp_servers.support import World, serve, text

SECRET = "OUTSIDE SECRET"
MAX_OPENS = 12  # more than any of these calls makes


def _layout(world: World) -> tuple[Path, Path]:
    ws, outside = world.workspace, world.workspace.parent / "outside"
    for p in (ws, outside):
        shutil.rmtree(p, ignore_errors=True)
        (p / "real" if p == ws else p / "sub").mkdir(parents=True)
    (ws / "real" / "sub").mkdir()
    (ws / "real" / "secret.txt").write_text("harmless")
    (ws / "real" / "sub" / "x.txt").write_text("harmless")
    (outside / "secret.txt").write_text(SECRET)
    (outside / "sub" / "x.txt").write_text(SECRET)
    wb = Workbook()
    wb.active["A1"] = "harmless"
    wb.save(ws / "real" / "book.xlsx")
    wb.active["A1"] = SECRET
    wb.save(outside / "book.xlsx")
    (ws / "lnk").symlink_to(outside, target_is_directory=True)
    return ws, outside


def _exchange(ws: Path) -> None:
    os.rename(ws / "real", ws / "tmp-swap")
    os.rename(ws / "lnk", ws / "real")
    os.rename(ws / "tmp-swap", ws / "lnk")


@contextmanager
def swap_before_open(monkeypatch: pytest.MonkeyPatch, ws: Path, k: int) -> Iterator[list[bool]]:
    """Exchange real/ and lnk right before the k-th open of a workspace path (by name or
    relative to a folder descriptor); yields [swapped]."""
    state = {"opens": 0}
    swapped = [False]

    def counting(orig: Callable[..., Any]) -> Callable[..., Any]:
        def wrapper(path: Any, *args: Any, **kwargs: Any) -> Any:
            if isinstance(path, (str, bytes, os.PathLike)) and (
                kwargs.get("dir_fd") is not None or str(ws) in os.fsdecode(path)
            ):
                state["opens"] += 1
                if state["opens"] == k and not swapped[0]:
                    _exchange(ws)
                    swapped[0] = True
            return orig(path, *args, **kwargs)

        return wrapper

    monkeypatch.setattr(os, "open", counting(os.open))
    monkeypatch.setattr(io, "open", counting(io.open))
    monkeypatch.setattr(builtins, "open", counting(builtins.open))
    try:
        yield swapped
    finally:
        monkeypatch.undo()


CALLS: list[tuple[str, str, dict[str, Any], Callable[[Path, Path, str], bool]]] = [
    # (server, tool, arguments, did it escape? given workspace, outside and the result text)
    ("terminal", "cat", {"path": "real/secret.txt"}, lambda ws, out, r: SECRET in r),
    ("terminal", "head", {"path": "real/secret.txt"}, lambda ws, out, r: SECRET in r),
    ("terminal", "grep", {"pattern": "SECRET", "path": "real", "recursive": True}, lambda ws, out, r: SECRET in r),
    ("terminal", "cp", {"src": "real/secret.txt", "dst": "loot.txt"},
     lambda ws, out, r: (ws / "loot.txt").exists() and SECRET in (ws / "loot.txt").read_text()),
    ("terminal", "cp", {"src": "real/sub", "dst": "loot", "recursive": True},
     lambda ws, out, r: (ws / "loot" / "x.txt").exists() and SECRET in (ws / "loot" / "x.txt").read_text()),
    ("terminal", "write_file", {"path": "real/pwned.txt", "content": "pwned"},
     lambda ws, out, r: (out / "pwned.txt").exists()),
    ("terminal", "mv", {"src": "real/secret.txt", "dst": "moved.txt"},
     lambda ws, out, r: not (out / "secret.txt").exists()),
    ("terminal", "rm", {"path": "real/sub", "recursive": True}, lambda ws, out, r: not (out / "sub").exists()),
    ("terminal", "rm", {"path": "real/secret.txt"}, lambda ws, out, r: not (out / "secret.txt").exists()),
    ("excel", "read_sheet", {"path": "real/book.xlsx"}, lambda ws, out, r: SECRET in r),
    ("excel", "write_range", {"path": "real/book.xlsx", "sheet": "Sheet", "rows": [["pwned"]], "start_cell": "B1"},
     lambda ws, out, r: "pwned" in _cells(out / "book.xlsx")),
    ("excel", "create_workbook", {"path": "real/new.xlsx"}, lambda ws, out, r: (out / "new.xlsx").exists()),
]  # fmt: skip


def _cells(path: Path) -> list[Any]:
    from openpyxl import load_workbook

    return [c.value for row in load_workbook(path).active.iter_rows() for c in row]


@pytest.mark.parametrize(
    ("server", "tool", "args", "escaped"), CALLS, ids=[f"{c[0]}.{c[1]}-{i}" for i, c in enumerate(CALLS)]
)
async def test_a_folder_swapped_for_a_link_mid_call_never_leads_out(
    world: World, monkeypatch: pytest.MonkeyPatch, server: str, tool: str, args: dict[str, Any],
    escaped: Callable[[Path, Path, str], bool],
) -> None:  # fmt: skip
    if world.base != "sqlite":
        pytest.skip("file confinement does not depend on the database")
    refused = 0
    async with serve(server, world) as client:
        for k in range(1, MAX_OPENS + 1):
            ws, outside = _layout(world)
            with swap_before_open(monkeypatch, ws, k) as swapped:
                result = await client.call_tool(tool, args)
            assert not escaped(ws, outside, text(result)), (
                f"escaped with the swap before open {k}: {text(result)}"
            )
            assert text(result) != f"Error executing tool {tool}", "a refusal must say why"
            refused += result.is_error and swapped[0]
    assert refused, "no swap ever landed between a check and a use"


FIFO_CALLS = [
    ("terminal", "cat", {"path": "p.txt"}),
    ("terminal", "head", {"path": "p.txt"}),
    ("terminal", "tail", {"path": "p.txt"}),
    ("terminal", "wc", {"path": "p.txt"}),
    ("terminal", "grep", {"pattern": "x", "path": "p.txt"}),
    ("terminal", "cp", {"src": "p.txt", "dst": "copy.txt"}),
    ("excel", "list_sheets", {"path": "p.xlsx"}),
]


@pytest.mark.parametrize(("server", "tool", "args"), FIFO_CALLS, ids=[f"{c[0]}.{c[1]}" for c in FIFO_CALLS])
async def test_a_fifo_is_refused_without_waiting_for_a_writer(
    world: World, server: str, tool: str, args: dict[str, Any]
) -> None:
    """Regression: `open()` of a FIFO the agent made (os.mkfifo) waited for a writer forever,
    holding a worker thread that nothing can cancel and that kept the process from exiting."""
    if world.base != "sqlite":
        pytest.skip("file confinement does not depend on the database")
    for name in ("p.txt", "p.xlsx"):
        os.mkfifo(world.workspace / name)
    try:
        async with serve(server, world) as client:
            # The bound only stops a regression from hanging the run; a refusal is immediate.
            result = await asyncio.wait_for(client.call_tool(tool, args), 10)
        assert result.is_error and "not a regular file" in text(result), text(result)
    finally:
        for name in ("p.txt", "p.xlsx"):  # release a reader the old code left waiting
            with suppress(OSError):
                os.close(os.open(world.workspace / name, os.O_WRONLY | os.O_NONBLOCK))
