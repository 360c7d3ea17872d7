"""FOOD_Note.docx: the catering deal from the web, today's quote figures, and the last four quarters."""

import re

from harness.checks import Criterion, World, nothing_else_changed, signed_numbers

# December 2026 as a month or a date ('December', 'Dec 1', '2026-12-01', '1/12/2026', '12/1/2026', '12/2026')
DECEMBER = r"december|\bdec\b|\b2026-12\b|\b(?:\d{1,2}[./])?12[./]2026\b|\b12/\d{1,2}/2026\b"
HEADER = ["quarter", "revenue (usd m)", "eps", "eps estimate", "surprise %"]


def near(a: object, b: float, tol: float) -> bool:
    try:
        return abs(float(str(a).replace(",", "").replace("\u2212", "-").strip().rstrip("%")) - b) <= tol
    except (TypeError, ValueError):
        return False


def has_number(text: str, value: float, tol: float) -> bool:
    return any(abs(float(n) - value) <= tol for n in re.findall(r"\d+(?:\.\d+)?", text.replace(",", "")))


def has_percent(text: str, value: float) -> bool:
    return any(abs(float(n) - value) < 1e-9 for n in re.findall(r"(\d+(?:\.\d+)?)\s*(?:%|percent)", text))


def quarter_of(cell: str) -> str | None:
    """'2026Q3' from 2026Q3, 2026 Q3, Q3 2026, Q3-2026, Q3 FY2026, 3Q 2026, Q3'26 and the like."""
    text = cell.upper()
    q = re.search(r"Q\s*([1-4])\b|\b([1-4])\s*Q", text)
    y = re.search(r"(?<!\d)20(\d{2})(?!\d)", text) or re.search(r"(?:FY|')\s*(\d{2})(?!\d)", text)
    if not q or not y:
        return None
    return f"20{y[1]}Q{q[1] or q[2]}"


def others_changed(world: World) -> list[str]:
    """Changes to the world's records: the task only reads them."""
    return world.changes("market", "web")


def check(world: World) -> list[Criterion]:
    doc = world.docx("FOOD_Note.docx")
    if doc is None:
        return [Criterion("note", False, "FOOD_Note.docx is missing or unreadable")]
    text = "\n".join(p.text for p in doc.paragraphs)
    low = text.lower()
    t = world.rows("market_tickers", symbol="FOOD")[0]
    # 2026 only: the change since the first open of 2026, not since the first stored bar (late 2025)
    bars = world.query(
        "SELECT open, close FROM market_prices WHERE ticker_id = :t AND date >= '2026-01-01' ORDER BY date",
        t=t["id"],
    )
    fin = world.query(
        "SELECT fiscal_quarter, revenue, eps, eps_estimate FROM market_financials WHERE ticker_id = :t "
        "ORDER BY period_end DESC LIMIT 4",
        t=t["id"],
    )
    close = bars[-1]["close"]
    ytd = (close / bars[0]["open"] - 1) * 100
    pe = close / sum(f["eps"] for f in fin)
    out = [
        Criterion.of(
            "deal summarised",
            "aldermoor" in low
            and bool(re.search(DECEMBER, low))
            and any(k in low for k in ("pulses", "rice", "tomato")),
            "the note must name Aldermoor Catering, what is supplied and that it starts in December"
            " (December, Dec, 2026-12-01, 1/12/2026, ...)",
        ),
        Criterion.of("close", has_number(text, close, 0.006), f"the note lacks today's close {close:.2f}"),
        Criterion.of(
            "ytd",
            any(abs(x - ytd) <= 0.051 for x in signed_numbers(text)),
            f"the note lacks the change since the 2026 open ({ytd:+.2f}%, with its sign: 'down 2.5%' is -2.5)",
        ),
        Criterion.of("p/e", has_number(text, pe, 0.051), f"the note lacks the trailing P/E {pe:.1f}"),
        Criterion.of(
            "dividend yield",
            has_percent(text, t["dividend_yield_pct"]),
            f"the note lacks the dividend yield {t['dividend_yield_pct']}%",
        ),
    ]
    tables = [[[c.text.strip() for c in row.cells] for row in tb.rows] for tb in doc.tables]
    table = next((tb for tb in tables if tb and [h.lower() for h in tb[0][:5]] == HEADER), None)
    if table is None:
        out.append(Criterion("quarters table", False, "no table with the columns " + ", ".join(HEADER)))
        return out
    body = table[1:]
    order = [quarter_of(r[0]) for r in body]
    want = [f["fiscal_quarter"] for f in fin]
    out.append(Criterion.of("quarters", order == want, f"table quarters are {order}; expected {want}"))
    bad = [
        f["fiscal_quarter"]
        for f, r in zip(fin, body, strict=False)
        if not (
            len(r) >= 5
            and near(r[1], f["revenue"], 0.051)
            and near(r[2], f["eps"], 0.006)
            and near(r[3], f["eps_estimate"], 0.006)
            and near(r[4], (f["eps"] - f["eps_estimate"]) / abs(f["eps_estimate"]) * 100, 0.051)
        )
    ]
    out.append(Criterion.of("quarter figures", not bad and len(body) >= 4, f"wrong figures for {bad}"))
    out.append(nothing_else_changed(others_changed(world)))
    return out
