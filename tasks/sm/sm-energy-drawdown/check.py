"""Energy_Risk_2026.xlsx: first open, last close, highs, lows and max drawdown per symbol; the review invite."""

import re

from harness.checks import Criterion, World, new_rows, nothing_else_changed

SYMBOLS = ["SOLR", "PETX", "WIND"]
HEADER = [
    "symbol", "first open", "last close", "ytd %", "high close", "high date", "low close", "low date",
    "max drawdown %",
]  # fmt: skip
GUESTS = {"kai.kaur@company.example", "lara.varga@company.example"}


def near(a: object, b: float, tol: float) -> bool:
    try:
        return abs(float(a) - b) <= tol  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return False


def figures(world: World, symbol: str) -> dict:
    bars = world.query(
        """SELECT p.date, p.open, p.close FROM market_prices p JOIN market_tickers t ON t.id = p.ticker_id
           WHERE t.symbol = :s AND p.date >= '2026-01-01' ORDER BY p.date""",
        s=symbol,
    )
    peak, drawdown = bars[0]["close"], 0.0
    for b in bars:
        peak = max(peak, b["close"])
        drawdown = min(drawdown, b["close"] / peak - 1)
    high = max(bars, key=lambda b: b["close"])
    low = min(bars, key=lambda b: b["close"])
    return {
        "open": bars[0]["open"], "close": bars[-1]["close"], "ytd": (bars[-1]["close"] / bars[0]["open"] - 1) * 100,
        "high": high["close"], "high_date": high["date"], "low": low["close"], "low_date": low["date"],
        "drawdown": drawdown * 100,
    }  # fmt: skip


def row_ok(r: tuple, e: dict) -> bool:
    return (
        len(r) >= 9
        and near(r[1], e["open"], 0.006)
        and near(r[2], e["close"], 0.006)
        and near(r[3], e["ytd"], 0.051)  # no precision asked: one decimal will do
        and near(r[4], e["high"], 0.006)
        and str(r[5])[:10] == e["high_date"]
        and near(r[6], e["low"], 0.006)
        and str(r[7])[:10] == e["low_date"]
        and near(r[8], e["drawdown"], 0.006)  # two decimals, negative
    )


def per_symbol(text: str) -> dict[str, list[float]]:
    """The numbers the text gives after each symbol, before the next symbol."""
    at = sorted((m.start(), m.end(), m[0]) for m in re.finditer(r"\b[A-Z]{3,5}\b", text) if m[0] in SYMBOLS)
    out: dict[str, list[float]] = {}
    for k, (_, end, sym) in enumerate(at):
        stop = at[k + 1][0] if k + 1 < len(at) else len(text)
        out.setdefault(sym, []).extend(float(n) for n in re.findall(r"\d+(?:\.\d+)?", text[end:stop]))
    return out


def others_changed(world: World) -> list[str]:
    """Changes other than the review event and its invitees."""
    events = world.ids_named("calendar_event", "energy risk review")
    return world.changes(
        "market",
        "calendar",
        allow={
            "calendar_event": new_rows("id", events),
            "calendar_attendee": lambda seeded, final: (
                seeded is None
                and final is not None
                and final["event_id"] in events
                and final["email"].lower() in {*GUESTS, "me@company.example"}
            ),
        },
    )


def check(world: World) -> list[Criterion]:
    want = {s: figures(world, s) for s in SYMBOLS}
    out: list[Criterion] = []
    wb = world.xlsx("Energy_Risk_2026.xlsx")
    if wb is None or "Summary" not in wb.sheetnames:
        out.append(Criterion("workbook", False, "Energy_Risk_2026.xlsx with a sheet Summary is missing"))
    else:
        rows = [r for r in wb["Summary"].iter_rows(values_only=True) if any(v is not None for v in r)]
        header = [str(h or "").strip().lower() for h in rows[0][:9]] if rows else []
        out.append(Criterion.of("header", header == HEADER, f"header is {rows[:1]}"))
        order = [str(r[0]) for r in rows[1:]]
        out.append(Criterion.of("symbols", order == SYMBOLS, f"rows are {order}; expected {SYMBOLS}"))
        by_symbol = {str(r[0]): r for r in rows[1:]}
        for s, e in want.items():
            row = by_symbol.get(s)
            ok = row is not None and row_ok(row, e)
            out.append(Criterion.of(f"{s} figures", ok, f"row {row}; expected {e}"))
    events = world.query(
        """SELECT id, start, "end", description FROM calendar_event
           WHERE lower(title) = 'energy risk review' AND organizer = 'me@company.example'"""
    )
    event = events[-1] if events else None
    out.append(
        Criterion.of("review booked", event is not None, "no event 'Energy risk review' in my calendar")
    )
    # one review: a second copy of it invites Kai and Lara twice
    out.append(Criterion.of("one review", len(events) <= 1, f"{len(events)} 'Energy risk review' events"))
    if event is not None:
        out.append(
            Criterion.of(
                "review time",
                event["start"] == "2026-11-25T11:00" and event["end"] == "2026-11-25T11:45",
                f"the review runs {event['start']} to {event['end']}",
            )
        )
        guests = {a["email"] for a in world.rows("calendar_attendee", event_id=event["id"])}
        out.append(Criterion.of("invited", guests >= GUESTS, f"attendees are {sorted(guests)}"))
        given = per_symbol(event["description"] or "")
        missing = [
            s
            for s, e in want.items()
            if not any(near(x, abs(e["drawdown"]), 0.006) for x in given.get(s, []))
        ]
        out.append(
            Criterion.of(
                "drawdowns in invite",
                not missing,
                f"the description lacks the max drawdown (after the symbol) of {missing}",
            )
        )
    out.append(nothing_else_changed(others_changed(world)))
    return out
