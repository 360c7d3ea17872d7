"""Handing the workspace over to the sandbox user (as root), against the review of the
sandbox's hardening: the walk (os.fwalk) opened a FIFO swapped in for a folder and blocked
forever, in the event loop's default executor that the harness shares; and it chowned a hard
link's inode, which may be a file outside the workspace."""

from __future__ import annotations

import asyncio
import os
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from mcp_servers.local import confinement, handover
from mcp_servers.local.confinement import SANDBOX_UID
from mcp_servers.local.handover import hand_over
from mcp_servers.local.sandbox import ProcessSandbox

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="the workspace is handed over only as root")


def _workspace(tmp_path: Path) -> Path:
    tmp_path.chmod(0o700)
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    return workspace


def test_a_fifo_swapped_in_for_a_folder_mid_walk_blocks_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The agent's other call swaps folder `d` and FIFO `p` between the walk's listing and
    its opening of `d` (here, deterministically, just before that open)."""
    workspace = _workspace(tmp_path)
    (workspace / "d").mkdir()
    (workspace / "d" / "f").touch()
    os.mkfifo(workspace / "p")
    real_open = os.open
    swapped = threading.Event()

    def open_after_swap(path: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        if path == "d" and kwargs.get("dir_fd") is not None and not swapped.is_set():
            swapped.set()
            os.rename(workspace / "d", workspace / "x")
            os.rename(workspace / "p", workspace / "d")
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", open_after_swap)
    walk = threading.Thread(target=hand_over, args=(workspace, SANDBOX_UID), daemon=True)
    walk.start()
    walk.join(10)
    monkeypatch.undo()
    stuck = walk.is_alive()
    if stuck:  # free the walk: a writer opening the FIFO ends its blocked open
        os.close(os.open(workspace / "d", os.O_WRONLY | os.O_NONBLOCK))
        walk.join(10)
    assert swapped.is_set()
    assert not stuck, "hand_over blocked opening a FIFO"
    assert (workspace / "d").lstat().st_uid == SANDBOX_UID  # the FIFO, handed over as a file


def test_hard_links_and_other_users_files_are_not_handed_over(tmp_path: Path) -> None:
    workspace = _workspace(tmp_path)
    outside = tmp_path / "outside_secret"
    outside.write_text("root only")
    outside.chmod(0o600)
    os.link(outside, workspace / "innocent.txt")
    (workspace / "someone_elses.txt").touch()
    os.chown(workspace / "someone_elses.txt", 1234, 1234)
    (workspace / "sub").mkdir()
    (workspace / "sub" / "mine.txt").touch()
    (workspace / "link").symlink_to(outside)
    complete = hand_over(workspace, SANDBOX_UID)
    assert outside.stat().st_uid == 0
    assert (workspace / "someone_elses.txt").stat().st_uid == 1234
    for name in ("", "sub", "sub/mine.txt", "link"):
        assert (workspace / name).lstat().st_uid == SANDBOX_UID, name
    assert complete is True


def test_a_walk_deeper_than_its_bound_stops_there(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    workspace = _workspace(tmp_path)
    (workspace / "a" / "b" / "c").mkdir(parents=True)
    monkeypatch.setattr(handover, "HAND_OVER_DEPTH", 1)
    assert not hand_over(workspace, SANDBOX_UID)
    assert (workspace / "a").stat().st_uid == SANDBOX_UID
    assert (workspace / "a" / "b").stat().st_uid == 0


async def test_a_hand_over_that_hangs_leaves_the_harness_its_threads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """It ran in the default executor (asyncio.to_thread): 30 hung walks left the harness none,
    and the call itself waited forever. Now it runs in a pool of its own, waited for a bounded
    time, and the code runs anyway."""
    workspace = _workspace(tmp_path)
    release = threading.Event()
    threads: list[str] = []

    def hung(*_: object) -> bool:
        threads.append(threading.current_thread().name)
        release.wait(30)
        return True

    await asyncio.to_thread(confinement.sandbox_setup)  # the probe hands a folder over too
    monkeypatch.setattr(handover, "hand_over", hung)
    monkeypatch.setattr(handover, "HAND_OVER_DEADLINE_S", 0.2)
    try:
        result = await asyncio.wait_for(ProcessSandbox().run("print('ran')", workspace, 20.0), 15)
    finally:
        release.set()
    assert result.stdout == "ran\n", result.render()
    assert threads and threads[0].startswith("mseval-hand-over"), threads


async def test_hand_overs_of_one_workspace_take_turns(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    workspace = _workspace(tmp_path)
    active, most = 0, 0
    lock = threading.Lock()

    def counted(*_: object) -> bool:
        nonlocal active, most
        with lock:
            active += 1
            most = max(most, active)
        time.sleep(0.2)  # long enough for a second walk to start, were they not taking turns
        with lock:
            active -= 1
        return True

    await asyncio.to_thread(confinement.sandbox_setup)  # the probe hands a folder over too
    monkeypatch.setattr(handover, "hand_over", counted)
    box = ProcessSandbox()
    results = await asyncio.gather(*(box.run("print(1)", workspace, 20.0) for _ in range(2)))
    assert [r.exit_code for r in results] == [0, 0]
    assert most == 1
