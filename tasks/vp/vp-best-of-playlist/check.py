"""A public 'Best of 2026' playlist on Fit with Leo holds its public 2026 videos by views; Victor was told
its id and how many videos it holds (and no one else got mail); nothing else on the platform (no other
playlist) was changed."""

import re

from harness.checks import SENDING_MAIL, Criterion, World, new_rows, no_one_else_mailed, nothing_else_changed
from mcp_servers.mail.schema import sent_mail

MAILED = {"victor.moreau@company.example"}  # the only recipients the task has
WORDS = "zero one two three four five six seven eight nine ten eleven twelve".split()


def states_count(text: str, n: int, noun: str) -> bool:
    """`n` stands as a count of `noun` ('5 videos', 'five public videos', 'videos: 5'), not merely
    somewhere in the text ('15 videos' and '2026-05' do not count)."""
    num = rf"(?:{n}|{WORDS[n]})" if n < len(WORDS) else str(n)
    before = rf"(?<![\w.,-]){num}\s+(?:[a-z][\w'-]*\s+){{0,3}}{noun}\b"
    after = rf"\b{noun}(?:(?:\s+[a-z]+){{0,3}}\s*(?:[:=]|\bis\b|\bwas\b|\bof\b))?\s*{num}(?![\w,]|\.\d)"
    return bool(re.search(before, text, re.I) or re.search(after, text, re.I))


def names_id(text: str, pid: int) -> bool:
    """The playlist id stands on its own (not inside a date, time or longer number)."""
    return bool(re.search(rf"(?<![\w.:/-]){pid}(?![\w:/-]|\.\d)", text))


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
    # the new playlist and its items are the only change to the video platform, besides the mail
    changed = world.changes(
        "video",
        "mail",
        allow={
            "video_playlists": new_rows("id", {p["id"]}),
            "video_playlist_items": new_rows("playlist_id", {p["id"]}),
            **SENDING_MAIL,
        },
    )
    mails = sent_mail(
        world.engine,
        to="victor.moreau@company.example",
        subject_contains="Fit with Leo: Best of 2026 playlist",
    )
    told = [m for m in mails if names_id(m.body, p["id"]) and states_count(m.body, len(wanted), "videos?")]
    return [
        Criterion.of("one playlist", len(lists) == 1, f"{len(lists)} playlists titled 'Best of 2026'"),
        Criterion.of("public", p["visibility"] == "public", f"the playlist is {p['visibility']}"),
        Criterion.of("videos in order", items == wanted, f"playlist holds {items}; expected {wanted}"),
        nothing_else_changed(changed),
        Criterion.of(
            "mail",
            bool(told),
            f"no mail 'Fit with Leo: Best of 2026 playlist' to Victor naming playlist {p['id']} and saying it holds {len(wanted)} videos",
        ),
        no_one_else_mailed(world, MAILED),
    ]
