"""Near hits of the rs tasks (see __init__.py)."""

from __future__ import annotations

from tests.harness.near_hits import NearHit

SOLD = "Sold out in second class: IC 108, IC 116, IC 306, IC 313. First class still has seats on all of them."

HITS: list[NearHit] = [
    # rs-friday-intercity-seats: only what the mail calls sold out is a claim
    NearHit(
        "rs-friday-intercity-seats",
        "the mail adds that no other train is sold out and names the busiest of the rest",
        replace=(
            (
                SOLD,
                "Sold out in second class: IC 108, IC 116, IC 306 and IC 313. No other train\\nis sold out;"
                " the busiest of the rest is IC 303 at 67.7% of second class sold.",
            ),
        ),
    ),
    NearHit(
        "rs-friday-intercity-seats",
        "the mail lists the sold-out trains as bullets below 'Sold out in second class:'",
        replace=(
            (
                SOLD,
                "Sold out in second class:\\n- IC 108 (Northam 18:00)\\n- IC 116 (Southport Harbour 18:00)"
                "\\n- IC 306 (Westhaven 17:30)\\n- IC 313 (Eastcombe 17:30)\\n\\nIC 303 is not sold out yet.",
            ),
        ),
    ),
    # rs-withdrawn-train-rebooking: the same facts written otherwise
    NearHit(
        "rs-withdrawn-train-rebooking",
        "a workbook row with the name in capitals, 'Second class', '€6.30' and 'RE607'",
        replace=(
            (
                '["AEQU9Y", "Yara Moreau", "Orchard Hill", "Elmstead", "second", 1, 6.3, "RE 607", "15:38"]',
                '["AEQU9Y", "YARA MOREAU", "Orchard Hill", "Elmstead", "Second class", 1, "€6.30", "RE607", "15:38"]',
            ),
        ),
    ),
    NearHit(
        "rs-withdrawn-train-rebooking",
        "a mail says 'RE607, which leaves Orchard Hill at 3:38 pm'",
        replace=(
            ("RE 607, which leaves Orchard Hill at 15:38", "RE607, which leaves Orchard Hill at 3:38 pm"),
        ),
    ),
]

RE605_YARA = {
    "passenger": "P00045",
    "origin": "Orchard Hill",
    "destination": "Elmstead",
    "travel_date": "2026-12-05",
    "trains": ["RE 605"],
    "seat_class": "second",
    "seats": 1,
}

HITS += [
    # rs-withdrawn-train-rebooking: a wrong first try, cancelled again, leaves no stray booking
    NearHit(
        "rs-withdrawn-train-rebooking",
        "Yara also booked on RE 605 by mistake, that booking cancelled again",
        extra=(
            ("mcp__railway__book_journey", RE605_YARA),
            ("mcp__railway__cancel_booking", {"reference": "J3CVEE"}),  # the fourth booking of the episode
        ),
    ),
]
