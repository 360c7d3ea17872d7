"""The `mail` server: the user's mailbox. Read folders, messages and the directory; send,
reply, forward, move, mark read, create folders (SPEC §5, workflow server).

The user is `me@company.example`. Reading a message does not mark it read (reads change
nothing); `mark_read` does. Attachments of outgoing mail are workspace files, checked to exist
and copied, bytes and hash, into `mail_attachment` when the mail is sent (the recipient has what
was sent, whatever happens to the file afterwards).
"""

from __future__ import annotations

import hashlib
import json
import re
import stat
from typing import Any

from mcp.server.mcpserver import MCPServer
from sqlmodel import Session, col, func, or_, select

from mcp_servers.common.paging import paginate
from mcp_servers.common.spec import ServerContext, ServerSpec
from mcp_servers.common.tooling import ToolError, as_json, fields, reader, writer
from mcp_servers.common.values import LIKE_ESCAPE, iso_date, like_pattern
from mcp_servers.common.workspace import locate, open_file
from mcp_servers.mail.schema import (
    ME,
    ME_NAME,
    NOW,
    TABLES,
    TODAY,
    MailAttachment,
    MailContact,
    MailFolder,
    MailMessage,
)
from mcp_servers.mail.seed import DOMAIN, seed

READ = "workflow-records-lookup"
WRITE = "email-send"
SNIPPET = 140
MAX_RECIPIENTS = 50
# Like a mail provider's limit: one message's attachments are copied into the database.
MAX_ATTACHMENT_BYTES = 25 * 1024 * 1024
_ADDRESS = re.compile(r"^[a-z0-9._%+'-]+@[a-z0-9-]+(\.[a-z0-9-]+)*\.[a-z]{2,}$")


def _summary(m: MailMessage) -> dict[str, Any]:
    return {
        "id": m.id, "folder": m.folder, "from": m.sender, "from_name": m.sender_name, "to": m.to_list(),
        "subject": m.subject, "date": m.sent_at, "unread": not m.is_read,
        "attachments": len(m.attachment_list()), "snippet": " ".join(m.body.split())[:SNIPPET],
    }  # fmt: skip


def _message(s: Session, message_id: int) -> MailMessage:
    found = s.get(MailMessage, message_id)
    if found is None:
        raise ToolError(f"no message with id {message_id}; list_messages shows the ids")
    return found


def _folder(s: Session, name: str) -> str:
    found = s.execute(select(MailFolder).where(func.lower(MailFolder.name) == name.strip().lower())).scalar()
    if found is None:
        known = s.execute(select(MailFolder.name).order_by(MailFolder.name)).scalars().all()
        raise ToolError(f"no folder {name!r}; folders: {', '.join(known)}")
    return found.name


def _addresses(s: Session, given: list[str] | None, field: str) -> list[str]:
    """Normalised recipient addresses; 'Name <a@b>' is accepted; unknown company mailboxes bounce."""
    out: list[str] = []
    for raw in given or []:
        match = re.search(r"<([^>]+)>", raw)
        address = (match.group(1) if match else raw).strip().lower()
        if not _ADDRESS.match(address):
            raise ToolError(f"{field}: {raw!r} is not an e-mail address like 'name@company.example'")
        if address.endswith("@" + DOMAIN):
            known = s.execute(select(MailContact).where(MailContact.email == address)).scalar()
            if known is None:
                raise ToolError(f"{field}: no mailbox {address}; list_contacts shows the company directory")
        if address not in out:
            out.append(address)
    if len(out) > MAX_RECIPIENTS:
        raise ToolError(f"{field}: at most {MAX_RECIPIENTS} recipients")
    return out


def _new(
    s: Session,
    to: list[str],
    cc: list[str],
    subject: str,
    body: str,
    attachments: list[tuple[str, bytes]],
    parent: MailMessage | None = None,
) -> MailMessage:
    if not to:
        raise ToolError("give at least one recipient in 'to'")
    if not subject.strip():
        raise ToolError("subject must not be empty")
    m = MailMessage(
        folder="sent", sender=ME, sender_name=ME_NAME, to_addrs=", ".join(to), cc_addrs=", ".join(cc),
        subject=subject.strip(), body=body, sent_at=NOW, is_read=True, attachments=json.dumps([name for name, _ in attachments]),
        in_reply_to=parent.id if parent else None,
        # a message added without a thread (a task's setup) starts its own
        thread_id=(parent.thread_id or parent.id) if parent else None,
    )  # fmt: skip
    s.add(m)
    s.flush()
    assert m.id is not None  # flushed
    if m.thread_id is None:
        m.thread_id = m.id
    for name, content in attachments:
        s.add(
            MailAttachment(
                message_id=m.id, name=name, size=len(content), sha256=hashlib.sha256(content).hexdigest(),
                content=content,
            )
        )  # fmt: skip
    s.commit()
    return m


def _quoted(m: MailMessage) -> str:
    return "\n".join("> " + line for line in m.body.splitlines())


def build(ctx: ServerContext) -> MCPServer:
    app = MCPServer(
        "mail",
        instructions=f"The mailbox of {ME_NAME} <{ME}>. Today is {TODAY}. Message ids come from "
        "list_messages; attachments you send are workspace files.",
    )

    def attached(paths: list[str] | None) -> list[tuple[str, bytes]]:
        """Each attachment's workspace path and its bytes now (what the recipient gets)."""
        out = []
        total = 0
        for path in paths or []:
            # walked from the open workspace, never re-resolved by name (a folder swapped for a
            # link to / between a check and the read would send a file from outside)
            try:
                with locate(ctx.workspace, path) as found:
                    st = found.lstat()
                    if st is None:
                        raise FileNotFoundError(path)
                    if stat.S_ISDIR(st.st_mode):
                        raise ToolError(f"attachment {path!r} is a folder; attach files")
                    with open_file(found, path) as handle:
                        data = handle.read(MAX_ATTACHMENT_BYTES - total + 1)
                    shown = found.rel.as_posix()
            except (FileNotFoundError, NotADirectoryError):
                raise ToolError(f"no such file or folder in the workspace: {path!r}") from None
            total += len(data)
            if total > MAX_ATTACHMENT_BYTES:
                raise ToolError(
                    f"attachments over {MAX_ATTACHMENT_BYTES // 2**20} MB in all; send fewer or smaller files"
                )
            out.append((shown, data))
        return out

    @reader(app, READ)
    def list_folders() -> str:
        """The mail folders with their message and unread counts."""
        with Session(ctx.engine) as s:
            by_folder = select(MailMessage.folder, func.count()).group_by(MailMessage.folder)
            counts = dict(s.execute(by_folder).all())
            unread = dict(s.execute(by_folder.where(col(MailMessage.is_read).is_(False))).all())
            folders = s.execute(select(MailFolder).order_by(col(MailFolder.id))).scalars()
            return as_json(
                [
                    {"folder": f.name, "messages": counts.get(f.name, 0), "unread": unread.get(f.name, 0)}
                    for f in folders
                ]
            )

    @reader(app, READ)
    def list_messages(
        folder: str | None = "inbox",
        sender: str | None = None,
        query: str | None = None,
        unread_only: bool = False,
        since: str | None = None,
        page: int = 1,
        page_size: int = 20,
    ) -> str:
        """List or search messages, newest first, one page at a time. folder: a folder name
        (default inbox) or null for all folders; sender: part of the sender's address or name;
        query: text to find in the subject or body (case-insensitive); since: YYYY-MM-DD.
        Each item: id, folder, from, to, subject, date, unread, attachments count, snippet."""
        with Session(ctx.engine) as s:
            stmt = select(MailMessage).order_by(col(MailMessage.sent_at).desc(), col(MailMessage.id).desc())
            if folder:
                stmt = stmt.where(MailMessage.folder == _folder(s, folder))
            if sender:
                like = like_pattern(sender.strip())
                stmt = stmt.where(
                    or_(
                        col(MailMessage.sender).ilike(like, escape=LIKE_ESCAPE),
                        col(MailMessage.sender_name).ilike(like, escape=LIKE_ESCAPE),
                    )
                )
            if query:
                like = like_pattern(query.strip())
                stmt = stmt.where(
                    or_(
                        col(MailMessage.subject).ilike(like, escape=LIKE_ESCAPE),
                        col(MailMessage.body).ilike(like, escape=LIKE_ESCAPE),
                    )
                )
            if unread_only:
                stmt = stmt.where(col(MailMessage.is_read).is_(False))
            if since:
                stmt = stmt.where(MailMessage.sent_at >= iso_date(since, "since"))
            return as_json(paginate(s, stmt, page, page_size, lambda row: _summary(row[0])))

    @reader(app, READ)
    def read_message(message_id: int) -> str:
        """The whole message: from, to, cc, subject, date, body, attachment names, thread id.
        Reading does not mark it read (use mark_read)."""
        with Session(ctx.engine) as s:
            m = _message(s, message_id)
            return as_json(
                {
                    "id": m.id,
                    "folder": m.folder,
                    "from": m.sender,
                    "from_name": m.sender_name,
                    "to": m.to_list(),
                    "cc": m.cc_list(),
                    "subject": m.subject,
                    "date": m.sent_at,
                    "unread": not m.is_read,
                    "attachments": m.attachment_list(),
                    "in_reply_to": m.in_reply_to,
                    "thread_id": m.thread_id,
                    "body": m.body,
                }  # fmt: skip
            )

    @reader(app, READ)
    def list_contacts(query: str | None = None) -> str:
        """The company directory and known outside contacts: name, email, department, title.
        query filters by part of a name, address, department or title."""
        with Session(ctx.engine) as s:
            stmt = select(MailContact).order_by(MailContact.department, MailContact.name)
            if query:
                like = like_pattern(query.strip())
                stmt = stmt.where(
                    or_(*(col(c).ilike(like, escape=LIKE_ESCAPE) for c in (MailContact.name, MailContact.email,
                                                                          MailContact.department, MailContact.title)))
                )  # fmt: skip
            return as_json([fields(c, exclude={"id"}) for c in s.execute(stmt).scalars()])

    @writer(app, WRITE)
    def send_message(
        to: list[str],
        subject: str,
        body: str,
        cc: list[str] | None = None,
        attachments: list[str] | None = None,
    ) -> str:
        """Send a new message from me. to/cc: lists of addresses; attachments: workspace file
        paths (e.g. ['reports/Summary.docx']), each must exist. The message goes to 'sent'."""
        files = attached(attachments)
        with Session(ctx.engine) as s:
            m = _new(s, _addresses(s, to, "to"), _addresses(s, cc, "cc"), subject, body, files)
            return f"Sent message {m.id} to {m.to_addrs}" + (
                f" with {len(files)} attachment(s)." if files else "."
            )

    @writer(app, WRITE)
    def reply_message(
        message_id: int, body: str, reply_all: bool = False, attachments: list[str] | None = None
    ) -> str:
        """Reply to a message: to its sender (reply_all=true also copies everyone else on it),
        subject 'Re: ...', the original quoted below your text."""
        files = attached(attachments)
        with Session(ctx.engine) as s:
            original = _message(s, message_id)
            to = original.to_list() if original.sender == ME else [original.sender]
            cc = []
            if reply_all:
                cc = [a for a in original.to_list() + original.cc_list() if a not in to and a != ME]
            subject = (
                original.subject if original.subject.lower().startswith("re:") else f"Re: {original.subject}"
            )
            text = f"{body}\n\nOn {original.sent_at}, {original.sender_name} <{original.sender}> wrote:\n{_quoted(original)}"
            m = _new(s, to, cc, subject, text, files, parent=original)
            return f"Sent reply {m.id} to {m.to_addrs}" + (f", cc {m.cc_addrs}." if cc else ".")

    @writer(app, WRITE)
    def forward_message(message_id: int, to: list[str], body: str = "", cc: list[str] | None = None) -> str:
        """Forward a message (with its attachments) to new recipients, with an optional note on top."""
        with Session(ctx.engine) as s:
            original = _message(s, message_id)
            subject = (
                original.subject
                if original.subject.lower().startswith("fwd:")
                else f"Fwd: {original.subject}"
            )
            header = (
                f"---------- Forwarded message ----------\nFrom: {original.sender_name} <{original.sender}>\n"
                f"Date: {original.sent_at}\nSubject: {original.subject}\nTo: {original.to_addrs}\n\n"
            )
            text = f"{body}\n\n{header}{original.body}" if body.strip() else header + original.body
            targets = _addresses(s, to, "to")
            m = _new(s, targets, _addresses(s, cc, "cc"), subject, text, [], parent=original)
            # The original's files as they were (seeded mail has names only, no stored bytes).
            kept = {
                a.name: a
                for a in s.execute(
                    select(MailAttachment).where(MailAttachment.message_id == original.id)
                ).scalars()
            }
            m.attachments = original.attachments
            assert m.id is not None
            for name in original.attachment_list():
                if name in kept:
                    a = kept[name]
                    s.add(
                        MailAttachment(
                            message_id=m.id, name=name, size=a.size, sha256=a.sha256, content=a.content
                        )
                    )
            s.add(m)
            s.commit()
            return f"Forwarded message {message_id} as {m.id} to {m.to_addrs}."

    @writer(app, WRITE)
    def move_message(message_id: int, folder: str) -> str:
        """Move a message to another folder (inbox, archive, trash or one you created)."""
        with Session(ctx.engine) as s:
            m = _message(s, message_id)
            target = _folder(s, folder)
            if target == "sent" and m.sender != ME:
                raise ToolError("only mail you sent lives in 'sent'; choose another folder")
            if target == "drafts" and m.folder != "drafts":
                raise ToolError("'drafts' holds only unsent mail; choose another folder")
            m.folder = target
            s.add(m)
            s.commit()
            return f"Moved message {message_id} to {target}."

    @writer(app, WRITE)
    def mark_read(message_id: int, read: bool = True) -> str:
        """Mark a message read (or unread with read=false)."""
        with Session(ctx.engine) as s:
            m = _message(s, message_id)
            m.is_read = read
            s.add(m)
            s.commit()
            return f"Message {message_id} marked {'read' if read else 'unread'}."

    @writer(app, WRITE)
    def create_folder(name: str) -> str:
        """Create a mail folder (a name up to 40 characters, unique regardless of case)."""
        clean = name.strip()
        if not clean or len(clean) > 40 or "/" in clean:
            raise ToolError("a folder name is 1 to 40 characters without '/'")
        with Session(ctx.engine) as s:
            exists = s.execute(
                select(MailFolder).where(func.lower(MailFolder.name) == clean.lower())
            ).scalar()
            if exists is not None:
                raise ToolError(f"folder {exists.name!r} exists")
            s.add(MailFolder(name=clean))
            s.commit()
            return f"Created folder {clean!r}."

    return app


SPEC = ServerSpec(
    name="mail",
    description="The user's mailbox: folders, messages, directory; send, reply, forward, move, mark read",
    build=build,
    tables=TABLES,
    seed=seed,
)
