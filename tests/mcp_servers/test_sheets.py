from __future__ import annotations

import json

import pytest
from sqlmodel import Session, select

from mcp_servers.common.tooling import ToolError
from mcp_servers.sheets import a1
from mcp_servers.sheets.schema import ME, SheetsCell, SheetsPermission, SheetsSheet
from tests.mcp_servers.support import World, as_data, check_contract, serve, text


def test_a1_notation() -> None:
    names = ["Sheet1", "Team Budget"]
    assert a1.parse("Sheet1!A1:C10", names) == a1.Range("Sheet1", 1, 1, 10, 3)
    assert a1.parse("'Team Budget'!B2", names) == a1.Range("Team Budget", 2, 2, 2, 2, anchor=True)
    assert a1.parse("'Team Budget'!B2:B2", names) == a1.Range("Team Budget", 2, 2, 2, 2)
    assert a1.parse("Team Budget", names) == a1.Range("Team Budget", 1, 1, None, None)
    assert a1.parse("c3:a1", names) == a1.Range(None, 1, 1, 3, 3)
    assert a1.parse("Sheet1!B:D", names) == a1.Range("Sheet1", 1, 2, None, 4)
    assert a1.parse("Sheet1!2:5", names) == a1.Range("Sheet1", 2, 1, 5, None)
    assert a1.column_number("AA") == 27 and a1.column_letters(702) == "ZZ"
    assert a1.a1("Team Budget", 1, 1, 2, 28) == "'Team Budget'!A1:AB2"
    for bad in ("Sheet1!A1:B", "1A", "Sheet1!A0", "Sheet1!ZZZZ1", ""):
        with pytest.raises(ToolError):
            a1.parse(bad, names)


async def _book(client, title: str) -> dict:
    [found] = as_data(await client.call_tool("list_spreadsheets", {"query": title}))
    return found


async def test_sheets_contract_and_state(world: World) -> None:
    async with serve("sheets", world) as client:
        budget = await _book(client, "Team Budget")
        assert budget["your_role"] == "writer" and budget["sheets"][:2] == ["Summary", "Operations"]
        calls = {
            "list_spreadsheets": {},
            "get_spreadsheet": {"spreadsheet_id": budget["id"]},
            "read_range": {"spreadsheet_id": budget["id"], "range": "Operations!A1:D3"},
            "create_spreadsheet": {"title": "Ops Q4 summary", "sheets": ["Spend", "Notes"]},
            "add_sheet": {"spreadsheet_id": budget["id"], "title": "Forecast"},
            "write_range": {"spreadsheet_id": budget["id"], "range": "Forecast!B2", "values": [["Month", "Forecast"], ["2026-12", 9400.5]]},
            "append_rows": {"spreadsheet_id": budget["id"], "sheet": "Forecast", "values": [["2027-01", 9800, True]]},
            "share": {"spreadsheet_id": budget["id"], "email": "Lara.Varga@company.example", "role": "writer"},
        }  # fmt: skip
        await check_contract(client, world, calls)

        read = as_data(
            await client.call_tool("read_range", {"spreadsheet_id": budget["id"], "range": "Forecast"})
        )
        assert read == {"range": "Forecast!A1:C4", "values": [[], [None, "Month", "Forecast"], [None, "2026-12", 9400.5], ["2027-01", 9800, True]]}  # fmt: skip
        ops = as_data(
            await client.call_tool(
                "read_range", {"spreadsheet_id": budget["id"], "range": "Operations!A1:D3"}
            )
        )
        assert ops["values"][0] == ["Month", "Category", "Budget", "Actual"]
        assert ops["values"][1][:3] == ["2026-01", "Software", 4200]
        with Session(world.engine) as s:
            [tab] = s.execute(select(SheetsSheet).where(SheetsSheet.title == "Forecast")).scalars()
            cells = {
                (c.row_no, c.col_no): json.loads(c.value)
                for c in s.execute(select(SheetsCell).where(SheetsCell.sheet_id == tab.id)).scalars()
            }
            assert cells == {(2, 2): "Month", (2, 3): "Forecast", (3, 2): "2026-12", (3, 3): 9400.5, (4, 1): "2027-01", (4, 2): 9800, (4, 3): True}  # fmt: skip
            shared = s.execute(select(SheetsPermission).where(SheetsPermission.spreadsheet_id == budget["id"], SheetsPermission.email == "lara.varga@company.example")).scalar_one()  # fmt: skip
            assert shared.role == "writer"
        mine = await _book(client, "Ops Q4 summary")
        assert (mine["owner"], mine["your_role"], mine["sheets"]) == (ME, "owner", ["Spend", "Notes"])
        info = as_data(await client.call_tool("get_spreadsheet", {"spreadsheet_id": budget["id"]}))
        assert {"sheet": "Forecast", "index": 5, "rows": 4, "columns": 3} in info["sheets"]
        # Clearing cells with null / ''.
        cleared = await client.call_tool(
            "write_range",
            {"spreadsheet_id": budget["id"], "range": "Forecast!A4:C4", "values": [[None, "", 1]]},
        )
        assert not cleared.is_error, text(cleared)
        row4 = as_data(
            await client.call_tool("read_range", {"spreadsheet_id": budget["id"], "range": "Forecast!A4:C4"})
        )
        assert row4["values"] == [[None, None, 1]]


async def test_sheets_ranges_read_whole_columns_and_default_sheet(world: World) -> None:
    async with serve("sheets", world) as client:
        pipeline = await _book(client, "Q4 Sales Pipeline")
        whole = as_data(
            await client.call_tool("read_range", {"spreadsheet_id": pipeline["id"], "range": "Pipeline"})
        )
        assert whole["range"] == "Pipeline!A1:F31" and len(whole["values"]) == 31
        amounts = as_data(
            await client.call_tool("read_range", {"spreadsheet_id": pipeline["id"], "range": "Pipeline!E:E"})
        )
        assert amounts["values"][0] == ["Amount"] and all(
            isinstance(r[0], int) for r in amounts["values"][1:]
        )
        first = as_data(
            await client.call_tool("read_range", {"spreadsheet_id": pipeline["id"], "range": "A1:B1"})
        )
        assert first["values"] == [["Deal", "Account"]]


async def test_sheets_bad_input_is_a_tool_error(world: World) -> None:
    async with serve("sheets", world) as client:
        budget = (await _book(client, "Team Budget"))["id"]
        okrs = (await _book(client, "Company OKRs"))["id"]
        hiring = (await _book(client, "Hiring Tracker"))["id"]
        for tool, args, expected in [
            ("get_spreadsheet", {"spreadsheet_id": 10**6}, "no spreadsheet"),
            ("read_range", {"spreadsheet_id": budget, "range": "Nope!A1"}, "no sheet 'Nope'"),
            ("read_range", {"spreadsheet_id": budget, "range": "Budget"}, "sheets of 'Team Budget 2026'"),
            ("read_range", {"spreadsheet_id": budget, "range": "Operations!A1:ZZ100"}, "at most"),
            ("write_range", {"spreadsheet_id": okrs, "range": "OKRs!A1", "values": [["x"]]}, "reader access"),
            (
                "append_rows",
                {"spreadsheet_id": hiring, "sheet": "Open roles", "values": [["x"]]},
                "commenter access",
            ),
            (
                "write_range",
                {"spreadsheet_id": budget, "range": "Summary!A1:B1", "values": [[1, 2, 3]]},
                "do not fit",
            ),
            ("write_range", {"spreadsheet_id": budget, "range": "Summary!A1", "values": []}, "non-empty"),
            (
                "write_range",
                {"spreadsheet_id": budget, "range": "Summary!A1", "values": [[{"a": 1}]]},
                "validation error",
            ),
            ("add_sheet", {"spreadsheet_id": budget, "title": "summary"}, "already has"),
            ("share", {"spreadsheet_id": budget, "email": "kai", "role": "writer"}, "not an e-mail"),
            (
                "share",
                {"spreadsheet_id": budget, "email": "x@company.example", "role": "owner"},
                "role must be",
            ),
            ("share", {"spreadsheet_id": okrs, "email": "x@company.example"}, "reader access"),
            ("create_spreadsheet", {"title": "T", "sheets": ["A", "A"]}, "distinct"),
        ]:
            result = await client.call_tool(tool, args)
            assert result.is_error and expected in text(result), (tool, args, text(result))


async def test_sheet_names_with_spaces_and_quotes(world: World) -> None:
    async with serve("sheets", world) as client:
        made = as_data(
            await client.call_tool("create_spreadsheet", {"title": "Plan", "sheets": ["Q4's plan"]})
        )
        book = made["created"]
        for _ in range(2):
            done = as_data(
                await client.call_tool(
                    "append_rows", {"spreadsheet_id": book, "sheet": "Q4's plan", "values": [["a", 1]]}
                )
            )
        assert done["updated_range"] == "'Q4''s plan'!A2:B2"
        read = as_data(
            await client.call_tool("read_range", {"spreadsheet_id": book, "range": "'Q4''s plan'!A1:B2"})
        )
        assert read["values"] == [["a", 1], ["a", 1]]


async def test_write_range_past_the_sheet_limits_is_refused(world: World) -> None:
    """Regression: a write anchored near the last row or column stored cells past the sheet's
    limits, which no range could then read."""
    async with serve("sheets", world) as client:
        made = as_data(await client.call_tool("create_spreadsheet", {"title": "Edge", "sheets": ["S"]}))
        book = made["created"]
        for anchor, values in [("S!ZZ1", [[1, 2]]), (f"S!A{a1.MAX_ROWS}", [[1], [2]])]:
            result = await client.call_tool(
                "write_range", {"spreadsheet_id": book, "range": anchor, "values": values}
            )
            assert result.is_error and "past the sheet's limits" in text(result), (anchor, text(result))
        fits = await client.call_tool(
            "write_range", {"spreadsheet_id": book, "range": "S!ZY1", "values": [[1, 2]]}
        )
        assert not fits.is_error, text(fits)


async def test_a_bounded_one_cell_range_does_not_take_more_values(world: World) -> None:
    """Regression: write_range of 2x2 values to 'Summary!A1:A1' wrote Summary!A1:B2, while
    'Summary!A1:B1' refused them: any bounded 1x1 range was taken for a bare anchor. Whole rows
    and columns bound the side they close."""
    async with serve("sheets", world) as client:
        budget = (await _book(client, "Team Budget"))["id"]
        values = [[1, 2], [3, 4]]
        before = world.dump("sheets_")
        for rng in ("Summary!A1:A1", "Summary!A1:B1", "Summary!A:A", "Summary!1:1"):
            result = await client.call_tool(
                "write_range", {"spreadsheet_id": budget, "range": rng, "values": values}
            )
            assert result.is_error and f"2x2 values do not fit in {rng!r}" in text(result), (
                rng,
                text(result),
            )
        assert world.dump("sheets_") == before
        for rng in ("Summary!H1", "Summary!J1:K2", "Summary!M:N"):
            done = as_data(
                await client.call_tool(
                    "write_range", {"spreadsheet_id": budget, "range": rng, "values": values}
                )
            )
            assert done["updated_cells"] == 4, (rng, done)
        read = as_data(
            await client.call_tool("read_range", {"spreadsheet_id": budget, "range": "Summary!H1:N2"})
        )
        assert read["values"] == [[1, 2, 1, 2, None, 1, 2], [3, 4, 3, 4, None, 3, 4]]


async def test_tools_that_overwrite_or_remove_say_destructive(world: World) -> None:
    """Regression: write_range overwrites and (with null) clears cells, and share replaces a
    person's role (writer to reader takes write access away), yet both said destructiveHint
    false, which MCP reads as "only additive updates". create_spreadsheet, add_sheet and
    append_rows (below the last used row) only add."""
    async with serve("sheets", world) as client:
        tools = (await client.list_tools()).tools
        hints = {t.name: t.annotations.destructive_hint for t in tools if t.annotations}
        assert hints == {
            "list_spreadsheets": None,
            "get_spreadsheet": None,
            "read_range": None,
            "create_spreadsheet": False,
            "add_sheet": False,
            "write_range": True,
            "append_rows": False,
            "share": True,
        }


async def test_new_sheet_names_are_stripped_and_distinct_ignoring_case(world: World) -> None:
    """Regression: create_spreadsheet kept ' Pad ' as typed (then 'Pad' named no sheet) and took
    'Data' and 'data' together, where add_sheet strips names and refuses a case-only twin."""
    async with serve("sheets", world) as client:
        made = as_data(await client.call_tool("create_spreadsheet", {"title": "T", "sheets": [" Pad "]}))
        assert made["sheets"] == ["Pad"]
        wrote = await client.call_tool(
            "write_range", {"spreadsheet_id": made["created"], "range": "Pad!A1", "values": [[1]]}
        )
        assert not wrote.is_error, text(wrote)
        twins = await client.call_tool("create_spreadsheet", {"title": "U", "sheets": ["Data", "data"]})
        assert twins.is_error and "distinct ignoring case" in text(twins), text(twins)
