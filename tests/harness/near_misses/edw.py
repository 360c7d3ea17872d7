"""Near misses of the edw tasks (see __init__.py)."""

from __future__ import annotations

from tests.harness.near_misses import NearMiss, gold_call, mails_someone_else, reorder

REGION_SLIDES = [
    gold_call("edw-regional-sales-review", "mcp__pptx__add_table_slide", title=f"{code} top customers")
    for code in ("NA-EAST", "NA-WEST", "EMEA-C", "EMEA-S")
]
SUMMARY_ROWS = [
    '["NA-EAST", 141, 9883067.3, 3850832.3, 4461195.0, 1571040.0]',
    '["NA-WEST", 108, 9162721.9, 3790861.9, 3942840.0, 1429020.0]',
    '["EMEA-C", 81, 6414197.6, 3460184.1, 2135586.0, 818427.5]',
    '["EMEA-S", 84, 5394535.95, 2718767.95, 2025693.0, 650075.0]',
]

MISSES: list[NearMiss] = [
    # edw-budget-vs-actual: money "to the cent"
    NearMiss(
        "edw-budget-vs-actual",
        "ENG budget 5826400.90 (true 5826400.00) in the sheet and the memo",
        replace=(('["ENG", 5826400.0,', '["ENG", 5826400.9,'),),
    ),
    NearMiss(
        "edw-budget-vs-actual",
        "the largest overrun 50 cents off in the memo",
        replace=(('"Salaries and wages", 166125.0]', '"Salaries and wages", 166125.5]'),),
    ),
    NearMiss(
        "edw-budget-vs-actual",
        "the spreadsheet also shared with the Sales Director",
        extra=(
            (
                "mcp__sheets__share",
                {"spreadsheet_id": 6, "email": "maya.wagner@company.example", "role": "reader"},
            ),
        ),
    ),
    NearMiss(
        "edw-budget-vs-actual",
        "Engineering's Q4 2026 budget counted too (Q1-Q4 instead of Q1-Q3)",
        replace=(
            (
                '["ENG", 5826400.0, 5394186.49, -432213.51, -7.4]',
                '["ENG", 7824500.0, 5394186.49, -2430313.51, -31.1]',
            ),
        ),
    ),
    # edw-regional-sales-review
    NearMiss(
        "edw-regional-sales-review",
        "Summary rows reversed plus a made-up APAC row",
        replace=(
            (
                ", ".join(SUMMARY_ROWS),
                ", ".join([*reversed(SUMMARY_ROWS), '["APAC", 12, 100000.0, 50000.0, 30000.0, 20000.0]']),
            ),
        ),
    ),
    NearMiss(
        "edw-regional-sales-review",
        "region slides in reverse order",
        replace=reorder(REGION_SLIDES, [3, 2, 1, 0]),
    ),
    NearMiss(
        "edw-regional-sales-review",
        "a top customer's revenue 90 cents off (to the cent asked)",
        replace=(("1202152.9", "1202152.0"),),
    ),
    NearMiss(
        "edw-regional-sales-review",
        "orders assigned by the customer's region, not the order's (SO-2600851, booked in EMEA-C, left out)",
        replace=(
            (SUMMARY_ROWS[2], '["EMEA-C", 80, 6404162.6, 3460184.1, 2134626.0, 809352.5]'),
            ('["2026-06", 6, 396109.7]', '["2026-06", 5, 386074.7]'),
            ("EMEA-C: 81 orders, 6,414,197.60 USD", "EMEA-C: 80 orders, 6,404,162.60 USD"),
        ),
    ),
]

MISSES += [
    # edw-top-customers-mail
    NearMiss(
        "edw-top-customers-mail",
        "a sixth customer added to the top five",
        replace=(
            (
                "5. Meridian Facilities (C1020): 535,249.20 USD",
                "5. Meridian Facilities (C1020): 535,249.20 USD\\n6. Meridian Foods (C1069): 523,318.00 USD",
            ),
        ),
    ),
    NearMiss(
        "edw-top-customers-mail",
        "a revenue a cent off",
        replace=(("783,855.20", "783,855.21"),),
    ),
    NearMiss(
        "edw-top-customers-mail",
        "Atlas Facilities' cancelled Q3 order (SO-2601059) counted in its revenue",
        replace=(("Atlas Facilities (C1075): 559,028.70 USD", "Atlas Facilities (C1075): 598,669.40 USD"),),
    ),
]

MISSES += [
    # edw-open-orders-review
    NearMiss(
        "edw-open-orders-review",
        "the CFO invited too",
        replace=(
            (
                '"sofia.sato@company.example"], "description"',
                '"sofia.sato@company.example", "kai.kaur@company.example"], "description"',
            ),
        ),
    ),
    NearMiss(
        "edw-open-orders-review",
        "an amount a dollar off",
        replace=(("Keystone Retail: 322,376.50 USD", "Keystone Retail: 322,377.50 USD"),),
    ),
    NearMiss(
        "edw-open-orders-review",
        "a cancelled order over 50,000 listed too",
        replace=(
            (
                "Riverbend Agritech: 60,738.10 USD",
                "Riverbend Agritech: 60,738.10 USD\\n- SO-2601020 (2026-09-23) Lakeshore Manufacturing: 96,255.00 USD",
            ),
        ),
    ),
    NearMiss(
        "edw-open-orders-review",
        "an open order under 50,000 listed too",
        replace=(
            (
                "Riverbend Agritech: 60,738.10 USD",
                "Riverbend Agritech: 60,738.10 USD\\n- SO-2601140 (2026-11-05) Atlas Pharma: 48,239.10 USD",
            ),
        ),
    ),
]

MISSES += [
    # edw-october-payroll-memo: "to the cent"
    NearMiss(
        "edw-october-payroll-memo",
        "Customer Support total 4 cents off",
        replace=(("154829.58", "154829.62"),),
    ),
    NearMiss(
        "edw-october-payroll-memo",
        "Engineering's row from period 2026-09 instead of 2026-10",
        replace=(
            (
                '["Engineering", 504025.0, 105845.25, 609870.25]',
                '["Engineering", 495816.67, 104121.5, 599938.17]',
            ),
        ),
    ),
    # edw-people-review
    NearMiss(
        "edw-people-review",
        "Engineering's lowest salary a dollar off",
        replace=(("151208, 96000, 222300", "151208, 96001, 222300"),),
    ),
    NearMiss(
        "edw-people-review",
        "E0097's promotion of 2027-01-01 taken as current salary (Engineering average and highest)",
        replace=(("151208, 96000, 222300", "151718, 96000, 224800"),),
    ),
    NearMiss(
        "edw-people-review",
        "E0097's promotion of 2027-01-01 listed among this year's promotions",
        replace=(
            (
                '["E0102", "Daniel Silva",',
                '["E0097", "Emeka Wagner", "Engineering", "Staff Engineer", 224800], ["E0102", "Daniel Silva",',
            ),
        ),
    ),
    NearMiss(
        "edw-people-review",
        "a promotion's new salary a dollar off",
        replace=(('"Engineering Manager", 202000]', '"Engineering Manager", 202001]'),),
    ),
    NearMiss(
        "edw-people-review",
        "the document changed after it was mailed (the HR Director got another version)",
        extra=(
            ("mcp__word__add_paragraph", {"path": "People_Review_2026.docx", "text": "Added after sending."}),
        ),
    ),
]

MISSES += [
    # audit F2: highest first, also when all five stand on one line
    NearMiss(
        "edw-top-customers-mail",
        "all five on one line, lowest first",
        replace=(
            (
                "1. Blue Harbor Retail (C1113): 1,043,652.00 USD\\n2. Summit Manufacturing (C1061): 783,855.20 USD\\n"
                "3. Polar Pharma (C1040): 644,318.50 USD\\n4. Atlas Facilities (C1075): 559,028.70 USD\\n"
                "5. Meridian Facilities (C1020): 535,249.20 USD",
                "Meridian Facilities (C1020) 535,249.20 USD; Atlas Facilities (C1075) 559,028.70 USD; "
                "Polar Pharma (C1040) 644,318.50 USD; Summit Manufacturing (C1061) 783,855.20 USD; "
                "Blue Harbor Retail (C1113) 1,043,652.00 USD",
            ),
        ),
    ),
]

MISSES += [
    # collateral damage: the task only reads the records
    mails_someone_else(
        "edw-people-review", "also mails the review to someone else too", body="See the attached figures."
    ),
    mails_someone_else(
        "edw-regional-sales-review",
        "also mails the review to someone else too",
        body="See the attached figures.",
    ),
    mails_someone_else(
        "edw-top-customers-mail", "also mails the list to someone else too", body="See the attached figures."
    ),
]

MISSES += [
    # collateral damage: what the task does not ask for is left as it was (the last fifteen guarded tasks)
    NearMiss(
        "edw-budget-vs-actual",
        "also writes into another team's spreadsheet",
        extra=(
            ("mcp__sheets__write_range", {"spreadsheet_id": 1, "range": "Summary!Z1", "values": [["x"]]}),
        ),
    ),
    mails_someone_else(
        "edw-budget-vs-actual", "also mails the memo to someone else", body="Budget vs actual is out."
    ),
    NearMiss(
        "edw-open-orders-review",
        "also deletes a later event from my Work calendar",
        extra=(("mcp__calendar__delete_event", {"event_id": 60}),),
    ),
    NearMiss(
        "edw-open-orders-review",
        "also mails someone who is not invited",
        extra=(
            (
                "mcp__mail__send_message",
                {
                    "to": ["jade.dubois@company.example"],
                    "subject": "Open orders",
                    "body": "A review is booked.",
                },
            ),
        ),
    ),
    NearMiss(
        "edw-regional-sales-review",
        "the Summary ends with a Total row whose revenue is off by 1000",
        replace=(
            (
                '["EMEA-S", 84, 5394535.95, 2718767.95, 2025693.0, 650075.0]',
                '["EMEA-S", 84, 5394535.95, 2718767.95, 2025693.0, 650075.0],'
                ' ["Total", 414, 30855522.75, 13820646.25, 12565314.0, 4468562.5]',
            ),
        ),
    ),
]
