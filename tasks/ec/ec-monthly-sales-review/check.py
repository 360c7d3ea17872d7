"""Monthly_Orders.xlsx: the orders of Aug-Oct 2026 per month and a Summary; mailed to the CFO."""

import re

from harness.checks import Criterion, World
from mcp_servers.mail.schema import sent_mail

MONTHS = ["2026-08", "2026-09", "2026-10"]
HEADER = ["order number", "placed at", "customer", "status", "total", "paid", "refunded"]
CFO = "kai.kaur@company.example"


def cents(a: object, b: float) -> bool:
    try:
        return abs(float(a) - b) <= 0.011  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return False


def numbers(text: str) -> list[float]:
    return [float(n.replace(",", "")) for n in re.findall(r"\d[\d,]*\.\d+|\d[\d,]*", text)]


def month_orders(world: World, month: str) -> list[dict]:
    return world.query(
        """SELECT o.order_number, o.status, o.total, o.paid_amount, o.refunded_amount, c.customer_number
           FROM shop_orders o JOIN shop_customers c ON c.id = o.customer_id
           WHERE substr(o.placed_at, 1, 7) = :m ORDER BY o.placed_at""",
        m=month,
    )


def check(world: World) -> list[Criterion]:
    wb = world.xlsx("Monthly_Orders.xlsx")
    if wb is None:
        return [Criterion("workbook", False, "Monthly_Orders.xlsx is missing or unreadable")]
    out = [
        Criterion.of("sheets", set(MONTHS + ["Summary"]) <= set(wb.sheetnames), f"sheets are {wb.sheetnames}")
    ]
    nets = {}
    expected_summary = {}
    for month in MONTHS:
        orders = month_orders(world, month)
        paid = round(sum(o["paid_amount"] for o in orders), 2)
        refunded = round(sum(o["refunded_amount"] for o in orders), 2)
        nets[month] = round(paid - refunded, 2)
        cancelled = sum(o["status"] == "cancelled" for o in orders)
        expected_summary[month] = (len(orders), cancelled, paid, refunded, nets[month])
        if month not in wb.sheetnames:
            out.append(Criterion(f"{month} orders", False, f"no sheet {month}"))
            continue
        rows = [r for r in wb[month].iter_rows(values_only=True) if any(v is not None for v in r)]
        header = [str(h or "").strip().lower() for h in rows[0][:7]] if rows else []
        out.append(Criterion.of(f"{month} header", header == HEADER, f"header is {rows[:1]}"))
        body = rows[1:]
        got = [str(r[0]) for r in body]
        want = [o["order_number"] for o in orders]
        out.append(
            Criterion.of(
                f"{month} orders",
                got == want,
                f"{len(got)} rows; expected the {len(want)} orders of {month}, oldest first",
            )
        )
        by_number = {o["order_number"]: o for o in orders}
        bad = [
            r[0]
            for r in body
            if len(r) < 7
            or r[0] not in by_number
            or str(r[2]) != by_number[r[0]]["customer_number"]
            or str(r[3]) != by_number[r[0]]["status"]
            or not cents(r[4], by_number[r[0]]["total"])
            or not cents(r[5], by_number[r[0]]["paid_amount"])
            or not cents(r[6], by_number[r[0]]["refunded_amount"])
        ]
        out.append(Criterion.of(f"{month} values", not bad, f"wrong customer/status/amounts on {bad[:5]}"))
    if "Summary" in wb.sheetnames:
        summary = {
            str(r[0]): r[1:6] for r in wb["Summary"].iter_rows(min_row=2, values_only=True) if r and r[0]
        }
        for month, (n, cancelled, paid, refunded, net) in expected_summary.items():
            row = summary.get(month)
            ok = (
                row is not None
                and len(row) == 5
                and str(row[0]) == str(n)
                and str(row[1]) == str(cancelled)
                and cents(row[2], paid)
                and cents(row[3], refunded)
                and cents(row[4], net)
            )
            out.append(
                Criterion.of(
                    f"summary {month}",
                    ok,
                    f"Summary row {month} is {row}; expected {n}, {cancelled}, {paid}, {refunded}, {net}",
                )
            )
    else:
        out.append(Criterion("summary", False, "no Summary sheet"))
    mails = sent_mail(world.engine, to=CFO, subject_contains="Shop orders")
    attached = [m for m in mails if "Monthly_Orders.xlsx" in m.attachment_list()]
    out.append(
        Criterion.of("mailed to the CFO", bool(attached), f"no mail to {CFO} with the workbook attached")
    )
    if attached:
        found = numbers(attached[-1].body)
        missing = [m for m, v in nets.items() if not any(abs(x - v) <= 0.011 for x in found)]
        out.append(
            Criterion.of(
                "net revenue in mail", not missing, f"the mail body lacks the net revenue of {missing}"
            )
        )
    return out
