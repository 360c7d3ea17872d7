"""`readOnlyHint` tells the truth, for every tool of every server (SPEC §5).

The harness offers read-only sub-agents only the tools marked `readOnlyHint: true`, so a read
tool that writes anything is a hole in that confinement. For each server (whatever servers the
registry holds: a server or tool missing from the tables below fails the test):

- every read-only tool, called with valid arguments on a seeded world and workspace, leaves the
  whole world database (every table's rows), the workspace tree (paths, kinds, sizes, modes,
  mtimes, contents) and the server's own state as they were. Server state is seen through the
  tools themselves: all reads run on one instance in order, on a fresh instance in reverse
  order, then again on the first; each read must answer the same all three times (a read that
  moved a cursor or marked something seen answers differently once another read ran first);
- every writing tool, called with valid arguments, changes something (the database, the
  workspace, or what a named read tool answers);
- every tool's function label is one of the 24 of SPEC §6, and its mode agrees with the hint.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import stat
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from mcp import Client

from contracts.labels import LABELS, label_mode
from mcp_servers.common import registry
from mcp_servers.common.tooling import BOOKKEEPING_META_KEY, LABEL_META_KEY
from tests.mcp_servers.support import World, serve, text

Args = dict[str, Any]

XLSX, DOCX, PPTX = "reports/Summary.xlsx", "reports/Brief.docx", "reports/Deck.pptx"
MONDAY = "2026-12-07"

# Valid calls of every read-only tool, several where a tool has paths worth covering.
READS: dict[str, dict[str, list[Args]]] = {
    "calendar": {
        "list_calendars": [{}],
        "list_events": [{"start": "2026-11-23", "end": "2026-12-04"}, {"start": "2026-12-01", "end": "2026-12-02", "calendar": "Work", "query": "standup"}],
        "get_event": [{"event_id": 46}],
        "find_free_slots": [{"attendees": ["me@company.example", "kai.kaur@company.example"], "start": "2026-12-01", "end": "2026-12-04", "duration_minutes": 60}],
    },
    "excel": {
        "list_workbooks": [{}],
        "list_sheets": [{"path": XLSX}],
        "read_sheet": [{"path": XLSX}, {"path": XLSX, "sheet": "Data", "cell_range": "A1:C4", "render": "formula"}],
    },
    "kitchen": {
        "search_recipes": [{"query": ""}, {"cuisine": "Italian", "course": "main", "exclude_allergens": ["dairy"]}],
        "get_recipe": [{"recipe": "Pad Thai"}],
        "get_ingredient": [{"name": "Tofu"}],
        "list_menus": [{}],
        "get_menu": [{"menu": "Vegan Tasting Menu"}],
        "shopping_list": [{"menu": "Indian Banquet", "guests": 40}, {"recipe": "Pad Thai", "guests": 3}],
        "list_catering_orders": [{}, {"status": "confirmed"}],
        "get_catering_order": [{"reference": "CO-1068"}],
    },
    "lms": {
        "list_courses": [{}, {"term": "2026-fall"}],
        "get_course": [{"course": "CS101"}],
        "list_enrollments": [{"course": "CS101", "page": 1, "page_size": 10}],
        "get_student": [{"student": "S00001"}],
        "list_assignments": [{"course": "CS101"}],
        "list_submissions": [{"assignment_id": 1}, {"assignment_id": 1, "status": "missing"}],
        "get_grades": [{"course": "CS101"}, {"course": "CS101", "assignment_id": 1}],
        "list_announcements": [{"course": "CS101"}],
    },
    "local": {
        "claim_done": [{"summary": "all done"}],
        "todo_read": [{}],
    },
    "mail": {
        "list_folders": [{}],
        "list_messages": [{}, {"folder": "inbox", "unread_only": True, "page_size": 5}],
        "read_message": [{"message_id": 64}, {"message_id": 1}],
        "list_contacts": [{}, {"query": "Finance"}],
    },
    "market": {
        "list_tickers": [{}, {"sector": "Technology"}],
        "get_quote": [{"symbol": "NOVA"}],
        "get_price_history": [{"symbol": "nova", "start_date": "2026-03-01", "end_date": "2026-03-31"}, {"symbol": "SEMI", "interval": "weekly"}],
        "get_financials": [{"symbol": "SEMI", "quarters": 2}],
        "search_news": [{}, {"symbol": "NOVA"}],
        "list_watchlists": [{}],
        "get_watchlist": [{"name": "Core holdings"}],
    },
    "pptx": {
        "list_decks": [{}],
        "read_deck": [{"path": PPTX}],
    },
    "railway": {
        "search_stations": [{"query": "aldermoor"}],
        "station_departures": [{"station": "ALC", "travel_date": MONDAY, "after": "12:00"}],
        "find_connections": [{"origin": "Northam", "destination": "Southport Harbour", "travel_date": MONDAY}],
        "get_timetable": [{"train": "IC 101"}],
        "seat_availability": [{"train": "IC 103", "travel_date": MONDAY}],
        "search_passengers": [{"query": "Jonas"}],
        "get_booking": [{"reference": "XBRZ6V"}],
        "passenger_bookings": [{"passenger": "P00001"}],
        "train_bookings": [{"train": "IC 103", "travel_date": MONDAY}],
    },
    "scholar": {
        "search_papers": [{"query": "delegation"}, {"query": "retrieval", "sort": "citations", "year_from": 2020}],
        "list_topics": [{}],
        "get_paper": [{"paper_id": 1}],
        "find_authors": [{"query": "Aldermoor"}],
        "get_author": [{"author": "1"}],
        "get_citations": [{"paper_id": 1}],
        "get_references": [{"paper_id": 1}],
        "read_paper_page": [{"paper_id": 1}, {"paper_id": 1, "page": 2}],
        "list_reading_lists": [{}],
        "get_reading_list": [{"name": "Delegation survey"}],
    },
    "sheets": {
        "list_spreadsheets": [{}],
        "get_spreadsheet": [{"spreadsheet_id": 4}],
        "read_range": [{"spreadsheet_id": 4, "range": "A1:F20"}, {"spreadsheet_id": 5, "range": "Totals!A1:C3"}, {"spreadsheet_id": 5, "range": "Totals!A1:C3", "render": "formula"}],
    },
    "shop": {
        "search_products": [{}, {"query": "headphones", "sort": "rating"}],
        "get_product": [{"sku": "AUD-1001"}],
        "low_stock_report": [{"page_size": 5}],
        "find_customers": [{"query": "garcia"}],
        "get_customer": [{"customer": "CU10001"}],
        "get_order": [{"order_number": "ORD-100001"}],
        "list_orders": [{}, {"customer": "CU10001", "status": "delivered"}],
        "list_reviews": [{"sku": "AUD-1001", "min_rating": 4}],
        "list_coupons": [{}, {"state": "valid"}],
    },
    "terminal": {
        "ls": [{}, {"path": "reports", "all": True, "long": True}],
        "cat": [{"path": "notes/todo.txt", "number_lines": True}],
        "head": [{"path": "data.csv", "n": 2}],
        "tail": [{"path": "data.csv", "n": 2}],
        "grep": [{"pattern": "north", "path": ".", "recursive": True, "ignore_case": True, "line_numbers": True}],
        "wc": [{"path": "data.csv"}],
        "find": [{}, {"path": ".", "name": "*.txt", "type": "f"}],
    },
    "video": {
        "list_channels": [{}],
        "get_channel": [{"channel": "@cookwithmara"}],
        "search_videos": [{}, {"query": "curry", "sort": "most_viewed"}],
        "get_video": [{"video_id": "PyMMF9rV6uJ"}],
        "get_video_stats": [{"video_id": "PyMMF9rV6uJ", "start_date": "2026-11-01"}],
        "get_channel_stats": [{"channel": "@techunboxed", "start_date": "2026-11-01"}],
        "list_comments": [{"video_id": "PyMMF9rV6uJ"}, {"video_id": "PyMMF9rV6uJ", "sort": "top", "include_hidden": True}],
        "list_playlists": [{}, {"channel": "@cookwithmara"}],
        "get_playlist": [{"playlist_id": 1}],
    },
    "warehouse": {
        "list_tables": [{}],
        "describe_table": [{"table": "warehouse_sales_orders"}],
        "sample_rows": [{"table": "warehouse_employees", "limit": 3}],
        "run_query": [
            {"sql": "SELECT code, name FROM warehouse_regions ORDER BY code"},
            {"sql": "WITH r AS (SELECT code FROM warehouse_regions) SELECT count(*) AS n FROM r"},
        ],
    },
    "web": {
        "search": [{"query": "refund railcard"}, {"query": "delegation", "site": "agents-handbook.example", "limit": 3}],
        "read_page": [{"url": "https://agents-handbook.example/evaluating-delegation"}, {"url": "https://meridianrail.example/timetables/meridian-main-line", "chunk": 2}],
        "find_in_page": [{"url": "https://agents-handbook.example/evaluating-delegation", "text": "delegation"}],
        "list_links": [{"url": "https://agents-handbook.example/evaluating-delegation"}],
        "list_sites": [{}],
    },
    "wiki": {
        "search_pages": [{}, {"query": "latency"}],
        "read_page": [{"page_id": 18}],
        "query_rows": [{"database_id": 1}, {"database_id": 1, "filters": [{"property": "Status", "op": "eq", "value": "Blocked"}], "sort_by": "Due"}],
    },
    "word": {
        "list_documents": [{}],
        "read_document": [{"path": DOCX}],
    },
}  # fmt: skip

# Valid calls of every writing tool, in order (later ones may build on earlier ones); each must
# change the database or the workspace, or what the read named in OBSERVED_BY answers. Some
# writes change nothing when the world already holds what they would write (mark_read of a read
# message, mkdir parents=true of an existing folder, share with the role someone already has,
# remove_menu_item of a recipe not on the menu is refused); the calls here are ones that write.
WRITES: dict[str, list[tuple[str, Args]]] = {
    "calendar": [
        ("create_event", {"title": "Offsite", "start": "2026-12-08T10:00", "end": "2026-12-08T11:00", "attendees": ["kai.kaur@company.example"]}),
        ("update_event", {"event_id": 46, "location": "Atrium"}),
        ("delete_event", {"event_id": 47}),
    ],
    "excel": [
        ("create_workbook", {"path": "Other.xlsx", "sheets": ["One"]}),
        ("add_sheet", {"path": XLSX, "sheet": "Extra"}),
        ("write_range", {"path": XLSX, "sheet": "Extra", "rows": [["a", 1]], "start_cell": "B2"}),
        ("append_rows", {"path": XLSX, "sheet": "Extra", "rows": [["b", 2]]}),
        ("delete_sheet", {"path": XLSX, "sheet": "Extra"}),
    ],
    "kitchen": [
        ("create_menu", {"name": "Board Lunch", "recipes": ["Greek Salad", "Falafel", "Baklava"]}),
        ("add_menu_item", {"menu": "Board Lunch", "recipe": "Hummus"}),
        ("remove_menu_item", {"menu": "Board Lunch", "recipe": "Baklava"}),
        ("create_catering_order", {"client": "Larkspur Labs", "contact_email": "people@larkspurlabs.example", "event_date": "2026-12-12", "guests": 35, "menu": "Board Lunch"}),
        ("update_catering_order", {"reference": "CO-1068", "guests": 70}),
    ],
    "lms": [
        ("set_grade", {"assignment_id": 1, "student": "S00001", "score": 10}),
        ("post_announcement", {"course": "CS101", "title": "Exam", "body": "The exam is on Friday."}),
        ("update_enrollment", {"course": "CS101", "student": "S00001", "status": "dropped"}),
        ("create_assignment", {"course": "CS101", "title": "Essay", "kind": "project", "due_date": "2026-12-10", "points_possible": 30}),
    ],
    "local": [
        ("todo_write", {"items": [{"content": "read roster", "status": "in_progress"}]}),
        ("python_execute", {"code": "open('out.txt', 'w').write('42')"}),
    ],
    "mail": [
        ("send_message", {"to": ["kai.kaur@company.example"], "subject": "Summary", "body": "Attached.", "attachments": [XLSX]}),
        ("reply_message", {"message_id": 64, "body": "Will do."}),
        ("forward_message", {"message_id": 65, "to": ["jade.dubois@company.example"]}),
        ("create_folder", {"name": "Board"}),
        ("move_message", {"message_id": 65, "folder": "Board"}),
        ("mark_read", {"message_id": 64}),
    ],
    "market": [
        ("create_watchlist", {"name": "Energy", "symbols": ["SOLR"]}),
        ("add_to_watchlist", {"watchlist": "Energy", "symbol": "NOVA"}),
        ("remove_from_watchlist", {"watchlist": "Energy", "symbol": "SOLR"}),
    ],
    "pptx": [
        ("create_deck", {"path": "Other.pptx"}),
        ("add_title_slide", {"path": PPTX, "title": "Fall Review"}),
        ("add_bullet_slide", {"path": PPTX, "title": "Highlights", "bullets": ["Growth"]}),
        ("add_table_slide", {"path": PPTX, "title": "Figures", "rows": [["Course", "Students"], ["CS101", 41]]}),
        ("add_notes", {"path": PPTX, "slide": 1, "notes": "Welcome."}),
    ],
    "railway": [
        ("register_passenger", {"name": "Test Traveller", "email": "test.traveller@mail.example"}),
        ("book_journey", {"passenger": "P00001", "origin": "NTH", "destination": "SPH", "travel_date": MONDAY, "trains": ["IC 103"]}),
        ("cancel_booking", {"reference": "XBRZ6V"}),
        ("change_seat_class", {"reference": "J6E9P3", "seat_class": "first"}),
    ],
    "scholar": [
        ("create_reading_list", {"name": "RAG reading"}),
        ("add_to_reading_list", {"name": "RAG reading", "paper_id": 1}),
        ("remove_from_reading_list", {"name": "Delegation survey", "paper_id": 287}),
    ],
    "sheets": [
        ("create_spreadsheet", {"title": "Ops summary", "sheets": ["Spend"]}),
        ("add_sheet", {"spreadsheet_id": 1, "title": "Forecast"}),
        ("write_range", {"spreadsheet_id": 1, "range": "Forecast!B2", "values": [["Month", 9400.5]]}),
        ("append_rows", {"spreadsheet_id": 1, "sheet": "Forecast", "values": [["2027-01", 9800]]}),
        ("share", {"spreadsheet_id": 5, "email": "lara.varga@company.example", "role": "writer"}),
    ],
    "shop": [
        ("create_order", {"customer": "CU10001", "items": [{"sku": "AUD-1001", "quantity": 1}]}),
        ("update_order_status", {"order_number": "ORD-100886", "status": "shipped"}),
        ("issue_refund", {"order_number": "ORD-100002", "amount": 5, "reason": "damaged box"}),
        ("restock", {"sku": "AUD-1001", "quantity": 5}),
        ("create_coupon", {"code": "WINTER26", "kind": "percent", "value": 10, "valid_from": "2026-12-01", "valid_until": "2026-12-31"}),
        ("cancel_order", {"order_number": "@created", "reason": "customer request"}),
    ],
    "terminal": [
        ("mkdir", {"path": "out/deep", "parents": True}),
        ("write_file", {"path": "out/a.txt", "content": "a\n"}),
        ("cp", {"src": "out/a.txt", "dst": "out/b.txt"}),
        ("mv", {"src": "out/b.txt", "dst": "out/c.txt"}),
        ("rm", {"path": "out/deep", "recursive": True}),
    ],
    "video": [
        ("create_playlist", {"channel": "@cookwithmara", "title": "Winter"}),
        ("add_to_playlist", {"playlist_id": 1, "video_id": "XiagvKfUpo0"}),
        ("remove_from_playlist", {"playlist_id": 1, "video_id": "XiagvKfUpo0"}),
        ("reorder_playlist", {"playlist_id": 1, "video_ids": "@reversed"}),
        ("reply_to_comment", {"comment_id": 1, "body": "Thank you!"}),
        ("hide_comment", {"comment_id": 2, "reason": "off-topic"}),
        ("update_video", {"video_id": "PyMMF9rV6uJ", "title": "Lentil Curry in One Pot"}),
    ],
    "warehouse": [],
    "web": [],
    "wiki": [
        ("create_page", {"title": "Offsite 2026", "parent_id": 18, "markdown": "# Agenda"}),
        ("append_blocks", {"page_id": 18, "markdown": "- laptop refresh"}),
        ("update_page", {"page_id": 18, "title": "Operations team"}),
        ("create_database", {"title": "Trips", "properties": [{"name": "Name", "type": "title"}]}),
        ("add_row", {"database_id": 1, "values": {"Name": "Offsite", "Status": "Not started"}}),
        ("update_row", {"row_id": 1, "values": {"Status": "Blocked"}}),
    ],
    "word": [
        ("create_document", {"path": "Other.docx"}),
        ("add_heading", {"path": DOCX, "text": "Enrollment", "level": 1}),
        ("add_paragraph", {"path": DOCX, "text": "Enrollment grew by 12%."}),
        ("add_bullet_list", {"path": DOCX, "items": ["CS101: 41"]}),
        ("add_table", {"path": DOCX, "rows": [["Course", "Students"], ["CS101", 41]]}),
    ],
}  # fmt: skip

# Writing tools whose change is the server's own state, seen through a read (server, tool): read.
OBSERVED_BY: dict[tuple[str, str], tuple[str, Args]] = {("local", "todo_write"): ("todo_read", {})}


async def seed_world(world: World) -> None:
    """Things for the reads to read: workspace files (a workbook with a formula, a document, a deck,
    text) and a cloud sheet with a formula."""
    ws = world.workspace
    (ws / "notes").mkdir()
    (ws / "notes" / "todo.txt").write_text("check the north region\nsend the deck\n")
    (ws / "data.csv").write_text("region,sales\nNorth,10\nSouth,12\nEast,7\n")
    (ws / ".hidden").write_text("x")
    calls: list[tuple[str, str, Args]] = [
        ("excel", "create_workbook", {"path": XLSX, "sheets": ["Data"]}),
        ("excel", "write_range", {"path": XLSX, "sheet": "Data", "rows": [["region", "sales"], ["North", 10], ["South", 12], ["Total", "=SUM(B2:B3)"]]}),
        ("word", "create_document", {"path": DOCX, "title": "Brief"}),
        ("word", "add_paragraph", {"path": DOCX, "text": "Sales grew in the north."}),
        ("pptx", "create_deck", {"path": PPTX}),
        ("pptx", "add_title_slide", {"path": PPTX, "title": "Review", "subtitle": "2026"}),
        ("sheets", "add_sheet", {"spreadsheet_id": 5, "title": "Totals"}),
        ("sheets", "write_range", {"spreadsheet_id": 5, "range": "Totals!A1", "values": [["a", 2], ["b", 3], ["sum", "=SUM(B1:B2)"]]}),
    ]  # fmt: skip
    for server, tool, args in calls:
        async with serve(server, world) as client:
            result = await client.call_tool(tool, args)
            assert not result.is_error, text(result)


def database(world: World, prefix: str = "") -> dict[str, Any]:
    """Every row of every table whose name starts with `prefix`, and where each id sequence
    stands (a write rolled back still moves a PostgreSQL sequence, and the ids of later rows)."""
    out: dict[str, Any] = dict(world.dump(prefix))
    with world.engine.connect() as conn:
        if world.engine.dialect.name == "postgresql":
            names = conn.execute(
                sa.text("SELECT sequencename FROM pg_sequences WHERE schemaname = current_schema()")
            ).scalars()
            for name in sorted(n for n in names if n.startswith(prefix)):
                out[f"sequence {name}"] = tuple(
                    conn.execute(sa.text(f'SELECT last_value, is_called FROM "{name}"')).one()
                )
        elif conn.execute(sa.text("SELECT 1 FROM sqlite_master WHERE name = 'sqlite_sequence'")).first():
            rows = conn.execute(sa.text("SELECT name, seq FROM sqlite_sequence")).all()
            out["sqlite_sequence"] = sorted(tuple(r) for r in rows if str(r[0]).startswith(prefix))
    return out


def workspace_tree(root: Path) -> dict[str, tuple[Any, ...]]:
    """Every entry under `root` (and `root` itself): kind, mode, size, mtime, contents hash."""
    out: dict[str, tuple[Any, ...]] = {}
    for folder, dirs, files in os.walk(root):
        for name in [".", *dirs, *files]:
            path = Path(folder) / name
            st = path.lstat()
            digest = ""
            if stat.S_ISREG(st.st_mode):
                digest = hashlib.sha256(path.read_bytes()).hexdigest()
            elif stat.S_ISLNK(st.st_mode):
                digest = os.readlink(path)
            out[str(path.relative_to(root))] = (
                stat.S_IFMT(st.st_mode),
                st.st_mode,
                st.st_size,
                st.st_mtime_ns,
                digest,
            )
    return out


def changed(before: Mapping[str, Any], after: Mapping[str, Any]) -> list[str]:
    return sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))


def read_calls(server: str) -> list[tuple[str, Args]]:
    return [(tool, args) for tool, calls in READS[server].items() for args in calls]


async def answers(client: Client, calls: list[tuple[str, Args]]) -> dict[str, str]:
    out: dict[str, str] = {}
    for tool, args in calls:
        result = await client.call_tool(tool, args)
        assert not result.is_error, f"{tool}({args}): {text(result)}"
        out[f"{tool}({args})"] = text(result)
    return out


async def tools_of(server: str, world: World) -> dict[str, bool]:
    """Each tool's name and readOnlyHint."""
    async with serve(server, world) as client:
        return {
            t.name: bool(t.annotations and t.annotations.read_only_hint)
            for t in (await client.list_tools()).tools
        }


@pytest.fixture
async def seeded(world: World) -> World:
    await seed_world(world)
    return world


def test_the_tables_name_every_server() -> None:
    assert set(READS) == set(registry.names()) == set(WRITES)


@pytest.mark.parametrize("server", registry.names())
async def test_read_only_tools_change_nothing(seeded: World, server: str) -> None:
    world = seeded
    hints = await tools_of(server, world)
    reads = {name for name, read_only in hints.items() if read_only}
    assert set(READS[server]) == reads, (
        f"{server}: READS must list exactly its read-only tools: missing {sorted(reads - set(READS[server]))}, "
        f"not read-only {sorted(set(READS[server]) - reads)}"
    )
    calls = read_calls(server)
    world_before, tree_before = database(world), workspace_tree(world.workspace)
    async with serve(server, world) as first:
        # One call at a time, so a change is pinned on the call that made it. Each call is held to
        # the state before the first: the calls before it were, so that is the state before it.
        forward: dict[str, str] = {}
        own, tree = database(world, f"{server}_"), workspace_tree(world.workspace)
        for tool, args in calls:
            forward |= await answers(first, [(tool, args)])
            assert database(world, f"{server}_") == own, (
                f"read-only {server}.{tool}({args}) changed the database"
            )
            tree_now = workspace_tree(world.workspace)
            assert tree_now == tree, (
                f"read-only {server}.{tool}({args}) changed the workspace: {changed(tree, tree_now)}"
            )
        async with serve(server, world) as second:
            backward = await answers(second, calls[::-1])
        again = await answers(first, calls)
    for key, answer in forward.items():
        assert backward[key] == answer, f"{server}.{key} answers differently once the other reads ran first"
        assert again[key] == answer, f"{server}.{key} answers differently the second time on one instance"
    world_after = database(world)
    assert world_after == world_before, (
        f"{server}'s reads changed tables {changed(world_before, world_after)}"
    )
    assert workspace_tree(world.workspace) == tree_before


async def _resolve(client: Client, args: Args, done: list[str]) -> Args:
    """Arguments naming what an earlier call made ("@created": the order create_order placed)
    or a current order of things ("@reversed": a playlist's videos, last first)."""
    if args.get("order_number") == "@created":
        found = re.search(r"ORD-\d+", done[0])
        assert found, done[0]
        return {**args, "order_number": found.group()}
    if args.get("video_ids") == "@reversed":
        playlist = json.loads(
            text(await client.call_tool("get_playlist", {"playlist_id": args["playlist_id"]}))
        )
        return {**args, "video_ids": [item["video_id"] for item in playlist["items"]][::-1]}
    return args


@pytest.mark.parametrize("server", registry.names())
async def test_every_write_tool_changes_something(seeded: World, server: str) -> None:
    world = seeded
    hints = await tools_of(server, world)
    writes = {name for name, read_only in hints.items() if not read_only}
    assert {tool for tool, _ in WRITES[server]} == writes, (
        f"{server}: WRITES must call each writing tool: {sorted(writes)}"
    )
    done: list[str] = []
    async with serve(server, world) as client:
        for tool, given in WRITES[server]:
            args = await _resolve(client, given, done)
            probe = OBSERVED_BY.get((server, tool))
            seen = [await answers(client, [probe])] if probe else []
            db, tree = database(world, f"{server}_"), workspace_tree(world.workspace)
            result = await client.call_tool(tool, args)
            assert not result.is_error, f"{server}.{tool}({args}): {text(result)}"
            done.append(text(result))
            if probe:
                seen.append(await answers(client, [probe]))
            assert (
                database(world, f"{server}_") != db
                or workspace_tree(world.workspace) != tree
                or (probe and seen[0] != seen[1])
            ), f"writing tool {server}.{tool}({args}) changed nothing: is it read-only?"


async def test_every_label_is_a_spec_label_that_agrees_with_the_hint(world: World) -> None:
    assert len(LABELS) == 24
    for server in registry.names():
        async with serve(server, world) as client:
            for t in (await client.list_tools()).tools:
                meta = t.meta or {}
                label = meta.get(LABEL_META_KEY)
                assert label in LABELS, f"{server}.{t.name}: label {label!r} is not a SPEC §6 label"
                assert t.annotations is not None and t.annotations.read_only_hint is not None, t.name
                mode = "read-only" if t.annotations.read_only_hint else "writable"
                if meta.get(BOOKKEEPING_META_KEY):
                    # An agent's own scratch state (the todo list): it writes, yet does nothing to
                    # the world, so it is labelled by its purpose and taggers skip it.
                    assert mode == "writable" and label_mode(label) == "read-only", t.name
                    continue
                assert label_mode(label) == mode, (
                    f"{server}.{t.name}: {mode} tool with {label_mode(label)} label {label!r}"
                )


# Calls that replace or remove what was there (a file, a page's body), each with a read that
# shows a text before the call and not after. MCP's destructiveHint false means "only additive
# updates", so these tools must say destructiveHint true; so must a field edit that can remove
# what was there (a list replaced, a value cleared). Setting one value, such as set_grade, is left
# to each tool's author.
REPLACING: list[tuple[str, str, Args, tuple[str, str, Args], str]] = [
    ("local", "python_execute", {"code": "import os; os.remove('notes/todo.txt')"}, ("terminal", "find", {}), "todo.txt"),
    ("terminal", "write_file", {"path": "notes/todo.txt", "content": "x\n"}, ("terminal", "cat", {"path": "notes/todo.txt"}), "north"),
    ("terminal", "cp", {"src": "data.csv", "dst": "notes/todo.txt"}, ("terminal", "cat", {"path": "notes/todo.txt"}), "north"),
    ("excel", "create_workbook", {"path": XLSX, "overwrite": True}, ("excel", "list_sheets", {"path": XLSX}), "Data"),
    ("word", "create_document", {"path": DOCX, "overwrite": True}, ("word", "read_document", {"path": DOCX}), "Sales grew"),
    ("pptx", "create_deck", {"path": PPTX, "overwrite": True}, ("pptx", "read_deck", {"path": PPTX}), "Review"),
    ("wiki", "update_page", {"page_id": 18, "markdown": "New body."}, ("wiki", "read_page", {"page_id": 18}), "procurement"),
    # field edits that remove what was there: a tag list or guest list replaced, a property cleared
    ("video", "update_video", {"video_id": "ltnjW7ZWu0u", "tags": ["fitness"]}, ("video", "get_video", {"video_id": "ltnjW7ZWu0u"}), "home gym"),
    ("calendar", "update_event", {"event_id": 6, "attendees": ["me@company.example"]}, ("calendar", "get_event", {"event_id": 6}), "jade.dubois"),
    ("wiki", "update_row", {"row_id": 1, "values": {"Due": None}}, ("wiki", "query_rows", {"database_id": 1}), "2026-10-20"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("server", "tool", "args", "read", "gone"), REPLACING, ids=[f"{c[0]}.{c[1]}" for c in REPLACING]
)
async def test_a_tool_that_replaces_or_removes_content_is_marked_destructive(
    seeded: World, server: str, tool: str, args: Args, read: tuple[str, str, Args], gone: str
) -> None:
    """Regression: python_execute, terminal write_file and cp, excel/word/pptx create_* (with
    overwrite=true) and wiki update_page replace or remove content, yet said destructiveHint
    false, which MCP defines as "performs only additive updates"."""
    world = seeded
    reader_server, read_tool, read_args = read

    async def shown() -> str:
        async with serve(reader_server, world) as client:
            return (await answers(client, [(read_tool, read_args)]))[f"{read_tool}({read_args})"]

    assert gone in await shown()
    async with serve(server, world) as client:
        (spec,) = [t for t in (await client.list_tools()).tools if t.name == tool]
        result = await client.call_tool(tool, args)
        assert not result.is_error, text(result)
    assert gone not in await shown()
    assert spec.annotations is not None and spec.annotations.destructive_hint is True, f"{server}.{tool}"
