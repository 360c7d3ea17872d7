"""Deterministic mail data: a 30-person company directory, outside senders, ~90 messages.

The colleagues are `names.people(30, seed=ORG_SEED, domain="company.example")`, the same
people the `calendar` seed invites, so a name met in mail is the same person in a meeting.
"""

from __future__ import annotations

import json
import random
from datetime import datetime, timedelta

from sqlmodel import Session

from mcp_servers.common.names import people
from mcp_servers.mail.schema import ME, ME_NAME, SYSTEM_FOLDERS, MailContact, MailFolder, MailMessage

ORG_SEED, ORG_SIZE, DOMAIN = 42, 30, "company.example"
ROLES = [
    ("Engineering", "VP Engineering"), ("Engineering", "Engineering Manager"),
    ("Engineering", "Senior Software Engineer"), ("Engineering", "Software Engineer"),
    ("Engineering", "Site Reliability Engineer"), ("Engineering", "QA Lead"),
    ("Product", "Head of Product"), ("Product", "Product Manager"), ("Product", "Product Designer"),
    ("Sales", "Sales Director"), ("Sales", "Account Executive"), ("Sales", "Account Executive"),
    ("Sales", "Sales Operations Analyst"), ("Finance", "CFO"), ("Finance", "Financial Controller"),
    ("Finance", "Accounts Payable Specialist"), ("People", "HR Director"), ("People", "Recruiter"),
    ("People", "People Partner"), ("Marketing", "Marketing Director"),
    ("Marketing", "Content Marketing Manager"), ("Marketing", "Events Manager"),
    ("Operations", "COO"), ("Operations", "Office Manager"), ("Operations", "IT Support Lead"),
    ("Operations", "Procurement Manager"), ("Legal", "General Counsel"), ("Legal", "Legal Counsel"),
    ("Customer Success", "Customer Success Manager"), ("Customer Success", "Support Lead"),
]  # fmt: skip
OUTSIDE = [
    ("billing@acme-supplies.example", "Acme Supplies Billing", "Vendor", "Accounts receivable"),
    ("noreply@cloudhost.example", "CloudHost", "Vendor", "Notifications"),
    ("events@techsummit.example", "TechSummit 2027", "External", "Conference team"),
    ("priya.shah@northwind.example", "Priya Shah", "Customer", "Head of IT, Northwind Traders"),
    ("tom.becker@contoso.example", "Tom Becker", "Customer", "Procurement lead, Contoso"),
]
CUSTOM_FOLDERS = ("Projects", "Receipts")


def colleagues() -> list[tuple[str, str, str, str]]:
    """(name, email, department, title) of every colleague, in a fixed order."""
    return [(n, e, d, t) for (n, e), (d, t) in zip(people(ORG_SIZE, ORG_SEED, DOMAIN), ROLES, strict=True)]


# Hand-written mail the tasks can rely on: (sender index or outside email, subject, body,
# attachments, folder, cc indices). Index i is colleagues()[i].
FIXED: list[tuple[int | str, str, str, list[str], str, list[int]]] = [
    (13, "Q4 budget review - numbers needed by Nov 27",
     "Hi Jordan,\n\nFor the Q4 budget review I need each team's actual spend for October and November "
     "and the forecast for December. Please send one summary for Operations by Friday, November 27.\n\n"
     "The template is in the shared sheet 'Team Budget 2026'.\n\nThanks,\nKai", ["Q4-budget-template.xlsx"], "inbox", [14]),
    (22, "Offsite planning: pick a date",
     "Hi all,\n\nWe are planning the operations offsite for the first half of December. Could you "
     "find a two-hour slot when the whole leadership group is free and send an invite?\n\n"
     "Location: the Harbor room, 4th floor.\n\nJade", [], "inbox", [23, 25]),
    (1, "Incident report: API latency on Nov 18",
     "Team,\n\nOn Nov 18 between 14:10 and 15:02 the public API p95 latency rose to 2.4 s after a "
     "config change to the connection pool. Rolled back at 14:55. Root cause and follow-ups are "
     "in the wiki page 'Incident 2026-11-18 API latency'.\n\nAlan", [], "inbox", [2, 4]),
    ("priya.shah@northwind.example", "Renewal question for Northwind",
     "Hello Jordan,\n\nOur contract renews on January 1. Could you confirm the price for 120 seats and "
     "whether the premium support tier is included? We need an answer before December 4.\n\n"
     "Best regards,\nPriya Shah\nHead of IT, Northwind Traders", [], "inbox", []),
    ("billing@acme-supplies.example", "Invoice INV-2026-1187 for November",
     "Dear customer,\n\nPlease find attached invoice INV-2026-1187 for office supplies delivered in "
     "November. Amount due: 1,284.50 USD. Payment terms: 30 days.\n\nAcme Supplies Billing",
     ["INV-2026-1187.pdf"], "inbox", []),
    (16, "Reminder: performance reviews due Dec 11",
     "Hi managers,\n\nA reminder that self-reviews close on December 4 and manager reviews on "
     "December 11. The form is in the People wiki.\n\nVictor", [], "inbox", []),
    (7, "Roadmap 2027 draft for comments",
     "Hi Jordan,\n\nThe draft roadmap for 2027 is on the wiki under Product > Roadmap 2027. Could you add "
     "the operations dependencies by Wednesday?\n\nAlan", [], "inbox", [6]),
    (9, "Pipeline numbers for the board deck",
     "Jordan,\n\nThe Q4 pipeline is in the 'Q4 Sales Pipeline' sheet. For the board deck we need "
     "the total by stage and the top five deals. Can you build the slides?\n\nMaya", [], "inbox", [12]),
    ("tom.becker@contoso.example", "Purchase order for 40 additional licences",
     "Hi Jordan,\n\nWe would like to add 40 licences to our subscription starting December 1. "
     "Please send a quote.\n\nKind regards,\nTom Becker", ["Contoso-PO-5521.pdf"], "inbox", []),
    (24, "Laptop refresh: choose your model by Nov 30",
     "Hello,\n\nYour laptop is due for refresh. Reply with your choice: 14-inch or 16-inch. "
     "Orders placed after November 30 ship in January.\n\nOmar, IT Support", [], "inbox", []),
    (21, "TechSummit booth staffing",
     "Hi Jordan,\n\nWe have a booth at TechSummit on January 21-23. I need two people per day. "
     "Could you check who from Operations can help?\n\nBea", [], "inbox", []),
    ("noreply@cloudhost.example", "Your November usage summary",
     "Your CloudHost usage for November so far: compute 18,420 USD, storage 3,115 USD, egress 1,040 USD. "
     "Projected month total: 24,900 USD.", [], "inbox", []),
    (26, "Updated data processing agreement",
     "Jordan,\n\nAttached is the updated DPA for the Northwind renewal. Please do not send it before "
     "Legal signs off on section 7.\n\nTheo", ["DPA-Northwind-v3.docx"], "Projects", []),
    ("billing@acme-supplies.example", "Receipt for payment INV-2026-1042",
     "Thank you. We received your payment of 968.00 USD for invoice INV-2026-1042.", ["receipt-1042.pdf"],
     "Receipts", []),
    (23, "Office closed on Dec 24-25",
     "Hi everyone,\n\nThe office will be closed on December 24 and 25. The building is open again on "
     "December 28.\n\nInes", [], "archive", []),
]  # fmt: skip

ROUTINE = [
    ("Weekly status: {team}", "Hi,\n\nThis week in {team}: {done} items closed, {open} open, {risk}.\n\nBest,\n{first}"),
    ("Quick question about {topic}", "Hi Jordan,\n\nDo you have a minute to talk about {topic}? {ask}\n\n{first}"),
    ("Notes from {topic} sync", "Hi all,\n\nNotes from today's {topic} sync:\n- {done} decisions recorded\n- "
     "next sync in two weeks\n\n{first}"),
    ("FYI: {topic}", "FYI, the {topic} document was updated today. {ask}\n\n{first}"),
    ("Re: {topic}", "Sounds good to me. {ask}\n\n{first}"),
]  # fmt: skip
TOPICS = [
    "vendor onboarding", "the hiring plan", "Q1 priorities", "the customer survey", "office moves",
    "the security audit", "travel policy", "the support backlog", "contract templates", "the pricing page",
]  # fmt: skip
ASKS = [
    "Let me know what you think.", "No action needed.", "Could you reply by Monday?",
    "I added you as a reviewer.", "Happy to discuss in our 1:1.",
]  # fmt: skip
RISKS = ["no blockers", "one risk on staffing", "waiting on Legal", "a dependency on IT"]


def seed(session: Session) -> None:
    """Directory, folders, and messages from 2026-10-19 to 2026-11-20 08:50 (the newest unread)."""
    rng = random.Random(20261120)
    org = colleagues()
    session.add(MailContact(email=ME, name=ME_NAME, department="Operations", title="Program Manager"))
    for name, email, dept, title in org:
        session.add(MailContact(email=email, name=name, department=dept, title=title))
    for email, name, dept, title in OUTSIDE:
        session.add(MailContact(email=email, name=name, department=dept, title=title))
    for folder in SYSTEM_FOLDERS:
        session.add(MailFolder(name=folder, system=True))
    for folder in CUSTOM_FOLDERS:
        session.add(MailFolder(name=folder, system=False))
    outside = {e: n for e, n, _d, _t in OUTSIDE}

    def who(ref: int | str) -> tuple[str, str]:
        return (org[ref][1], org[ref][0]) if isinstance(ref, int) else (ref, outside[ref])

    start = datetime(2026, 10, 19, 8, 0)
    messages: list[MailMessage] = []
    for k in range(70):
        sender = rng.randrange(ORG_SIZE)
        subject, body = rng.choice(ROUTINE)
        fields = {
            "team": org[sender][2], "topic": rng.choice(TOPICS), "ask": rng.choice(ASKS),
            "done": rng.randint(2, 14), "open": rng.randint(0, 9), "risk": rng.choice(RISKS),
            "first": org[sender][0].split()[0],
        }  # fmt: skip
        when = start + timedelta(days=k * 31 // 70, hours=rng.randint(1, 9), minutes=rng.randrange(0, 60, 5))
        folder = "inbox" if k > 15 or rng.random() < 0.5 else rng.choice(["archive", "archive", "trash"])
        cc = rng.sample(range(ORG_SIZE), rng.choice([0, 0, 1, 2]))
        messages.append(
            MailMessage(
                folder=folder, sender=org[sender][1], sender_name=org[sender][0], to_addrs=ME,
                cc_addrs=", ".join(org[c][1] for c in cc if c != sender), subject=subject.format(**fields),
                body=body.format(**fields), sent_at=when.isoformat(timespec="minutes"),
                is_read=folder != "inbox" or k < 55 or rng.random() < 0.3,
            )
        )  # fmt: skip
    for k, (ref, subject, body, attachments, folder, cc) in enumerate(FIXED):
        email, name = who(ref)
        when = datetime(2026, 11, 20, 8, 50) - timedelta(hours=7 * k + rng.randint(0, 5))
        messages.append(
            MailMessage(
                folder=folder, sender=email, sender_name=name, to_addrs=ME,
                cc_addrs=", ".join(org[c][1] for c in cc), subject=subject, body=body,
                sent_at=when.isoformat(timespec="minutes"), is_read=folder != "inbox" or k % 3 == 2,
                attachments=json.dumps(attachments),
            )
        )  # fmt: skip
    for k in range(8):
        to = rng.sample(range(ORG_SIZE), rng.randint(1, 2))
        topic = rng.choice(TOPICS)
        when = start + timedelta(days=4 * k + 1, hours=rng.randint(1, 8))
        messages.append(
            MailMessage(
                folder="sent", sender=ME, sender_name=ME_NAME, to_addrs=", ".join(org[t][1] for t in to),
                subject=f"Follow-up on {topic}", body=f"Hi,\n\nFollowing up on {topic}. {rng.choice(ASKS)}\n\nJordan",
                sent_at=when.isoformat(timespec="minutes"), is_read=True,
            )
        )  # fmt: skip
    messages.sort(key=lambda m: m.sent_at)
    for m in messages:
        session.add(m)
    session.flush()
    for m in messages:
        m.thread_id = m.id
