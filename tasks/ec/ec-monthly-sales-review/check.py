"""Monthly_Orders.xlsx: the orders of Aug-Oct 2026 per month and a Summary; mailed to the CFO."""

import re
from datetime import date, datetime

from harness.checks import (
    SENDING_MAIL,
    Criterion,
    World,
    close_enough,
    no_one_else_mailed,
    nothing_else_changed,
)
from mcp_servers.mail.schema import sent_mail

MONTHS = ["2026-08", "2026-09", "2026-10"]
HEADER = ["order number", "placed at", "customer", "status", "total", "paid", "refunded"]
CFO = "kai.kaur@company.example"
SUBJECT = "shop orders august-october 2026"  # any dash between the months

MAILED = {"kai.kaur@company.example"}  # the only recipients the task has


def cents(a: object, b: float) -> bool:
    return close_enough(a, b)


MONTH_NAMES = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]


def month_of(cell: object) -> str | None:
    """'2026-08' from 2026-08, 2026/08, 08/2026, Aug 2026, August 2026 or a date in August 2026."""
    if isinstance(cell, (date, datetime)):
        return f"{cell.year}-{cell.month:02d}"
    text = str(cell or "").strip().lower()
    if m := re.fullmatch(r"(\d{4})[-/.](\d{1,2})(?:[-/.]\d{1,2})?(?:[ t].*)?", text):
        return f"{m[1]}-{int(m[2]):02d}"
    if m := re.fullmatch(r"(\d{1,2})[-/.](\d{4})", text):
        return f"{m[2]}-{int(m[1]):02d}"
    if (m := re.fullmatch(r"([a-z]{3})[a-z]*\.?,?\s*(\d{4})", text)) and m[1] in MONTH_NAMES:
        return f"{m[2]}-{MONTH_NAMES.index(m[1]) + 1:02d}"
    return None


def placed_ok(cell: object, placed_at: str) -> bool:
    """The cell gives the order's time of placing (to the second or minute), or at least its date."""
    text = cell.isoformat() if isinstance(cell, (date, datetime)) else str(cell or "").strip()
    text = text.replace(" ", "T")
    if len(text) == 10:
        return text == placed_at[:10]
    return len(text) >= 16 and placed_at.startswith(text[:19])


def same_subject(subject: str) -> bool:
    """The subject asked for (a "Re:" aside), whatever dash joins the months ('August–October', 'August - October')."""
    text = re.sub(r"\s*[-\u2010-\u2015]\s*", "-", subject.strip().lower())
    return SUBJECT in " ".join(text.split())


def numbers(text: str) -> list[float]:
    return [float(n.replace(",", "")) for n in re.findall(r"\d[\d,]*\.\d+|\d[\d,]*", text)]


def month_orders(world: World, month: str) -> list[dict]:
    return world.query(
        """SELECT o.order_number, o.placed_at, o.status, o.total, o.paid_amount, o.refunded_amount,
                  c.customer_number FROM shop_orders o JOIN shop_customers c ON c.id = o.customer_id
           WHERE substr(o.placed_at, 1, 7) = :m ORDER BY o.placed_at""",
        m=month,
    )


def others_changed(world: World) -> list[str]:
    """Changes to the world's records: the task only reads them (and sends mail)."""
    return world.changes(
        "shop",
        "mail",
        allow=SENDING_MAIL,
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
            or not placed_ok(r[1], by_number[r[0]]["placed_at"])
            or str(r[2]).strip() != by_number[r[0]]["customer_number"]
            or str(r[3]).strip().lower() != by_number[r[0]]["status"]
            or not cents(r[4], by_number[r[0]]["total"])
            or not cents(r[5], by_number[r[0]]["paid_amount"])
            or not cents(r[6], by_number[r[0]]["refunded_amount"])
        ]
        out.append(
            Criterion.of(f"{month} values", not bad, f"wrong placed at/customer/status/amounts on {bad[:5]}")
        )
    if "Summary" in wb.sheetnames:
        rows = [r for r in wb["Summary"].iter_rows(min_row=2, values_only=True) if r and r[0] is not None]
        months = [month_of(r[0]) for r in rows]
        out.append(
            Criterion.of(
                "summary rows",
                sorted(m or "?" for m in months) == MONTHS,
                f"the Summary rows are {[r[0] for r in rows]}; expected one row per month {MONTHS}",
            )
        )
        for month, (n, cancelled, paid, refunded, net) in expected_summary.items():
            row = next((r[1:6] for r, m in zip(rows, months, strict=True) if m == month), None)
            ok = (
                row is not None
                and len(row) == 5
                and close_enough(row[0], n)
                and close_enough(row[1], cancelled)
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
    attached = [
        m for m in mails if same_subject(m.subject) and world.sent_as_final(m.id, "Monthly_Orders.xlsx")
    ]
    out.append(
        Criterion.of(
            "mailed to the CFO",
            bool(attached),
            f"no mail to {CFO} titled 'Shop orders August–October 2026' with the workbook (as it is now) attached",
        )
    )
    if attached:
        told = [m for m in attached if all(any(cents(x, v) for x in numbers(m.body)) for v in nets.values())]
        out.append(
            Criterion.of(
                "net revenue in mail",
                bool(told),
                f"no mail body gives the net revenues {list(nets.values())}",
            )
        )
    out.append(nothing_else_changed(others_changed(world)))
    out.append(no_one_else_mailed(world, MAILED))
    return out
