"""'Dividend ideas' holds every ticker yielding at least 3%, the added ones noted; the CFO is told."""

import re

from harness.checks import Criterion, World
from mcp_servers.mail.schema import sent_mail
from mcp_servers.market.schema import NOW

THRESHOLD = 3.0


def check(world: World) -> list[Criterion]:
    items = world.query(
        """SELECT t.symbol, t.dividend_yield_pct, i.note, i.added_at FROM market_watchlist_items i
           JOIN market_watchlists w ON w.id = i.watchlist_id JOIN market_tickers t ON t.id = i.ticker_id
           WHERE w.name = 'Dividend ideas'"""
    )
    held = {i["symbol"] for i in items}
    high = {
        t["symbol"] for t in world.query("SELECT symbol FROM market_tickers WHERE dividend_yield_pct >= 3.0")
    }
    added = [i for i in items if i["added_at"] == NOW]
    wrong_notes = [
        i["symbol"]
        for i in added
        if not any(
            abs(float(n) - i["dividend_yield_pct"]) < 1e-9 for n in re.findall(r"\d+(?:\.\d+)?", i["note"])
        )
        or "yield" not in i["note"].lower()
    ]
    # the seeded members of the list (a removal leaves no trace in the final state)
    seeded = {i["symbol"] for i in items if i["added_at"] != NOW}
    out = [
        Criterion.of("all high yielders held", high <= held, f"missing: {sorted(high - held)}"),
        Criterion.of(
            "nothing else added",
            {i["symbol"] for i in added} <= high,
            f"added below {THRESHOLD}%: {sorted({i['symbol'] for i in added} - high)}",
        ),
        Criterion.of("something added", bool(added), "no symbol was added"),
        Criterion.of("notes", not wrong_notes, f"added without a 'yield X%' note: {wrong_notes}"),
        Criterion.of(
            "nothing removed", seeded >= {"TELX", "PETX", "REIT"}, f"seeded items left: {sorted(seeded)}"
        ),
    ]
    mails = sent_mail(world.engine, to="kai.kaur@company.example", subject_contains="Dividend ideas")
    body = mails[-1].body if mails else ""
    unnamed = [i["symbol"] for i in added if i["symbol"] not in body]
    out.append(
        Criterion.of(
            "CFO told", bool(mails) and not unnamed, f"no mail to Kai naming every added symbol ({unnamed})"
        )
    )
    return out
