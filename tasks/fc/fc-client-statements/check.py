"""Each client's statement lists its non-cancelled 2026 orders and the delivered and open totals,
and was mailed to the client's contact address."""

import re
from datetime import datetime

from harness.checks import (
    SENDING_MAIL,
    Criterion,
    World,
    close_enough,
    no_one_else_mailed,
    nothing_else_changed,
)
from mcp_servers.mail.schema import sent_mail

CLIENTS = ["Aldermoor University", "Northam Institute of Technology", "Thornbury Research Lab"]
HEADER = ["reference", "event date", "menu", "guests", "status", "total"]

MAILED = {
    "events@aldermoor-univ.example",
    "hospitality@nit.example",
    "office@thornbury-lab.example",
}  # the only recipients the task has


def amount(texts: list[str], label: str) -> float | None:
    for t in texts:
        m = re.search(rf"{label} total:\s*(?:USD|\$)?\s*([\d,]+(?:\.\d+)?)", t, re.IGNORECASE)
        if m:
            return float(m.group(1).replace(",", ""))
    return None


def money(text: str) -> float | None:
    m = re.fullmatch(r"(?:USD|\$)?\s*([\d,]+(?:\.\d+)?)\s*(?:USD|\$)?", text.strip(), re.IGNORECASE)
    return float(m.group(1).replace(",", "")) if m else None


def day(text: str, month_first: bool = False) -> str | None:
    """An event date as ISO (2026-09-14), from ISO (as the prompt asks) or a few common spellings;
    a date with slashes read day first (14/09/2026), or month first (09/14/2026) if so told."""
    text = text.strip()
    for fmt in (
        "%Y-%m-%d",
        "%Y-%m-%d %H:%M:%S",
        "%Y-%m-%dT%H:%M:%S",
        "%d %b %Y",
        "%d %B %Y",
        "%b %d, %Y",
        "%B %d, %Y",
        "%b %d %Y",
        "%B %d %Y",
        "%m/%d/%Y" if month_first else "%d/%m/%Y",
        "%d.%m.%Y",
    ):
        try:
            return datetime.strptime(text, fmt).date().isoformat()
        except ValueError:
            continue
    return None


def row_ok(cells: list[str], order: dict, month_first: bool = False) -> bool:
    cells = cells + [""] * 6
    guests = money(cells[3])
    total = money(cells[5])
    return (
        cells[0].strip() == order["reference"]
        and day(cells[1], month_first) == order["event_date"]
        and cells[2].strip().lower() == order["menu"].lower()
        and guests is not None
        and guests == order["guests"]
        and cells[4].strip().lower().replace(" ", "_") == order["status"]
        and total is not None
        and close_enough(total, order["total"])
    )


def others_changed(world: World) -> list[str]:
    """Changes to the world's records: the task only reads them (and sends mail)."""
    return world.changes(
        "kitchen",
        "mail",
        allow=SENDING_MAIL,
    )


def check(world: World) -> list[Criterion]:
    out, contacts = [], {}
    for client in CLIENTS:
        orders = world.query(
            """SELECT o.reference, o.event_date, m.name AS menu, o.guests, o.status, o.total, o.contact_email
               FROM kitchen_catering_order o JOIN kitchen_menu m ON m.id = o.menu_id
               WHERE o.client = :c AND o.event_date BETWEEN '2026-01-01' AND '2026-12-31'
               ORDER BY o.event_date, o.reference""",
            c=client,
        )
        contacts[f"Statement_{client.replace(' ', '_')}.docx"] = orders[0]["contact_email"]
        listed = [o for o in orders if o["status"] != "cancelled"]
        delivered = sum(o["total"] for o in listed if o["status"] == "delivered")
        open_ = sum(o["total"] for o in listed if o["status"] != "delivered")
        path = f"Statement_{client.replace(' ', '_')}.docx"
        doc = world.docx(path)
        if doc is None:
            out.append(Criterion(f"{client} statement", False, f"{path} is missing or unreadable"))
            continue
        texts = [p.text for p in doc.paragraphs]
        table = [[c.text.strip() for c in row.cells] for row in doc.tables[0].rows] if doc.tables else []
        title = f"statement 2026: {client}".lower()
        titled = (doc.core_properties.title or "").strip().lower() == title or any(
            t.strip().lower() == title for t in texts[:2]
        )
        refs = [r[0] for r in table[1:]]
        # dates with slashes read day first throughout, or month first throughout (09/14/2026)
        wrong = min(
            (
                [o["reference"] for o, r in zip(listed, table[1:], strict=False) if not row_ok(r, o, us)]
                for us in (False, True)
            ),
            key=len,
        )
        out += [
            Criterion.of(f"{client} title", titled, f"{path} is not titled 'Statement 2026: {client}'"),
            Criterion.of(
                f"{client} table",
                bool(table)
                and [h.lower() for h in table[0]] == HEADER
                and refs == [o["reference"] for o in listed],
                f"table rows {refs}, expected {[o['reference'] for o in listed]} under {HEADER}",
            ),
            Criterion.of(
                f"{client} event date, menu, guests, status, total",
                len(table) > 1 and not wrong,
                f"rows of {wrong} differ from the orders",
            ),
            Criterion.of(
                f"{client} totals",
                close_enough(amount(texts, "delivered"), delivered)
                and close_enough(amount(texts, "open"), open_),
                f"expected delivered {delivered:.2f} and open {open_:.2f}",
            ),
        ]
        mails = [
            m
            for m in sent_mail(
                world.engine, to=orders[0]["contact_email"], subject_contains="catering statement"
            )
            if world.sent_as_final(m.id, path)
        ]
        out.append(
            Criterion.of(
                f"{client} mailed",
                bool(mails),
                f"no mail to {orders[0]['contact_email']} with {path} (as it is now)",
            )
        )
    leaks = [
        f"{f} to {m.to_addrs}"
        for m in sent_mail(world.engine)
        for f in m.attachment_list()
        if f in contacts and set(m.to_list() + m.cc_list()) != {contacts[f]}
    ]
    out.append(Criterion.of("each statement only to its client", not leaks, f"sent elsewhere: {leaks}"))
    out.append(nothing_else_changed(others_changed(world)))
    out.append(no_one_else_mailed(world, MAILED))
    return out
