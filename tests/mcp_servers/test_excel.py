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
