"""Every upcoming confirmed booking of P00055 is still confirmed, in first class at the right fare, and no
other booking changed; she got a mail with the references and the total amount due (and no one else got
mail)."""

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
from mcp_servers.railway.network import fare
from mcp_servers.railway.schema import RAILCARDS

PASSENGER = "P00055"
UPCOMING = ["4HUEW9", "Y8JLYD", "FXRS9F"]  # her confirmed bookings from 2026-11-20 on, as seeded


def _price(world: World, booking_id: int, seat_class: str, discount: float, seats: int) -> float:
    legs = world.query(
        """SELECT t.kind, ABS(z.km - a.km) AS km FROM railway_ticket k JOIN railway_train t ON t.id = k.train_id
           JOIN railway_stop a ON a.train_id = k.train_id AND a.station_id = k.origin_id
           JOIN railway_stop z ON z.train_id = k.train_id AND z.station_id = k.destination_id
           WHERE k.booking_id = :b""",
        b=booking_id,
    )
    total = 0.0
    for leg in legs:
        base, per_km = next(
            (f["base"], f["per_km"])
            for f in world.rows("railway_fare", kind=leg["kind"], seat_class=seat_class)
        )
        total += round(fare(base, per_km, round(leg["km"], 1), discount, seats), 2)
    return round(total, 2)


def others_changed(world: World) -> list[str]:
    """Changes to the railway other than the class and fare of her upcoming bookings (and the seats
    that moves between classes), besides the mail."""
    hers = {b["id"] for b in world.rows("railway_booking") if b["reference"] in UPCOMING}
    return world.changes(
        "railway",
        "mail",
        allow={
            "railway_booking": lambda seeded, _: (
                {"seat_class", "total_fare"} if seeded and seeded["id"] in hers else False
            ),
            "railway_ticket": lambda seeded, _: (
                {"seat_class", "fare"} if seeded and seeded["booking_id"] in hers else False
            ),
            "railway_seat_inventory": lambda seeded, final: {"available"},
            **SENDING_MAIL,
        },
    )


def check(world: World) -> list[Criterion]:
    p = world.rows("railway_passenger", passenger_number=PASSENGER)[0]
    discount = RAILCARDS[p["railcard"]]
    bookings = world.query(
        """SELECT id, reference, status, seat_class, seats, total_fare FROM railway_booking
           WHERE passenger_id = :p AND (status = 'confirmed' AND travel_date >= '2026-11-20'
                                        OR reference IN (:r1, :r2, :r3)) ORDER BY id""",
        p=p["id"],
        **{f"r{i}": ref for i, ref in enumerate(UPCOMING, 1)},
    )
    kept = sorted(b["reference"] for b in bookings if b["status"] == "confirmed")
    out = [
        Criterion.of(
            "bookings kept",
            kept == sorted(UPCOMING),
            f"her upcoming confirmed bookings are {kept}; expected {sorted(UPCOMING)} (upgraded, not cancelled)",
        ),
        Criterion.of("railcard kept", p["railcard"] == "family", f"her railcard is now {p['railcard']}"),
        nothing_else_changed(others_changed(world)),
    ]
    bookings = [b for b in bookings if b["status"] == "confirmed"]
    due = 0.0
    for b in bookings:
        first = _price(world, b["id"], "first", discount, b["seats"])
        second = _price(world, b["id"], "second", discount, b["seats"])
        due += first - second
        out.append(
            Criterion.of(
                f"{b['reference']} first class",
                b["seat_class"] == "first" and close_enough(b["total_fare"], first),
                f"{b['reference']} is {b['seat_class']} at {b['total_fare']} (first class costs {first})",
            )
        )
    mails = sent_mail(world.engine, to=p["email"], subject_contains="Your first-class upgrade")
    amount = re.compile(rf"(?<![\d.,]){re.escape(f'{due:.2f}')}(?![\d]|[.,]\d)")
    told = [m for m in mails if amount.search(m.body) and all(b["reference"] in m.body for b in bookings)]
    out.append(
        Criterion.of(
            "mail",
            bool(told),
            f"no mail 'Your first-class upgrade' to {p['email']} with the references and {due:.2f} due",
        )
    )
    out.append(no_one_else_mailed(world, {p["email"]}))
    return out
