"""Values every server must answer with an actionable tool error, not a bare "Error executing
tool X" (an exception the server did not expect)."""

from __future__ import annotations

import pytest

from mcp_servers.common.tooling import ToolError
from mcp_servers.common.values import iso_date, iso_datetime, like_pattern, numeric_id
from tests.mcp_servers.support import World, serve, text

# Code-or-id lookups: "²".isdigit() is true but int("²") fails; ids past 2^63 overflow the driver.
CODE_OR_ID = [
    ("lms", "get_course", "course"),
    ("lms", "get_student", "student"),
    ("shop", "get_product", "sku"),
    ("shop", "get_customer", "customer"),
    ("video", "get_channel", "channel"),
    ("railway", "passenger_bookings", "passenger"),
    ("scholar", "get_author", "author"),
    ("scholar", "search_papers", "author"),
    ("kitchen", "get_recipe", "recipe"),
    ("kitchen", "get_menu", "menu"),
]
ODD_KEYS = ["²", "٣", "99999999999999999999", "9223372036854775808"]
# Integer id arguments past what a database integer holds.
HUGE_IDS = [
    ("mail", "read_message", {"message_id": 10**20}),
    ("wiki", "read_page", {"page_id": 10**20}),
    ("scholar", "get_paper", {"paper_id": -(10**20)}),
]


async def test_code_or_id_lookups_say_what_is_wrong(world: World) -> None:
    for server, tool, arg in CODE_OR_ID:
        async with serve(server, world) as client:
            for key in ODD_KEYS:
                result = await client.call_tool(tool, {arg: key})
                message = text(result)
                assert result.is_error, (tool, key, message)
                assert message.rstrip() != f"Error executing tool {tool}" and ":" in message, (
                    tool,
                    key,
                    message,
                )


async def test_ids_past_a_database_integer_are_refused(world: World) -> None:
    for server, tool, args in HUGE_IDS:
        async with serve(server, world) as client:
            result = await client.call_tool(tool, args)
            assert result.is_error and "names nothing" in text(result), (tool, text(result))


# Texts with a NUL character bound for the database: stored, searched, or the SQL itself.
NUL_CALLS = [
    ("mail", "send_message", {"to": ["buyer@vendor.example"], "subject": "Q3\x00", "body": "see"}),
    ("mail", "create_folder", {"name": "Archive\x00"}),
    ("mail", "list_contacts", {"query": "a\x00zzzz"}),
    ("shop", "search_products", {"query": "a\x00zzzz"}),
    ("warehouse", "run_query", {"sql": "SELECT 1 AS one\x00"}),
]


async def test_a_nul_character_bound_for_the_database_is_refused_alike_on_both_backends(world: World) -> None:
    """PostgreSQL cannot hold a NUL: these calls failed as a bare "Error executing tool" there,
    while SQLite stored it, or ended a search at it ("a\\0zzzz" found 10 products, as "a\\0" did).
    Now each is the same tool error on both, and nothing is written."""
    before = world.dump()
    for server, tool, args in NUL_CALLS:
        async with serve(server, world) as client:
            result = await client.call_tool(tool, args)
            assert result.is_error and "a text holds a NUL character" in text(result), (tool, text(result))
    assert world.dump() == before


def test_numeric_id_takes_ascii_digits_in_range_only() -> None:
    assert numeric_id(" 12 ") == 12 and numeric_id(7) == 7
    for bad in ("²", "١٢", "12a", "", "0", "-3", str(2**63), True, 2**63, 0):
        assert numeric_id(bad) is None, bad


def test_dates_must_be_written_out() -> None:
    assert iso_date("2026-12-01") == "2026-12-01"
    for bad in ("20261201", "2026-W49-1", "2026-12-1", "2026-13-01", "２０２６-12-01"):
        with pytest.raises(ToolError):
            iso_date(bad)
    assert iso_datetime("2026-12-01T14:30").hour == 14
    for bad in ("2026-12-01T14:30+02:00", "2026-12-01", "20261201T1430", "2026-12-01T25:00"):
        with pytest.raises(ToolError):
            iso_datetime(bad)


def test_like_patterns_are_literal() -> None:
    assert like_pattern("100%_a\\b") == "%100\\%\\_a\\\\b%"
