"""Deterministic cloud spreadsheets: the team budget the CFO asks about by mail, the Q4 sales
pipeline, a hiring tracker, the company OKRs (shared read-only with the user) and the user's
own laptop inventory. People are the colleagues of the `mail` seed (same `names.people` call)."""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from datetime import date, timedelta
from typing import Any

from sqlmodel import Session

from mcp_servers.common.names import people
from mcp_servers.sheets.schema import ME, SheetsCell, SheetsPermission, SheetsSheet, SheetsSpreadsheet

ORG_SEED, ORG_SIZE, DOMAIN = 42, 30, "company.example"
MONTHS = ["2026-01", "2026-02", "2026-03", "2026-04", "2026-05", "2026-06", "2026-07", "2026-08", "2026-09",
          "2026-10", "2026-11", "2026-12"]  # fmt: skip
TEAMS = {"Operations": 1.0, "Engineering": 3.2, "Sales": 1.8, "Marketing": 1.4}
CATEGORIES = {"Software": 4200, "Travel": 2600, "Events": 1800, "Contractors": 6500, "Office": 1500}
STAGES = ["Prospecting", "Qualification", "Proposal", "Negotiation", "Closed Won", "Closed Lost"]
ACCOUNTS = ["Northwind Traders", "Contoso", "Fabrikam", "Tailspin Toys", "Wide World Importers", "Litware",
            "Adventure Works", "Proseware", "Woodgrove Bank", "Fourth Coffee", "Alpine Ski House", "Trey Research"]  # fmt: skip
ROLES = [("Senior Backend Engineer", "Engineering", 1), ("Site Reliability Engineer", "Engineering", 1),
         ("Product Manager", "Product", 6), ("Account Executive", "Sales", 9), ("Recruiter", "People", 16),
         ("Financial Analyst", "Finance", 13), ("Support Engineer", "Customer Success", 29)]  # fmt: skip
OKRS = [("Grow revenue", "Close 4.2M USD in new bookings", 9, 0.71), ("Grow revenue", "Renew 95% of contracts", 28, 0.88),
        ("Ship faster", "Cut lead time to 3 days", 1, 0.55), ("Ship faster", "Release SSO to all customers", 6, 0.4),
        ("Run lean", "Keep opex within 2% of budget", 13, 0.9), ("Run lean", "Consolidate 5 vendors", 25, 0.6),
        ("Great place to work", "Engagement score 80+", 16, 0.75)]  # fmt: skip
MODELS = ["ThinkPad T14", "MacBook Air 13", "MacBook Pro 14", "Dell Latitude 7440"]

Rows = Sequence[Sequence[Any]]


def _budget(rng: random.Random) -> dict[str, Rows]:
    sheets: dict[str, Rows] = {}
    summary: list[list[Any]] = [["Team", "Annual budget", "Actual to date (Jan-Oct)"]]
    for team, scale in TEAMS.items():
        rows: list[list[Any]] = [["Month", "Category", "Budget", "Actual"]]
        budget_total = actual_total = 0
        for month in MONTHS:
            for category, base in CATEGORIES.items():
                budget = round(base * scale / 100) * 100
                actual = round(budget * rng.uniform(0.78, 1.18)) if month <= "2026-10" else None
                rows.append([month, category, budget, actual])
                budget_total += budget
                actual_total += actual or 0
        sheets[team] = rows
        summary.append([team, budget_total, actual_total])
    return {"Summary": summary, **sheets}


def _pipeline(rng: random.Random, org: list[tuple[str, str]]) -> dict[str, Rows]:
    sellers = [org[i][1] for i in (9, 10, 11)]
    rows: list[list[Any]] = [["Deal", "Account", "Owner", "Stage", "Amount", "Close date"]]
    for k in range(30):
        account = ACCOUNTS[k % len(ACCOUNTS)]
        close = date(2026, 10, 1) + timedelta(days=rng.randrange(0, 92))
        stage = rng.choice(STAGES[4:]) if close < date(2026, 11, 20) else rng.choice(STAGES[:4])
        rows.append(
            [
                f"D-{2400 + k}",
                account,
                rng.choice(sellers),
                stage,
                rng.randrange(8, 240) * 500,
                close.isoformat(),
            ]
        )
    return {"Pipeline": rows}


def _hiring(rng: random.Random, org: list[tuple[str, str]]) -> dict[str, Rows]:
    rows: list[list[Any]] = [["Role", "Team", "Hiring manager", "Status", "Candidates", "Target start"]]
    for role, team, manager in ROLES:
        status = rng.choice(["Sourcing", "Interviewing", "Offer", "Filled"])
        rows.append(
            [role, team, org[manager][1], status, rng.randint(2, 25), f"2027-0{rng.randint(1, 4)}-01"]
        )
    return {"Open roles": rows}


def _okrs(org: list[tuple[str, str]]) -> dict[str, Rows]:
    rows: list[list[Any]] = [["Objective", "Key result", "Owner", "Progress"]]
    rows += [[o, kr, org[who][1], progress] for o, kr, who, progress in OKRS]
    return {"OKRs": rows}


def _laptops(rng: random.Random, org: list[tuple[str, str]]) -> dict[str, Rows]:
    rows: list[list[Any]] = [["Asset tag", "Model", "Assigned to", "Purchase date", "Refresh due"]]
    for k, (_name, email) in enumerate(org):
        bought = date(2022, 1, 10) + timedelta(days=rng.randrange(0, 1400))
        rows.append([f"LT-{1000 + k}", rng.choice(MODELS), email, bought.isoformat(),
                     bought.replace(year=bought.year + 4).isoformat()])  # fmt: skip
    return {"Laptops": rows}


def seed(session: Session) -> None:
    """Five spreadsheets with their sheets, cells and permissions."""
    rng = random.Random(4242)
    org = people(ORG_SIZE, ORG_SEED, DOMAIN)
    books: list[tuple[str, str, dict[str, Rows], dict[str, str]]] = [
        (
            "Team Budget 2026",
            org[13][1],
            _budget(rng),
            {ME: "writer", org[14][1]: "writer", org[22][1]: "reader"},
        ),
        ("Q4 Sales Pipeline", org[9][1], _pipeline(rng, org), {ME: "writer", org[12][1]: "writer"}),
        ("Hiring Tracker", org[17][1], _hiring(rng, org), {ME: "commenter", org[16][1]: "writer"}),
        ("Company OKRs Q4", org[22][1], _okrs(org), {ME: "reader"}),
        ("Operations Inventory", ME, _laptops(rng, org), {org[24][1]: "writer"}),
    ]
    for k, (title, owner, sheets, shares) in enumerate(books):
        when = f"2026-{8 + k % 3:02d}-{10 + k:02d}T09:00"
        book = SheetsSpreadsheet(title=title, owner=owner, created_at=when, updated_at=when)
        session.add(book)
        session.flush()
        session.add(SheetsPermission(spreadsheet_id=book.id or 0, email=owner, role="owner"))
        for email, role in shares.items():
            session.add(SheetsPermission(spreadsheet_id=book.id or 0, email=email, role=role))
        tabs = [
            SheetsSheet(spreadsheet_id=book.id or 0, title=name, position=i) for i, name in enumerate(sheets)
        ]
        session.add_all(tabs)
        session.flush()
        for tab, rows in zip(tabs, sheets.values(), strict=True):
            session.add_all(
                SheetsCell(sheet_id=tab.id or 0, row_no=r, col_no=c, value=json.dumps(v))
                for r, row in enumerate(rows, start=1)
                for c, v in enumerate(row, start=1)
                if v is not None and v != ""
            )
