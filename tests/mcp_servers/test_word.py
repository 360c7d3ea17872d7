from __future__ import annotations

import docx
import docx.table
import pytest

from tests.mcp_servers.support import World, as_data, check_confinement, check_contract, serve, text

DOC = "out/Summary.docx"


async def test_word_contract_and_document_contents(world: World) -> None:
    async with serve("word", world) as client:
        made = await client.call_tool("create_document", {"path": DOC, "title": "Quarterly Summary"})
        assert not made.is_error, text(made)
        calls = {
            "list_documents": {},
            "read_document": {"path": DOC},
            "create_document": {"path": "Other.docx"},
            "add_heading": {"path": DOC, "text": "Enrollment", "level": 1},
            "add_paragraph": {"path": DOC, "text": "Enrollment grew by 12%.", "style": "Quote"},
            "add_bullet_list": {"path": DOC, "items": ["CS101: 41", "CS201: 38"]},
            "add_table": {"path": DOC, "rows": [["Course", "Students"], ["CS101", 41], ["CS201", 38.0]]},
        }
        await check_contract(client, world, calls)
        numbered = await client.call_tool(
            "add_bullet_list", {"path": DOC, "items": ["a", "b"], "numbered": True}
        )
        assert not numbered.is_error, text(numbered)

        document = docx.Document(str(world.workspace / DOC))
        assert document.core_properties.title == "Quarterly Summary"
        styled = [(p.style.name, p.text) for p in document.paragraphs]
        assert styled == [
            ("Title", "Quarterly Summary"),
            ("Heading 1", "Enrollment"),
            ("Quote", "Enrollment grew by 12%."),
            ("List Bullet", "CS101: 41"),
            ("List Bullet", "CS201: 38"),
            ("List Number", "a"),
            ("List Number", "b"),
        ]
        [table] = document.tables
        assert [[c.text for c in r.cells] for r in table.rows] == [
            ["Course", "Students"], ["CS101", "41"], ["CS201", "38"],
        ]  # fmt: skip
        assert table.rows[0].cells[0].paragraphs[0].runs[0].bold

        read = as_data(await client.call_tool("read_document", {"path": DOC}))
        assert read["title"] == "Quarterly Summary"
        assert (read["paragraphs"], read["tables"]) == (7, 1)
        kinds = [b["type"] for b in read["blocks"]]
        assert kinds == ["paragraph"] * 5 + ["table"] + ["paragraph"] * 2
        assert read["blocks"][5]["rows"][1] == ["CS101", "41"]
        listed = as_data(await client.call_tool("list_documents", {}))
        assert [d["path"] for d in listed] == ["Other.docx", DOC]


async def test_a_long_table_is_filled_row_by_row(world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    """Regression: add_table filled each cell by python-docx's `table.cell(i, j)`, which lists all
    the table's cells on every call: time grew with the square of the cells (a 100 x 10 table
    took 20 s, a 200 x 10 one 94 s, past the tool's timeout). Counted, not timed: the whole-table
    cell list is never built, and every cell holds its value."""
    built = []
    whole_table = docx.table.Table._cells.fget  # type: ignore[attr-defined]

    def counted(table: docx.table.Table) -> object:
        built.append(table)
        return whole_table(table)

    monkeypatch.setattr(docx.table.Table, "_cells", property(counted))
    rows: list[list[object]] = [["Student", "Score", "Note"]] + [
        [f"S{i:03}", i, "late" if i % 7 else None] for i in range(150)
    ]
    rows[3] = ["short row"]
    async with serve("word", world) as client:
        for call, args in (("create_document", {"path": DOC}), ("add_table", {"path": DOC, "rows": rows})):
            done = await client.call_tool(call, args)
            assert not done.is_error, text(done)
    assert built == []
    [table] = docx.Document(str(world.workspace / DOC)).tables
    cells = [[c.text for c in r.cells] for r in table.rows]
    assert len(cells) == 151 and cells[0] == ["Student", "Score", "Note"]
    assert (
        cells[1] == ["S000", "0", ""]
        and cells[2] == ["S001", "1", "late"]
        and cells[3] == ["short row", "", ""]
    )
    assert cells[150] == ["S149", "149", "late"]
    assert [r.bold for r in table.rows[0].cells[1].paragraphs[0].runs] == [True]


async def test_word_refuses_paths_outside_the_workspace(world: World) -> None:
    async with serve("word", world) as client:
        await check_confinement(client, world, "create_document", {"path": "x.docx"})
        await check_confinement(client, world, "read_document", {"path": "x.docx"})
        await check_confinement(client, world, "add_paragraph", {"path": "x.docx", "text": "hi"})


async def test_word_errors_are_actionable(world: World) -> None:
    (world.workspace / "broken.docx").write_text("not a zip")
    async with serve("word", world) as client:
        assert not (await client.call_tool("create_document", {"path": "a.docx"})).is_error
        for tool, args, expected in [
            ("read_document", {"path": "missing.docx"}, "no such file"),
            ("read_document", {"path": "broken.docx"}, "cannot open"),
            ("create_document", {"path": "notes.txt"}, "not a .docx"),
            ("create_document", {"path": "a.docx"}, "overwrite=true"),
            ("add_heading", {"path": "a.docx", "text": "H", "level": 12}, "level"),
            ("add_paragraph", {"path": "a.docx", "text": "x", "style": "Fancy"}, "unknown paragraph style"),
            ("add_bullet_list", {"path": "a.docx", "items": []}, "non-empty"),
            ("add_table", {"path": "a.docx", "rows": []}, "non-empty"),
            ("add_table", {"path": "a.docx", "rows": "oops"}, "validation error"),
        ]:
            result = await client.call_tool(tool, args)
            assert result.is_error and expected in text(result), (tool, text(result))
        # A refused edit leaves the file as it was.
        assert [p.text for p in docx.Document(str(world.workspace / "a.docx")).paragraphs] == []


async def test_control_characters_are_a_tool_error_and_leave_the_file(world: World) -> None:
    """Regression: a control character in text failed with a bare 'Error executing tool'."""
    async with serve("word", world) as client:
        assert not (await client.call_tool("create_document", {"path": "M.docx"})).is_error
        before = (world.workspace / "M.docx").read_bytes()
        for tool, args in [
            ("add_paragraph", {"path": "M.docx", "text": "a\x07b"}),
            ("add_heading", {"path": "M.docx", "text": "x\x00"}),
            ("add_table", {"path": "M.docx", "rows": [["a", "\x1b"]]}),
            ("create_document", {"path": "N.docx", "title": "T\x01"}),
        ]:
            result = await client.call_tool(tool, args)
            assert result.is_error and "control character" in text(result), (tool, text(result))
        assert (world.workspace / "M.docx").read_bytes() == before
        assert not (world.workspace / "N.docx").exists()


async def test_a_paragraph_style_is_found_in_any_case_and_the_error_lists_them(world: World) -> None:
    """Regression: style 'quote' was refused, and the error offered twelve styles (Normal,
    Header, Heading 1-9 ...) without 'Quote' or 'Caption', the ones the description names."""
    async with serve("word", world) as client:
        assert not (await client.call_tool("create_document", {"path": "a.docx"})).is_error
        done = await client.call_tool("add_paragraph", {"path": "a.docx", "text": "x", "style": "quote"})
        assert not done.is_error, text(done)
        blocks = as_data(await client.call_tool("read_document", {"path": "a.docx"}))["blocks"]
        assert blocks == [{"type": "paragraph", "style": "Quote", "text": "x"}]
        refused = text(
            await client.call_tool("add_paragraph", {"path": "a.docx", "text": "x", "style": "Fancy"})
        )
        assert all(name in refused for name in ("Quote", "Intense Quote", "Caption", "No Spacing"))
