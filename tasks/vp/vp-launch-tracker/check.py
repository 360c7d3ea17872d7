"""The 'Devlog 5 Launch Tracker' sheet holds the video's daily figures since release in date order, then
a Total row with their sums, and is shared with Chen as a commenter."""

from harness.checks import Criterion, World, close_enough, nothing_else_changed

TITLE = "Devlog 5 Launch Tracker"
METRICS = ("views", "watch_time_minutes", "likes", "subscribers_gained")


def others_changed(world: World) -> list[str]:
    """Changes other than the tracker spreadsheet and its share with Chen."""
    return world.changes(
        "video",
        "sheets",
        allow={
            **world.new_spreadsheet(TITLE, ["chen.jensen@company.example"]),
        },
    )


def check(world: World) -> list[Criterion]:
    days = world.query(
        """SELECT s.date, s.views, s.watch_time_minutes, s.likes, s.subscribers_gained
           FROM video_daily_stats s JOIN video_videos v ON v.id = s.video_id
           WHERE v.title = 'Devlog 5: Release Day' AND s.date >= '2026-11-11' ORDER BY s.date"""
    )
    sheets = world.query(
        """SELECT sh.id, s.id AS book FROM sheets_sheet sh JOIN sheets_spreadsheet s ON s.id = sh.spreadsheet_id
           WHERE s.title = :t AND sh.title = 'Daily'""",
        t=TITLE,
    )
    if not sheets:
        return [Criterion("sheet", False, f"no spreadsheet '{TITLE}' with a sheet 'Daily'")]
    grid: dict[int, dict[int, object]] = {}
    for (r, k), value in world.sheet_cells(sheets[-1]["id"]).items():
        grid.setdefault(r, {})[k] = value
    rows = [[grid[r].get(k) for k in range(1, 6)] for r in sorted(grid)]
    header = [str(v or "").strip().lower() for v in rows[0]] if rows else []
    body = [r for r in rows[1:] if any(v not in (None, "") for v in r)]
    # the daily rows in date order, then the Total row below them (the last row)
    daily, total = body[:-1], body[-1:]
    wrong_days = [
        d["date"]
        for r, d in zip(daily, days, strict=False)
        if str(r[0])[:10] != d["date"] or not all(close_enough(r[k + 1], d[m]) for k, m in enumerate(METRICS))
    ]
    daily_ok = len(daily) == len(days) and not wrong_days
    sums = [sum(d[m] for d in days) for m in METRICS]
    total_ok = (
        len(total) == 1
        and str(total[0][0]).strip().lower() == "total"
        and all(close_enough(v, s) for v, s in zip(total[0][1:], sums, strict=True))
    )
    shared = world.query(
        "SELECT role FROM sheets_permission WHERE spreadsheet_id = :b AND email = 'chen.jensen@company.example'",
        b=sheets[-1]["book"],
    )
    books = world.ids_named("sheets_spreadsheet", TITLE)
    return [
        Criterion.of("one spreadsheet", len(books) == 1, f"{len(books)} spreadsheets titled '{TITLE}'"),
        Criterion.of(
            "header",
            header == ["date", "views", "watch minutes", "likes", "subscribers gained"],
            f"header is {rows[:1]}",
        ),
        Criterion.of(
            "daily rows",
            daily_ok,
            f"{len(daily)} rows above the last; expected {len(days)} days from 2026-11-11 in date order"
            + (f"; wrong or out of order: {wrong_days}" if wrong_days else ""),
        ),
        Criterion.of("total row", total_ok, f"the last row is {total}; expected 'Total' and the sums {sums}"),
        Criterion.of("shared", [r["role"] for r in shared] == ["commenter"], f"Chen's access: {shared}"),
        nothing_else_changed(others_changed(world)),
    ]
