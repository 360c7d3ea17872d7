"""Near misses of the fc tasks (see __init__.py)."""

from __future__ import annotations

from tests.harness.near_misses import NearMiss, mails_someone_else, stray_spreadsheet

CS = "fc-client-statements"
MC = "fc-menu-comparison"

MISSES: list[NearMiss] = [
    # fc-client-statements
    NearMiss(
        CS,
        "Aldermoor's delivered total is 5430.00 (true 5380.00)",
        replace=(("Delivered total: 5380.00", "Delivered total: 5430.00"),),
    ),
    NearMiss(
        CS,
        "a row's Menu, Guests, Status and Total cells are blank",
        replace=(
            (
                '["CO-1011", "2026-09-14", "Indian Banquet", 60, "delivered", 870.0]',
                '["CO-1011", "2026-09-14", "", "", "", ""]',
            ),
        ),
    ),
    NearMiss(
        CS,
        "a confirmed order is listed as delivered",
        replace=(
            (
                '"Mediterranean Corporate Lunch", 80, "confirmed", 1000.0]',
                '"Mediterranean Corporate Lunch", 80, "delivered", 1000.0]',
            ),
        ),
    ),
    NearMiss(
        CS,
        "a row's total is 1650.00 (true 1560.00)",
        replace=(
            (
                '"Vegan Tasting Menu", 120, "delivered", 1560.0]',
                '"Vegan Tasting Menu", 120, "delivered", 1650.0]',
            ),
        ),
    ),
    NearMiss(
        CS,
        "a row names the wrong menu and guest count",
        replace=(('"2026-11-01", "Nut-Free School Lunch", 200,', '"2026-11-01", "Indian Banquet", 20,'),),
    ),
    NearMiss(
        CS,
        "a row's event date is wrong",
        replace=(('["CO-1064", "2026-11-03"', '["CO-1064", "2026-11-30"'),),
    ),
    NearMiss(
        CS,
        "Northam's cancelled order CO-1059 listed on its statement",
        replace=(
            (
                '["CO-1036", "2026-10-15", "Winter Wedding Buffet", 200, "delivered", 4900.0]',
                '["CO-1036", "2026-10-15", "Winter Wedding Buffet", 200, "delivered", 4900.0],'
                ' ["CO-1059", "2026-10-31", "Mediterranean Corporate Lunch", 60, "cancelled", 750.0]',
            ),
        ),
    ),
    NearMiss(
        CS,
        "an order of January 2027 (CO-1126) listed on Northam's 2026 statement",
        replace=(
            (
                '["CO-1095", "2026-12-27", "Nut-Free School Lunch", 20, "quote", 230.0]',
                '["CO-1095", "2026-12-27", "Nut-Free School Lunch", 20, "quote", 230.0],'
                ' ["CO-1126", "2027-01-03", "Mediterranean Corporate Lunch", 45, "confirmed", 562.5]',
            ),
        ),
    ),
    # fc-menu-comparison
    NearMiss(
        MC,
        "the Mediterranean price per guest is 12.6 (true 12.5)",
        replace=(
            (
                '["Mediterranean Corporate Lunch", 12.5, 1885.8',
                '["Mediterranean Corporate Lunch", 12.6, 1885.8',
            ),
        ),
    ),
    NearMiss(
        MC,
        "the Mediterranean kcal per guest is 1900 (true 1885.8)",
        replace=(
            (
                '["Mediterranean Corporate Lunch", 12.5, 1885.8',
                '["Mediterranean Corporate Lunch", 12.5, 1900',
            ),
        ),
    ),
    NearMiss(
        MC,
        "Butter Chicken's kcal per serving is 642 (true 636.7)",
        replace=(('["Butter Chicken", "main", 1.0, 636.7,', '["Butter Chicken", "main", 1.0, 642,'),),
    ),
    NearMiss(
        MC,
        "Hummus' protein per serving is 9.7 g (true 9.4)",
        replace=(('["Hummus", "starter", 0.5, 324.0, 9.4,', '["Hummus", "starter", 0.5, 324.0, 9.7,'),),
    ),
    NearMiss(
        MC,
        "the Summary has a wrong duplicate row for a menu before the right one",
        replace=(
            (
                '["Indian Banquet", 14.5, 1754.9',
                '["Indian Banquet", 15.5, 1754.9, "dairy"], ["Indian Banquet", 14.5, 1754.9',
            ),
        ),
    ),
    # fc-guest-count-change
    NearMiss(
        "fc-guest-count-change",
        "the mail gives the new total as 5200.00 (true 520.00; '520' is inside '5200.00')",
        replace=(("the new total is 520.00 USD", "the new total is 5200.00 USD"),),
    ),
    NearMiss(
        "fc-guest-count-change",
        "the mail gives 400 guests (true 40; '40' is inside '400')",
        replace=(("is now for 40 guests", "is now for 400 guests"),),
    ),
    NearMiss(
        "fc-guest-count-change",
        "the mail gives the total as 520.50 (true 520.00)",
        replace=(("the new total is 520.00 USD", "the new total is 520.50 USD"),),
    ),
    NearMiss(
        "fc-guest-count-change",
        "the guests added to Northam's next order, the quote CO-1151, not to its next confirmed one",
        replace=(('"reference": "CO-1073", "guests": 40', '"reference": "CO-1151", "guests": 45'),),
    ),
    # fc-vegan-school-lunch
    NearMiss(
        "fc-vegan-school-lunch",
        "the quote mail gives the total as 1390.00 (true 390.00; '390.00' is inside '1390.00')",
        replace=(("Total: 390.00 USD", "Total: 1390.00 USD"),),
    ),
    NearMiss(
        "fc-vegan-school-lunch",
        "the quote mail gives the price per guest as 16.50 (true 6.50)",
        replace=(("Price per guest: 6.50 USD", "Price per guest: 16.50 USD"),),
    ),
    NearMiss(
        "fc-vegan-school-lunch",
        "the lightest vegan dessert taken although it has gluten (Apple Crumble)",
        replace=(('"Ratatouille", "Mango Sticky Rice"', '"Ratatouille", "Apple Crumble"'),),
    ),
    NearMiss(
        "fc-vegan-school-lunch",
        "the lightest vegan dessert taken although it has nuts (Baked Apples with Walnuts)",
        replace=(('"Ratatouille", "Mango Sticky Rice"', '"Ratatouille", "Baked Apples with Walnuts"'),),
    ),
    NearMiss(
        "fc-vegan-school-lunch",
        "the lightest vegan dessert taken although it has peanuts (Peanut Brittle)",
        replace=(('"Ratatouille", "Mango Sticky Rice"', '"Ratatouille", "Peanut Brittle"'),),
    ),
    # fc-fortnight-schedule
    NearMiss(
        "fc-fortnight-schedule",
        "two orders on the same day are not in reference order",
        replace=(
            ('["CO-1068", "2026-12-02", "Thornbury Research Lab", "Indian Banquet", 45, "confirmed"]', "@@"),
            (
                '["CO-1075", "2026-12-02", "Meridian Rail Heritage Trust", "Graduation Garden Party", 20, "confirmed"]',
                '["CO-1068", "2026-12-02", "Thornbury Research Lab", "Indian Banquet", 45, "confirmed"]',
            ),
            (
                "@@",
                '["CO-1075", "2026-12-02", "Meridian Rail Heritage Trust", "Graduation Garden Party", 20, "confirmed"]',
            ),
        ),
    ),
    NearMiss(
        "fc-fortnight-schedule",
        "an order's guests are 210 (true 120)",
        replace=(
            (
                '"Graduation Garden Party", 120, "in_preparation"',
                '"Graduation Garden Party", 210, "in_preparation"',
            ),
        ),
    ),
    NearMiss(
        "fc-fortnight-schedule",
        "a quote in the fortnight (CO-1087) listed with the confirmed orders",
        replace=(
            (
                '["CO-1075", "2026-12-02", "Meridian Rail Heritage Trust", "Graduation Garden Party", 20, "confirmed"]',
                '["CO-1075", "2026-12-02", "Meridian Rail Heritage Trust", "Graduation Garden Party", 20, "confirmed"],'
                ' ["CO-1087", "2026-12-02", "Greenmarsh Primary School", "Conference Street Food", 40, "quote"]',
            ),
        ),
    ),
    # fc-cs-term-party
    NearMiss(
        "fc-cs-term-party",
        "the order counts people in several courses more than once (95 guests, true 92)",
        replace=(('"guests": 92,', '"guests": 95,'),),
    ),
    NearMiss(
        "fc-cs-term-party",
        "the cheapest menu taken although it has peanuts (Thai Street Lunch)",
        replace=(('"menu": "Graduation Garden Party"', '"menu": "Thai Street Lunch"'),),
    ),
    NearMiss(
        "fc-cs-term-party",
        "students who dropped or wait for a place counted too (94 guests, true 92)",
        replace=(('"guests": 92,', '"guests": 94,'),),
    ),
    NearMiss(
        "fc-cs-term-party",
        "the order's note is not 'CS end-of-term party'",
        replace=(('"notes": "CS end-of-term party"', '"notes": "end-of-term"'),),
    ),
]

MISSES += [
    # audit F1: only a mail whose attachment is the final file counts (each statement)
    NearMiss(
        "fc-client-statements",
        "the deliverable mailed right after it was created (empty), filled in afterwards",
        mail_early=True,
    ),
    NearMiss(
        "fc-menu-comparison",
        "the deliverable mailed right after it was created (empty), filled in afterwards",
        mail_early=True,
    ),
    # audit F6: nothing else of the client's orders changes
    NearMiss(
        "fc-guest-count-change",
        "also cancels the client's other confirmed event CO-1088",
        extra=(("mcp__kitchen__update_catering_order", {"reference": "CO-1088", "status": "cancelled"}),),
    ),
    NearMiss(
        "fc-guest-count-change",
        "also moves the order's event date",
        extra=(
            ("mcp__kitchen__update_catering_order", {"reference": "CO-1073", "event_date": "2026-12-11"}),
        ),
    ),
]

MISSES += [
    # collateral damage: what the task does not ask for is left as it was
    NearMiss(
        "fc-vegan-school-lunch",
        "also cancels another client's order",
        extra=(("mcp__kitchen__update_catering_order", {"reference": "CO-1073", "status": "cancelled"}),),
    ),
    NearMiss(
        "fc-vegan-school-lunch",
        "also removes a dish from another menu",
        extra=(("mcp__kitchen__remove_menu_item", {"menu": "Vegan Tasting Menu", "recipe": "Miso Soup"}),),
    ),
    NearMiss(
        "fc-cs-term-party",
        "also cancels another client's order",
        extra=(("mcp__kitchen__update_catering_order", {"reference": "CO-1073", "status": "cancelled"}),),
    ),
]

MISSES += [
    # collateral damage: the task only reads the records
    NearMiss(
        "fc-client-statements",
        "also removes a dish from a menu",
        extra=(("mcp__kitchen__remove_menu_item", {"menu": "Vegan Tasting Menu", "recipe": "Miso Soup"}),),
    ),
    NearMiss(
        "fc-menu-comparison",
        "also cancels another client's order",
        extra=(("mcp__kitchen__update_catering_order", {"reference": "CO-1073", "status": "cancelled"}),),
    ),
]

MISSES += [
    # collateral damage: what the task does not ask for is left as it was (the last fifteen guarded tasks)
    NearMiss(
        "fc-fortnight-schedule",
        "also changes the guests of a later order",
        extra=(("mcp__kitchen__update_catering_order", {"reference": "CO-1076", "guests": 45}),),
    ),
    NearMiss(
        "fc-menu-comparison",
        "the Summary ends with a Total row of a wrong price sum (41.0 for 40.0)",
        replace=(
            (
                '"dairy, gluten, mustard, nuts"]]',
                '"dairy, gluten, mustard, nuts"], ["Total", 41.0, 5058.5, null]]',
            ),
        ),
    ),
]

MISSES += [
    # mail guards of the tasks whose check did not say who else may be mailed (audit: mail guards)
    mails_someone_else(
        "fc-guest-count-change",
        "also mails the update to another client",
        to="events@aldermoor-univ.example",
        body="Order CO-1073 is now for 40 guests.",
    ),
]

# a duplicate the check once let through
MISSES += [
    stray_spreadsheet(
        "fc-fortnight-schedule", "a second, empty 'Kitchen schedule 23 Nov - 6 Dec' spreadsheet left behind"
    )
]

# strays the checks once let through: a second order or announcement beside the right one
MISSES += [
    NearMiss(
        "fc-cs-term-party",
        "a second Aldermoor University order left open, for 2026-12-12 (a wrong first try)",
        extra=(
            (
                "mcp__kitchen__create_catering_order",
                {
                    "client": "Aldermoor University",
                    "contact_email": "events@aldermoor-univ.example",
                    "event_date": "2026-12-12",
                    "guests": 92,
                    "menu": "Graduation Garden Party",
                    "notes": "CS end-of-term party",
                },
            ),
        ),
    ),
    NearMiss(
        "fc-cs-term-party",
        "CS101 also gets a second party announcement, without the reference",
        extra=(
            (
                "mcp__lms__post_announcement",
                {"course": "CS101", "title": "Party", "body": "The CS end-of-term party is on 2026-12-11."},
            ),
        ),
    ),
    NearMiss(
        "fc-vegan-school-lunch",
        "a second Greenmarsh quote left open, for 2026-12-10 (a wrong first try)",
        extra=(
            (
                "mcp__kitchen__create_catering_order",
                {
                    "client": "Greenmarsh Primary School",
                    "contact_email": "office@greenmarsh-school.example",
                    "event_date": "2026-12-10",
                    "guests": 60,
                    "menu": "Greenmarsh Vegan Lunch",
                },
            ),
        ),
    ),
]
