"""Holdings_Review.xlsx and .pptx: quote, Q3 results and latest headline of each Core holding; mailed."""

import re

from harness.checks import (
    SENDING_MAIL,
    Criterion,
    World,
    no_one_else_mailed,
    nothing_else_changed,
    signed_numbers,
)
from mcp_servers.mail.schema import sent_mail

HEADER = [
    "symbol", "name", "close", "ytd %", "p/e", "q3 2026 revenue (usd m)", "revenue yoy %", "eps surprise %",
    "latest headline",
]  # fmt: skip
CFO = "kai.kaur@company.example"
FILES = {"Holdings_Review.xlsx", "Holdings_Review.pptx"}

MAILED = {"kai.kaur@company.example"}  # the only recipients the task has


def expected(world: World, symbol: str) -> dict:
    t = world.rows("market_tickers", symbol=symbol)[0]
    # 2026 only: the change since the first open of 2026, not since the first stored bar (late 2025)
    bars = world.query(
        "SELECT open, close FROM market_prices WHERE ticker_id = :t AND date >= '2026-01-01' ORDER BY date",
        t=t["id"],
    )
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


# the market data's own rounding: close to the cent, YTD % to two decimals, P/E, revenue (USD m),
# YoY % and surprise % to one
TOL = {"close": 0.006, "ytd": 0.006, "pe": 0.051, "revenue": 0.051, "yoy": 0.051, "surprise": 0.051}


def row_ok(row: tuple, e: dict) -> bool:
    return (
        len(row) >= 9
        and str(row[1] or "").strip().lower() == e["name"].lower()
        and all(near(row[k], e[f], TOL[f]) for k, f in enumerate(TOL, start=2))
        and str(row[8]).strip().lower() == e["headline"].lower()
    )


def numbers(text: str) -> list[float]:
    """The numbers of a slide's text, signs dropped (+34.22% and 34.22 alike), 12,064.4 read as 12064.4."""
    text = re.sub(r"(?<=\d),(?=\d{3}\b)", "", text)
    return [float(n) for n in re.findall(r"\d+(?:\.\d+)?", text)]


CHANGES = ("ytd", "yoy", "surprise")  # compared with their signs


def slide_ok(text: str, e: dict) -> list[str]:
    """The figures a holding's slide lacks (compared as numbers: 419.3 is 419.30; the changes in %
    with their signs: -2.7% is not +2.7%)."""
    found, signed = numbers(text), signed_numbers(text)

    def shown(f: str) -> bool:
        if f in CHANGES:
            return any(near(x, e[f], TOL[f]) for x in signed)
        return any(near(x, abs(e[f]), TOL[f]) for x in found)

    lacking = [f for f in TOL if not shown(f)]
    if e["headline"].lower() not in text.lower():
        lacking.append("headline")
    return lacking


def others_changed(world: World) -> list[str]:
    """Changes to the world's records: the task only reads them (and sends mail)."""
    return world.changes(
        "market",
        "mail",
        allow=SENDING_MAIL,
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

        def holding(title: str, s: str, e: dict) -> bool:
            return title.strip().startswith(s) and e["name"].lower() in title.lower()

        out.append(
            Criterion.of(
                "title slide",
                bool(slides)
                and slides[0][0].strip() != ""
                and not any(holding(slides[0][0], s, e) for s, e in want.items()),
                "the deck must open with a title slide",
            )
        )
        for s, e in want.items():
            mine = [b for t, b in slides if holding(t, s, e)]
            lacking = slide_ok(mine[0], e) if mine else ["slide"]
            if len(mine) > 1:  # one slide per holding
                lacking.append(f"a single slide ({len(mine)} found)")
            out.append(
                Criterion.of(
                    f"{s} slide",
                    not lacking,
                    f"the slide titled '{s} – {e['name']}' lacks {lacking}"
                    f" (close {e['close']:.2f}, YTD {e['ytd']:+.2f}%, P/E {e['pe']:.1f}, revenue"
                    f" {e['revenue']:.1f}, YoY {e['yoy']:+.1f}%, surprise {e['surprise']:+.1f}%, {e['headline']!r})",
                )
            )
    mails = [
        m
        for m in sent_mail(world.engine, to=CFO, subject_contains="Core holdings review")
        if all(world.sent_as_final(m.id, f) for f in FILES)
    ]
    out.append(
        Criterion.of(
            "mailed to the CFO", bool(mails), f"no mail to {CFO} with both files (as they are now) attached"
        )
    )
    out.append(nothing_else_changed(others_changed(world)))
    out.append(no_one_else_mailed(world, MAILED))
    return out
