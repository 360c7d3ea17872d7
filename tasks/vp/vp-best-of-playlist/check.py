"""A public 'Best of 2026' playlist on Fit with Leo holds its public 2026 videos by views; Victor was told."""

from harness.checks import Criterion, World
from mcp_servers.mail.schema import sent_mail


def check(world: World) -> list[Criterion]:
    wanted = [
        r["video_key"]
        for r in world.query(
            """SELECT v.video_key FROM video_videos v JOIN video_channels c ON c.id = v.channel_id
               WHERE c.handle = '@fitwithleo' AND v.visibility = 'public' AND v.published_at >= '2026-01-01'
               ORDER BY v.view_count DESC"""
        )
    ]
    lists = world.query(
        """SELECT p.id, p.visibility FROM video_playlists p JOIN video_channels c ON c.id = p.channel_id
           WHERE c.handle = '@fitwithleo' AND lower(p.title) = 'best of 2026'"""
    )
    if not lists:
        return [Criterion("playlist", False, "no playlist 'Best of 2026' on @fitwithleo")]
    p = lists[-1]
    items = [
        r["video_key"]
        for r in world.query(
            """SELECT v.video_key FROM video_playlist_items i JOIN video_videos v ON v.id = i.video_id
               WHERE i.playlist_id = :p ORDER BY i.position""",
            p=p["id"],
        )
    ]
    mails = sent_mail(world.engine, to="victor.moreau@company.example", subject_contains="best of 2026")
    told = [m for m in mails if str(p["id"]) in m.body and str(len(wanted)) in m.body]
    return [
        Criterion.of("one playlist", len(lists) == 1, f"{len(lists)} playlists titled 'Best of 2026'"),
        Criterion.of("public", p["visibility"] == "public", f"the playlist is {p['visibility']}"),
        Criterion.of("videos in order", items == wanted, f"playlist holds {items}; expected {wanted}"),
        Criterion.of(
            "mail", bool(told), f"no mail to Victor naming playlist {p['id']} and {len(wanted)} videos"
        ),
    ]
