"""Office files the tools open: a zip that would unpack far larger than it is (a zip bomb) is
refused before any parser sees it, with a reason the model can act on; a file another agent is
saving is never read half-written."""

from __future__ import annotations

import asyncio
import io
import threading
import zipfile
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from openpyxl import Workbook

from mcp_servers.common.files import OfficeFiles
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


def _corrupt_member(path: Path, member: str) -> None:
    """Overwrite 64 bytes inside `member`'s compressed data, leaving the zip's directory whole."""
    with zipfile.ZipFile(path) as z:
        info = z.getinfo(member)
    data = bytearray(path.read_bytes())
    start = info.header_offset + 30 + len(info.filename.encode()) + len(info.extra) + 10
    data[start : start + 64] = b"\xff" * 64
    path.write_bytes(bytes(data))


async def test_a_part_with_corrupt_data_is_a_file_that_will_not_open(world: World) -> None:
    """Regression: zlib's error escaped the tool, and the model read only 'Error executing tool
    read_document', with nothing of which file was damaged or how."""
    if world.base != "sqlite":
        pytest.skip("file checks do not depend on the database")
    async with serve("word", world) as client:
        for name, arguments in (("create_document", {}), ("add_paragraph", {"text": "Report " * 400})):
            made = await client.call_tool(name, {"path": "bad.docx", **arguments})
            assert not made.is_error, text(made)
        _corrupt_member(world.workspace / "bad.docx", "word/document.xml")
        result = await client.call_tool("read_document", {"path": "bad.docx"})
    assert result.is_error and "cannot open bad.docx as a Word document: Error -3" in text(result), text(
        result
    )


def _workbook_with_part(path: Path, member: str, edit: Callable[[str], str]) -> None:
    """A valid workbook (A1 'hi', A2 5) whose part `member` is rewritten by `edit`."""
    wb = Workbook()
    wb.active["A1"], wb.active["A2"] = "hi", 5
    wb.save(path)
    with zipfile.ZipFile(path) as z:
        parts = {name: z.read(name) for name in z.namelist()}
    parts[member] = edit(parts[member].decode()).encode()
    with zipfile.ZipFile(path, "w") as z:
        for name, data in parts.items():
            z.writestr(name, data)


LAUGHS = "".join(f'<!ENTITY l{i} "{("&l" + str(i - 1) + ";") * 10 if i else "ha" * 5}">' for i in range(8))
SHEET = "xl/worksheets/sheet1.xml"


@pytest.mark.parametrize(
    ("member", "dtd", "use"),
    [
        (SHEET, '<!DOCTYPE worksheet [<!ENTITY five "5">]>', "&five;"),  # expanded without a word
        (SHEET, f"<!DOCTYPE worksheet [{LAUGHS}]>", "&l7;"),  # a bare 'Error executing tool'
        (SHEET, '<!DOCTYPE worksheet [<!ENTITY f SYSTEM "file:///etc/passwd">]>', "&f;"),  # the same
        ("xl/workbook.xml", '<!DOCTYPE workbook [<!ENTITY e "x">]>', None),  # read as if absent
    ],
    ids=["internal", "billion-laughs", "external", "workbook-part"],
)
async def test_a_workbook_declaring_xml_entities_is_refused_with_its_reason(
    world: World, member: str, dtd: str, use: str | None
) -> None:
    """Regression: a sheet part with an entity declaration failed as 'Error executing tool
    read_sheet' (expat's ParseError escaped the tool), or its entities were expanded. No Office
    file has a DTD: every tool that opens the file says which part declares one, and refuses it."""
    if world.base != "sqlite":
        pytest.skip("file checks do not depend on the database")
    path = world.workspace / "e.xlsx"
    _workbook_with_part(
        path, member, lambda xml: dtd + (xml.replace("<v>5</v>", f"<v>{use}</v>") if use else xml)
    )
    async with serve("excel", world) as client:
        for tool, arguments in (
            ("read_sheet", {}),
            ("list_sheets", {}),
            ("append_rows", {"sheet": "Sheet", "rows": [[1]]}),
        ):
            result = await client.call_tool(tool, {"path": "e.xlsx", **arguments})
            assert result.is_error and text(result).endswith(
                f"cannot open e.xlsx as a workbook: its part {member} declares a DTD (<!DOCTYPE …>, "
                "with XML entities); entity declarations are refused"
            ), (tool, text(result))


def _document_with_dtd(path: Path, suffix: str) -> str:
    """A valid docx or pptx whose main part now starts with a DTD declaring an entity; the part."""
    if suffix == ".docx":
        import docx

        document = docx.Document()
        document.add_paragraph("hello")
        document.save(str(path))
        member = "word/document.xml"
    else:
        import pptx

        pptx.Presentation().save(str(path))
        member = "ppt/presentation.xml"
    with zipfile.ZipFile(path) as z:
        parts = {name: z.read(name) for name in z.namelist()}
    xml = parts[member].decode()
    declaration_end = xml.index("?>") + 2 if xml.startswith("<?xml") else 0
    parts[member] = (
        xml[:declaration_end] + '<!DOCTYPE x [<!ENTITY e "x">]>' + xml[declaration_end:]
    ).encode()
    with zipfile.ZipFile(path, "w") as z:
        for name, data in parts.items():
            z.writestr(name, data)
    return member


@pytest.mark.parametrize(
    ("server", "name", "tool", "kind"),
    [("word", "d.docx", "read_document", "a Word document"), ("pptx", "d.pptx", "read_deck", "a slide deck")],
)
async def test_a_document_or_deck_declaring_xml_entities_is_refused(
    world: World, server: str, name: str, tool: str, kind: str
) -> None:
    """Regression: a docx whose document part declared a DTD was read as an empty document
    ('paragraphs: 0'); the check now sits where every office server opens its files."""
    if world.base != "sqlite":
        pytest.skip("file checks do not depend on the database")
    member = _document_with_dtd(world.workspace / name, name[-5:])
    async with serve(server, world) as client:
        result = await client.call_tool(tool, {"path": name})
    assert result.is_error and text(result).endswith(
        f"cannot open {name} as {kind}: its part {member} declares a DTD (<!DOCTYPE …>, with XML "
        "entities); entity declarations are refused"
    ), text(result)


async def test_a_workbook_part_that_is_not_well_formed_is_a_file_that_will_not_open(world: World) -> None:
    """expat's ParseError escaped the tool as 'Error executing tool read_sheet'."""
    if world.base != "sqlite":
        pytest.skip("file checks do not depend on the database")
    _workbook_with_part(world.workspace / "m.xlsx", SHEET, lambda xml: xml.replace("<v>5</v>", "<v>5</x>"))
    async with serve("excel", world) as client:
        result = await client.call_tool("read_sheet", {"path": "m.xlsx"})
    assert result.is_error and "cannot open m.xlsx as a workbook: mismatched tag" in text(result), text(
        result
    )


# (server, the file, the call that creates it, one that adds to it (by its number), one that reads it)
EDITED_WHILE_READ = [
    ("word", "r.docx", ("create_document", {}), ("add_paragraph", lambda i: {"text": f"paragraph {i} " * 20}),
     ("read_document", {})),
    ("pptx", "r.pptx", ("create_deck", {}), ("add_bullet_slide", lambda i: {"title": f"s{i}", "bullets": ["b"] * 5}),
     ("read_deck", {})),
    ("excel", "r.xlsx", ("create_workbook", {"sheets": ["S"]}),
     ("write_range", lambda i: {"sheet": "S", "rows": [[i, "x" * 50]] * 20, "start_cell": f"A{20 * i + 1}"}),
     ("read_sheet", {"sheet": "S", "cell_range": "A1:B5"})),
]  # fmt: skip


@pytest.mark.parametrize(
    ("server", "path", "create", "edit", "read"), EDITED_WHILE_READ, ids=["word", "pptx", "excel"]
)
async def test_a_file_being_saved_is_read_whole(
    world: World, server: str, path: str, create: Any, edit: Any, read: Any
) -> None:
    """Regression: a save rewrites the file in place, and a read that did not wait for it parsed
    a torn zip: with one sub-agent adding to a document and two reading it, 508 of 600 reads
    failed ('File is not a zip file', 'Bad magic number for central directory')."""
    if world.base != "sqlite":
        pytest.skip("file checks do not depend on the database")
    async with serve(server, world) as client:
        made = await client.call_tool(create[0], {"path": path, **create[1]})
        assert not made.is_error, text(made)
        failed: list[str] = []

        async def add() -> None:
            for i in range(40):
                added = await client.call_tool(edit[0], {"path": path, **edit[1](i)})
                assert not added.is_error, text(added)

        async def look() -> None:
            for _ in range(60):
                seen = await client.call_tool(read[0], {"path": path, **read[1]})
                if seen.is_error:
                    failed.append(text(seen))

        await asyncio.gather(add(), look(), look())
    assert not failed, f"{len(failed)} of 120 reads failed: {sorted(set(failed))[:3]}"


async def test_a_file_being_saved_is_whole_to_any_reader(world: World) -> None:
    """Regression: the Office servers saved in place, so what read the file without their lock
    (the terminal, a mail attachment, python_execute) could get a zip cut short. A save now goes
    to memory, then over the file at once."""
    if world.base != "sqlite":
        pytest.skip("file checks do not depend on the database")
    path = world.workspace / "r.docx"
    stop, torn, seen = threading.Event(), [], [0]

    def read_from_disk() -> None:  # as code of python_execute would, while the agents edit
        while not stop.is_set():
            data = path.read_bytes()
            seen[0] += 1
            try:
                with zipfile.ZipFile(io.BytesIO(data)) as z:
                    z.testzip()
            except (zipfile.BadZipFile, EOFError, zlib.error) as exc:
                torn.append(f"{len(data)} bytes: {exc}")

    async with serve("word", world) as client:
        made = await client.call_tool("create_document", {"path": "r.docx"})
        assert not made.is_error, text(made)
        reader = asyncio.create_task(asyncio.to_thread(read_from_disk))
        for i in range(40):
            added = await client.call_tool(
                "add_paragraph", {"path": "r.docx", "text": f"paragraph {i} " * 40}
            )
            assert not added.is_error, text(added)
        stop.set()
        await reader
    assert seen[0] > 0 and not torn, f"{len(torn)} of {seen[0]} reads were torn: {torn[:2]}"


def test_a_save_reaches_the_held_file_even_when_it_was_moved(tmp_path: Path) -> None:
    """Review: a save over the file's name brought back a file the agent had moved away during
    the call (`mv a.docx b.docx`) and left the moved one unchanged. A save goes over the name
    only while the name still names the file the call opened; else into that file itself."""
    files = OfficeFiles(tmp_path, ".docx", "a Word document", lambda p: None, "r.docx")
    for name in ("a.docx", "c.docx"):
        (tmp_path / name).write_bytes(b"old")
    moved = files.path("a.docx", True)
    (tmp_path / "a.docx").rename(tmp_path / "b.docx")  # the agent's mv, while the call runs
    moved.replace_whole(b"new")
    stayed = files.path("c.docx", True)
    stayed.replace_whole(b"new")
    moved.release()
    stayed.release()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["b.docx", "c.docx"]
    assert (tmp_path / "b.docx").read_bytes() == (tmp_path / "c.docx").read_bytes() == b"new"
