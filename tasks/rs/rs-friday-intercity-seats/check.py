"""Friday_InterCity_Seats.xlsx lists each line and direction's InterCity trains on 27 November with their
seats; Bea got it by mail, subject as asked, naming the trains sold out in second class and no others as
sold out."""

import re

from harness.checks import (
    SENDING_MAIL,
    Criterion,
    World,
    close_enough,
    no_one_else_mailed,
    nothing_else_changed,
)
from mcp_servers.mail.schema import sent_mail

DAY = "2026-11-27"
SHEETS = {
    "Meridian Southbound": ("Meridian Main Line", "Northam"),
    "Meridian Northbound": ("Meridian Main Line", "Southport Harbour"),
    "Westway Eastbound": ("Westway Line", "Westhaven"),
    "Westway Westbound": ("Westway Line", "Eastcombe"),
}
TRAIN = re.compile(r"\b(?:IC|RE)\s?\d+\b", re.I)
SOLD = re.compile(r"sold[\s-]*out|fully booked|no (?:second[- ]class )?seats", re.I)
HEADER = ["train", "departs", "first available", "second available", "second occupancy %"]

MAILED = {"bea.costa@company.example"}  # the only recipients the task has


def expected(world: World, line: str, origin: str) -> list[dict]:
    return world.query(
        """SELECT t.number, s.departs,
                  MAX(CASE WHEN i.seat_class = 'first' THEN i.available END) AS first_left,
                  MAX(CASE WHEN i.seat_class = 'second' THEN i.available END) AS second_left,
                  MAX(CASE WHEN i.seat_class = 'second' THEN i.capacity END) AS second_cap
           FROM railway_train t JOIN railway_station o ON o.id = t.origin_id
           JOIN railway_stop s ON s.train_id = t.id AND s.seq = 1
           JOIN railway_seat_inventory i ON i.train_id = t.id AND i.travel_date = :day
           WHERE t.kind = 'InterCity' AND t.line = :line AND o.name = :origin
           GROUP BY t.id, t.number, s.departs ORDER BY s.departs""",
        day=DAY,
        line=line,
        origin=origin,
    )


def _sheet(ws, trains: list[dict]) -> tuple[bool, str]:
    rows = [r for r in ws.iter_rows(values_only=True) if any(v is not None for v in r)]
    header = [str(v).strip().lower() for v in rows[0][:5]] if rows else []
    if header != HEADER:
        return False, f"header is {rows[:1]}"
    body = rows[1:]
    if [str(r[0]).strip() for r in body] != [t["number"] for t in trains]:
        return False, f"trains {[r[0] for r in body]}; expected {[t['number'] for t in trains]}"
    for r, t in zip(body, trains, strict=True):
        share = round((t["second_cap"] - t["second_left"]) / t["second_cap"] * 100, 1)
        if str(r[1]).strip()[:5] != t["departs"]:
            return False, f"{t['number']} departs {r[1]}, expected {t['departs']}"
        if not (close_enough(r[2], t["first_left"]) and close_enough(r[3], t["second_left"])):
            return False, f"{t['number']}: seats {r[2]}/{r[3]}, expected {t['first_left']}/{t['second_left']}"
        if not close_enough(r[4], share, tol=0.05):
            return False, f"{t['number']}: second occupancy {r[4]}, expected {share}"
    return True, ""


def _norm(train: str) -> str:
    return re.sub(r"\s+", "", train).upper()


def says_sold_out(text: str) -> bool:
    """The text says something is sold out, and does not deny it in the same clause ('no other
    train is sold out', 'IC 303 is not sold out', 'none of the others are fully booked')."""
    for m in SOLD.finditer(text):
        clause = re.split(r"[,;:.!?]", text[: m.start()])[-1]
        if not re.search(r"\b(?:not|never|none|nothing|no (?:other|longer|more))\b|n['’]t\b", clause, re.I):
            return True
    return False


def _units(body: str) -> list[tuple[str, str]]:
    """The mail as (kind, text): an "item" is a bullet, a numbered item or a line opening with a
    train; "prose" the other lines of a paragraph joined, as wrapped text; "blank" a blank line."""
    units: list[tuple[str, str]] = []
    prose: list[str] = []
    for line in [*body.splitlines(), ""]:
        item = bool(re.match(r"\s*(?:[-*•]|\d+[.)])\s", line) or TRAIN.match(line.strip()))
        if prose and (item or not line.strip()):
            units.append(("prose", " ".join(prose)))
            prose = []
        if item:
            units.append(("item", line))
        elif line.strip():
            prose.append(line.strip())
        else:
            units.append(("blank", ""))
    return units


def sold_out_claims(body: str) -> set[str]:
    """The trains the mail calls sold out: those in a sentence that says so, or listed below a
    sentence that says so, names no train and ends in ':' (as bullets, or a train to a line; the
    list ends at a blank line after its items or a line that is no item)."""
    claimed: set[str] = set()
    listing, listed = False, False  # below a 'Sold out in second class:' line; items read since
    for kind, text in _units(body):
        if kind == "blank":
            listing = listing and not listed
            continue
        if kind == "item" and listing and not SOLD.search(text):
            claimed |= {_norm(t) for t in TRAIN.findall(text)}
            listed = True
            continue
        sentences = re.split(r"(?<=[.!?;])\s+", text)
        for sentence in sentences:
            if says_sold_out(sentence):
                claimed |= {_norm(t) for t in TRAIN.findall(sentence)}
        last = sentences[-1].rstrip()
        listing = last.endswith(":") and not TRAIN.search(last) and says_sold_out(last)
        listed = False
    return claimed


def others_changed(world: World) -> list[str]:
    """Changes to the world's records: the task only reads them (and sends mail)."""
    return world.changes(
        "railway",
        "mail",
        allow=SENDING_MAIL,
    )


def check(world: World) -> list[Criterion]:
    wb = world.xlsx("Friday_InterCity_Seats.xlsx")
    data = {sheet: expected(world, *where) for sheet, where in SHEETS.items()}
    out = []
    if wb is None:
        out.append(Criterion("workbook", False, "Friday_InterCity_Seats.xlsx is missing or unreadable"))
    else:
        for sheet, trains in data.items():
            if sheet not in wb.sheetnames:
                out.append(Criterion(sheet, False, f"no sheet {sheet!r}; sheets are {wb.sheetnames}"))
            else:
                ok, why = _sheet(wb[sheet], trains)
                out.append(Criterion.of(sheet, ok, why))
    sold = [t["number"] for trains in data.values() for t in trains if t["second_left"] == 0]
    mails = [
        m for m in sent_mail(world.engine, to="bea.costa@company.example")
        if "Friday_InterCity_Seats.xlsx" in {a.split("/")[-1] for a in m.attachment_list()}
        and all(world.sent_as_final(m.id, a) for a in m.attachment_list() if a.endswith("Friday_InterCity_Seats.xlsx"))
    ]  # fmt: skip
    titled = [m for m in mails if "intercity seats on friday 27 november" in m.subject.lower()]
    named = [m for m in mails if sold_out_claims(m.body) == {_norm(t) for t in sold}]
    out.append(
        Criterion.of("mail with workbook", bool(mails), "no mail to Bea with Friday_InterCity_Seats.xlsx")
    )
    out.append(
        Criterion.of(
            "mail subject",
            bool(titled),
            f"no mail with the workbook has the subject 'InterCity seats on Friday 27 November': "
            f"{[m.subject for m in mails]}",
        )
    )
    out.append(
        Criterion.of(
            "sold-out trains",
            bool(named),
            f"the mail should say which trains are sold out in second class, {sold}, and call no other"
            f" sold out; it calls sold out {sorted({t for m in mails for t in sold_out_claims(m.body)})}",
        )
    )
    out.append(nothing_else_changed(others_changed(world)))
    out.append(no_one_else_mailed(world, MAILED))
    return out
