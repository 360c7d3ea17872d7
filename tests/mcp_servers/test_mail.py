from __future__ import annotations

import pytest
from sqlmodel import Session

from mcp_servers.mail.schema import ME, MailMessage, sent_attachment, sent_mail
from tests.mcp_servers.support import World, as_data, check_contract, serve, text


def _calls(inbox_id: int, other_id: int) -> dict[str, dict]:
    return {
        "list_folders": {},
        "list_messages": {"folder": "inbox", "unread_only": True, "page_size": 5},
        "read_message": {"message_id": inbox_id},
        "list_contacts": {"query": "Finance"},
        "send_message": {
            "to": ["kai.kaur@company.example"],
            "cc": ["Lara Varga <lara.varga@company.example>"],
            "subject": "Operations Q4 summary",
            "body": "Hi Kai, attached.",
            "attachments": ["reports/Q4.xlsx"],
        },
        "reply_message": {"message_id": inbox_id, "body": "Will do.", "reply_all": True},
        "forward_message": {"message_id": other_id, "to": ["jade.dubois@company.example"], "body": "FYI"},
        "move_message": {"message_id": other_id, "folder": "archive"},
        "mark_read": {"message_id": inbox_id},
        "create_folder": {"name": "Board"},
    }


async def _find(client, query: str) -> dict:
    found = as_data(await client.call_tool("list_messages", {"folder": None, "query": query}))
    assert found["total"] == 1, found
    return found["items"][0]


async def test_mail_contract_and_state(world: World) -> None:
    (world.workspace / "reports").mkdir()
    (world.workspace / "reports" / "Q4.xlsx").write_bytes(b"xlsx")
    async with serve("mail", world) as client:
        budget = await _find(client, "Q4 budget review")
        invoice = await _find(client, "INV-2026-1187 for November")
        assert budget["from"] == "kai.kaur@company.example" and budget["unread"]
        await check_contract(client, world, _calls(budget["id"], invoice["id"]))

        sent = sent_mail(world.engine, to="kai.kaur@company.example")
        assert [m.subject for m in sent] == [
            "Operations Q4 summary",
            "Re: Q4 budget review - numbers needed by Nov 27",
        ]
        first, reply = sent
        assert first.folder == "sent" and first.sender == ME
        assert first.cc_list() == ["lara.varga@company.example"]
        assert first.attachment_list() == ["reports/Q4.xlsx"]
        assert reply.in_reply_to == budget["id"] and reply.cc_list() == ["lara.varga@company.example"]
        assert "> For the Q4 budget review" in reply.body
        [fwd] = sent_mail(world.engine, to="jade.dubois@company.example", subject_contains="fwd: invoice")
        assert fwd.attachment_list() == ["INV-2026-1187.pdf"] and fwd.body.startswith("FYI")
        assert sent_mail(world.engine, subject_contains="nothing like this") == []

        read = as_data(await client.call_tool("read_message", {"message_id": budget["id"]}))
        assert not read["unread"] and "Friday, November 27" in read["body"]
        moved = as_data(await client.call_tool("read_message", {"message_id": invoice["id"]}))
        assert moved["folder"] == "archive"
        folders = {f["folder"]: f for f in as_data(await client.call_tool("list_folders", {}))}
        assert "Board" in folders and folders["sent"]["messages"] >= 11
        unread = await client.call_tool("mark_read", {"message_id": budget["id"], "read": False})
        assert "marked unread" in text(unread)
        assert as_data(await client.call_tool("read_message", {"message_id": budget["id"]}))["unread"]


async def test_mail_listing_filters_and_pages(world: World) -> None:
    async with serve("mail", world) as client:
        inbox = as_data(await client.call_tool("list_messages", {"page_size": 10}))
        assert inbox["total"] > 40 and len(inbox["items"]) == 10
        dates = [m["date"] for m in inbox["items"]]
        assert dates == sorted(dates, reverse=True) and dates[0] < "2026-11-20T09:00"
        seen = {m["id"] for p in range(1, inbox["pages"] + 1)
                for m in as_data(await client.call_tool("list_messages", {"page": p, "page_size": 10}))["items"]}  # fmt: skip
        assert len(seen) == inbox["total"]
        by_sender = as_data(await client.call_tool("list_messages", {"folder": None, "sender": "priya"}))
        assert {m["from"] for m in by_sender["items"]} == {"priya.shah@northwind.example"}
        unread = as_data(await client.call_tool("list_messages", {"unread_only": True, "page_size": 50}))
        assert 0 < unread["total"] < inbox["total"] and all(m["unread"] for m in unread["items"])
        recent = as_data(await client.call_tool("list_messages", {"since": "2026-11-19", "page_size": 50}))
        assert all(m["date"] >= "2026-11-19" for m in recent["items"]) and recent["total"] > 0
        case = as_data(await client.call_tool("list_messages", {"folder": "INBOX", "query": "northwind"}))
        assert case["total"] >= 1
        contacts = as_data(await client.call_tool("list_contacts", {}))
        assert len(contacts) == 36 and {"email": ME, "name": "Jordan Lee", "department": "Operations",
                                         "title": "Program Manager"} in contacts  # fmt: skip


async def test_mail_bad_input_is_a_tool_error(world: World) -> None:
    (world.workspace / "dir").mkdir()
    async with serve("mail", world) as client:
        send = {"to": ["kai.kaur@company.example"], "subject": "S", "body": "B"}
        for tool, args, expected in [
            ("read_message", {"message_id": 99999}, "no message"),
            ("list_messages", {"folder": "Nope"}, "no folder"),
            ("list_messages", {"since": "yesterday"}, "since"),
            ("list_messages", {"page": 0}, "page starts at 1"),
            ("send_message", {**send, "to": ["not-an-address"]}, "not an e-mail address"),
            ("send_message", {**send, "to": ["nobody@company.example"]}, "no mailbox"),
            ("send_message", {**send, "to": []}, "at least one recipient"),
            ("send_message", {**send, "subject": " "}, "subject"),
            ("send_message", {**send, "attachments": ["missing.pdf"]}, "no such file"),
            ("send_message", {**send, "attachments": ["dir"]}, "folder"),
            ("send_message", {**send, "to": "kai.kaur@company.example"}, "validation error"),
            ("move_message", {"message_id": 1, "folder": "sent"}, "only mail you sent"),
            ("move_message", {"message_id": 1, "folder": "drafts"}, "only unsent mail"),
            ("list_messages", {"since": "20261101"}, "YYYY-MM-DD"),
            ("list_messages", {"since": "2026-W45-1"}, "YYYY-MM-DD"),
            ("list_messages", {"since": "2026-02-30"}, "not a calendar date"),
            ("create_folder", {"name": "inbox"}, "exists"),
            ("create_folder", {"name": "a/b"}, "without '/'"),
        ]:
            result = await client.call_tool(tool, args)
            assert result.is_error and expected in text(result), (tool, text(result))
        assert sent_mail(world.engine) == []


async def test_mail_attachments_stay_in_the_workspace(world: World) -> None:
    outside = world.workspace.parent / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("secret")
    (world.workspace / "escape").symlink_to(outside, target_is_directory=True)
    async with serve("mail", world) as client:
        for bad in ("../outside/secret.txt", f"{outside}/secret.txt", "escape/secret.txt", "a/../../x.txt"):
            for tool, args in [
                ("send_message", {"to": ["kai.kaur@company.example"], "subject": "S", "body": "B"}),
                ("reply_message", {"message_id": 1, "body": "B"}),
            ]:
                result = await client.call_tool(tool, {**args, "attachments": [bad]})
                assert result.is_error and "refused" in text(result), (tool, bad, text(result))
    assert sent_mail(world.engine) == []
    assert MailMessage.__tablename__ == "mail_message"


async def test_an_attachment_is_what_was_sent_not_the_file_now(world: World) -> None:
    """Regression: an attachment was only a workspace path, so sending an empty report and
    filling it afterwards passed a check that read the file."""
    report = world.workspace / "Memo.docx"
    report.write_bytes(b"empty")
    async with serve("mail", world) as client:
        send = {
            "to": ["kai.kaur@company.example"],
            "subject": "Memo",
            "body": "B",
            "attachments": ["Memo.docx"],
        }
        assert not (await client.call_tool("send_message", send)).is_error
        report.write_bytes(b"filled in later")
        [sent] = sent_mail(world.engine)
        assert sent.attachment_list() == ["Memo.docx"]
        assert sent_attachment(world.engine, sent.id, "./Memo.docx") == b"empty"
        assert sent_attachment(world.engine, sent.id, "Other.docx") is None
        fwd = {"message_id": sent.id, "to": ["jade.dubois@company.example"]}
        assert not (await client.call_tool("forward_message", fwd)).is_error
        [_, forwarded] = sent_mail(world.engine)
        assert forwarded.attachment_list() == ["Memo.docx"]
        assert sent_attachment(world.engine, forwarded.id, "Memo.docx") == b"empty"


async def test_search_text_is_literal_and_own_mail_can_go_back_to_sent(world: World) -> None:
    """Regression: '%' and '_' in a search were LIKE wildcards ('100%' matched everything with
    '100'); own sent mail moved to archive could not be moved back to 'sent'."""
    async with serve("mail", world) as client:
        everything = as_data(await client.call_tool("list_messages", {"folder": None, "query": "%"}))
        assert everything["total"] == 0, everything
        assert as_data(await client.call_tool("list_messages", {"folder": None, "query": "_"}))["total"] == 0
        send = {"to": ["kai.kaur@company.example"], "subject": "Margin 100%_x", "body": "B"}
        await client.call_tool("send_message", send)
        found = as_data(await client.call_tool("list_messages", {"folder": None, "query": "100%_"}))
        assert [m["subject"] for m in found["items"]] == ["Margin 100%_x"]
        mine = found["items"][0]["id"]
        for folder in ("archive", "sent"):
            moved = await client.call_tool("move_message", {"message_id": mine, "folder": folder})
            assert not moved.is_error, text(moved)
        assert as_data(await client.call_tool("read_message", {"message_id": mine}))["folder"] == "sent"


async def test_an_attachment_folder_swapped_for_a_link_mid_call_never_leads_out(
    world: World, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The attachment was checked by name, then read by name again: `real/` swapped for a link
    to a folder outside in between mailed that folder's file (the same race as the terminal's,
    tests/mcp_servers/test_workspace_races.py)."""
    from tests.mcp_servers.test_workspace_races import MAX_OPENS, SECRET, _layout, swap_before_open

    if world.base != "sqlite":
        pytest.skip("file confinement does not depend on the database")
    args = {
        "to": ["kai.kaur@company.example"],
        "subject": "S",
        "body": "B",
        "attachments": ["real/secret.txt"],
    }
    async with serve("mail", world) as client:
        for k in range(1, MAX_OPENS + 1):
            ws, _ = _layout(world)
            with swap_before_open(monkeypatch, ws, k):
                result = await client.call_tool("send_message", args)
            assert result.is_error or "harmless" in str(
                [sent_attachment(world.engine, m.id, "real/secret.txt") for m in sent_mail(world.engine)][-1:]
            ), text(result)
    leaked = [sent_attachment(world.engine, m.id, "real/secret.txt") for m in sent_mail(world.engine)]
    assert leaked and not [a for a in leaked if a and SECRET.encode() in a]


async def test_a_reply_joins_the_thread_of_a_message_added_without_one(world: World) -> None:
    """Regression: a message a task's setup inserts has no thread_id; a reply to it started a
    thread of its own instead of joining the original's."""
    with Session(world.engine) as s:
        m = MailMessage(folder="inbox", sender="ana@partner.example", sender_name="Ana", to_addrs=ME,
                        cc_addrs="", subject="Quote", body="Price?", sent_at="2026-11-20T09:00",
                        is_read=False, attachments="[]")  # fmt: skip
        s.add(m)
        s.commit()
        original = m.id
    async with serve("mail", world) as client:
        sent = text(await client.call_tool("reply_message", {"message_id": original, "body": "Soon."}))
        reply = as_data(await client.call_tool("read_message", {"message_id": int(sent.split()[2])}))
        assert (reply["in_reply_to"], reply["thread_id"]) == (original, original)
        again = text(await client.call_tool("reply_message", {"message_id": reply["id"], "body": "Also."}))
        second = as_data(await client.call_tool("read_message", {"message_id": int(again.split()[2])}))
        assert second["thread_id"] == original
