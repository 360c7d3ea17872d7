"""The Core holding with today's largest fall is reported to the CFO, and a review is booked at the first free slot."""

import re
from datetime import datetime, timedelta

from harness.checks import SENDING_MAIL, Criterion, World, no_one_else_mailed, nothing_else_changed
from mcp_servers.calendar.schema import HOLIDAYS, ME
from mcp_servers.mail.schema import sent_mail

KAI = "kai.kaur@company.example"
DAY = "2026-11-23"

MAILED = {"kai.kaur@company.example"}  # the only recipients the task has


def has_number(text: str, value: float, tol: float) -> bool:
    return any(abs(float(n) - value) <= tol for n in re.findall(r"\d+(?:\.\d+)?", text.replace(",", "")))


FALL = re.compile(
    r"\b(?:fell|falls?|falling|down|declin\w*|dropp?\w*|lost|los(?:s|es|ing)|slid\w*|slipp?\w*|decreas\w*|lower)\b",
    re.I,
)
RISE = re.compile(r"\b(?:up|rose|rises?|rising|gain\w*|climb\w*|increas\w*|higher|advanc\w*|jump\w*)\b", re.I)


def states_change(text: str, change: float, tol: float) -> bool:
    """The change is given with its sign: some mention of its size reads as a fall ('-0.70%', 'fell
    0.70%', '0.70% lower') and none as a rise ('+0.70%', 'up 0.70%'). A mention is read by its own
    sign, else by the nearest word of rise or fall in its sentence, before it first."""
    text = re.sub(r"(?<=\d),(?=\d{3}\b)", "", text)
    signs = []
    for m in re.finditer(r"(?<![\d.])([+\-\u2212]?)\s*(\d+(?:\.\d+)?)", text):
        if abs(float(m[2]) - abs(change)) > tol:
            continue
        before = re.split(r"[;!?\n]|(?<!\d)\.|\.(?!\d)", text[: m.start()])[-1]
        after = re.split(r"[;!?\n]|(?<!\d)\.|\.(?!\d)", text[m.end() :])[0]
        said = [
            (w.start(), sign) for pattern, sign in ((FALL, -1), (RISE, 1)) for w in pattern.finditer(before)
        ]
        later = [
            (w.start(), sign) for pattern, sign in ((FALL, -1), (RISE, 1)) for w in pattern.finditer(after)
        ]
        if m[1]:
            signs.append(-1 if m[1] in "-\u2212" else 1)
        elif said:
            signs.append(max(said)[1])
        elif later:
            signs.append(min(later)[1])
    wanted = -1 if change < 0 else 1
    return wanted in signs and -wanted not in signs


def worst_holding(world: World) -> dict:
    best: dict = {}
    for h in world.query(
        """SELECT t.id, t.symbol FROM market_watchlist_items i JOIN market_watchlists w ON w.id = i.watchlist_id
           JOIN market_tickers t ON t.id = i.ticker_id WHERE w.name = 'Core holdings'"""
    ):
        last, prev = world.query(
            "SELECT close FROM market_prices WHERE ticker_id = :t ORDER BY date DESC LIMIT 2", t=h["id"]
        )
        change = (last["close"] / prev["close"] - 1) * 100
        if not best or change < best["change"]:
            best = {"id": h["id"], "symbol": h["symbol"], "close": last["close"], "change": change}
    return best


def first_free(world: World, skip: int) -> str:
    busy = world.query(
        """SELECT DISTINCT e.id, e.start, e."end" FROM calendar_event e
           LEFT JOIN calendar_attendee a ON a.event_id = e.id JOIN calendar_calendar c ON c.id = e.calendar_id
           WHERE ((a.email IN (:me, :kai) AND a.response <> 'declined') OR c.name = :holidays) AND e.id <> :skip
             AND e.start < :hi AND e."end" > :lo""",
        me=ME,
        kai=KAI,
        holidays=HOLIDAYS,
        skip=skip,
        lo=f"{DAY}T09:00",
        hi=f"{DAY}T17:00",
    )
    t = datetime.fromisoformat(f"{DAY}T09:00")
    while t + timedelta(minutes=30) <= datetime.fromisoformat(f"{DAY}T17:00"):
        a, b = t.isoformat(timespec="minutes"), (t + timedelta(minutes=30)).isoformat(timespec="minutes")
        if not any(e["start"] < b and e["end"] > a for e in busy):
            return a
        t += timedelta(minutes=5)
    return ""


def others_changed(world: World) -> list[str]:
    """Changes other than the new review event (and Kai invited to it), besides the mail; the setup moves Kai's
    partner call."""
    return world.changes(
        "market",
        "mail",
        "calendar",
        allow={
            "calendar_event": lambda seeded, final: (
                seeded is None
                or (seeded["title"] == "Partner call" and seeded["organizer"] == KAI and {"start", "end"})
            ),
            "calendar_attendee": lambda seeded, final: (
                seeded is None and final is not None and final["email"] in (KAI, ME)
            ),
            **SENDING_MAIL,
        },
    )


def check(world: World) -> list[Criterion]:
    w = worst_holding(world)
    head = world.query(
        "SELECT headline FROM market_news WHERE ticker_id = :t ORDER BY published_at DESC, id DESC LIMIT 1",
        t=w["id"],
    )[0]["headline"]
    others = [
        r["symbol"]
        for r in world.query(
            """SELECT t.symbol FROM market_watchlist_items i JOIN market_watchlists w ON w.id = i.watchlist_id
               JOIN market_tickers t ON t.id = i.ticker_id WHERE w.name = 'Core holdings'"""
        )
        if r["symbol"] != w["symbol"]
    ]
    # the subject names this symbol, not the other holdings; any such mail may carry the figures
    mails = [
        m
        for m in sent_mail(world.engine, to=KAI)
        if re.search(rf"\b{w['symbol']}\b", m.subject)
        and not any(re.search(rf"\b{o}\b", m.subject) for o in others)
    ]
    told = [
        m
        for m in mails
        if has_number(m.body, w["close"], 0.006)
        and states_change(m.body, w["change"], 0.006)
        and head.lower() in m.body.lower()
    ]
    out = [
        Criterion.of(
            "alert sent",
            bool(mails),
            f"no mail to Kai whose subject names {w['symbol']} (and not the other holdings)",
        ),
        Criterion.of(
            "alert content",
            bool(told),
            f"the mail must give the close {w['close']:.2f}, the change {w['change']:.2f}% (a fall, not a rise) and the"
            f" headline {head!r}",
        ),
    ]
    events = world.query(
        'SELECT id, start, "end" FROM calendar_event WHERE lower(title) = lower(:t) AND organizer = :me',
        t=f"Review: {w['symbol']}",
        me=ME,
    )
    if not events:
        out.append(Criterion("review booked", False, f"no event 'Review: {w['symbol']}'"))
        return out
    e = events[-1]
    guests = {a["email"] for a in world.rows("calendar_attendee", event_id=e["id"])}
    want = first_free(world, e["id"])
    end = (datetime.fromisoformat(want) + timedelta(minutes=30)).isoformat(timespec="minutes") if want else ""
    out += [
        Criterion.of("Kai invited", KAI in guests, f"attendees are {sorted(guests)}"),
        Criterion.of(
            "earliest free slot",
            e["start"] == want and e["end"] == end,
            f"the review runs {e['start']}-{e['end']}; the first free 30 minutes start at {want}",
        ),
    ]
    out.append(nothing_else_changed(others_changed(world)))
    out.append(no_one_else_mailed(world, MAILED))
    return out
