"""The mail to the Sales Director lists the five customers with the most closed Q3 2026 revenue, in order."""

import re

from harness.checks import SENDING_MAIL, Criterion, World, no_one_else_mailed, nothing_else_changed

MAILED = {"maya.wagner@company.example"}  # the only recipients the task has


def amounts(line: str) -> list[float]:
    """The numbers of a line, thousands separators removed ('1,043,652.00' -> 1043652.0)."""
    return [float(x.replace(",", "")) for x in re.findall(r"\d[\d,]*(?:\.\d+)?", line)]


def others_changed(world: World) -> list[str]:
    """Changes to the world's records: the task only reads them (and sends mail)."""
    return world.changes(
        "warehouse",
        "mail",
        allow=SENDING_MAIL,
    )


def check(world: World) -> list[Criterion]:
    top = world.query(
        """SELECT c.account_number, c.name, SUM(l.line_total) AS revenue
           FROM warehouse_sales_orders o JOIN warehouse_sales_lines l ON l.order_id = o.id
           JOIN warehouse_customers c ON c.id = o.customer_id
           WHERE o.status = 'closed' AND o.order_date BETWEEN '2026-07-01' AND '2026-09-30'
           GROUP BY c.id, c.account_number, c.name ORDER BY revenue DESC LIMIT 5"""
    )
    director = world.rows("mail_contact", title="Sales Director")[0]["email"].lower()
    sent = world.sent_mail()
    mails = [
        m
        for m in sent
        if director in m["to_addrs"].split(", ") and m["subject"].strip().lower() == "top customers q3 2026"
    ]
    out = [
        Criterion.of(
            "mail to the Sales Director",
            len(mails) == 1,
            f"{len(mails)} mails to {director} titled 'Top customers Q3 2026'",
        )
    ]
    lines = mails[0]["body"].splitlines() if mails else []
    # where each customer stands: its line and the name's place in it (five on one line are ordered too)
    found: list[tuple[int, int] | None] = []
    for t in top:
        at = next((i for i, line in enumerate(lines) if t["name"].lower() in line.lower()), None)
        ok = (
            at is not None
            and t["account_number"] in lines[at]
            and any(abs(a - float(t["revenue"])) <= 0.005 + 1e-9 for a in amounts(lines[at]))
        )
        found.append((at, lines[at].lower().index(t["name"].lower())) if ok and at is not None else None)
    out.append(
        Criterion.of(
            "top five with revenue",
            None not in found,
            f"no line with name, account number and revenue for "
            f"{[t['name'] for t, f in zip(top, found, strict=True) if f is None]}",
        )
    )
    # only the five: no other customer named or numbered in the mail
    body = mails[0]["body"] if mails else ""
    top_numbers = {t["account_number"] for t in top}
    others = sorted(
        c["name"]
        for c in world.rows("warehouse_customers")
        if c["account_number"] not in top_numbers
        and (
            re.search(rf"\b{re.escape(c['account_number'])}\b", body)
            or re.search(rf"\b{re.escape(c['name'])}\b", body, re.IGNORECASE)
        )
    )
    out.append(Criterion.of("only the top five", not others, f"the mail also names {others}"))
    out.append(
        Criterion.of(
            "highest first",
            None not in found and found == sorted(found),
            f"the customers are not listed in the order {[t['name'] for t in top]}",
        )
    )
    out.append(nothing_else_changed(others_changed(world)))
    out.append(no_one_else_mailed(world, MAILED))
    return out
