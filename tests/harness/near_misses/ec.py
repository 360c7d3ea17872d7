"""Near misses of the ec tasks (see __init__.py)."""

from __future__ import annotations

from tests.harness.near_misses import NearMiss, mails_someone_else, twice

NOTICE = "mcp__mail__send_message"

MISSES: list[NearMiss] = [
    # ec-unpaid-orders-cancel
    NearMiss(
        "ec-unpaid-orders-cancel",
        "a notice with the right subject says the order ships",
        replace=(
            (
                "we did not receive the payment for your order ORD-100834 (53.99 EUR), so we have cancelled it.",
                "thank you for your order ORD-100834 (53.99 EUR). It will ship soon.",
            ),
        ),
    ),
    NearMiss(
        "ec-unpaid-orders-cancel",
        "a notice says the cancelled order ships once paid",
        replace=(
            (
                "You are welcome to place the order again at any time.",
                "Your order will ship as soon as your payment arrives.",
            ),
        ),
    ),
    NearMiss(
        "ec-unpaid-orders-cancel",
        "a notice says it was cancelled but gives no reason",
        replace=(
            (
                "we did not receive the payment for your order ORD-100835 (513.97 EUR), so we have cancelled it.",
                "your order ORD-100835 (513.97 EUR) has been cancelled.",
            ),
        ),
    ),
    NearMiss(
        "ec-unpaid-orders-cancel",
        "a subject that does not say cancelled",
        replace=(("Order ORD-100849 cancelled", "Your order ORD-100849"),),
    ),
    NearMiss(
        "ec-unpaid-orders-cancel",
        "a November order, still within the payment window, cancelled too",
        extra=(
            ("mcp__shop__cancel_order", {"order_number": "ORD-100862", "reason": "payment not received"}),
        ),
    ),
    NearMiss(
        "ec-unpaid-orders-cancel",
        "the customer of a November order told it was cancelled",
        extra=(
            (
                NOTICE,
                {
                    "to": ["ana.eriksen2@mail.example"],
                    "subject": "Order ORD-100862 cancelled",
                    "body": "We cancelled your order ORD-100862 because the payment did not arrive.",
                },
            ),
        ),
    ),
    NearMiss(
        "ec-unpaid-orders-cancel",
        "two messages to one customer",
        extra=(
            (
                NOTICE,
                {
                    "to": ["nadia.nakamura@mail.example"],
                    "subject": "Order ORD-100834 cancelled",
                    "body": "We cancelled your order ORD-100834 because the payment did not arrive.",
                },
            ),
        ),
    ),
    # ec-restock-sold-out
    NearMiss(
        "ec-restock-sold-out",
        "one paragraph with the quantities of two products swapped",
        replace=(
            (
                "- COM-1030 Bytewise HD Webcam 2: 90 units (bin A-11-3)\\n",
                "- COM-1030 Bytewise HD Webcam 2 and OUT-1076 Trailhead Sleeping Bag 2: 30 and 90 units\\n",
            ),
            ("\\n- OUT-1076 Trailhead Sleeping Bag 2: 30 units (bin E-17-1)", ""),
        ),
    ),
    NearMiss(
        "ec-restock-sold-out",
        "bullets with the quantities of two products swapped",
        replace=(
            ("Bytewise HD Webcam 2: 90 units", "Bytewise HD Webcam 2: 75 units"),
            ("Core Resistance Bands Lite: 75 units", "Core Resistance Bands Lite: 90 units"),
        ),
    ),
    NearMiss(
        "ec-restock-sold-out",
        "bullets without the product names",
        replace=(
            (" Bytewise HD Webcam 2:", ":"),
            (" Core Resistance Bands Lite:", ":"),
            (" Atlas Fit Resistance Bands Lite:", ":"),
            (" Trailhead Sleeping Bag 2:", ":"),
        ),
    ),
    NearMiss(
        "ec-restock-sold-out",
        "a product that was not delivered logged too",
        replace=(
            (
                "(bin E-17-1)",
                "(bin E-17-1)\\n- OUT-1064 Trailhead Hiking Backpack Lite: 40 units",
            ),
        ),
    ),
    NearMiss(
        "ec-restock-sold-out",
        "a product in stock restocked too",
        extra=(("mcp__shop__restock", {"sku": "OUT-1064", "quantity": 40}),),
    ),
    NearMiss(
        "ec-restock-sold-out",
        "the discontinued product that is sold out too (FIT-1086) restocked and logged",
        replace=(
            (
                "(bin E-17-1)",
                "(bin E-17-1)\\n- FIT-1086 Pulse Resistance Bands Max: 45 units (bin C-07-3)",
            ),
        ),
        extra=(("mcp__shop__restock", {"sku": "FIT-1086", "quantity": 45}),),
    ),
    # ec-winter-stock-check
    NearMiss(
        "ec-winter-stock-check",
        "the deck mailed with the subject 'FYI'",
        replace=(('"subject": "Winter Stock Check 2026"', '"subject": "FYI"'),),
    ),
    NearMiss("ec-winter-stock-check", "no title slide", drop=("mcp__pptx__add_title_slide",)),
    NearMiss(
        "ec-winter-stock-check",
        "the category slides in reverse order",
        drop=("mcp__pptx__add_table_slide",),
        extra=tuple(
            (
                "mcp__pptx__add_table_slide",
                {"path": "Winter_Stock.pptx", "title": f"{title}: under 50 units", "rows": rows},
            )
            for title, rows in (
                (
                    "Home",
                    [
                        ["SKU", "Name", "On Hand"],
                        ["HOM-1040", "Lumen Smart Plug", 15],
                        ["HOM-1042", "Hearth Smart Plug Max", 18],
                        ["HOM-1044", "Casa Nova Robot Vacuum Pro", 37],
                        ["HOM-1045", "Hearth Robot Vacuum Mini", 2],
                        ["HOM-1046", "Lumen Ceiling Fan Mini", 45],
                    ],
                ),
                (
                    "Fitness",
                    [
                        ["SKU", "Name", "On Hand"],
                        ["FIT-1080", "Pulse Yoga Mat", 34],
                        ["FIT-1082", "Core Adjustable Dumbbells Lite", 25],
                        ["FIT-1085", "Core Resistance Bands Lite", 0],
                        ["FIT-1087", "Atlas Fit Resistance Bands Lite", 0],
                    ],
                ),
                (
                    "Outdoor",
                    [
                        ["SKU", "Name", "On Hand"],
                        ["OUT-1064", "Trailhead Hiking Backpack Lite", 45],
                        ["OUT-1067", "Trailhead Camping Tent Mini", 35],
                        ["OUT-1068", "Fjellstad Camping Tent Lite", 35],
                        ["OUT-1076", "Trailhead Sleeping Bag 2", 0],
                    ],
                ),
            )
        ),
    ),  # fmt: skip
    NearMiss(
        "ec-winter-stock-check",
        "a price 31 cents off (passed the old relative tolerance)",
        replace=(('"Trailhead Camping Tent Mini", 344.99', '"Trailhead Camping Tent Mini", 345.3'),),
    ),
    NearMiss(
        "ec-winter-stock-check",
        "a wrong product name in the spreadsheet",
        replace=(
            ('["OUT-1066", "Summit Co Hiking Backpack",', '["OUT-1066", "Summit Co Hiking Backpack Lite",'),
        ),
    ),
    NearMiss(
        "ec-winter-stock-check",
        "a product under 50 units left off its slide",
        replace=((', ["HOM-1046", "Lumen Ceiling Fan Mini", 45]]', "]"),),
    ),
    NearMiss(
        "ec-winter-stock-check",
        "a discontinued product under 50 units (HOM-1048) on its slide",
        replace=(
            (
                ', ["HOM-1046", "Lumen Ceiling Fan Mini", 45]]',
                ', ["HOM-1046", "Lumen Ceiling Fan Mini", 45], ["HOM-1048", "Hearth Ceiling Fan Max", 17]]',
            ),
        ),
    ),
    NearMiss(
        "ec-winter-stock-check",
        "a discontinued product (FIT-1086) listed on its category's sheet",
        replace=(
            (
                '["FIT-1085", "Core Resistance Bands Lite", 34.99, 0, 2.75]',
                '["FIT-1085", "Core Resistance Bands Lite", 34.99, 0, 2.75],'
                ' ["FIT-1086", "Pulse Resistance Bands Max", 32.99, 0, 3.25]',
            ),
        ),
    ),
    # ec-monthly-sales-review
    NearMiss(
        "ec-monthly-sales-review",
        "Placed At set to 2026-01-01",
        replace=(
            ('"ORD-100635", "2026-08-01T14:21:55"', '"ORD-100635", "2026-01-01"'),
            ('"ORD-100636", "2026-08-01T18:43:31"', '"ORD-100636", "2026-01-01"'),
        ),
    ),
    NearMiss(
        "ec-monthly-sales-review",
        "a cancelled order listed as delivered",
        replace=(('"CU10047", "cancelled"', '"CU10047", "delivered"'),),
    ),
    NearMiss(
        "ec-monthly-sales-review",
        "a wrong duplicate Summary row before the right one",
        replace=(
            ('["2026-08", 79, 6,', '["2026-08", 80, 6, 30401.07, 2609.25, 27791.82], ["2026-08", 79, 6,'),
        ),
    ),
    NearMiss(
        "ec-monthly-sales-review",
        "a cancelled order left off its month's sheet ('whatever its status')",
        replace=(
            (', ["ORD-100656", "2026-08-08T15:32:41", "CU10047", "cancelled", 98.98, 98.98, 98.98]', ""),
        ),
    ),
    NearMiss(
        "ec-monthly-sales-review",
        "a net revenue a cent off in the Summary",
        replace=(("27100.63]", "27100.64]"),),
    ),
    NearMiss(
        "ec-monthly-sales-review",
        "a wrong net revenue in the mail",
        replace=(("23503.70 EUR", "23530.70 EUR"),),
    ),
    # ec-damaged-item-refund
    NearMiss(
        "ec-damaged-item-refund",
        "a reason other than the one asked for",
        replace=(('"reason": "item arrived damaged"', '"reason": "not damaged, customer changed her mind"'),),
    ),
    NearMiss(
        "ec-damaged-item-refund",
        "the whole order refunded instead of the blender's line",
        replace=(('"amount": 173.99', '"amount": 535.97'),),
    ),
    NearMiss(
        "ec-damaged-item-refund",
        "the mail gives a wrong amount that contains the right one",
        replace=(("We have refunded 173.99 EUR", "We have refunded 1173.99 EUR"),),
    ),
    NearMiss(
        "ec-damaged-item-refund",
        "the mail does not say the amount was refunded",
        replace=(
            (
                "We have refunded 173.99 EUR to your original payment method; it should reach you within a few days.",
                "We are looking into the 173.99 EUR you paid.",
            ),
        ),
    ),
    # ec-keyforge-vendor-brief
    NearMiss(
        "ec-keyforge-vendor-brief",
        "a product to discuss with a wrong average rating",
        replace=(
            (
                "Keyforge Laptop Stand Mini: average rating 2.44",
                "Keyforge Laptop Stand Mini: average rating 2.94",
            ),
        ),
    ),
    NearMiss(
        "ec-keyforge-vendor-brief",
        "products to discuss without their names",
        replace=((" Keyforge HD Webcam Max:", ":"), (" Nimbus Wireless Mouse:", ":")),
    ),
    NearMiss(
        "ec-keyforge-vendor-brief",
        "a product rated 3 or more listed to discuss",
        replace=(
            (
                '"COM-1020 Nimbus Wireless Mouse: average rating 2.33"',
                '"COM-1020 Nimbus Wireless Mouse: average rating 2.33", "COM-1019 Keyforge product"',
            ),
        ),
    ),
    NearMiss(
        "ec-keyforge-vendor-brief",
        "the brief mailed with another subject",
        replace=(('"subject": "Keyforge vendor brief"', '"subject": "Keyforge"'),),
    ),
    NearMiss(
        "ec-keyforge-vendor-brief",
        "the discontinued Keyforge keyboard (COM-1016) counted in Keyforge's row",
        replace=(('["Keyforge", 5, 483, 3.3, 5]', '["Keyforge", 6, 533, 3.32, 5]'),),
    ),
    NearMiss(
        "ec-keyforge-vendor-brief",
        "a wrong count of 1-2 star reviews",
        replace=(('["Nimbus", 6, 358, 3.5, 6]', '["Nimbus", 6, 358, 3.5, 7]'),),
    ),
]

MISSES += [
    # audit F1: only a mail whose attachment is the final file counts
    NearMiss(
        "ec-keyforge-vendor-brief",
        "the deliverable mailed right after it was created (empty), filled in afterwards",
        mail_early=True,
    ),
    NearMiss(
        "ec-monthly-sales-review",
        "the deliverable mailed right after it was created (empty), filled in afterwards",
        mail_early=True,
    ),
    NearMiss(
        "ec-winter-stock-check",
        "the deliverable mailed right after it was created (empty), filled in afterwards",
        mail_early=True,
    ),
    # audit F9: nothing else in the shop changes, and no one else is told
    NearMiss(
        "ec-damaged-item-refund",
        "also restocks an unrelated product",
        extra=(("mcp__shop__restock", {"sku": "COM-1030", "quantity": 5}),),
    ),
    NearMiss(
        "ec-damaged-item-refund",
        "the confirmation cc'd to another customer",
        replace=(
            (
                '"to": ["wen.meyer@mail.example"]',
                '"to": ["wen.meyer@mail.example"], "cc": ["nadia.nakamura@mail.example"]',
            ),
        ),
    ),
]

MISSES += [
    # collateral damage: what the task does not ask for is left as it was
    NearMiss(
        "ec-restock-sold-out",
        "also cancels a customer's order",
        extra=(
            ("mcp__shop__cancel_order", {"order_number": "ORD-100834", "reason": "payment not received"}),
        ),
    ),
    NearMiss(
        "ec-restock-sold-out",
        "also archives another wiki page",
        extra=(("mcp__wiki__update_page", {"page_id": 5, "archived": True}),),
    ),
]

MISSES += [
    # collateral damage: the task only reads the records
    NearMiss(
        "ec-keyforge-vendor-brief",
        "also cancels a customer's order",
        extra=(
            ("mcp__shop__cancel_order", {"order_number": "ORD-100834", "reason": "payment not received"}),
        ),
    ),
    NearMiss(
        "ec-monthly-sales-review",
        "also restocks a product",
        extra=(("mcp__shop__restock", {"sku": "COM-1030", "quantity": 90}),),
    ),
]

MISSES += [
    # collateral damage: what the task does not ask for is left as it was (the last fifteen guarded tasks)
    NearMiss(
        "ec-unpaid-orders-cancel",
        "also restocks a product",
        extra=(("mcp__shop__restock", {"sku": "AUD-1001", "quantity": 10}),),
    ),
    NearMiss(
        "ec-winter-stock-check",
        "also restocks a product of another category",
        extra=(("mcp__shop__restock", {"sku": "AUD-1001", "quantity": 10}),),
    ),
    mails_someone_else(
        "ec-winter-stock-check", "also mails the deck to someone else", body="The winter stock check."
    ),
]

MISSES += [
    # mail guards of the tasks whose check had no `changes` over the mailbox (audit: mail guards)
    NearMiss(
        "ec-damaged-item-refund",
        "also moves a message of the inbox to the trash",
        extra=(("mcp__mail__move_message", {"message_id": 5, "folder": "trash"}),),
    ),
]

# checks that once let these through
MISSES += [
    NearMiss(
        "ec-monthly-sales-review",
        "the workbook mailed under the subject 'Shop orders October 2026'",
        replace=(("Shop orders August–October 2026", "Shop orders October 2026"),),
    ),
    twice("ec-restock-sold-out", "mcp__wiki__create_page", "the restock log page"),
]
