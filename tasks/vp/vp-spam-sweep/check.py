"""Every spam comment on Tech Unboxed's five most viewed public videos is hidden, nothing else; the log
sheet lists the comments hidden today and is shared with Nadia, who got a mail with the count."""

import json

from harness.checks import Criterion, World
from mcp_servers.mail.schema import sent_mail
from mcp_servers.video.catalog import SPAM

# Spam on these videos that the seed had already hidden (so it is not part of today's sweep).
SEED_HIDDEN = {204, 903, 918, 1029, 1041, 1048, 1056}
TITLE, SHEET, NADIA = "Spam Sweep 2026-11-20", "Hidden", "nadia.lopez@company.example"


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
    for c in world.rows("sheets_cell", sheet_id=sheets[-1]["id"]):
        grid.setdefault(c["row_no"], {})[c["col_no"]] = json.loads(c["value"])
    return [[grid[r].get(col) for col in range(1, 5)] for r in sorted(grid)]


def check(world: World) -> list[Criterion]:
    videos = world.query(
        """SELECT v.id, v.video_key FROM video_videos v JOIN video_channels c ON c.id = v.channel_id
           WHERE c.handle = '@techunboxed' AND v.visibility = 'public' ORDER BY v.view_count DESC, v.id LIMIT 5"""
    )
    keys = {v["id"]: v["video_key"] for v in videos}
    comments = [c for vid in keys for c in world.rows("video_comments", video_id=vid)]
    spam = [c for c in comments if c["body"] in SPAM]
    visible_spam = [c["id"] for c in spam if not c["hidden"]]
    wrongly_hidden = [c["id"] for c in comments if c["hidden"] and c["body"] not in SPAM]
    bad_reason = [c["id"] for c in spam if c["hidden"] and c["hidden_reason"] != "spam"]
    today = {c["id"]: c for c in spam if c["id"] not in SEED_HIDDEN}
    out = [
        Criterion.of("spam hidden", not visible_spam, f"spam comments still visible: {visible_spam}"),
        Criterion.of(
            "nothing else hidden",
            not wrongly_hidden,
            f"comments that are not spam were hidden: {wrongly_hidden}",
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
        right = all(
            str(r[0]) == keys[today[i]["video_id"]] and str(r[2]).strip() == today[i]["author_handle"]
            for i, r in logged.items()
            if i in today
        )
        out += [
            Criterion.of(
                "log header",
                header == ["video id", "comment id", "author", "comment"],
                f"header is {rows[:1]}",
            ),
            Criterion.of(
                "log rows",
                set(logged) == set(today) and len(body) == len(today) and right,
                f"logged comment ids {sorted(logged)}; expected the {len(today)} hidden today {sorted(today)}",
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
    mails = sent_mail(world.engine, to=NADIA, subject_contains="spam sweep")
    out.append(
        Criterion.of(
            "mail",
            any(str(len(today)) in m.body for m in mails),
            f"no 'Spam sweep' mail to Nadia giving the total of {len(today)} ({len(mails)} found)",
        )
    )
    return out
