"""Near misses of the rs tasks (see __init__.py)."""

from __future__ import annotations

from tests.harness.near_misses import NearMiss, mails_someone_else, twice

UPGRADE_FXRS9F = (
    '{"tool": "mcp__railway__change_seat_class", "arguments": {"reference": "FXRS9F", "seat_class": "first"}}'
)

MISSES: list[NearMiss] = [
    # rs-first-class-upgrade
    NearMiss(
        "rs-first-class-upgrade",
        "one upcoming booking cancelled instead of upgraded (the mail matches the two left)",
        replace=(
            (
                UPGRADE_FXRS9F,
                '{"tool": "mcp__railway__cancel_booking", "arguments": {"reference": "FXRS9F"}}',
            ),
            ("Your bookings 4HUEW9, Y8JLYD, FXRS9F", "Your bookings 4HUEW9, Y8JLYD"),
            ("costs 72.17 in total", "costs 20.90 in total"),
        ),
    ),
    NearMiss(
        "rs-first-class-upgrade",
        "the mail's amount is 172.17 (true 72.17), which contains the right one",
        replace=(("costs 72.17 in total", "costs 172.17 in total"),),
    ),
    NearMiss(
        "rs-withdrawn-train-rebooking",
        "a mail gives the departure as 3:38 am (true 15:38)",
        replace=(
            ("RE 607, which leaves Orchard Hill at 15:38", "RE 607, which leaves Orchard Hill at 3:38 am"),
        ),
    ),
    # rs-friday-intercity-seats
    NearMiss(
        "rs-friday-intercity-seats",
        "IC 101 Second Available 140 (true 139)",
        replace=(('["IC 101", "06:00", 28, 139, 53.7]', '["IC 101", "06:00", 28, 140, 53.7]'),),
    ),
    NearMiss(
        "rs-friday-intercity-seats",
        "IC 101 Second Occupancy 55.9% (true 53.7%)",
        replace=(('["IC 101", "06:00", 28, 139, 53.7]', '["IC 101", "06:00", 28, 139, 55.9]'),),
    ),
    NearMiss(
        "rs-friday-intercity-seats",
        "the mail calls a train with seats left sold out too",
        replace=(("IC 306, IC 313. First", "IC 306, IC 313, IC 303. First"),),
    ),
    NearMiss(
        "rs-friday-intercity-seats",
        "the mail lists all 18 trains without saying which are sold out",
        replace=(
            (
                "Sold out in second class: IC 108, IC 116, IC 306, IC 313. First class still has seats on all of them.",
                "The trains: IC 101, IC 103, IC 105, IC 106, IC 108, IC 109, IC 111, IC 113, IC 114, IC 116,"
                " IC 301, IC 303, IC 305, IC 306, IC 308, IC 310, IC 312 and IC 313.",
            ),
        ),
    ),
    NearMiss(
        "rs-friday-intercity-seats",
        "the mail's subject is not the one asked for",
        replace=(('"subject": "InterCity seats on Friday 27 November"', '"subject": "Seats"'),),
    ),
    NearMiss(
        "rs-friday-intercity-seats",
        "the weekend-only IC 117 listed on the Friday sheet",
        replace=(
            (
                '["IC 113", "12:00", 29, 141, 53.0]',
                '["IC 113", "12:00", 29, 141, 53.0], ["IC 117", "13:30", 60, 300, 0.0]',
            ),
        ),
    ),
    # rs-highland-pocket-timetable
    NearMiss(
        "rs-highland-pocket-timetable",
        "IC 702's departure at Glenmoor wrong (12:41 for 12:14)",
        replace=(('["Glenmoor", "08:40", "12:14", "16:40"]', '["Glenmoor", "08:40", "12:41", "16:40"]'),),
    ),
    NearMiss(
        "rs-highland-pocket-timetable",
        "the weekday-only RE 707 listed although the trip is on a Saturday",
        replace=(
            ('["Station", "RE 701", "IC 702"', '["Station", "RE 701", "RE 707", "IC 702"'),
            ('["Northam", "07:40",', '["Northam", "07:40", "09:40",'),
            ('["Pinecrest", "08:11",', '["Pinecrest", "08:11", "10:11",'),
            ('["Glenmoor", "08:40",', '["Glenmoor", "08:40", "10:40",'),
            ('["Ravenscar", "09:08",', '["Ravenscar", "09:08", "11:08",'),
            ('["Lochary", "09:27",', '["Lochary", "09:27", "11:27",'),
            ('["Cliffmoor", "09:49",', '["Cliffmoor", "09:49", "11:49",'),
        ),
    ),
    # rs-weekend-trip-booking
    NearMiss(
        "rs-weekend-trip-booking",
        "registered with a senior railcard although the prompt says none",
        replace=(('"railcard": "none"', '"railcard": "senior"'),),
    ),
    NearMiss(
        "rs-weekend-trip-booking",
        "registered under a wrong name",
        replace=(('"name": "Jordan Lee"', '"name": "Jordan"'),),
    ),
    NearMiss(
        "rs-weekend-trip-booking",
        "an extra booking on Saturday besides the two trips",
        extra=(
            (
                "mcp__railway__book_journey",
                {
                    "passenger": "me@company.example",
                    "origin": "Riverton",
                    "destination": "Aldermoor Central",
                    "travel_date": "2026-11-28",
                    "trains": ["RE 115"],
                    "seat_class": "second",
                },
            ),
        ),
    ),
    NearMiss(
        "rs-weekend-trip-booking",
        "back on Sunday on IC 116, which leaves Riverton after 17:00",
        replace=(('"trains": ["RE 115"]', '"trains": ["IC 116"]'),),
    ),
    # rs-withdrawn-train-rebooking
    NearMiss(
        "rs-withdrawn-train-rebooking",
        "the mails do not mention the refund",
        replace=(
            ("Booking AEQU9Y is cancelled with a full refund of 6.30;", "Booking AEQU9Y is cancelled;"),
            ("Booking 5M6XY5 is cancelled with a full refund of 14.80;", "Booking 5M6XY5 is cancelled;"),
            ("Booking BBJF3G is cancelled with a full refund of 6.58;", "Booking BBJF3G is cancelled;"),
        ),
    ),
    NearMiss(
        "rs-withdrawn-train-rebooking",
        "a mail gives a wrong refund (6.80 for 6.30)",
        replace=(("full refund of 6.30", "full refund of 6.80"),),
    ),
    NearMiss(
        "rs-withdrawn-train-rebooking",
        "a wrong duplicate AEQU9Y row before the right one in the workbook",
        replace=(
            (
                '["AEQU9Y", "Yara Moreau"',
                '["AEQU9Y", "Yara Moreau", "Orchard Hill", "Elmstead", "second", 1, 0, "RE 608", "16:38"], '
                '["AEQU9Y", "Yara Moreau"',
            ),
        ),
    ),
    NearMiss(
        "rs-withdrawn-train-rebooking",
        "a mail's subject is not the one asked for",
        replace=(
            ('"subject": "Your journey on 5 December: booking AEQU9Y"', '"subject": "Booking AEQU9Y moved"'),
        ),
    ),
    # rs-workshop-travel
    NearMiss(
        "rs-workshop-travel",
        "a traveller registered with a youth railcard although none holds one",
        replace=(
            (
                '"name": "Kenji Andersen", "email": "kenji.andersen@company.example", "railcard": "none"',
                '"name": "Kenji Andersen", "email": "kenji.andersen@company.example", "railcard": "youth"',
            ),
        ),
    ),
    NearMiss(
        "rs-workshop-travel",
        "Maya back on IC 312, which leaves Thornbury at 15:02, before 17:30",
        replace=(('"trains": ["IC 313"]', '"trains": ["IC 312"]'),),
    ),
    NearMiss(
        "rs-workshop-travel",
        "a traveller registered under a wrong name",
        replace=(('"name": "Maya Wagner"', '"name": "M. Wagner"'),),
    ),
    NearMiss(
        "rs-workshop-travel",
        "a calendar event titled without the traveller's name",
        replace=(
            (
                '"title": "Train to Thornbury workshop (Kenji Andersen)"',
                '"title": "Train to Thornbury workshop"',
            ),
        ),
    ),
    NearMiss(
        "rs-workshop-travel",
        "a mail's subject is not the one asked for",
        replace=(('"subject": "Your trains for the Thornbury workshop"', '"subject": "Thornbury workshop"'),),
    ),
    NearMiss(
        "rs-workshop-travel",
        "a mail gives a wrong return time (18:20 for 18:02)",
        replace=(
            (
                "Return from Thornbury: IC 313 at 18:02, arriving 19:37",
                "Return from Thornbury: IC 313 at 18:20, arriving 19:37",
            ),
        ),
    ),
    NearMiss(
        "rs-friday-intercity-seats",
        "the workbook changed after it was mailed",
        extra=(
            (
                "mcp__excel__write_range",
                {"path": "Friday_InterCity_Seats.xlsx", "sheet": "Notes", "rows": [["added after sending"]]},
            ),
        ),
    ),
]

MISSES += [
    # audit F8: bookings outside the task stay as seeded
    NearMiss(
        "rs-first-class-upgrade",
        "also upgrades a near-namesake's booking (Ines Tanaka, P00058)",
        extra=(("mcp__railway__change_seat_class", {"reference": "MEGWUQ", "seat_class": "first"}),),
    ),
    NearMiss(
        "rs-withdrawn-train-rebooking",
        "also cancels an unrelated passenger's booking",
        extra=(("mcp__railway__cancel_booking", {"reference": "XBRZ6V"}),),
    ),
]

MISSES += [
    # collateral damage: what the task does not ask for is left as it was
    NearMiss(
        "rs-weekend-trip-booking",
        "also deletes an event of my work calendar",
        extra=(("mcp__calendar__delete_event", {"event_id": 6}),),
    ),
]

MISSES += [
    # collateral damage: the task only reads the records
    NearMiss(
        "rs-friday-intercity-seats",
        "also cancels a passenger's booking",
        extra=(("mcp__railway__cancel_booking", {"reference": "AEQU9Y"}),),
    ),
    NearMiss(
        "rs-highland-pocket-timetable",
        "also cancels a passenger's booking",
        extra=(("mcp__railway__cancel_booking", {"reference": "AEQU9Y"}),),
    ),
]

MISSES += [
    # collateral damage: what the task does not ask for is left as it was (the last fifteen guarded tasks)
    NearMiss(
        "rs-workshop-travel",
        "also cancels another passenger's booking",
        extra=(("mcp__railway__cancel_booking", {"reference": "U9CQHB"}),),
    ),
    NearMiss(
        "rs-workshop-travel",
        "also mails the plan to someone who does not travel",
        extra=(
            (
                "mcp__mail__send_message",
                {"to": ["jade.dubois@company.example"], "subject": "Workshop travel", "body": "All booked."},
            ),
        ),
    ),
]

MISSES += [
    # mail guards of the tasks whose check did not say who else may be mailed (audit: mail guards)
    mails_someone_else(
        "rs-first-class-upgrade",
        "also mails the upgrade to another passenger",
        to="jonas.ito@mail.example",
        body="Bookings 4HUEW9, Y8JLYD and FXRS9F are now in first class.",
    ),
    mails_someone_else(
        "rs-withdrawn-train-rebooking",
        "also mails the rebooking to a passenger not on RE 608",
        to="jonas.ito@mail.example",
        body="RE 608 on 5 December is withdrawn; you are booked on RE 607.",
    ),
]

# duplicates the checks once let through
MISSES += [
    twice(
        "rs-weekend-trip-booking",
        "mcp__calendar__create_event",
        "the Friday train's Personal event",
        title="Train to Riverton (IC 108)",
    ),
    twice(
        "rs-workshop-travel",
        "mcp__calendar__create_event",
        "Kenji's train event",
        title="Train to Thornbury workshop (Kenji Andersen)",
    ),
]

# a stray booking the checks once let through: only the RE 607 rebookings may be new
MISSES += [
    NearMiss(
        "rs-withdrawn-train-rebooking",
        "Yara also left booked on RE 605 that day (a wrong first try not cancelled)",
        extra=(
            (
                "mcp__railway__book_journey",
                {
                    "passenger": "P00045",
                    "origin": "Orchard Hill",
                    "destination": "Elmstead",
                    "travel_date": "2026-12-05",
                    "trains": ["RE 605"],
                    "seat_class": "second",
                    "seats": 1,
                },
            ),
        ),
    ),
]
