"""Deterministic wiki content: a company wiki of ~25 pages and two databases (Projects, Vendors).

People are `names.people(30, seed=ORG_SEED, domain="company.example")`, the colleagues of the
`mail` and `calendar` seeds; the "Leadership group" page lists the same eight leaders the
calendar seed gives a weekly Leadership sync.
"""

from __future__ import annotations

import json
import random
from datetime import date, timedelta

from sqlmodel import Session

from mcp_servers.common.names import people
from mcp_servers.wiki.blocks import parse
from mcp_servers.wiki.schema import WikiBlock, WikiDatabase, WikiPage, WikiRow

ORG_SEED, ORG_SIZE, DOMAIN = 42, 30, "company.example"
LEADERSHIP = (22, 13, 0, 6, 9, 16, 19, 26)  # as in the calendar seed
LEADER_TITLES = ("COO", "CFO", "VP Engineering", "Head of Product", "Sales Director", "HR Director",
                 "Marketing Director", "General Counsel")  # fmt: skip

PAGES: list[tuple[str, str | None, str]] = [
    ("Company Home", None, "# Welcome\nThis is the company wiki. Start with the section for your team.\n\n"
     "- Engineering Handbook\n- Product\n- People\n- Operations"),
    ("Engineering Handbook", "Company Home", "How engineering works here: on-call, incidents, architecture."),
    ("Onboarding checklist", "Engineering Handbook", "## First week\n- [x] Laptop and accounts\n- [ ] Read the "
     "architecture overview\n- [ ] Shadow an on-call shift\n- [ ] Ship a small change"),
    ("On-call runbook", "Engineering Handbook", "## Paging\nThe on-call engineer acknowledges a page within 10 "
     "minutes.\n\n## Escalation\n1. Primary on-call\n2. Secondary on-call\n3. Engineering Manager\n\n"
     "> Write an incident page for every customer-facing outage."),
    ("Incident 2026-11-18 API latency", "Engineering Handbook", "## Summary\nPublic API p95 latency rose to 2.4 s "
     "between 14:10 and 15:02 after a connection pool change. Rolled back at 14:55.\n\n## Follow-ups\n"
     "- [ ] Add a canary for pool settings\n- [ ] Alert on p95 above 800 ms\n- [x] Roll back the change"),
    ("Architecture overview", "Engineering Handbook", "## Services\n- api: public REST API\n- billing: invoices and "
     "payments\n- search: product search\n\n```\nclient -> api -> (billing | search) -> postgres\n```"),
    ("Product", "Company Home", "Product strategy, roadmap and meeting notes."),
    ("Roadmap 2027", "Product", "## Themes\n1. Self-serve onboarding\n2. Usage-based billing\n3. Enterprise SSO\n\n"
     "## Operations dependencies\nTo be added by Operations."),
    ("Meeting notes", "Product", "Notes from the weekly product sync."),
    ("Product sync 2026-11-05", "Meeting notes", "- Pricing page experiment ends Nov 20\n- SSO beta with two customers"),
    ("Product sync 2026-11-12", "Meeting notes", "- Usage-based billing design review on Nov 24\n- Hiring: one PM role open"),
    ("Product sync 2026-11-19", "Meeting notes", "- Roadmap 2027 draft shared for comments\n- Northwind renewal risk discussed"),
    ("People", "Company Home", "Policies and processes of the People team."),
    ("Performance review process", "People", "## Timeline\n- Self-reviews close on December 4\n- Manager reviews close "
     "on December 11\n- Calibration in the week of December 14"),
    ("Travel policy", "People", "Book economy for flights under 6 hours. Hotels up to 180 USD a night; 250 USD in "
     "New York, London and Tokyo. Submit receipts within 30 days."),
    ("Expense policy", "People", "Meals with customers up to 75 USD per person. Software purchases go through "
     "Procurement. Approvals: manager up to 1,000 USD, CFO above."),
    ("Holidays 2026", "People", "- November 26: Thanksgiving\n- November 27: Day after Thanksgiving\n"
     "- December 24: Office closed\n- December 25: Christmas Day\n- December 31: New Year's Eve"),
    ("Operations", "Company Home", "The Operations team: offices, IT, procurement, programs."),
    ("Office guide", "Operations", "## Rooms\n- Harbor room (12 people, 4th floor)\n- Lighthouse room (6 people)\n"
     "- Board room (16 people)\n- Atrium (events, 60 people)"),
    ("Vendor management", "Operations", "Every vendor with an annual spend above 10,000 USD needs a contract owner "
     "and a renewal review 60 days before the contract ends."),
]  # fmt: skip
STATUSES = ["Not started", "In progress", "Blocked", "Done"]
PRIORITIES = ["P0", "P1", "P2", "P3"]
TAGS = ["ops", "eng", "sales", "finance", "people", "marketing"]
PROJECTS = [
    "Office move planning", "Laptop refresh", "SSO rollout", "Vendor consolidation", "Q1 hiring plan",
    "Security audit", "Support tooling upgrade", "Customer survey", "Expense tool migration", "Board deck Q4",
    "Data retention policy", "Sales territory review", "Website refresh", "Onboarding revamp",
    "Billing migration", "Conference presence 2027", "Contract templates", "Travel booking tool",
    "Backup verification", "Pricing experiment", "Partner programme", "Intranet search", "Warehouse audit",
    "Accessibility review",
]  # fmt: skip
VENDORS = [
    ("Acme Supplies", "Office supplies", "billing@acme-supplies.example"), ("CloudHost", "Infrastructure", "accounts@cloudhost.example"),
    ("Northwind Cleaning", "Facilities", "contracts@northwind-cleaning.example"), ("Brightdesk", "Software", "sales@brightdesk.example"),
    ("Fleetline Travel", "Travel", "corporate@fleetline.example"), ("Lumen Legal", "Professional services", "office@lumenlegal.example"),
    ("Greenleaf Catering", "Facilities", "orders@greenleaf.example"), ("SecureNet", "Security", "support@securenet.example"),
    ("PaperTrail Payroll", "Software", "help@papertrail.example"), ("Metro Couriers", "Logistics", "desk@metrocouriers.example"),
    ("Atlas Insurance", "Insurance", "broker@atlasins.example"), ("PixelPrint", "Marketing", "hello@pixelprint.example"),
]  # fmt: skip


def _page_content(session: Session, page_id: int, markdown: str) -> None:
    for position, block in enumerate(parse(markdown)):
        session.add(
            WikiBlock(
                page_id=page_id, position=position, type=block.type, text=block.text, checked=block.checked
            )
        )


def seed(session: Session) -> None:
    """Pages (in a tree), their blocks, and the Projects and Vendors databases."""
    rng = random.Random(2027)
    org = people(ORG_SIZE, ORG_SEED, DOMAIN)
    leaders = "\n".join(
        f"- {org[i][0]}, {t} ({org[i][1]})" for i, t in zip(LEADERSHIP, LEADER_TITLES, strict=True)
    )
    pages = [
        *PAGES,
        ("Leadership group", "Operations", "The leadership group meets every Monday at 10:00.\n\n" + leaders),
    ]
    ids: dict[str, int] = {}
    day0 = date(2026, 9, 1)
    for k, (title, parent, markdown) in enumerate(pages):
        created = (day0 + timedelta(days=2 * k)).isoformat() + "T10:00"
        author = org[rng.randrange(ORG_SIZE)][1]
        page = WikiPage(
            title=title,
            parent_id=ids.get(parent or ""),
            created_by=author,
            created_at=created,
            updated_at=created,
        )
        session.add(page)
        session.flush()
        ids[title] = page.id or 0
        _page_content(session, ids[title], markdown)

    projects = WikiDatabase(
        title="Projects", parent_page_id=ids["Operations"], created_at="2026-09-02T10:00",
        properties=json.dumps([
            {"name": "Name", "type": "title", "options": []}, {"name": "Status", "type": "select", "options": STATUSES},
            {"name": "Owner", "type": "email", "options": []}, {"name": "Due", "type": "date", "options": []},
            {"name": "Priority", "type": "select", "options": PRIORITIES},
            {"name": "Budget", "type": "number", "options": []}, {"name": "Tags", "type": "multi_select", "options": TAGS},
        ]),
    )  # fmt: skip
    vendors = WikiDatabase(
        title="Vendors", parent_page_id=ids["Vendor management"], created_at="2026-09-03T10:00",
        properties=json.dumps([
            {"name": "Vendor", "type": "title", "options": []},
            {"name": "Category", "type": "select", "options": sorted({c for _v, c, _e in VENDORS})},
            {"name": "Contact", "type": "email", "options": []}, {"name": "Contract end", "type": "date", "options": []},
            {"name": "Annual spend", "type": "number", "options": []}, {"name": "Active", "type": "checkbox", "options": []},
        ]),
    )  # fmt: skip
    session.add_all([projects, vendors])
    session.flush()
    for k, name in enumerate(PROJECTS):
        due = date(2026, 10, 1) + timedelta(days=rng.randrange(0, 150))
        status = "Done" if due < date(2026, 11, 1) and rng.random() < 0.8 else rng.choice(STATUSES[:3])
        values = {
            "Name": name, "Status": status, "Owner": org[rng.randrange(ORG_SIZE)][1], "Due": due.isoformat(),
            "Priority": rng.choice(PRIORITIES), "Budget": rng.randrange(5, 120) * 1000,
            "Tags": sorted(rng.sample(TAGS, rng.randint(1, 2))),
        }  # fmt: skip
        when = f"2026-{9 + k // 12:02d}-{1 + k % 12 * 2:02d}T11:00"
        session.add(
            WikiRow(database_id=projects.id or 0, data=json.dumps(values), created_at=when, updated_at=when)
        )
    for k, (name, category, contact) in enumerate(VENDORS):
        end = date(2026, 12, 1) + timedelta(days=rng.randrange(0, 330))
        values = {
            "Vendor": name, "Category": category, "Contact": contact, "Contract end": end.isoformat(),
            "Annual spend": rng.randrange(4, 90) * 500, "Active": k != 9,
        }  # fmt: skip
        session.add(WikiRow(database_id=vendors.id or 0, data=json.dumps(values), created_at="2026-09-03T10:00",
                            updated_at="2026-09-03T10:00"))  # fmt: skip
