"""Every spam comment on Tech Unboxed's five most viewed public videos is hidden, and nothing else anywhere;
the log sheet lists the comments hidden today and is shared with Nadia, who got a mail with the total and
the count on each video."""

import re

from harness.checks import SENDING_MAIL, Criterion, World, no_one_else_mailed, nothing_else_changed
from mcp_servers.mail.schema import sent_mail
from mcp_servers.video.catalog import SPAM

# Every comment the seed had already hidden (all spam; so not part of today's sweep), on every channel.
SEED_HIDDEN = {
    81, 94, 103, 105, 123, 128, 156, 198, 204, 260, 292, 354, 367, 470, 497, 556, 573, 593, 594, 604, 605,
    645, 663, 681, 711, 735, 838, 897, 903, 918, 939, 985, 995, 1021, 1029, 1041, 1048, 1056, 1070, 1185,
    1186, 1202, 1209, 1251, 1273, 1284, 1303, 1409, 1431, 1516, 1563, 1564,
}  # fmt: skip
TITLE, SHEET, NADIA = "Spam Sweep 2026-11-20", "Hidden", "nadia.lopez@company.example"
WORDS = "zero one two three four five six seven eight nine ten eleven twelve".split()
NUMBER = r"(?<![\w.:/-])\d+(?![\w:/-]|[.,]\d)"

MAILED = {"nadia.lopez@company.example"}  # the only recipients the task has


def _sheet_rows(world: World) -> list[list] | None:
    sheets = world.query(
        """SELECT sh.id FROM sheets_sheet sh JOIN sheets_spreadsheet s ON s.id = sh.spreadsheet_id
           WHERE s.title = :title AND sh.title = :sheet""",
        title=TITLE,
        sheet=SHEET,
    )
    if not sheets:
        return None
    grid: dict[int, dict[int, object]] = {}
    for (r, k), value in world.sheet_cells(sheets[-1]["id"]).items():
        grid.setdefault(r, {})[k] = value
    return [[grid[r].get(col) for col in range(1, 5)] for r in sorted(grid)]


def states_total(text: str, n: int) -> bool:
    """`n` stands as the number of comments or the total ('15 spam comments', 'total: 15', '15 in total')."""
    num = rf"(?:{n}|{WORDS[n]})" if n < len(WORDS) else str(n)
    noun = r"(?:comments?|total)"
    before = rf"(?<![\w.,-]){num}\s+(?:[a-z][\w'-]*\s+){{0,3}}{noun}\b"
    after = rf"\b{noun}(?:(?:\s+[a-z]+){{0,3}}\s*(?:[:=]|\bis\b|\bwas\b|\bof\b))?\s*{num}(?![\w,]|\.\d)"
    return bool(re.search(before, text, re.I) or re.search(after, text, re.I))


def counts_missing(text: str, videos: list[tuple[str, str, int]]) -> list[str]:
    """The videos (key, title, count) whose count does not stand next to their title or id: in the
    text between the mention and the next line break or mention of another video (either side)."""
    spans = sorted(
        (m.start(), m.end(), i)
        for i, (key, title, _n) in enumerate(videos)
        for name in (key, title)
        for m in re.finditer(re.escape(name), text, re.I)
    )
    missing = []
    for i, (key, title, n) in enumerate(videos):
        found = False
        for start, end, j in spans:
            if j != i:
                continue
            left = max([text.rfind("\n", 0, start) + 1] + [e for s, e, k in spans if k != i and e <= start])
            right = min(
                [len(text) if text.find("\n", end) < 0 else text.find("\n", end)]
                + [s for s, e, k in spans if k != i and s >= end]
            )
            window = text[left:right]
            for name in (key, title):
                window = re.sub(re.escape(name), " ", window, flags=re.I)
            word = WORDS[n] if n < len(WORDS) else str(n)
            if str(n) in re.findall(NUMBER, window) or re.search(rf"\b{word}\b", window, re.I):
                found = True
        if not found:
            missing.append(f"{title} ({key}): {n}")
    return missing


def others_changed(world: World) -> list[str]:
    """Changes other than hidden comments (which ones is checked on its own), the log spreadsheet and its share
    with Nadia, besides the mail."""
    return world.changes(
        "video",
        "sheets",
        "mail",
        allow={
            "video_comments": lambda seeded, final: {"hidden", "hidden_reason"},
            "video_videos": lambda seeded, final: {"comment_count"},  # hidden comments are not counted
            **world.new_spreadsheet(TITLE, [NADIA]),
            **SENDING_MAIL,
        },
    )


def check(world: World) -> list[Criterion]:
    videos = world.query(
        """SELECT v.id, v.video_key, v.title FROM video_videos v JOIN video_channels c ON c.id = v.channel_id
           WHERE c.handle = '@techunboxed' AND v.visibility = 'public' ORDER BY v.view_count DESC, v.id LIMIT 5"""
    )
    keys = {v["id"]: v["video_key"] for v in videos}
    comments = [c for vid in keys for c in world.rows("video_comments", video_id=vid)]
    spam = [c for c in comments if c["body"] in SPAM]
    visible_spam = [c["id"] for c in spam if not c["hidden"]]
    in_scope = {c["id"] for c in spam}
    wrongly_hidden = [
        r["id"]
        for r in world.query("SELECT id FROM video_comments WHERE hidden ORDER BY id")
        if r["id"] not in in_scope and r["id"] not in SEED_HIDDEN
    ]
    bad_reason = [c["id"] for c in spam if c["hidden"] and c["hidden_reason"] != "spam"]
    today = {c["id"]: c for c in spam if c["id"] not in SEED_HIDDEN}
    out = [
        Criterion.of("spam hidden", not visible_spam, f"spam comments still visible: {visible_spam}"),
        Criterion.of(
            "nothing else hidden",
            not wrongly_hidden,
            f"comments other than the spam on the five videos were hidden: {wrongly_hidden}",
        ),
        Criterion.of("reason spam", not bad_reason, f"hidden with another reason than spam: {bad_reason}"),
    ]
    rows = _sheet_rows(world)
    if rows is None:
        out.append(Criterion("log sheet", False, f"no spreadsheet '{TITLE}' with a sheet '{SHEET}'"))
    else:
        header = [str(v or "").strip().lower() for v in rows[0]] if rows else []
        body = [r for r in rows[1:] if any(v not in (None, "") for v in r)]
        logged = {}
        for r in body:
            try:
                logged[int(r[1])] = r
            except (TypeError, ValueError):
                logged[-1] = r
        wrong = [
            i
            for i, r in logged.items()
            if i in today
            and (
                str(r[0]).strip() != keys[today[i]["video_id"]]
                or str(r[2]).strip().lstrip("@") != today[i]["author_handle"].lstrip("@")
                or str(r[3]).strip() != today[i]["body"]
            )
        ]
        books = world.ids_named("sheets_spreadsheet", TITLE)
        out += [
            Criterion.of("one log sheet", len(books) == 1, f"{len(books)} spreadsheets titled '{TITLE}'"),
            Criterion.of(
                "log header",
                header == ["video id", "comment id", "author", "comment"],
                f"header is {rows[:1]}",
            ),
            Criterion.of(
                "log rows",
                set(logged) == set(today) and len(body) == len(today) and not wrong,
                f"logged comment ids {sorted(logged)}; expected the {len(today)} hidden today {sorted(today)}"
                + (f"; video, author or text wrong for {wrong}" if wrong else ""),
            ),
        ]
        shared = world.query(
            """SELECT p.role FROM sheets_permission p JOIN sheets_spreadsheet s ON s.id = p.spreadsheet_id
               WHERE s.title = :title AND p.email = :email""",
            title=TITLE,
            email=NADIA,
        )
        out.append(
            Criterion.of("shared", [r["role"] for r in shared] == ["reader"], f"Nadia's access: {shared}")
        )
    per_video = [
        (v["video_key"], v["title"], sum(1 for c in today.values() if c["video_id"] == v["id"]))
        for v in videos
    ]
    mails = sent_mail(world.engine, to=NADIA, subject_contains="Spam sweep on Tech Unboxed")
    totals = [m for m in mails if states_total(m.body, len(today))]
    out.append(
        Criterion.of(
            "mail total",
            bool(totals),
            f"no 'Spam sweep on Tech Unboxed' mail to Nadia giving the total of {len(today)} comments ({len(mails)} found)",
        )
    )
    gaps = [counts_missing(m.body, per_video) for m in mails] or [
        [f"{t} ({k}): {n}" for k, t, n in per_video]
    ]
    out.append(
        Criterion.of(
            "mail per video",
            any(not g for g in gaps),
            f"the mail does not give each video's count next to its title or id: {min(gaps, key=len)}",
        )
    )
    out.append(nothing_else_changed(others_changed(world)))
    out.append(no_one_else_mailed(world, MAILED))
    return out
