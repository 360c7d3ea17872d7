"""The three RE 608 bookings are cancelled (refunded) and rebooked on RE 607, and no other booking changed;
each passenger got a mail with the new departure and the refund (and no one else got mail), and
RE608_Rebooking.xlsx records the changes, one row per booking."""

import re

from harness.checks import (
    SENDING_MAIL,
    Criterion,
    World,
    close_enough,
    new_rows,
    no_one_else_mailed,
    nothing_else_changed,
)
from mcp_servers.mail.schema import sent_mail

DAY = "2026-12-05"
OLD = ["AEQU9Y", "5M6XY5", "BBJF3G"]  # the bookings the task names
HEADER = [
    "old reference",
    "passenger",
    "from",
    "to",
    "class",
    "seats",
    "refund",
    "new train",
    "new departure",
]


NUMBER = re.compile(r"(?<![\w.:/-])\d+(?:\.\d+)?(?![\w:/-]|\.\d)")


def states_refund(body: str, amount: float) -> bool:
    """`amount` (to the cent) stands in a sentence that speaks of the refund."""
    sentences = [s for line in body.splitlines() for s in re.split(r"(?<=[.!?])\s+", line)]
    return any(
        "refund" in s.lower() and any(close_enough(n, amount) for n in NUMBER.findall(s)) for s in sentences
    )


def words(cell: object) -> str:
    """A text cell compared as words: case and spacing aside ('ALDO  ROSSI' is 'Aldo Rossi')."""
    return " ".join(str(cell or "").split()).lower()


def seat_class(cell: object) -> str:
    """'second' from second, Second class, 2nd or 2nd class, as the booking records it."""
    text = words(cell).removesuffix(" class")
    return {"2nd": "second", "1st": "first"}.get(text, text)


def money(cell: object) -> object:
    """A refund cell as a number: '€12.50', 'EUR 12.50', '12,50 €' read as 12.5; other cells as they are."""
    if isinstance(cell, str):
        text = re.sub(r"[€$£\s]|eur", "", cell, flags=re.I)
        return re.sub(r"^(\d+),(\d{2})$", r"\1.\2", text)
    return cell


def hh_mm(cell: object) -> str | None:
    """A time cell as HH:MM: '16:38', '16:38:00', '9:05' (as 09:05) or a time value."""
    m = re.match(r"\s*(\d{1,2}):(\d{2})", str(cell or ""))
    return f"{int(m[1]):02d}:{m[2]}" if m else None


def is_re607(cell: object) -> bool:
    return re.fullmatch(r"RE\s*607", str(cell or "").strip(), re.I) is not None


def tells_departure(body: str, departs: str) -> bool:
    """The mail gives the time as 16:38 (or 16.38), or 4:38 pm in twelve-hour form."""
    hh, mm = (int(x) for x in departs.split(":"))
    half = "p" if hh >= 12 else "a"
    twelve = rf"(?<!\d)0?{(hh - 1) % 12 + 1}[:.]{mm:02d}\s*{half}\.?m\b"
    return bool(
        re.search(rf"(?<![\d:]){hh:02d}[:.]{mm:02d}(?![\d])", body)
        or (hh < 10 and re.search(rf"(?<![\d:]){hh}:{mm:02d}(?![\d])", body))
        or re.search(twelve, body, re.I)
    )


def others_changed(world: World) -> list[str]:
    """Changes to the railway other than cancelling the old bookings and booking their passengers anew on
    the day (and the seats that takes and releases), besides the mail."""
    old = [b for b in world.rows("railway_booking") if b["reference"] in OLD]
    passengers = {b["passenger_id"] for b in old}
    # a booking on another train counts only once cancelled (a wrong first try undone)
    elsewhere = {
        r["booking_id"]
        for r in world.query(
            """SELECT k.booking_id FROM railway_ticket k JOIN railway_train t ON t.id = k.train_id
               WHERE t.number != 'RE 607'"""
        )
    }
    rebooked = {
        b["id"]
        for b in world.rows("railway_booking", travel_date=DAY)
        if b["passenger_id"] in passengers
        and b["reference"] not in OLD
        and (b["status"] == "cancelled" or b["id"] not in elsewhere)
    }
    return world.changes(
        "railway",
        "mail",
        allow={
            "railway_booking": lambda seeded, final: (
                {"status", "refund"}
                if seeded and seeded["reference"] in OLD
                else seeded is None and final is not None and final["id"] in rebooked
            ),
            "railway_ticket": new_rows("booking_id", rebooked),
            "railway_seat_inventory": lambda seeded, final: {"available"},
            **SENDING_MAIL,
        },
    )


def check(world: World) -> list[Criterion]:
    out = []
    expected = []
    passengers: set[str] = set()
    for ref in OLD:
        b = world.query(
            """SELECT b.status, b.refund, b.total_fare, b.seat_class, b.seats, b.passenger_id, b.origin_id,
                      b.destination_id, p.name, p.email, o.name AS origin, d.name AS dest
               FROM railway_booking b JOIN railway_passenger p ON p.id = b.passenger_id
               JOIN railway_station o ON o.id = b.origin_id JOIN railway_station d ON d.id = b.destination_id
               WHERE b.reference = :ref""",
            ref=ref,
        )[0]
        departs = world.query(
            """SELECT s.departs FROM railway_stop s JOIN railway_train t ON t.id = s.train_id
               WHERE t.number = 'RE 607' AND s.station_id = :st""",
            st=b["origin_id"],
        )[0]["departs"]
        expected.append((ref, b, departs))
        passengers.add(b["email"])
        out.append(
            Criterion.of(
                f"{ref} cancelled",
                b["status"] == "cancelled" and close_enough(b["refund"], b["total_fare"]),
                f"{ref} is {b['status']} with refund {b['refund']} of {b['total_fare']}",
            )
        )
        new = world.query(
            """SELECT b.id FROM railway_booking b JOIN railway_ticket k ON k.booking_id = b.id
               JOIN railway_train t ON t.id = k.train_id
               WHERE b.passenger_id = :p AND b.travel_date = :day AND b.status = 'confirmed' AND t.number = 'RE 607'
                 AND b.origin_id = :o AND b.destination_id = :d AND b.seat_class = :c AND b.seats = :n""",
            p=b["passenger_id"],
            day=DAY,
            o=b["origin_id"],
            d=b["destination_id"],
            c=b["seat_class"],
            n=b["seats"],
        )
        out.append(
            Criterion.of(
                f"{ref} rebooked", len(new) == 1, f"{len(new)} matching RE 607 bookings for {b['name']}"
            )
        )
        mails = sent_mail(
            world.engine, to=b["email"], subject_contains=f"Your journey on 5 December: booking {ref}"
        )
        told = [m for m in mails if re.search(r"\bRE\s?607\b", m.body) and tells_departure(m.body, departs)]
        out.append(
            Criterion.of(
                f"{ref} mail",
                bool(told),
                f"no mail 'Your journey on 5 December: booking {ref}' to {b['email']} with RE 607 and its departure at {departs}",
            )
        )
        out.append(
            Criterion.of(
                f"{ref} refund in mail",
                any(states_refund(m.body, b["total_fare"]) for m in mails),
                f"no mail 'Your journey on 5 December: booking {ref}' to {b['email']} gives the refund of {b['total_fare']:.2f}",
            )
        )
    out.append(nothing_else_changed(others_changed(world)))
    out.append(no_one_else_mailed(world, passengers))
    wb = world.xlsx("RE608_Rebooking.xlsx")
    if wb is None or "Rebooked" not in wb.sheetnames:
        out.append(Criterion("workbook", False, "RE608_Rebooking.xlsx with a sheet Rebooked is missing"))
        return out
    rows = [r for r in wb["Rebooked"].iter_rows(values_only=True) if any(v is not None for v in r)]
    header = [str(v).strip().lower() for v in rows[0][:9]] if rows else []
    refs = [str(r[0]).strip() for r in rows[1:]]
    body = {str(r[0]).strip(): r for r in rows[1:]}
    bad = [
        ref for ref, b, departs in expected
        if refs.count(ref) != 1
        or words(body[ref][1]) != words(b["name"])
        or words(body[ref][2]) != words(b["origin"])
        or words(body[ref][3]) != words(b["dest"])
        or seat_class(body[ref][4]) != b["seat_class"]
        or not close_enough(body[ref][5], b["seats"])
        or not close_enough(money(body[ref][6]), b["total_fare"])
        or not is_re607(body[ref][7])
        or hh_mm(body[ref][8]) != departs
    ]  # fmt: skip
    out.append(Criterion.of("workbook header", header == HEADER, f"header is {rows[:1]}"))
    out.append(
        Criterion.of(
            "workbook rows",
            not bad and len(refs) == 3,
            f"rows wrong, missing or repeated for {bad} ({len(refs)} rows)",
        )
    )
    return out
