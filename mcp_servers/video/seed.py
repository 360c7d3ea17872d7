"""Deterministic video-platform data: 6 channels, 72 videos (2025-03 to 2026-11; a few unlisted or
private), ~5,000 daily statistics rows (2026-09-01 to yesterday), ~1,700 comments with owner
replies and some spam, and 9 playlists.

Rows are inserted without ids, in id order, so ids are 1..n on every backend and database
sequences stay in step with them.
"""

from __future__ import annotations

import math
import random
import string
from collections import Counter
from datetime import date, datetime, timedelta
from typing import Any

from sqlalchemy import insert
from sqlmodel import Session, SQLModel

from mcp_servers.common.names import people
from mcp_servers.video import catalog
from mcp_servers.video.schema import (
    STATS_FROM,
    STATS_TO,
    TODAY,
    VideoChannel,
    VideoComment,
    VideoDailyStat,
    VideoPlaylist,
    VideoPlaylistItem,
    VideoVideo,
)

Row = dict[str, Any]
DURATION_MIN = {"Food": (8, 20), "Science & Technology": (10, 25), "Travel & Events": (15, 40),
                "Education": (20, 90), "Howto & Style": (10, 30), "Gaming": (8, 25)}  # fmt: skip
PRIVATE = {(1, 11), (3, 11)}  # drafts not yet published
UNLISTED = {(2, 3), (4, 8), (5, 7), (6, 9)}
# Once-public videos unlisted later, with the time: their views stay, so a channel's most viewed
# videos include one that is not public (Tech Unboxed's outdated phone comparison).
UNLISTED_LATER = {(2, 0): "2026-06-01T10:00:00"}
KEY_CHARS = string.ascii_letters + string.digits + "-_"


def _insert(session: Session, model: type[SQLModel], rows: list[Row]) -> None:
    if rows:
        session.connection().execute(insert(model), rows)


def _views(day_age: int, peak: float, tau: float, base: float) -> float:
    return peak * math.exp(-day_age / tau) + base


def _views_before(days: int, peak: float, tau: float, base: float) -> float:
    """Sum of `_views` over ages 0..days-1 (a geometric series)."""
    if days <= 0:
        return 0.0
    q = math.exp(-1 / tau)
    return peak * (1 - q**days) / (1 - q) + base * days


def seed(session: Session) -> None:
    """Fill the video tables (same rows on every call)."""
    rng = random.Random(9112026)
    today = date.fromisoformat(TODAY)
    stats_from, stats_to = date.fromisoformat(STATS_FROM), date.fromisoformat(STATS_TO)
    window = [stats_from + timedelta(days=i) for i in range((stats_to - stats_from).days + 1)]
    window_iso = [(d, d.isoformat(), 1.15 if d.weekday() >= 5 else 1.0) for d in window]
    channels: list[Row] = []
    videos: list[Row] = []
    stats: list[Row] = []
    tops: list[Row] = []
    replies: list[tuple[int, Row]] = []  # (index of the parent in tops, reply)
    authors = people(400, seed=31, domain="viewers.example")
    first_upload = date(2025, 3, 1)
    for cid, (handle, title, category, country, created, subs, owner, desc, tags, topics) in enumerate(
        catalog.CHANNELS, 1
    ):
        channels.append({"handle": handle, "title": title, "description": desc, "category": category, "country": country,
                         "created_on": created, "subscriber_count": subs, "owner_name": owner})  # fmt: skip
        step = (today - timedelta(days=5) - first_upload).days / (len(topics) - 1)
        for k, topic in enumerate(topics):
            published = first_upload + timedelta(days=round(k * step) - rng.randint(0, 4))
            published_at = f"{published.isoformat()}T{rng.randint(14, 19):02d}:00:00"
            visibility = (
                "private" if (cid, k) in PRIVATE else "unlisted" if (cid, k) in UNLISTED else "public"
            )
            duration = rng.randint(*DURATION_MIN[category]) * 60 + rng.randint(0, 59)
            scale = 0.0 if visibility == "private" else 0.25 if visibility == "unlisted" else 1.0
            peak, tau = subs * rng.uniform(0.015, 0.09) * scale, rng.uniform(3, 12)
            base = peak * rng.uniform(0.004, 0.02)
            like_rate, retention = rng.uniform(0.025, 0.06), rng.uniform(0.3, 0.6)
            video_id = len(videos) + 1
            before = _views_before((stats_from - published).days, peak, tau, base)
            views = likes = 0
            if scale:
                for day, iso, weekend in window_iso:
                    age = (day - published).days
                    if age < 0:
                        continue
                    v = int(_views(age, peak, tau, base) * weekend * rng.uniform(0.85, 1.15))
                    lk = int(v * like_rate * rng.uniform(0.8, 1.2))
                    views, likes = views + v, likes + lk
                    stats.append({
                        "video_id": video_id, "date": iso, "views": v,
                        "watch_time_minutes": int(v * duration / 60 * retention), "likes": lk, "comments": 0,
                        "shares": int(v * rng.uniform(0.002, 0.006)), "subscribers_gained": int(v * rng.uniform(0.001, 0.004)),
                        "impressions": int(v / rng.uniform(0.04, 0.09)),
                    })  # fmt: skip
            videos.append({
                "video_key": "".join(rng.choice(KEY_CHARS) for _ in range(11)), "channel_id": cid,
                "title": topic, "description": f"{topic}. {desc} New videos every week on {title}.",
                "tags": ",".join([*tags, topic.lower().split(" ")[0]]), "category": category,
                "duration_seconds": duration, "published_at": published_at, "visibility": visibility,
                "view_count": int(before) + views, "like_count": int(before * like_rate) + likes, "comment_count": 0,
                "updated_at": published_at,
            })  # fmt: skip
            if not scale:
                continue
            total = int(before) + views
            for _ in range(min(40, int(math.sqrt(total) / 25)) + 3):
                kind = rng.choices(["positive", "question", "negative", "spam"], [55, 20, 15, 10])[0]
                body = rng.choice({"positive": catalog.POSITIVE, "question": catalog.QUESTIONS,
                                   "negative": catalog.NEGATIVE, "spam": catalog.SPAM}[kind])  # fmt: skip
                age = min((today - published).days, int(rng.expovariate(1 / 12)))
                posted = datetime.fromisoformat(published_at) + timedelta(
                    days=age, minutes=rng.randint(5, 1400)
                )
                if posted.date() >= today:
                    posted = datetime.fromisoformat(
                        f"{STATS_TO}T{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:00"
                    )
                name, email = rng.choice(authors)
                hidden = kind == "spam" and rng.random() < 0.4
                tops.append({
                    "video_id": video_id, "parent_id": None, "author_name": name,
                    "author_handle": "@" + email.split("@")[0].replace(".", ""), "body": body,
                    "posted_at": posted.isoformat(), "like_count": int(rng.paretovariate(1.6)) - 1,
                    "is_channel_owner": False, "hidden": hidden, "hidden_reason": "spam" if hidden else None,
                })  # fmt: skip
                if kind in ("question", "positive") and rng.random() < (0.45 if kind == "question" else 0.12):
                    at = min(
                        posted + timedelta(hours=rng.randint(1, 30)),
                        datetime.fromisoformat(f"{STATS_TO}T23:59:00"),
                    )
                    replies.append((len(tops) - 1, {
                        "video_id": video_id, "author_name": owner, "author_handle": handle,
                        "body": rng.choice(catalog.REPLIES), "posted_at": at.isoformat(), "like_count": rng.randint(0, 12),
                        "is_channel_owner": True, "hidden": False, "hidden_reason": None,
                    }))  # fmt: skip
    for (cid, k), when in UNLISTED_LATER.items():  # after the draw, so no other row changes
        videos[(cid - 1) * 12 + k] |= {"visibility": "unlisted", "updated_at": when}
    # top-level comments first (oldest first), then replies: a reply's parent always has a smaller id
    order = sorted(range(len(tops)), key=lambda i: (tops[i]["posted_at"], i))
    new_id = {old: new for new, old in enumerate(order, 1)}
    comments = [tops[i] for i in order]
    comments += [r | {"parent_id": new_id[p]} for p, r in sorted(replies, key=lambda pr: pr[1]["posted_at"])]
    per_day = Counter((c["video_id"], c["posted_at"][:10]) for c in comments)
    for row in stats:
        row["comments"] = per_day.get((row["video_id"], row["date"]), 0)
    visible = Counter(c["video_id"] for c in comments if not c["hidden"])
    for video_id, video in enumerate(videos, 1):
        video["comment_count"] = visible.get(video_id, 0)
    _insert(session, VideoChannel, channels)
    _insert(session, VideoVideo, videos)
    _insert(session, VideoDailyStat, stats)
    _insert(session, VideoComment, comments)
    playlists: list[Row] = []
    items: list[Row] = []
    for cid, title, picks in catalog.PLAYLISTS:
        members = [(cid - 1) * 12 + k + 1 for k in picks]
        created = min(videos[m - 1]["published_at"] for m in members)
        playlists.append({"channel_id": cid, "title": title, "description": f"{title} from {channels[cid - 1]['title']}.",
                          "visibility": "public", "created_at": created, "updated_at": created})  # fmt: skip
        for position, m in enumerate(members, 1):
            added = max(created, videos[m - 1]["published_at"])
            items.append(
                {"playlist_id": len(playlists), "video_id": m, "position": position, "added_at": added}
            )
            playlists[-1]["updated_at"] = max(playlists[-1]["updated_at"], added)
    _insert(session, VideoPlaylist, playlists)
    _insert(session, VideoPlaylistItem, items)
