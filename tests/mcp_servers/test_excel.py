from __future__ import annotations

from openpyxl import load_workbook

from tests.mcp_servers.support import World, as_data, check_confinement, check_contract, serve, text


async def test_excel_contract_and_file_contents(world: World) -> None:
    async with serve("excel", world) as client:
        made = await client.call_tool(
            "create_workbook", {"path": "out/Report.xlsx", "sheets": ["Data", "Notes"]}
        )
        assert not made.is_error, text(made)
        calls = {
            "list_workbooks": {},
            "list_sheets": {"path": "out/Report.xlsx"},
            "read_sheet": {"path": "out/Report.xlsx", "sheet": "Data"},
            "create_workbook": {"path": "Other.xlsx"},
            "add_sheet": {"path": "out/Report.xlsx", "sheet": "Extra"},
            "write_range": {
                "path": "out/Report.xlsx",
                "sheet": "Data",
                "rows": [["name", "score"], ["Ada", 3.5]],
            },
            "append_rows": {
                "path": "out/Report.xlsx",
                "sheet": "Data",
                "rows": [["Ben", 4], ["Cy", "=B2+B3"]],
            },
            "delete_sheet": {"path": "out/Report.xlsx", "sheet": "Notes"},
        }
        await check_contract(client, world, calls)
        wb = load_workbook(world.workspace / "out" / "Report.xlsx")
        assert wb.sheetnames == ["Data", "Extra"]
        assert [list(r) for r in wb["Data"].iter_rows(values_only=True)] == [
            ["name", "score"], ["Ada", 3.5], ["Ben", 4], ["Cy", "=B2+B3"],
        ]  # fmt: skip
        read = as_data(
            await client.call_tool("read_sheet", {"path": "out/Report.xlsx", "cell_range": "A2:B2"})
        )
        assert read["rows"] == [["Ada", 3.5]]
        # The formula is computed when read (B2 + B3 = 3.5 + 4), or shown as written on request.
        cy = {"path": "out/Report.xlsx", "sheet": "Data", "cell_range": "A4:B4"}
        assert as_data(await client.call_tool("read_sheet", cy))["rows"] == [["Cy", 7.5]]
        shown = as_data(await client.call_tool("read_sheet", {**cy, "render": "formula"}))
        assert shown["rows"] == [["Cy", "=B2+B3"]]
        whole = as_data(
            await client.call_tool("read_sheet", {"path": "out/Report.xlsx", "cell_range": "B:B"})
        )
        assert whole["rows"] == [["score"], [3.5], [4], [7.5]]


async def test_excel_refuses_paths_outside_the_workspace(world: World) -> None:
    async with serve("excel", world) as client:
        await check_confinement(client, world, "create_workbook", {"path": "x.xlsx"})
        await check_confinement(client, world, "read_sheet", {"path": "x.xlsx"})


async def test_excel_errors_are_actionable(world: World) -> None:
    (world.workspace / "broken.xlsx").write_text("not a zip")
    async with serve("excel", world) as client:
        for tool, args, expected in [
            ("list_sheets", {"path": "missing.xlsx"}, "no such file"),
            ("list_sheets", {"path": "broken.xlsx"}, "cannot open"),
            ("create_workbook", {"path": "notes.txt"}, "not a .xlsx path"),
            (
                "write_range",
                {"path": "broken.xlsx", "sheet": "S", "rows": [[1]], "start_cell": "1A"},
                "cell reference",
            ),
        ]:
            result = await client.call_tool(tool, args)
            assert result.is_error and expected in text(result), (tool, text(result))


async def test_bad_sheet_names_cells_and_text_are_refused_with_a_reason(world: World) -> None:
    """Regressions: names Excel refuses, control characters and columns past XFD failed with a bare
    error; add_sheet of 'data' beside 'Data' silently made 'data1'."""
    async with serve("excel", world) as client:
        assert not (
            await client.call_tool("create_workbook", {"path": "B.xlsx", "sheets": ["Data"]})
        ).is_error
        book = {"path": "B.xlsx"}
        for tool, args, expected in [
            ("create_workbook", {"path": "C.xlsx", "sheets": ["a/b"]}, "not allowed"),
            ("create_workbook", {"path": "C.xlsx", "sheets": ["x" * 32]}, "at most 31"),
            ("create_workbook", {"path": "C.xlsx", "sheets": ["Data", "DATA"]}, "ignoring case"),
            ("add_sheet", {**book, "sheet": "Q1?"}, "not allowed"),
            ("add_sheet", {**book, "sheet": "[x]"}, "not allowed"),
            ("add_sheet", {**book, "sheet": "data"}, "ignores case"),
            ("write_range", {**book, "sheet": "DATA", "rows": [[1]]}, "there is 'Data'"),
            ("write_range", {**book, "sheet": "Data", "rows": [["a\x07b"]], "start_cell": "C3"}, "cell C3"),
            (
                "write_range",
                {**book, "sheet": "Data", "rows": [[1]], "start_cell": "XFE1"},
                "outside a sheet",
            ),
            (
                "write_range",
                {**book, "sheet": "Data", "rows": [[1, 2]], "start_cell": "XFD1"},
                "past the sheet",
            ),
            ("append_rows", {**book, "sheet": "Data", "rows": [["\x00"]]}, "control character"),
        ]:
            result = await client.call_tool(tool, args)
            assert result.is_error and expected in text(result), (tool, args, text(result))
        assert load_workbook(world.workspace / "B.xlsx").sheetnames == ["Data"]


async def test_a_long_sheet_is_read_in_parts_and_says_so(world: World) -> None:
    """Regression: read_sheet cut a sheet at 500 rows without saying so."""
    async with serve("excel", world) as client:
        await client.call_tool("create_workbook", {"path": "L.xlsx", "sheets": ["S"]})
        rows = [[i] + [0] * 104 for i in range(1, 621)]
        assert not (
            await client.call_tool("write_range", {"path": "L.xlsx", "sheet": "S", "rows": rows})
        ).is_error
        got = as_data(await client.call_tool("read_sheet", {"path": "L.xlsx"}))
        assert len(got["rows"]) == 500 and len(got["rows"][0]) == 100
        assert got["more"] == {
            "rows": 120,
            "next_rows": "A501:DA620",
            "columns": 5,
            "next_columns": "CW1:DA500",
        }
        rest = as_data(await client.call_tool("read_sheet", {"path": "L.xlsx", "cell_range": "A501:A620"}))
        assert rest["rows"][-1] == [620] and "more" not in rest


OUTSIDE = "is outside a sheet (columns A to XFD, rows 1 to 1048576)"


async def test_cells_and_ranges_outside_the_sheet_are_refused_with_the_bounds(world: World) -> None:
    """Regression: read_sheet of rows past 1,048,576 failed with a bare 'Error executing tool
    read_sheet' (and a traceback on the server); A0 read the whole of column A, 0:0 the whole
    sheet, and XFE1 (one column past XFD) a cell."""
    async with serve("excel", world) as client:
        await client.call_tool("create_workbook", {"path": "R.xlsx", "sheets": ["Data"]})
        rows = [["a", 1], ["b", 2]]
        wrote = await client.call_tool("write_range", {"path": "R.xlsx", "sheet": "Data", "rows": rows})
        assert not wrote.is_error, text(wrote)
        book = world.workspace / "R.xlsx"
        before = book.read_bytes()
        bad_ranges = ["A1048577", "1048577", "A2000000:B2000001", "A0", "0:0", "XFE1", "A1:XFE1", "XFE:XFE"]
        for bad in bad_ranges:
            result = await client.call_tool("read_sheet", {"path": "R.xlsx", "cell_range": bad})
            assert result.is_error and f"{bad!r} {OUTSIDE}" in text(result), (bad, text(result))
        for bad in ["A0", "A1048577", "XFE1"]:
            args = {"path": "R.xlsx", "sheet": "Data", "rows": [["x"]], "start_cell": bad}
            result = await client.call_tool("write_range", args)
            assert result.is_error and f"{bad!r} {OUTSIDE}" in text(result), (bad, text(result))
        assert book.read_bytes() == before
        assert [list(r) for r in load_workbook(book)["Data"].iter_rows(values_only=True)] == rows


async def test_whole_rows_columns_and_ranges_up_to_the_last_cell_still_read(world: World) -> None:
    async with serve("excel", world) as client:
        await client.call_tool("create_workbook", {"path": "R.xlsx", "sheets": ["Data"]})
        await client.call_tool(
            "write_range", {"path": "R.xlsx", "sheet": "Data", "rows": [["a", 1], ["b", 2]]}
        )

        async def read(cell_range: str) -> list[list[object]]:
            result = await client.call_tool("read_sheet", {"path": "R.xlsx", "cell_range": cell_range})
            return as_data(result)["rows"]

        assert await read("A:A") == [["a"], ["b"]]
        assert await read("1:1") == [["a", 1]]
        assert await read("A1:C3") == [["a", 1, None], ["b", 2, None], [None, None, None]]
        assert await read("B2:A1") == [["a", 1], ["b", 2]]  # the same cells as A1:B2, as in Excel
        assert await read("XFD1048576") == [[None]]
        last = {"path": "R.xlsx", "sheet": "Data", "rows": [["end"]], "start_cell": "XFD1048576"}
        assert not (await client.call_tool("write_range", last)).is_error
        assert await read("XFD1048576") == [["end"]]


async def test_tools_that_overwrite_or_delete_say_destructive(world: World) -> None:
    """Regression: write_range overwrites cells, yet said destructiveHint false, which MCP reads as
    "only additive updates". add_sheet and append_rows (below the last used row) only add."""
    async with serve("excel", world) as client:
        hints = {
            t.name: t.annotations.destructive_hint for t in (await client.list_tools()).tools if t.annotations
        }
        assert hints == {
            "list_workbooks": None,
            "list_sheets": None,
            "read_sheet": None,
            "create_workbook": True,  # overwrite=true replaces a workbook
            "add_sheet": False,
            "delete_sheet": True,
            "write_range": True,
            "append_rows": False,
        }
        await client.call_tool("create_workbook", {"path": "W.xlsx", "sheets": ["Data"]})
        for value in ("first", "second"):
            args = {"path": "W.xlsx", "sheet": "Data", "rows": [[value]]}
            assert not (await client.call_tool("write_range", args)).is_error
        assert load_workbook(world.workspace / "W.xlsx")["Data"]["A1"].value == "second"


async def test_whole_column_and_row_formulas_are_computed_when_read(world: World) -> None:
    """Regression: `=SUM(B:B)` was #NAME? (B read as a name), and write_range did not say which
    references a formula may use."""
    async with serve("excel", world) as client:
        tools = {t.name: t.description or "" for t in (await client.list_tools()).tools}
        assert "whole columns B:B" in tools["write_range"]
        await client.call_tool("create_workbook", {"path": "B.xlsx", "sheets": ["Data", "Team Budget"]})
        rows = [
            ["Item", "Cost", "=SUM(B:B)"],
            ["Laptops", 1200, "=MAX('Team Budget'!A:B)"],
            ["Desks", 450.5, "=COUNTA($A:$A)"],
            ["A:A", None, "=SUM(2:2)"],
            [None, None, "=SUM(C:C)"],
        ]
        for sheet, values in (("Data", rows), ("Team Budget", [[7, 30], [None, 12]])):
            args = {"path": "B.xlsx", "sheet": sheet, "rows": values}
            assert not (await client.call_tool("write_range", args)).is_error
        read = as_data(await client.call_tool("read_sheet", {"path": "B.xlsx", "sheet": "Data"}))
    # C1: 1200 + 450.5; C2: max(7, 30, 12); C3: Item, Laptops, Desks and the text "A:A";
    # C4: 1200 + 30 (C2; "Laptops" is text); C5 holds itself: #REF!.
    assert [r[2] for r in read["rows"]] == [1650.5, 30, 4, 1230, "#REF!"]
    assert read["rows"][3][0] == "A:A"
