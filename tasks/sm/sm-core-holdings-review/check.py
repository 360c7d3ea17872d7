"""Holdings_Review.xlsx and .pptx: quote, Q3 results and latest headline of each Core holding; mailed."""

from harness.checks import Criterion, World
from mcp_servers.mail.schema import sent_mail

HEADER = [
    "symbol", "name", "close", "ytd %", "p/e", "q3 2026 revenue (usd m)", "revenue yoy %", "eps surprise %",
    "latest headline",
]  # fmt: skip
CFO = "kai.kaur@company.example"


def expected(world: World, symbol: str) -> dict:
    t = world.rows("market_tickers", symbol=symbol)[0]
    bars = world.query("SELECT open, close FROM market_prices WHERE ticker_id = :t ORDER BY date", t=t["id"])
    fin = world.query(
        "SELECT fiscal_quarter, revenue, eps, eps_estimate FROM market_financials WHERE ticker_id = :t "
        "ORDER BY period_end DESC",
        t=t["id"],
    )
    by_q = {f["fiscal_quarter"]: f for f in fin}
    q3, q3_prior = by_q["2026Q3"], by_q["2025Q3"]
    news = world.query(
        "SELECT headline FROM market_news WHERE ticker_id = :t ORDER BY published_at DESC, id DESC LIMIT 1",
        t=t["id"],
    )
    close = bars[-1]["close"]
    return {
        "name": t["name"],
        "close": close,
        "ytd": (close / bars[0]["open"] - 1) * 100,
        "pe": close / sum(f["eps"] for f in fin[:4]),
        "revenue": q3["revenue"],
        "yoy": (q3["revenue"] / q3_prior["revenue"] - 1) * 100,
        "surprise": (q3["eps"] - q3["eps_estimate"]) / abs(q3["eps_estimate"]) * 100,
        "headline": news[0]["headline"],
    }


def near(a: object, b: float, tol: float) -> bool:
    try:
        return abs(float(a) - b) <= tol  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return False


def row_ok(row: tuple, e: dict) -> bool:
    return (
        len(row) >= 9
        and near(row[2], e["close"], 0.006)
        and near(row[3], e["ytd"], 0.02)
        and near(row[4], e["pe"], 0.1)
        and near(row[5], e["revenue"], 0.06)
        and near(row[6], e["yoy"], 0.06)
        and near(row[7], e["surprise"], 0.06)
        and str(row[8]).strip().lower() == e["headline"].lower()
    )


def check(world: World) -> list[Criterion]:
    symbols = [
        r["symbol"]
        for r in world.query(
            """SELECT t.symbol FROM market_watchlist_items i JOIN market_watchlists w ON w.id = i.watchlist_id
               JOIN market_tickers t ON t.id = i.ticker_id WHERE w.name = 'Core holdings' ORDER BY i.id"""
        )
    ]
    want = {s: expected(world, s) for s in symbols}
    out: list[Criterion] = []
    wb = world.xlsx("Holdings_Review.xlsx")
    if wb is None or "Holdings" not in wb.sheetnames:
        out.append(Criterion("workbook", False, "Holdings_Review.xlsx with a sheet Holdings is missing"))
    else:
        rows = [r for r in wb["Holdings"].iter_rows(values_only=True) if any(v is not None for v in r)]
        header = [str(h or "").strip().lower() for h in rows[0][:9]] if rows else []
        out.append(Criterion.of("header", header == HEADER, f"header is {rows[:1]}"))
        order = [str(r[0]) for r in rows[1:]]
        out.append(Criterion.of("holdings", order == symbols, f"rows are {order}; expected {symbols}"))
        by_symbol = {str(r[0]): r for r in rows[1:]}
        for s, e in want.items():
            row = by_symbol.get(s)
            out.append(
                Criterion.of(
                    f"{s} figures", row is not None and row_ok(row, e), f"row {row} does not match {e}"
                )
            )
    deck = world.pptx("Holdings_Review.pptx")
    if deck is None:
        out.append(Criterion("deck", False, "Holdings_Review.pptx is missing or unreadable"))
    else:
        slides = []
        for slide in deck.slides:
            title = slide.shapes.title.text if slide.shapes.title is not None else ""
            body = " ".join(sh.text_frame.text for sh in slide.shapes if sh.has_text_frame)
            slides.append((title, body))
        for s, e in want.items():
            mine = [b for t, b in slides if t.strip().startswith(s) and e["name"].lower() in t.lower()]
            ok = bool(mine) and e["headline"].lower() in mine[0].lower() and f"{e['close']:.2f}" in mine[0]
            out.append(
                Criterion.of(
                    f"{s} slide", ok, f"no slide titled '{s} – {e['name']}' with the close and headline"
                )
            )
    mails = [
        m
        for m in sent_mail(world.engine, to=CFO, subject_contains="Core holdings review")
        if {"Holdings_Review.xlsx", "Holdings_Review.pptx"} <= set(m.attachment_list())
    ]
    out.append(Criterion.of("mailed to the CFO", bool(mails), f"no mail to {CFO} with both files attached"))
    return out
