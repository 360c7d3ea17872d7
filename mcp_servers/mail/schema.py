"""Mail tables. One mailbox, the user's (`ME`); times are ISO local times "YYYY-MM-DDTHH:MM".

Every message, received or sent, is one `mail_message` row; mail the user sends is in folder
`sent` with `sender == ME`, its recipients in `to_addrs`/`cc_addrs` as lower-case addresses
joined by ", ". `sent_mail` is the query a task check wants.

`attachments` names the files (workspace paths); the bytes of each file attached to mail sent
during the episode are kept, as they were when it was sent, in `mail_attachment`: a file changed
after sending is not what the recipient got, so a check reads `sent_attachment`, not the
workspace file.
"""

from __future__ import annotations

import json

from sqlalchemy import Column, LargeBinary
from sqlalchemy.engine import Engine
from sqlmodel import Field, Session, SQLModel, col, select

TODAY = "2026-11-20"
# The world clock for mail sent during an episode; every seeded message is older.
NOW = "2026-11-20T09:00"
ME = "me@company.example"
ME_NAME = "Jordan Lee"
SYSTEM_FOLDERS = ("inbox", "sent", "drafts", "archive", "trash")


class MailContact(SQLModel, table=True):
    """The company directory plus known outside senders."""

    __tablename__ = "mail_contact"
    id: int | None = Field(default=None, primary_key=True)
    email: str = Field(index=True, unique=True)
    name: str
    department: str
    title: str


class MailFolder(SQLModel, table=True):
    __tablename__ = "mail_folder"
    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(index=True, unique=True)
    system: bool = False


class MailMessage(SQLModel, table=True):
    __tablename__ = "mail_message"
    id: int | None = Field(default=None, primary_key=True)
    folder: str = Field(index=True)
    sender: str = Field(index=True)
    sender_name: str
    to_addrs: str
    cc_addrs: str = ""
    subject: str = Field(index=True)
    body: str
    sent_at: str = Field(index=True)
    is_read: bool = False
    attachments: str = "[]"  # JSON list of file names (workspace paths for mail sent here)
    in_reply_to: int | None = Field(default=None, foreign_key="mail_message.id")
    thread_id: int | None = Field(default=None, index=True)

    def to_list(self) -> list[str]:
        return [a for a in self.to_addrs.split(", ") if a]

    def cc_list(self) -> list[str]:
        return [a for a in self.cc_addrs.split(", ") if a]

    def attachment_list(self) -> list[str]:
        return list(json.loads(self.attachments or "[]"))


class MailAttachment(SQLModel, table=True):
    """A file attached to mail sent during the episode: its bytes when the mail was sent."""

    __tablename__ = "mail_attachment"
    id: int | None = Field(default=None, primary_key=True)
    message_id: int = Field(foreign_key="mail_message.id", index=True)
    name: str  # as in the message's `attachments` (a workspace path)
    size: int
    sha256: str
    content: bytes = Field(sa_column=Column(LargeBinary, nullable=False))


TABLES = (MailContact, MailFolder, MailMessage, MailAttachment)


def sent_attachment(engine: Engine, message_id: int, name: str) -> bytes | None:
    """The bytes of attachment `name` (a path as in `attachments`, "./" optional) of sent message
    `message_id`, as they were when it was sent; None when it has no such attachment."""
    wanted = name.removeprefix("./")
    with Session(engine) as s:
        rows = s.execute(select(MailAttachment).where(MailAttachment.message_id == message_id)).scalars()
        for a in rows:
            if a.name.removeprefix("./") == wanted:
                return bytes(a.content)
    return None


def sent_mail(
    engine: Engine, to: str | None = None, subject_contains: str | None = None
) -> list[MailMessage]:
    """Mail the user sent during the episode (after the seed), optionally to one address (in To
    or Cc) and with a subject containing a text (case-insensitive); oldest first."""
    with Session(engine) as s:
        rows = s.execute(
            select(MailMessage)
            .where(MailMessage.sender == ME, MailMessage.sent_at >= NOW)
            .order_by(col(MailMessage.id))
        ).scalars()
        out = []
        for m in rows:
            if to and to.lower() not in m.to_list() + m.cc_list():
                continue
            if subject_contains and subject_contains.lower() not in m.subject.lower():
                continue
            out.append(m)
        return out
