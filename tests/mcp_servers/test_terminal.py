from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from mcp_servers.common.tooling import ToolError
from mcp_servers.terminal import server as terminal_server
from mcp_servers.terminal.patterns import MAX_NESTING, MAX_PATTERN_CHARS, compile_pattern
from tests.mcp_servers.support import World, check_confinement, check_contract, serve, text


def _tree(ws: Path) -> None:
    (ws / "docs" / "old").mkdir(parents=True)
    (ws / "docs" / "notes.txt").write_text("alpha\nBeta line\ngamma\nbeta again\n")
    (ws / "docs" / "old" / "draft.md").write_text("# Draft\nbeta\n")
    (ws / "data.csv").write_text("".join(f"{i},{i * i}\n" for i in range(1, 21)))
    (ws / ".hidden").write_text("hidden\n")
    (ws / "blob.bin").write_bytes(b"\x00\x01beta\x02")


async def _run(client, tool: str, **args) -> str:
    result = await client.call_tool(tool, args)
    assert not result.is_error, f"{tool} {args}: {text(result)}"
    return text(result)


async def test_terminal_contract_and_effects(world: World) -> None:
    ws = world.workspace
    _tree(ws)
    async with serve("terminal", world) as client:
        calls = {
            "ls": {"path": "docs", "long": True},
            "cat": {"path": "docs/notes.txt", "number_lines": True},
            "head": {"path": "data.csv", "n": 3},
            "tail": {"path": "data.csv", "n": 2},
            "grep": {
                "pattern": "beta",
                "path": "docs",
                "ignore_case": True,
                "recursive": True,
                "line_numbers": True,
            },
            "wc": {"path": "docs/notes.txt"},
            "find": {"path": ".", "name": "*.md"},
            "mkdir": {"path": "out/reports", "parents": True},
            "cp": {"src": "docs", "dst": "backup", "recursive": True},
            "mv": {"src": "data.csv", "dst": "out/reports"},
            "rm": {"path": "docs/old", "recursive": True},
            "write_file": {"path": "out/summary.txt", "content": "total: 20\n"},
        }
        await check_contract(client, world, calls)
        assert (ws / "out" / "reports" / "data.csv").read_text().startswith("1,1\n")
        assert not (ws / "data.csv").exists()
        assert (ws / "backup" / "old" / "draft.md").read_text() == "# Draft\nbeta\n"
        assert not (ws / "docs" / "old").exists() and (ws / "docs" / "notes.txt").exists()
        assert (ws / "out" / "summary.txt").read_text() == "total: 20\n"
        await _run(client, "write_file", path="out/summary.txt", content="rows: 20\n", append=True)
        assert (ws / "out" / "summary.txt").read_text() == "total: 20\nrows: 20\n"
        # mkdir -p of a folder that is there changes nothing, and says so (it said "Created")
        again = await _run(client, "mkdir", path="out/reports", parents=True)
        assert again == "Folder out/reports already exists; nothing changed."
        assert (
            await _run(client, "mkdir", path="out/new/deep", parents=True) == "Created folder out/new/deep."
        )


async def test_terminal_read_commands_print_like_a_terminal(world: World) -> None:
    ws = world.workspace
    _tree(ws)
    async with serve("terminal", world) as client:
        assert await _run(client, "ls") == "blob.bin\ndata.csv\ndocs/"
        assert ".hidden" in (await _run(client, "ls", all=True)).split("\n")
        long = (await _run(client, "ls", path="docs", long=True)).split("\n")
        assert long[0].startswith("-rw") and long[0].endswith(" notes.txt") and long[1].startswith("d")
        assert await _run(client, "head", path="data.csv", n=2) == "1,1\n2,4"
        assert await _run(client, "tail", path="data.csv", n=2) == "19,361\n20,400"
        assert await _run(client, "tail", path="data.csv", n=0) == ""
        assert (await _run(client, "cat", path="docs/notes.txt", number_lines=True)).split("\n")[
            1
        ] == "     2\tBeta line"
        assert await _run(client, "grep", pattern="beta", path="docs/notes.txt") == "beta again"
        assert await _run(
            client, "grep", pattern="^b", path="docs/notes.txt", ignore_case=True, line_numbers=True
        ) == ("2:Beta line\n4:beta again")
        assert (
            await _run(client, "grep", pattern="beta", recursive=True)
            == "docs/notes.txt:beta again\ndocs/old/draft.md:beta"
        )
        assert await _run(
            client, "grep", pattern="beta", recursive=True, files_with_matches=True, ignore_case=True
        ) == ("docs/notes.txt\ndocs/old/draft.md")
        assert (
            await _run(client, "grep", pattern="a.b", path="docs/notes.txt", fixed_strings=True)
            == "(no matches)"
        )
        assert await _run(client, "wc", path="docs/notes.txt") == "4 6 33 docs/notes.txt"
        assert (
            await _run(client, "find")
            == ".\n.hidden\nblob.bin\ndata.csv\ndocs\ndocs/notes.txt\ndocs/old\ndocs/old/draft.md"
        )
        assert await _run(client, "find", type="d") == ".\ndocs\ndocs/old"
        assert await _run(client, "find", name="*.txt", maxdepth=1) == "(no matches)"
        assert await _run(client, "find", path="docs", name="*.txt") == "docs/notes.txt"


async def test_terminal_bad_input_is_a_tool_error(world: World) -> None:
    _tree(world.workspace)
    async with serve("terminal", world) as client:
        for tool, args, expected in [
            ("cat", {"path": "missing.txt"}, "no such file"),
            ("cat", {"path": "docs"}, "is a directory"),
            ("cat", {"path": "blob.bin"}, "binary file"),
            ("head", {"path": "data.csv", "n": -1}, "0 or more"),
            ("grep", {"pattern": "(", "path": "data.csv"}, "bad pattern"),
            ("grep", {"pattern": "x", "path": "docs"}, "recursive=true"),
            ("find", {"type": "x"}, "validation error"),
            ("mkdir", {"path": "docs"}, "already exists"),
            ("mkdir", {"path": "a/b/c"}, "parents=true"),
            ("cp", {"src": "docs", "dst": "copy"}, "recursive=true"),
            ("cp", {"src": "docs", "dst": "docs/old", "recursive": True}, "inside itself"),
            ("cp", {"src": "data.csv", "dst": "nowhere/x.csv"}, "mkdir it first"),
            ("mv", {"src": "missing", "dst": "x"}, "no such file"),
            ("mv", {"src": ".", "dst": "docs"}, "workspace itself"),
            ("rm", {"path": "docs"}, "recursive=true"),
            ("rm", {"path": "missing.txt"}, "no such file"),
            ("write_file", {"path": "docs", "content": "x"}, "is a directory"),
        ]:
            result = await client.call_tool(tool, args)
            assert result.is_error and expected in text(result), (tool, args, text(result))


async def test_rm_never_removes_the_workspace_or_follows_links(world: World) -> None:
    ws = world.workspace
    _tree(ws)
    (ws / "link-to-docs").symlink_to(ws / "docs", target_is_directory=True)
    (ws / "here").symlink_to(ws, target_is_directory=True)
    async with serve("terminal", world) as client:
        for root_name in (".", "./", "docs/..", "here/."):
            result = await client.call_tool("rm", {"path": root_name, "recursive": True})
            assert result.is_error, root_name
        assert (ws / "docs" / "notes.txt").exists()
        # Removing a link removes the link, not the folder it points to.
        await _run(client, "rm", path="link-to-docs", recursive=True)
        assert not (ws / "link-to-docs").exists() and (ws / "docs" / "notes.txt").exists()
        await _run(client, "rm", path="here")
        assert ws.is_dir() and (ws / "docs" / "notes.txt").exists() and not (ws / "here").is_symlink()
        # Moving a link moves the link.
        (ws / "link2").symlink_to(ws / "docs" / "notes.txt")
        await _run(client, "mv", src="link2", dst="renamed")
        assert (ws / "renamed").is_symlink() and (ws / "docs" / "notes.txt").exists()


async def test_terminal_refuses_paths_outside_the_workspace(world: World) -> None:
    _tree(world.workspace)
    async with serve("terminal", world) as client:
        for tool, args, key in [
            ("ls", {"path": "x.txt"}, "path"),
            ("cat", {"path": "x.txt"}, "path"),
            ("head", {"path": "x.txt"}, "path"),
            ("tail", {"path": "x.txt"}, "path"),
            ("grep", {"pattern": "s", "path": "x.txt"}, "path"),
            ("wc", {"path": "x.txt"}, "path"),
            ("find", {"path": "x.txt"}, "path"),
            ("mkdir", {"path": "x.txt"}, "path"),
            ("cp", {"src": "x.txt", "dst": "copy.txt"}, "src"),
            ("cp", {"src": "docs/notes.txt", "dst": "x.txt"}, "dst"),
            ("mv", {"src": "x.txt", "dst": "moved.txt"}, "src"),
            ("mv", {"src": "docs/notes.txt", "dst": "x.txt"}, "dst"),
            ("rm", {"path": "x.txt"}, "path"),
            ("write_file", {"path": "x.txt", "content": "pwned"}, "path"),
        ]:
            await check_confinement(client, world, tool, args, path_key=key)
        # A recursive search or find never enters a symlink that leaves the workspace.
        assert "secret" not in await _run(client, "grep", pattern="secret", recursive=True)
        found = await _run(client, "find")
        assert "escape" in found.split("\n") and "escape/secret.txt" not in found
        assert "(outside the workspace)" in await _run(client, "ls", long=True)
        assert (world.workspace / "docs" / "notes.txt").exists()
        # Copying a folder holding that link copies the link, not the secret.
        await _run(client, "mkdir", path="box")
        (world.workspace / "escape").rename(world.workspace / "box" / "escape")
        await _run(client, "cp", src="box", dst="box2", recursive=True)
        assert (world.workspace / "box2" / "escape").is_symlink()
        assert (await client.call_tool("cat", {"path": "box2/escape/secret.txt"})).is_error


async def test_a_backtracking_pattern_is_stopped_and_the_process_keeps_running(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`(a|aa)+$` on 40 a's backtracks for minutes; with `re` it would hold the interpreter and
    stall every agent in the process. The search stops at its timeout with a tool error, and
    other tasks run while it searches."""
    monkeypatch.setattr(terminal_server, "GREP_TIMEOUT_S", 0.3)
    (world.workspace / "a.txt").write_text("fine line\n" + "a" * 40 + "!\n")
    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        while True:
            await asyncio.sleep(0.01)
            ticks += 1

    async with serve("terminal", world) as client:
        assert await _run(client, "grep", pattern="fine", path="a.txt") == "fine line"
        background = asyncio.create_task(ticker())
        result = await client.call_tool("grep", {"pattern": "(a|aa)+$", "path": "a.txt"})
        background.cancel()
    assert result.is_error and "took longer than 0.3 s" in text(result), text(result)
    assert ticks > 0, "the event loop was held during the search"


# Each is refused before compiling; unbounded, they cost 26-120 MB, not the 24 GB of the audit's.
COSTLY_PATTERNS = [
    ("a{100000}", "too costly"),
    ("(?:(?:a{100}){100}){10}", "too costly"),
    ("(?:" * 17 + "a" + ")+" * 17, "too costly"),  # each + doubles what it repeats
    ("(?fi)\u00df{1000}", "(?f) and (?V1)"),
    ("(?V1i)[\\w\u00df]", "(?f) and (?V1)"),
    ("(?:" * (MAX_NESTING + 1) + "a" + ")" * (MAX_NESTING + 1), "nests groups"),
    ("a" * (MAX_PATTERN_CHARS + 1), "characters long"),
    # recursion keeps a level per character matched: (a(?R)?) took 380 MB on a 1,000,000-character line
    ("(a(?R)?)", "recursion or subroutine calls"),
    ("(a(?0)?)", "recursion or subroutine calls"),
    ("(a(?1)?)", "recursion or subroutine calls"),
    ("(a(?-1)?)", "recursion or subroutine calls"),
    ("(?P<x>a(?&x)?)", "recursion or subroutine calls"),
    ("(?P<x>a(?P>x)?)", "recursion or subroutine calls"),
]


async def test_a_grep_pattern_too_costly_to_compile_is_refused_and_the_server_keeps_answering(
    world: World,
) -> None:
    """Audit: grep compiled the model's pattern with no bound, before its search timeout starts;
    `a{99999999}` took the server to 24 GB and the OOM killer ended it. A pattern whose compiled
    form would be too big is refused with a tool error that names the problem."""
    (world.workspace / "a.txt").write_text("a" * 200 + "\n")
    async with serve("terminal", world) as client:
        for pattern, expected in COSTLY_PATTERNS:
            result = await client.call_tool("grep", {"pattern": pattern, "path": "a.txt"})
            assert result.is_error and expected in text(result), (pattern[:40], text(result))
            assert await _run(client, "grep", pattern="a{3}", path="a.txt") == "a" * 200


@pytest.mark.parametrize(
    "pattern",
    [
        "a{99999999}",  # the audit's: 24 GB
        "a{10000000}",  # 2.8 GB
        "(a{1000}){1000}",
        "(?:(?:a{100}){100}){100}",
        "(?:[a-z0-9_]{500}){200}",
        "a{" + "9" * 4400 + "}",  # `regex` would read it with int() and fail with a ValueError
        # a quantifier is charged to what it really repeats, as `regex` splits the pattern
        "(?x)(?:a{1000} # a comment with )\n){50}",
        "(?:[)]a{1000}){50}",
        "(?:[])]a{1000}){50}",
        "(?:[[:alpha:])]a{1000}){50}",
        "(?:\\)a{1000}){50}",
        "(?:a{1000})(?# a note){50}",
        "(?:a{1000})(?i){50}",
        "(?x)(?:a{1000}) {50}",
    ],
)
def test_a_costly_pattern_is_refused_before_it_is_compiled(pattern: str) -> None:
    with pytest.raises(ToolError, match="too costly"):
        compile_pattern(pattern, ignore_case=False, fixed_strings=False)


async def test_grep_still_finds_ordinary_counted_repeats(world: World) -> None:
    """The bound on compiling leaves ordinary patterns as they were."""
    _tree(world.workspace)
    squares = "\n".join(f"{i},{i * i}" for i in range(10, 21))
    cases = [
        (r"^\d{2},\d{3}$", "data.csv", squares),
        (r"^1\d?,\d{1,2}$", "data.csv", "1,1"),
        ("^[0-9]{1,3},[0-9]{3,}$", "data.csv", squares),
        ("(?:be|Be)ta {0,3}(?:line|again)", "docs/notes.txt", "Beta line\nbeta again"),
        ("(?i)^(b(e)(t(a))) ?.{4,6}$", "docs/notes.txt", "Beta line\nbeta again"),
        ("^[[:alpha:]]{5}$", "docs/notes.txt", "alpha\ngamma"),
        ("^(?:al|gam)(?:ph|m)a$|^x{0,100000}$", "docs/notes.txt", "alpha\ngamma"),
        ("(?x) ^ \\d {2} , 4 \\d {2} $  # two digits, a comma, then 4xx", "data.csv", "20,400"),
        ("((?:a|b)e){1,3}t", "docs/notes.txt", "beta again"),
        ("(?P<x>a)g(?P=x)", "docs/notes.txt", "beta again"),  # a backreference, not a call
    ]
    async with serve("terminal", world) as client:
        for pattern, path, expected in cases:
            found = await _run(client, "grep", pattern=pattern, path=path)
            assert found == expected, (pattern, found)
    deep = "(?:" * MAX_NESTING + "a" + ")" * MAX_NESTING
    assert compile_pattern(deep, ignore_case=False, fixed_strings=False).search("a")


async def test_file_errors_say_what_is_wrong(world: World) -> None:
    """Regressions: cp onto itself, a name over 255 bytes and writing below a file failed with a
    bare 'Error executing tool'; mv into a missing folder ('dst/') renamed the file instead."""
    (world.workspace / "a.txt").write_text("a\n")
    async with serve("terminal", world) as client:
        for tool, args, expected in [
            ("cp", {"src": "a.txt", "dst": "a.txt"}, "same file"),
            ("cp", {"src": "a.txt", "dst": "."}, "same file"),
            ("write_file", {"path": "x" * 300 + ".txt", "content": "c"}, "too long"),
            ("mkdir", {"path": "y" * 300}, "too long"),
            ("write_file", {"path": "a.txt/b.txt", "content": "c"}, "is a file"),
            ("mkdir", {"path": "a.txt/sub", "parents": True}, "is a file"),
            ("mv", {"src": "a.txt", "dst": "missing/"}, "no such folder"),
            ("cp", {"src": "a.txt", "dst": "missing/"}, "no such folder"),
        ]:
            result = await client.call_tool(tool, args)
            assert result.is_error and expected in text(result), (tool, args, text(result))
    assert sorted(p.name for p in world.workspace.iterdir()) == ["a.txt"]
    assert (world.workspace / "a.txt").read_text() == "a\n"


async def test_head_and_tail_read_files_too_big_for_cat(world: World) -> None:
    """Regression: head and tail read the whole file, so on a file over 5 MB they refused and
    told the model to use head or tail."""
    lines = [f"line {i} " + "x" * 60 for i in range(1, 100_001)]  # ~7 MB
    (world.workspace / "big.log").write_text("\n".join(lines) + "\n")
    async with serve("terminal", world) as client:
        assert (await client.call_tool("cat", {"path": "big.log"})).is_error
        head = text(await client.call_tool("head", {"path": "big.log", "n": 3}))
        assert head.splitlines() == lines[:3]
        tail = text(await client.call_tool("tail", {"path": "big.log", "n": 2}))
        assert tail.splitlines() == lines[-2:]


async def test_cp_never_writes_through_a_link_that_leads_out(world: World) -> None:
    """Regression: cp named its destination without following a link there, then copied through
    it: a link to a file outside (or a dangling one, or a folder's entry of the copy's name)
    let the agent overwrite or create files anywhere. A link inside is written through."""
    outside = world.workspace.parent / "elsewhere"
    outside.mkdir()
    (outside / "victim.txt").write_text("outside")
    ws = world.workspace
    (ws / "ok.txt").write_text("agent")
    (ws / "to-victim").symlink_to(outside / "victim.txt")
    (ws / "dangling").symlink_to(outside / "created.txt")
    (ws / "d").mkdir()
    (ws / "d" / "ok.txt").symlink_to(outside / "created.txt")
    (ws / "inner.txt").write_text("old")
    (ws / "to-inner").symlink_to(ws / "inner.txt")
    async with serve("terminal", world) as client:
        for dst in ("to-victim", "dangling", "d"):
            refused = await client.call_tool("cp", {"src": "ok.txt", "dst": dst})
            assert refused.is_error and "resolves outside the workspace" in text(refused), (
                dst,
                text(refused),
            )
        copied = await client.call_tool("cp", {"src": "ok.txt", "dst": "to-inner"})
        assert not copied.is_error, text(copied)
    assert [p.name for p in outside.iterdir()] == ["victim.txt"] and (
        outside / "victim.txt"
    ).read_text() == "outside"
    assert (ws / "to-inner").is_symlink() and (ws / "inner.txt").read_text() == "agent"


async def test_a_symlink_pointing_outside_can_be_removed_or_moved(world: World) -> None:
    """Regression: rm and mv of a link whose target is outside the workspace were refused, so a
    stray link could never be cleaned up; the target itself is never touched."""
    outside = world.workspace.parent / "elsewhere"
    outside.mkdir()
    (outside / "keep.txt").write_text("keep")
    (world.workspace / "out1").symlink_to(outside / "keep.txt")
    (world.workspace / "out2").symlink_to(outside, target_is_directory=True)
    (world.workspace / "sub").mkdir()
    async with serve("terminal", world) as client:
        removed = await client.call_tool("rm", {"path": "out1"})
        assert not removed.is_error, text(removed)
        moved = await client.call_tool("mv", {"src": "out2", "dst": "sub/link"})
        assert not moved.is_error, text(moved)
        assert (await client.call_tool("cat", {"path": "sub/link/keep.txt"})).is_error  # still refused
    assert not (world.workspace / "out1").is_symlink() and (world.workspace / "sub" / "link").is_symlink()
    assert (outside / "keep.txt").read_text() == "keep"


async def test_a_file_being_rewritten_is_read_old_or_new_never_empty(world: World) -> None:
    """Regression: write_file emptied the file, then wrote it; a sub-agent reading it meanwhile
    got nothing (77 of 200 reads while another rewrote it). It now writes a new file beside it
    and renames that over it, keeping the old file's permission bits and leaving nothing else."""
    if world.base != "sqlite":
        pytest.skip("file tools do not depend on the database")
    body = "x" * 30_000 + "END"
    (world.workspace / "notes.txt").write_text(body)
    (world.workspace / "notes.txt").chmod(0o640)
    async with serve("terminal", world) as client:
        seen: list[str] = []

        async def rewrite() -> None:
            for _ in range(50):
                await _run(client, "write_file", path="notes.txt", content=body)

        async def read() -> None:
            for _ in range(100):
                seen.append(await _run(client, "cat", path="notes.txt"))

        await asyncio.gather(rewrite(), read())
    torn = [t[-40:] for t in seen if not t.endswith("END")]
    assert not torn, f"{len(torn)} of {len(seen)} reads were empty or cut: {torn[:2]}"
    assert sorted(p.name for p in world.workspace.iterdir()) == ["notes.txt"]
    assert (world.workspace / "notes.txt").stat().st_mode & 0o777 == 0o640


async def test_a_rewritten_file_keeps_its_owner_and_its_other_names(world: World) -> None:
    """Review: a file rewritten through a new file renamed over it took mseval's owner (root),
    so code that python_execute runs as another user could no longer write it, and a second
    name (a hard link) kept the old content, unlike `>`."""
    if world.base != "sqlite":
        pytest.skip("file tools do not depend on the database")
    ws = world.workspace
    (ws / "a.txt").write_text("old")
    os.link(ws / "a.txt", ws / "b.txt")
    (ws / "mine.txt").write_text("old")
    if os.geteuid() == 0:
        os.chown(ws / "mine.txt", 65534, 65534)
    async with serve("terminal", world) as client:
        await _run(client, "write_file", path="a.txt", content="new")
        await _run(client, "write_file", path="mine.txt", content="new")
    assert (ws / "b.txt").read_text() == "new"
    assert (ws / "mine.txt").read_text() == "new"
    if os.geteuid() == 0:
        assert ((ws / "mine.txt").stat().st_uid, (ws / "mine.txt").stat().st_gid) == (65534, 65534)


async def test_a_file_copied_over_is_read_old_or_new_never_cut(world: World) -> None:
    """Regression: cp emptied its destination, then copied into it, so a sub-agent reading the
    destination meanwhile got part of it or nothing. It now copies beside it and renames."""
    if world.base != "sqlite":
        pytest.skip("file tools do not depend on the database")
    (world.workspace / "src.txt").write_text("y" * 30_000 + "END")
    (world.workspace / "dst.txt").write_text("x" * 30_000 + "END")
    async with serve("terminal", world) as client:
        seen: list[str] = []

        async def copy() -> None:
            for _ in range(50):
                await _run(client, "cp", src="src.txt", dst="dst.txt")

        async def read() -> None:
            for _ in range(100):
                seen.append(await _run(client, "cat", path="dst.txt"))

        await asyncio.gather(copy(), read())
    torn = [len(t) for t in seen if not t.endswith("END")]
    assert not torn, f"{len(torn)} of {len(seen)} reads were empty or cut (lengths {torn[:5]})"
    assert sorted(p.name for p in world.workspace.iterdir()) == ["dst.txt", "src.txt"]


async def test_a_tree_copy_leaves_out_files_being_written(world: World) -> None:
    """Review: cp -r copied another tool's half-written new file (`.write-<hex>.tmp`, renamed
    over its target a moment later), so the copy kept it for good, or failed when it was gone
    before it was read. Such files are left out; a file of the agent's own named alike is not."""
    if world.base != "sqlite":
        pytest.skip("file tools do not depend on the database")
    ws = world.workspace
    (ws / "d").mkdir()
    (ws / "d" / "report.docx").write_bytes(b"whole")
    (ws / "d" / f".write-{'ab12' * 8}.tmp").write_bytes(b"half")
    (ws / "d" / ".write-notes.tmp").write_text("mine")
    async with serve("terminal", world) as client:
        await _run(client, "cp", src="d", dst="e", recursive=True)
    assert sorted(p.name for p in (ws / "e").iterdir()) == [".write-notes.tmp", "report.docx"]


async def test_a_file_name_that_is_not_utf8_is_listed_as_valid_text(world: World) -> None:
    """Regression: a name with a byte that is not UTF-8 (one the agent's code made) came back
    from ls, find and grep as a lone surrogate, which no JSON can carry: an in-process call ended
    the episode as harness_error, a child server's call never answered. It is shown as U+FFFD."""
    (world.workspace / os.fsdecode(b"bad\xffname.txt")).write_text("hit\n")
    async with serve("terminal", world) as client:
        for tool, args in [
            ("ls", {"path": ".", "long": True}),
            ("find", {"path": "."}),
            ("grep", {"pattern": "hit", "path": ".", "recursive": True}),
        ]:
            shown = await _run(client, tool, **args)
            assert "bad\ufffdname.txt" in shown, (tool, shown)
            shown.encode("utf-8")  # no lone surrogate left


async def test_a_copy_never_keeps_set_id_bits(world: World) -> None:
    """Audit: cp kept the mode bits whole, so the agent's setuid or setgid file, copied by a
    server running as root, became a root-owned setuid file. A copy keeps rwx and sticky only."""
    if world.base != "sqlite":
        pytest.skip("file tools do not depend on the database")
    ws = world.workspace
    (ws / "tool").write_bytes(b"#!/bin/sh\n")
    os.chmod(ws / "tool", 0o6755)
    (ws / "d").mkdir()
    (ws / "d" / "tool").write_bytes(b"#!/bin/sh\n")
    os.chmod(ws / "d" / "tool", 0o4750)
    os.chmod(ws / "d", 0o3775)
    async with serve("terminal", world) as client:
        await _run(client, "cp", src="tool", dst="copy")
        await _run(client, "cp", src="d", dst="e", recursive=True)
    # 0o6755 without set-user-ID and set-group-ID is 0o755; 0o4750 -> 0o750; 0o3775 -> 0o1775
    assert os.stat(ws / "copy").st_mode & 0o7777 == 0o755
    assert os.stat(ws / "e" / "tool").st_mode & 0o7777 == 0o750
    assert os.stat(ws / "e").st_mode & 0o7777 == 0o1775
