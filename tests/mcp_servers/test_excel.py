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
