"""Northam's next confirmed order has 15 more guests (its total follows), nothing else of it or of any
other order changed, and they got a mail with the new guest count and total (and no one else got mail)."""

import re

from harness.checks import (
    SENDING_MAIL,
    Criterion,
    World,
    close_enough,
    no_one_else_mailed,
    nothing_else_changed,
)
from mcp_servers.mail.schema import sent_mail

CLIENT = "Northam Institute of Technology"
MAILED = {"hospitality@nit.example"}  # the only recipients the task has
# Guest counts of the client's orders in the seeded world (the episode overwrites the target's);
# CO-1151 is a quote for an event before the next confirmed one.
SEEDED = {"CO-1008": 120, "CO-1036": 200, "CO-1059": 60, "CO-1073": 25, "CO-1088": 200, "CO-1095": 20,
          "CO-1126": 45, "CO-1143": 45, "CO-1103": 30, "CO-1151": 30}  # fmt: skip


def numbers(text: str) -> list[float]:
    """The numbers written in a text, each whole ('520' is not in '5200.00'; 1,040.00 reads 1040)."""
    found = re.findall(r"(?<![\d.,])(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)(?![\d]|[.,]\d)", text)
    return [float(n.replace(",", "")) for n in found]


def guests_stated(text: str, n: int) -> bool:
    """`n` stands next to a word for guests ('40 guests', 'guests: 40', 'for 40 people')."""
    word = r"guests?|people|persons?|attendees|pax|covers"
    num = rf"(?<![\d.,]){n}(?![\d]|[.,]\d)"
    gap = r"\W+(?:[^\W\d]+\W+){0,3}?"
    return bool(re.search(rf"{num}{gap}(?:{word})|(?:{word}){gap}{num}", text, re.IGNORECASE))


def check(world: World) -> list[Criterion]:
    orders = world.query(
        "SELECT * FROM kitchen_catering_order WHERE client = :c ORDER BY event_date, reference", c=CLIENT
    )
    upcoming = [o for o in orders if o["status"] == "confirmed" and o["event_date"] >= "2026-11-23"]
    target = upcoming[0]
    want = SEEDED[target["reference"]] + 15
    # only the target's guests and total may differ from the seed, in any kitchen table, besides the mail
    changed = world.changes(
        "kitchen",
        "mail",
        allow={
            "kitchen_catering_order": lambda seeded, final: (
                {"guests", "total"} if seeded and seeded["reference"] == target["reference"] else False
            ),
            **SENDING_MAIL,
        },
    )
    mails = sent_mail(world.engine, to="hospitality@nit.example", subject_contains=target["reference"])
    body = " ".join(m.body for m in mails)
    return [
        Criterion.of(
            "guests",
            target["guests"] == want,
            f"{target['reference']} has {target['guests']} guests, expected {want}",
        ),
        Criterion.of(
            "total",
            close_enough(target["total"], target["price_per_guest"] * want),
            f"total is {target['total']}",
        ),
        Criterion.of("status kept", target["status"] == "confirmed", f"status is {target['status']}"),
        nothing_else_changed(changed),
        Criterion.of(
            "client mailed",
            bool(mails)
            and guests_stated(body, want)
            and any(close_enough(x, target["price_per_guest"] * want) for x in numbers(body)),
            f"no mail to hospitality@nit.example about {target['reference']} with {want} guests and the new total",
        ),
        no_one_else_mailed(world, MAILED),
    ]
