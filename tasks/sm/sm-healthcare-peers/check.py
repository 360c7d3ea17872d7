"""Healthcare_Peers.pptx: directory figures at the 2026 open against today's quote, takeaways; mailed."""

import re

from harness.checks import SENDING_MAIL, Criterion, World, no_one_else_mailed, nothing_else_changed
from mcp_servers.mail.schema import sent_mail

SYMBOLS = ["MEDX", "GENO", "CARE", "VITL"]
LARA = "lara.varga@company.example"

MAILED = {"lara.varga@company.example"}  # the only recipients the task has


def near(a: object, b: float, tol: float) -> bool:
    try:
        return abs(float(str(a).replace(",", "").rstrip("%")) - b) <= tol
    except (TypeError, ValueError):
        return False


def expected(world: World, symbol: str) -> dict:
    page = world.query(
        "SELECT text FROM web_page WHERE url = :u",
        u=f"https://bizdirectory.example/companies/{symbol.lower()}",
    )[0]["text"]
    price0 = float(re.search(r"share price was ([\d.]+) USD", page).group(1))  # type: ignore[union-attr]
    cap0 = float(re.search(r"capitalisation about ([\d.]+) billion", page).group(1))  # type: ignore[union-attr]
    t = world.rows("market_tickers", symbol=symbol)[0]
    close = world.query(
        "SELECT close FROM market_prices WHERE ticker_id = :t ORDER BY date DESC LIMIT 1", t=t["id"]
    )[0]["close"]
    rev = {
        f["fiscal_quarter"]: f["revenue"]
        for f in world.query(
            "SELECT fiscal_quarter, revenue FROM market_financials WHERE ticker_id = :t", t=t["id"]
        )
    }
    return {
        "name": t["name"], "price0": price0, "close": close, "change": (close / price0 - 1) * 100, "cap0": cap0,
        "cap": close * t["shares_outstanding"] / 1e9, "yoy": (rev["2026Q3"] / rev["2025Q3"] - 1) * 100,
    }  # fmt: skip


def row_ok(r: list[str], e: dict) -> bool:
    return (
        len(r) >= 8
        and e["name"].lower() in r[1].lower()
        and near(r[2], e["price0"], 0.006)
        and near(r[3], e["close"], 0.006)
        and near(r[4], e["change"], 0.006)
        and near(r[5], e["cap0"], 0.051)
        and near(r[6], e["cap"], 0.051)
        and near(r[7], e["yoy"], 0.051)
    )


BEST = re.compile(r"\b(best|top|strongest|lead\w*|led|outperform\w*|highest|biggest gain\w*|winner)\b", re.I)
WORST = re.compile(
    r"\b(worst|weakest|bottom|lagg\w*|poorest|lowest|trail\w*|underperform\w*|loser|"
    r"biggest (?:loss|loser|drop|fall|decline)\w*)\b",
    re.I,
)


def mentions(text: str, symbol: str, name: str) -> bool:
    """The company by its symbol, its name or its name's first word (Medexa, CareBridge)."""
    return (
        re.search(rf"\b{symbol}\b", text) is not None
        or name.lower() in text.lower()
        or re.search(rf"\b{re.escape(name.split()[0])}\b", text) is not None
    )


def names_as(text: str, keyword: re.Pattern, other: re.Pattern, company: tuple, rival: tuple) -> bool:
    """A clause of the text calls the company the best (or worst) and says nothing of the rival."""
    clauses = re.split(r"\n|;|[|•·\t]|(?<=[.!?])\s+|,\s+|\s+(?:and|while|whereas|but)\s+", text)
    return any(
        keyword.search(c) and not other.search(c) and mentions(c, *company) and not mentions(c, *rival)
        for c in clauses
    )


def others_changed(world: World) -> list[str]:
    """Changes to the world's records: the task only reads them (and sends mail)."""
    return world.changes(
        "market",
        "web",
        "mail",
        allow=SENDING_MAIL,
    )


def check(world: World) -> list[Criterion]:
    want = {s: expected(world, s) for s in SYMBOLS}
    deck = world.pptx("Healthcare_Peers.pptx")
    if deck is None:
        return [Criterion("deck", False, "Healthcare_Peers.pptx is missing or unreadable")]
    slides = []
    for slide in deck.slides:
        title = slide.shapes.title.text.strip() if slide.shapes.title is not None else ""
        tables = [
            [[c.text.strip() for c in row.cells] for row in sh.table.rows]
            for sh in slide.shapes
            if sh.has_table
        ]
        text = " ".join(sh.text_frame.text for sh in slide.shapes if sh.has_text_frame)
        slides.append((title.lower(), tables, text))
    table = next((t[0] for title, t, _ in slides if title == "healthcare peers" and t), None)
    out = [Criterion.of("peer table", table is not None, "no table slide titled 'Healthcare peers'")]
    if table is not None:
        order = [r[0] for r in table[1:]]
        out.append(Criterion.of("companies", order == SYMBOLS, f"rows are {order}; expected {SYMBOLS}"))
        by_symbol = {r[0]: r for r in table[1:]}
        for s, e in want.items():
            row = by_symbol.get(s)
            out.append(
                Criterion.of(f"{s} row", row is not None and row_ok(row, e), f"row {row}; expected {e}")
            )
    best = max(want, key=lambda s: want[s]["change"])
    worst = min(want, key=lambda s: want[s]["change"])
    takeaways = next((text for title, _, text in slides if title == "takeaways"), "")
    b, w = (best, want[best]["name"]), (worst, want[worst]["name"])
    out.append(
        Criterion.of(
            "takeaways",
            names_as(takeaways, BEST, WORST, b, w) and names_as(takeaways, WORST, BEST, w, b),
            f"the 'Takeaways' slide must name {best} ({b[1]}) as the best performer and {worst} ({w[1]}) as"
            " the worst",
        )
    )
    titles = [title for title, _, _ in slides]
    at_table = next((i for i, (title, t, _) in enumerate(slides) if title == "healthcare peers" and t), None)
    out.append(
        Criterion.of(
            "slide order",
            len(slides) >= 3
            and not slides[0][1]
            and titles[0] not in ("", "takeaways")
            and at_table is not None
            and 0 < at_table < len(slides) - 1
            and titles[-1] == "takeaways",
            f"the slides are {titles}; expected a title slide, the 'Healthcare peers' table, finally 'Takeaways'",
        )
    )
    mails = [
        m
        for m in sent_mail(world.engine, to=LARA, subject_contains="Healthcare peers")
        if world.sent_as_final(m.id, "Healthcare_Peers.pptx")
    ]
    out.append(
        Criterion.of(
            "deck mailed",
            bool(mails),
            f"no mail to {LARA} with Healthcare_Peers.pptx (as it is now) attached",
        )
    )
    out.append(nothing_else_changed(others_changed(world)))
    out.append(no_one_else_mailed(world, MAILED))
    return out
