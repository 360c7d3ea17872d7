"""The 'Devlog 5 Launch Tracker' sheet holds the video's daily figures since release and their totals,
and is shared with Chen as a commenter."""

import json

from harness.checks import Criterion, World, close_enough

TITLE = "Devlog 5 Launch Tracker"
METRICS = ("views", "watch_time_minutes", "likes", "subscribers_gained")


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
    for c in world.rows("sheets_cell", sheet_id=sheets[-1]["id"]):
        grid.setdefault(c["row_no"], {})[c["col_no"]] = json.loads(c["value"])
    rows = [[grid[r].get(k) for k in range(1, 6)] for r in sorted(grid)]
    header = [str(v or "").strip().lower() for v in rows[0]] if rows else []
    body = rows[1:]
    daily = [r for r in body if str(r[0]).strip().lower() != "total"]
    total = [r for r in body if str(r[0]).strip().lower() == "total"]
    daily_ok = len(daily) == len(days) and all(
        str(r[0])[:10] == d["date"] and all(close_enough(r[k + 1], d[m]) for k, m in enumerate(METRICS))
        for r, d in zip(daily, days, strict=True)
    )
    sums = [sum(d[m] for d in days) for m in METRICS]
    total_ok = len(total) == 1 and all(close_enough(v, s) for v, s in zip(total[0][1:], sums, strict=True))
    shared = world.query(
        "SELECT role FROM sheets_permission WHERE spreadsheet_id = :b AND email = 'chen.jensen@company.example'",
        b=sheets[-1]["book"],
    )
    return [
        Criterion.of(
            "header",
            header == ["date", "views", "watch minutes", "likes", "subscribers gained"],
            f"header is {rows[:1]}",
        ),
        Criterion.of(
            "daily rows", daily_ok, f"{len(daily)} daily rows; expected {len(days)} days from 2026-11-11"
        ),
        Criterion.of("total row", total_ok, f"total row is {total}; expected sums {sums}"),
        Criterion.of("shared", [r["role"] for r in shared] == ["commenter"], f"Chen's access: {shared}"),
    ]
