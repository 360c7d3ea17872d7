"""'Dividend ideas' holds every ticker yielding at least 3%, the added ones noted; the CFO is told which
were added (and no others)."""

import re

from harness.checks import SENDING_MAIL, Criterion, World, new_rows, no_one_else_mailed, nothing_else_changed
from mcp_servers.mail.schema import sent_mail
from mcp_servers.market.schema import NOW

THRESHOLD = 3.0
# the seeded ideas (mcp_servers/market/seed.py): a removal leaves no trace in the final state
SEEDED = {"TELX", "PETX", "REIT"}
MAILED = {"kai.kaur@company.example"}  # the only recipient the task has


def yields_named(body: str, symbols: set[str]) -> dict[str, float | None]:
    """Each symbol's yield as the mail gives it: the first percentage after the symbol and
    before the next symbol named."""
    at = sorted((m.start(), m.end(), m[0]) for m in re.finditer(r"\b[A-Z]{3,5}\b", body) if m[0] in symbols)
    out: dict[str, float | None] = {}
    for k, (_, end, sym) in enumerate(at):
        stop = at[k + 1][0] if k + 1 < len(at) else len(body)
        pct = re.search(r"(\d+(?:\.\d+)?)\s*(?:%|percent)", body[end:stop])
        if out.get(sym) is None:
            out[sym] = float(pct[1]) if pct else None
    return out


# A passage that says its symbols were on the list before ("the three already on the list: TELX 5.2%")
# does not claim they were added; "not already on it" does not say so.
ALREADY = re.compile(r"\b(already|existing|previously|unchanged|were on|was on)\b", re.I)
NOT_ALREADY = re.compile(r"\b(not|n't|never)\s+(\w+\s+)?(already|previously|on)\b|n't\s+(already|on)\b", re.I)
BULLET = re.compile(r"\s*(?:[-*•]|\d+[.)])\s")


def passages(body: str) -> list[tuple[str, str]]:
    """The mail's sentences, each with the line introducing it when it is a list item (the last
    line ending in ':' before the list): (lead, sentence)."""
    out, lead = [], ""
    for line in body.splitlines():
        if not line.strip():
            continue
        if BULLET.match(line):
            out.append((lead, line))
            continue
        lead = line if line.rstrip().endswith(":") else ""
        out += [("", s) for s in re.split(r"(?<=[.!?])\s+", line)]
    return out


def claimed_added(body: str, symbols: set[str]) -> set[str]:
    """The symbols the mail gives with a yield outside any passage saying they were already listed."""
    out: set[str] = set()
    for lead, sentence in passages(body):
        context = f"{lead} {sentence}"
        if ALREADY.search(context) and not NOT_ALREADY.search(context):
            continue
        out |= {s for s, y in yields_named(sentence, symbols).items() if y is not None}
    return out


def others_changed(world: World) -> list[str]:
    """Changes other than symbols added to 'Dividend ideas' (which ones is checked on its own), besides
    the mail."""
    ideas = {r["id"] for r in world.rows("market_watchlists", name="Dividend ideas")}
    return world.changes(
        "market",
        "mail",
        allow={
            "market_watchlist_items": new_rows("watchlist_id", ideas),
            **SENDING_MAIL,
        },
    )


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
            "nothing removed",
            held >= SEEDED,
            f"removed from 'Dividend ideas': {sorted(SEEDED - held)}",
        ),
        nothing_else_changed(others_changed(world)),
    ]
    yields = {
        t["symbol"]: t["dividend_yield_pct"]
        for t in world.query("SELECT symbol, dividend_yield_pct FROM market_tickers")
    }
    mails = sent_mail(world.engine, to="kai.kaur@company.example", subject_contains="Dividend ideas")
    wanted = {i["symbol"] for i in added}
    told = [
        m
        for m in mails
        if (given := yields_named(m.body, set(yields)))
        and all(given.get(s) is not None and abs(given[s] - yields[s]) < 1e-6 for s in wanted)
        # a symbol given with a yield is one said to be added, unless the mail says it was already listed
        and claimed_added(m.body, set(yields)) <= wanted
    ]
    out.append(
        Criterion.of(
            "CFO told",
            bool(told),
            f"no mail to Kai giving each added symbol with its yield ({ {s: yields[s] for s in sorted(wanted)} })"
            " and no other symbol as added",
        )
    )
    out.append(no_one_else_mailed(world, MAILED))
    return out
