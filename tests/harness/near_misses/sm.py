"""Near misses of the sm tasks (see __init__.py)."""

from __future__ import annotations

from tests.harness.near_misses import NearMiss, gold_call, mails_someone_else, twice

MISSES: list[NearMiss] = [
    # sm-dividend-watchlist
    NearMiss(
        "sm-dividend-watchlist",
        "the mail names the symbols without their yields",
        replace=(
            ("- GRID (Gridline Utilities): 3.4%", "- GRID (Gridline Utilities)"),
            ("- HRBR (Harbor Financial): 3.1%", "- HRBR (Harbor Financial)"),
            ("- FOOD (Harvest Foods): 3.0%", "- FOOD (Harvest Foods)"),
        ),
    ),
    NearMiss(
        "sm-dividend-watchlist",
        "the mail pairs two symbols with each other's yields",
        replace=(
            ("- GRID (Gridline Utilities): 3.4%", "- GRID (Gridline Utilities): 3.1%"),
            ("- HRBR (Harbor Financial): 3.1%", "- HRBR (Harbor Financial): 3.4%"),
        ),
    ),
    NearMiss(
        "sm-dividend-watchlist",
        "HRBR removed from the 'Core holdings' watchlist",
        extra=(("mcp__market__remove_from_watchlist", {"watchlist": "Core holdings", "symbol": "HRBR"}),),
    ),
    NearMiss(
        "sm-dividend-watchlist",
        "a seeded dividend idea removed",
        extra=(("mcp__market__remove_from_watchlist", {"watchlist": "Dividend ideas", "symbol": "REIT"}),),
    ),
    NearMiss(
        "sm-dividend-watchlist",
        "a note with a wrong yield",
        replace=(('"note": "yield 3.1%"', '"note": "yield 3.4%"'),),
    ),
    # sm-core-holdings-review
    NearMiss(
        "sm-core-holdings-review",
        "a YTD % a hundredth off in the workbook",
        replace=(("419.3, 34.22,", "419.3, 34.23,"),),
    ),
    NearMiss(
        "sm-core-holdings-review",
        "a P/E a tenth off in the workbook",
        replace=(("34.22, 45.5,", "34.22, 45.6,"),),
    ),
    NearMiss(
        "sm-core-holdings-review",
        "a slide gives SEMI's EPS surprise as +2.7% (true -2.7%)",
        replace=(("Q3 EPS surprise -2.7%", "Q3 EPS surprise +2.7%"),),
    ),
    NearMiss(
        "sm-core-holdings-review",
        "a slide with a wrong P/E",
        replace=(("+6.36% year to date, P/E 29.9", "+6.36% year to date, P/E 92.9"),),
    ),
    NearMiss(
        "sm-core-holdings-review",
        "a slide without the Q3 results",
        replace=(
            ('"Q3 2026 revenue 20,273.4 million USD, +12.8% year over year", "Q3 EPS surprise -6.9%", ', ""),
        ),
    ),
    NearMiss("sm-core-holdings-review", "no title slide", drop=("mcp__pptx__add_title_slide",)),
    # sm-healthcare-peers
    NearMiss(
        "sm-healthcare-peers",
        "best and worst performer swapped",
        replace=(
            ("Best performer: MEDX", "Worst performer: MEDX"),
            ("Worst performer: GENO", "Best performer: GENO"),
        ),
    ),
    NearMiss(
        "sm-healthcare-peers",
        "best and worst on one line with the companies swapped",
        replace=(
            (
                '"Best performer: MEDX (Medexa Therapeutics), +63.76% since the 2026 open", '
                '"Worst performer: GENO (Genova Biosciences), -20.70% since the 2026 open"',
                '"Best: GENO; worst: MEDX"',
            ),
        ),
    ),
    NearMiss(
        "sm-healthcare-peers",
        "a Change % a hundredth off",
        replace=(("227.09, 11.05,", "227.09, 11.06,"),),
    ),
    NearMiss("sm-healthcare-peers", "no title slide", drop=("mcp__pptx__add_title_slide",)),
    # sm-harvest-foods-note
    NearMiss(
        "sm-harvest-foods-note",
        "quarters oldest first",
        replace=(
            (
                '["2026Q3", 6363.5, 1.14, 1.18, -3.4], ["2026Q2", 6480.7, 1.07, 0.99, 8.1], '
                '["2026Q1", 6161.9, 0.92, 0.83, 10.8], ["2025Q4", 6743.4, 1.5, 1.57, -4.5]',
                '["2025Q4", 6743.4, 1.5, 1.57, -4.5], ["2026Q1", 6161.9, 0.92, 0.83, 10.8], '
                '["2026Q2", 6480.7, 1.07, 0.99, 8.1], ["2026Q3", 6363.5, 1.14, 1.18, -3.4]',
            ),
        ),
    ),
    NearMiss(
        "sm-harvest-foods-note",
        "a surprise with the wrong sign",
        replace=(("1.14, 1.18, -3.4]", "1.14, 1.18, 3.4]"),),
    ),
    NearMiss(
        "sm-harvest-foods-note",
        "the note says FOOD is down 6.64% since the 2026 open (it is up)",
        replace=(("+6.64% since the first open", "down 6.64% since the first open"),),
    ),
    NearMiss(
        "sm-harvest-foods-note",
        "a wrong dividend yield",
        replace=(("dividend yield of 3.0%", "dividend yield of 3.1%"),),
    ),
    NearMiss(
        "sm-harvest-foods-note",
        "the deal's customer not named",
        replace=(("to Aldermoor Catering", "to a caterer"),),
    ),
    # sm-biggest-decliner-alert
    NearMiss(
        "sm-biggest-decliner-alert",
        "the second-worst holding's change in the body",
        replace=(("-0.70% on the day", "-0.63% on the day"),),
    ),
    NearMiss(
        "sm-biggest-decliner-alert",
        "an older headline instead of the most recent one",
        replace=(
            (
                "Latest news (2026-10-27): Novatech Systems beats Q3 estimates",
                "Latest news (2026-07-27): Novatech Systems misses Q2 estimates",
            ),
        ),
    ),
    NearMiss(
        "sm-biggest-decliner-alert",
        "a subject naming every holding",
        replace=(
            ("Core holdings: NOVA fell -0.70% today", "Core holdings today: NOVA, SEMI, RTLX, HRBR, STRM"),
        ),
    ),
    NearMiss(
        "sm-biggest-decliner-alert",
        "the review booked half an hour later than the first free slot",
        replace=(
            (
                '"start": "2026-11-23T11:00", "end": "2026-11-23T11:30"',
                '"start": "2026-11-23T11:30", "end": "2026-11-23T12:00"',
            ),
        ),
    ),
    NearMiss(
        "sm-biggest-decliner-alert",
        "Kai not invited to the review",
        replace=(
            ('"attendees": ["kai.kaur@company.example"], "description"', '"attendees": [], "description"'),
        ),
    ),
    # sm-energy-drawdown
    NearMiss(
        "sm-energy-drawdown",
        "a max drawdown a hundredth off",
        replace=(('"2026-10-19", -33.71]', '"2026-10-19", -33.72]'),),
    ),
    NearMiss(
        "sm-energy-drawdown",
        "a max drawdown given as a positive number",
        replace=(('"2026-06-26", -56.55]', '"2026-06-26", 56.55]'),),
    ),
    NearMiss(
        "sm-energy-drawdown",
        "the invite pairs two symbols with each other's drawdowns",
        replace=(("SOLR -56.55%; PETX -33.71%", "SOLR -33.71%; PETX -56.55%"),),
    ),
    NearMiss(
        "sm-energy-drawdown",
        "a wrong high date",
        replace=(('106.03, "2026-01-21"', '106.03, "2026-01-20"'),),
    ),
    NearMiss(
        "sm-energy-drawdown",
        "Lara not invited",
        replace=(
            (
                '"attendees": ["kai.kaur@company.example", "lara.varga@company.example"]',
                '"attendees": ["kai.kaur@company.example"]',
            ),
        ),
    ),
]

DW = "sm-dividend-watchlist"

MISSES += [
    # Traps: rows a condition of the prompt leaves out, which the seed holds on purpose.
    NearMiss(
        "sm-biggest-decliner-alert",
        "the review at 09:00, free in my calendar but not in Kai's",
        replace=(
            (
                '"start": "2026-11-23T11:00", "end": "2026-11-23T11:30"',
                '"start": "2026-11-23T09:00", "end": "2026-11-23T09:30"',
            ),
        ),
    ),
    NearMiss(
        "sm-biggest-decliner-alert",
        "the alert is about AERO, today's biggest faller but no Core holding",
        replace=(
            ("Core holdings: NOVA fell -0.70% today", "AERO fell -2.71% today"),
            ("Review: NOVA", "Review: AERO"),
        ),
    ),
    NearMiss(
        DW,
        "BREW (2.7%, below the threshold) added too",
        extra=(
            (
                "mcp__market__add_to_watchlist",
                {"watchlist": "Dividend ideas", "symbol": "BREW", "note": "yield 2.7%"},
            ),
        ),
    ),
    NearMiss(
        DW,
        "FOOD (exactly 3.0%) left out as not above 3%",
        replace=(
            (
                gold_call(DW, "mcp__market__add_to_watchlist", symbol="FOOD"),
                '{"tool": "mcp__market__get_watchlist", "arguments": {"name": "Dividend ideas"}}',
            ),
            ("\\n- FOOD (Harvest Foods): 3.0%", ""),
        ),
    ),
    NearMiss(
        "sm-core-holdings-review",
        "NOVA's Q3 revenue of 2025 instead of 2026",
        replace=(("419.3, 34.22, 45.5, 12064.4,", "419.3, 34.22, 45.5, 10288.5,"),),
    ),
    NearMiss(
        "sm-harvest-foods-note",
        "a fifth, older quarter (2025Q3) in the table",
        replace=(
            (
                '["2025Q4", 6743.4, 1.5, 1.57, -4.5]]',
                '["2025Q4", 6743.4, 1.5, 1.57, -4.5], ["2025Q3", 6017.5, 1.19, 1.24, -4.0]]',
            ),
        ),
    ),
]

# Traps of the 2026 condition: the market also holds the bars of 2025-10-01 to 2025-12-31, so a first
# open, high, low or drawdown taken over every stored bar is not the 2026 one.
MISSES += [
    NearMiss(
        "sm-energy-drawdown",
        "first open and YTD % from the first stored bar (2025-10-01), not the first 2026 session",
        replace=(
            ('["SOLR", 42.7, 37.39, -12.44,', '["SOLR", 47.7, 37.39, -21.61,'),
            ('["PETX", 104.3, 75.06, -28.03,', '["PETX", 72.93, 75.06, 2.92,'),
            ('["WIND", 27.8, 16.11, -42.05,', '["WIND", 24.06, 16.11, -33.04,'),
        ),
    ),
    NearMiss(
        "sm-energy-drawdown",
        "high close and max drawdown over every stored close, the 2025 highs of SOLR and PETX included",
        replace=(
            (
                '52.01, "2026-02-02", 22.6, "2026-06-26", -56.55]',
                '58.63, "2025-10-29", 22.6, "2026-06-26", -61.45]',
            ),
            (
                '106.03, "2026-01-21", 70.29, "2026-10-19", -33.71]',
                '107.54, "2025-12-19", 70.29, "2026-10-19", -34.64]',
            ),
            ("SOLR -56.55%; PETX -33.71%", "SOLR -61.45%; PETX -34.64%"),
        ),
    ),
    NearMiss(
        "sm-core-holdings-review",
        "YTD % from the first stored open (2025-10-01), not the first open of 2026",
        replace=(
            ("419.3, 34.22,", "419.3, 65.18,"),
            ("235.8, 6.36,", "235.8, 28.69,"),
            ("200.72, 8.15,", "200.72, 29.46,"),
            ("69.8, 14.05,", "69.8, 23.67,"),
            ("245.22, -40.52,", "245.22, -46.54,"),
            ("+34.22% year to date", "+65.18% year to date"),
            ("+6.36% year to date", "+28.69% year to date"),
            ("+8.15% year to date", "+29.46% year to date"),
            ("+14.05% year to date", "+23.67% year to date"),
            ("-40.52% year to date", "-46.54% year to date"),
        ),
    ),
    NearMiss(
        "sm-harvest-foods-note",
        "the change since the first stored open (2025-10-01), not the first open of 2026",
        replace=(("+6.64% since the first open of 2026", "-1.86% since the first open of 2026"),),
    ),
]

MISSES += [
    # audit F1: only a mail whose attachment is the final file counts
    NearMiss(
        "sm-core-holdings-review",
        "the deliverable mailed right after it was created (empty), filled in afterwards",
        mail_early=True,
    ),
    NearMiss(
        "sm-healthcare-peers",
        "the deliverable mailed right after it was created (empty), filled in afterwards",
        mail_early=True,
    ),
    # audit F3: the change is a fall
    NearMiss(
        "sm-biggest-decliner-alert",
        "the mail says NOVA rose 0.70%",
        replace=(
            ("it closed at 419.30 USD, -0.70% on the day", "it closed at 419.30 USD, up +0.70% on the day"),
            ("NOVA fell -0.70% today", "NOVA today"),
        ),
    ),
    # audit F4: the mail names only the added symbols with a yield
    NearMiss(
        "sm-dividend-watchlist",
        "the mail claims the three seeded ideas were added too",
        replace=(
            (
                "- FOOD (Harvest Foods): 3.0%",
                "- FOOD (Harvest Foods): 3.0%\\n- PETX: 3.8%\\n- REIT: 4.6%\\n- TELX: 5.2%",
            ),
        ),
    ),
    NearMiss(
        "sm-dividend-watchlist",
        "the mail says a seeded idea was added as well, in a sentence of its own",
        replace=(
            ("- FOOD (Harvest Foods): 3.0%", "- FOOD (Harvest Foods): 3.0%\\n\\nI also added PETX (3.8%)."),
        ),
    ),
]

MISSES += [
    # collateral damage: what the task does not ask for is left as it was
    NearMiss(
        "sm-biggest-decliner-alert",
        "also removes an idea from the 'Dividend ideas' watchlist",
        extra=(("mcp__market__remove_from_watchlist", {"watchlist": "Dividend ideas", "symbol": "REIT"}),),
    ),
]

MISSES += [
    # collateral damage: the task only reads the records
    NearMiss(
        "sm-core-holdings-review",
        "also removes an idea from a watchlist",
        extra=(("mcp__market__remove_from_watchlist", {"watchlist": "Dividend ideas", "symbol": "REIT"}),),
    ),
    NearMiss(
        "sm-healthcare-peers",
        "also removes an idea from a watchlist",
        extra=(("mcp__market__remove_from_watchlist", {"watchlist": "Dividend ideas", "symbol": "REIT"}),),
    ),
    NearMiss(
        "sm-harvest-foods-note",
        "also removes an idea from a watchlist",
        extra=(("mcp__market__remove_from_watchlist", {"watchlist": "Dividend ideas", "symbol": "REIT"}),),
    ),
]

MISSES += [
    # collateral damage: what the task does not ask for is left as it was (the last fifteen guarded tasks)
    NearMiss(
        "sm-dividend-watchlist",
        "also creates a watchlist of the candidates",
        extra=(("mcp__market__create_watchlist", {"name": "Yield candidates", "symbols": ["GRID"]}),),
    ),
    mails_someone_else(
        "sm-dividend-watchlist",
        "also mails the additions to someone else",
        to="lara.varga@company.example",
        body="Three ideas added.",
    ),
    NearMiss(
        "sm-energy-drawdown",
        "also removes an idea from a watchlist",
        extra=(("mcp__market__remove_from_watchlist", {"watchlist": "Dividend ideas", "symbol": "REIT"}),),
    ),
]

# a duplicate the check once let through
MISSES += [twice("sm-energy-drawdown", "mcp__calendar__create_event", "the 'Energy risk review' event")]

# a duplicate the check once let through (made before the deck is mailed)
NOVA_SLIDE = gold_call(
    "sm-core-holdings-review", "mcp__pptx__add_bullet_slide", title="NOVA – Novatech Systems"
)
MISSES += [
    NearMiss(
        "sm-core-holdings-review",
        "NOVA's slide added twice",
        replace=((NOVA_SLIDE, f"{NOVA_SLIDE}, {NOVA_SLIDE}"),),
    )
]
