"""Autumn_Channels.xlsx and .pptx hold each channel's October figures; both files went to Victor Moreau."""

from harness.checks import (
    SENDING_MAIL,
    Criterion,
    World,
    close_enough,
    no_one_else_mailed,
    nothing_else_changed,
)
from mcp_servers.mail.schema import sent_mail

CHANNELS = {"@techunboxed": "techunboxed", "@codecraft": "codecraft", "@fitwithleo": "fitwithleo"}
HEADER = ["video id", "title", "published", "october views", "october watch minutes", "october likes"]

MAILED = {"victor.moreau@company.example"}  # the only recipients the task has


def october(world: World, handle: str) -> list[dict]:
    """The channel's public videos of 2026 before October, most October views first."""
    return world.query(
        """SELECT v.video_key, v.title, substr(v.published_at, 1, 10) AS published,
                  COALESCE(SUM(s.views), 0) AS views, COALESCE(SUM(s.watch_time_minutes), 0) AS minutes,
                  COALESCE(SUM(s.likes), 0) AS likes
           FROM video_videos v JOIN video_channels c ON c.id = v.channel_id
           LEFT JOIN video_daily_stats s ON s.video_id = v.id AND s.date BETWEEN '2026-10-01' AND '2026-10-31'
           WHERE c.handle = :handle AND v.visibility = 'public'
             AND v.published_at >= '2026-01-01' AND v.published_at < '2026-10-01'
           GROUP BY v.id, v.video_key, v.title, v.published_at ORDER BY views DESC""",
        handle=handle,
    )


def _sheet_ok(ws, expected: list[dict]) -> tuple[bool, str]:
    rows = [r for r in ws.iter_rows(values_only=True) if any(v is not None for v in r)]
    header = [str(v).strip().lower() for v in rows[0][:6]] if rows else []
    if header != HEADER:
        return False, f"header is {rows[:1]}"
    body = rows[1:]
    if [str(r[0]) for r in body] != [e["video_key"] for e in expected]:
        return False, f"video ids {[r[0] for r in body]}, expected {[e['video_key'] for e in expected]}"
    for r, e in zip(body, expected, strict=True):
        if str(r[1]).strip() != e["title"]:
            return False, f"{e['video_key']}: title {r[1]!r}, expected {e['title']!r}"
        if str(r[2])[:10] != e["published"]:
            return False, f"{e['video_key']}: published {r[2]}, expected {e['published']}"
        for got, want, what in (
            (r[3], e["views"], "views"),
            (r[4], e["minutes"], "watch minutes"),
            (r[5], e["likes"], "likes"),
        ):
            if not close_enough(got, want):
                return False, f"{e['video_key']}: October {what} {got}, expected {want}"
    return True, ""


def others_changed(world: World) -> list[str]:
    """Changes to the world's records: the task only reads them (and sends mail)."""
    return world.changes(
        "video",
        "mail",
        allow=SENDING_MAIL,
    )


def check(world: World) -> list[Criterion]:
    data = {h: october(world, h) for h in CHANNELS}
    out = []
    wb = world.xlsx("Autumn_Channels.xlsx")
    if wb is None:
        out.append(Criterion("workbook", False, "Autumn_Channels.xlsx is missing or unreadable"))
    else:
        for handle, sheet in CHANNELS.items():
            if sheet not in wb.sheetnames:
                out.append(
                    Criterion(f"{sheet} sheet", False, f"no sheet {sheet}; sheets are {wb.sheetnames}")
                )
                continue
            ok, why = _sheet_ok(wb[sheet], data[handle])
            out.append(Criterion.of(f"{sheet} sheet", ok, why))
        if "Summary" in wb.sheetnames:
            rows = [r for r in wb["Summary"].iter_rows(values_only=True) if any(v is not None for v in r)]
            header = [str(v).strip().lower() for v in rows[0][:4]] if rows else []
            out.append(
                Criterion.of(
                    "summary header",
                    header == ["channel", "videos", "october views", "october watch minutes"],
                    f"Summary header is {rows[:1]}",
                )
            )
            # one row per channel, in any order (the prompt asks for none)
            summary = [(str(r[0]).strip(), r[1:4]) for r in rows[1:]]
            got = dict(summary)
            bad = [
                h for h, vids in data.items()
                if [name for name, _ in summary].count(h) != 1
                or not close_enough(got[h][0], len(vids))
                or not close_enough(got[h][1], sum(v["views"] for v in vids))
                or not close_enough(got[h][2], sum(v["minutes"] for v in vids))
            ]  # fmt: skip
            # a grand-total row is not asked for, but harmless when its sums are right
            grand = [
                len(sum(data.values(), [])),
                sum(v["views"] for vids in data.values() for v in vids),
                sum(v["minutes"] for vids in data.values() for v in vids),
            ]
            extra = [
                (name, values)
                for name, values in summary
                if name not in data
                and not (
                    name.lower() in ("total", "totals", "grand total", "all channels")
                    and all(close_enough(g, w) for g, w in zip(values, grand, strict=False))
                    and len(values) == 3
                )
            ]
            out.append(
                Criterion.of(
                    "summary",
                    not bad and not extra,
                    f"Summary rows wrong, missing or repeated for {bad}; other rows {extra}: {summary}",
                )
            )
        else:
            out.append(Criterion("summary", False, "no Summary sheet"))
    deck = world.pptx("Autumn_Channels.pptx")
    if deck is None:
        out.append(Criterion("deck", False, "Autumn_Channels.pptx is missing or unreadable"))
    else:
        titles = [(s.shapes.title.text if s.shapes.title is not None else "") for s in deck.slides]
        out.append(
            Criterion.of(
                "title slide",
                bool(titles) and titles[0].strip().lower() == "autumn channel review",
                f"first slide is {titles[:1]}",
            )
        )
        for handle in CHANNELS:
            name = world.query("SELECT title FROM video_channels WHERE handle = :h", h=handle)[0]["title"]
            slide = next((s for s, t in zip(deck.slides, titles, strict=True) if t.strip() == name), None)
            tables = [sh.table for sh in slide.shapes if sh.has_table] if slide is not None else []
            cells = [[c.text.strip() for c in row.cells] for row in tables[0].rows] if tables else []
            want = [[r["title"], r["views"]] for r in data[handle][:3]]
            ok = (
                len(cells) == 4
                and [c.lower() for c in cells[0]] == ["title", "october views"]
                and all(
                    got[0] == w[0] and close_enough(got[1].replace(",", ""), w[1])
                    for got, w in zip(cells[1:], want, strict=False)
                )
            )
            out.append(
                Criterion.of(
                    f"{name} slide", ok, f"table on slide '{name}' is {cells}, expected top 3 {want}"
                )
            )
    mails = sent_mail(world.engine, to="victor.moreau@company.example")
    good = [
        m for m in mails
        if "autumn channel review" in m.subject.lower()
        and {"Autumn_Channels.xlsx", "Autumn_Channels.pptx"} <= {a.split("/")[-1] for a in m.attachment_list()}
        and all(world.sent_as_final(m.id, a) for a in m.attachment_list() if a.endswith(("Autumn_Channels.xlsx", "Autumn_Channels.pptx")))
    ]  # fmt: skip
    out.append(
        Criterion.of(
            "mail",
            bool(good),
            f"no mail 'Autumn channel review' with both files to Victor ({len(mails)} sent)",
        )
    )
    out.append(nothing_else_changed(others_changed(world)))
    out.append(no_one_else_mailed(world, MAILED))
    return out
