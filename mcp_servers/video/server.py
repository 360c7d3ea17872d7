"""The `video` server: a creator studio over channels, videos, daily statistics, comments and
playlists (SPEC §5, scenario VP). The read tools are here; the writes are in `studio.py`."""

from __future__ import annotations

from typing import Any, Literal

from mcp.server.mcpserver import MCPServer
from sqlalchemy import func, or_
from sqlmodel import Session, col, select

from mcp_servers.common.paging import paginate
from mcp_servers.common.spec import ServerContext, ServerSpec
from mcp_servers.common.tooling import ToolError, as_json, fields, reader
from mcp_servers.common.values import LIKE_ESCAPE, iso_date, like_pattern
from mcp_servers.video import records
from mcp_servers.video.schema import (
    STATS_FROM,
    STATS_TO,
    TABLES,
    TODAY,
    VideoChannel,
    VideoComment,
    VideoDailyStat,
    VideoPlaylist,
    VideoPlaylistItem,
    VideoVideo,
)
from mcp_servers.video.seed import seed
from mcp_servers.video.studio import register_writes

READ = "video-platform-lookup"
METRICS = ("views", "watch_time_minutes", "likes", "comments", "shares", "subscribers_gained", "impressions")


def _range(start_date: str | None, end_date: str | None) -> tuple[str, str]:
    start = iso_date(start_date, "start_date") if start_date else STATS_FROM
    end = iso_date(end_date, "end_date") if end_date else STATS_TO
    if end < start:
        raise ToolError("end_date is before start_date")
    if end < STATS_FROM or start > STATS_TO:
        raise ToolError(
            f"daily statistics cover {STATS_FROM} to {STATS_TO} (yesterday); pick dates in that range"
        )
    return max(start, STATS_FROM), min(end, STATS_TO)


def build(ctx: ServerContext) -> MCPServer:
    app = MCPServer(
        "video",
        instructions=f"A video platform's creator studio. Today is {TODAY}; daily statistics run from "
        f"{STATS_FROM} to {STATS_TO}. Videos are addressed by their 11-character video_id.",
    )

    @reader(app, READ)
    def list_channels() -> str:
        """All channels: handle, title, category, country, subscribers, and their number of videos."""
        with Session(ctx.engine) as s:
            counts = dict(
                s.execute(
                    select(VideoVideo.channel_id, func.count()).group_by(col(VideoVideo.channel_id))
                ).all()
            )
            return as_json([
                {"handle": c.handle, "title": c.title, "category": c.category, "country": c.country,
                 "subscribers": c.subscriber_count, "videos": counts.get(c.id, 0)}
                for c in s.execute(select(VideoChannel).order_by(col(VideoChannel.id))).scalars()
            ])  # fmt: skip

    @reader(app, READ)
    def get_channel(channel: str) -> str:
        """One channel by handle (@cookwithmara) or title: details, lifetime views and likes of its
        videos, video counts by visibility, and its five latest uploads."""
        with Session(ctx.engine) as s:
            c = records.channel(s, channel)
            vids = s.execute(
                select(VideoVideo).where(VideoVideo.channel_id == c.id).order_by(col(VideoVideo.published_at).desc())
            ).scalars().all()  # fmt: skip
            by_visibility: dict[str, int] = {}
            for v in vids:
                by_visibility[v.visibility] = by_visibility.get(v.visibility, 0) + 1
            return as_json({
                **fields(c, {"id"}), "videos": len(vids), "videos_by_visibility": by_visibility,
                "total_views": sum(v.view_count for v in vids), "total_likes": sum(v.like_count for v in vids),
                "latest_uploads": [records.video_summary(v) for v in vids[:5]],
            })  # fmt: skip

    @reader(app, READ)
    def search_videos(
        query: str | None = None,
        channel: str | None = None,
        tag: str | None = None,
        visibility: Literal["public", "unlisted", "private"] | None = None,
        published_after: str | None = None,
        published_before: str | None = None,
        sort: Literal["newest", "oldest", "most_viewed", "most_liked"] = "newest",
        page: int = 1,
        page_size: int = 20,
    ) -> str:
        """Find videos, one page at a time: `query` matches title or description (case-insensitive);
        filter by channel handle, tag, visibility and publication dates (YYYY-MM-DD, inclusive). Each
        item: video_id, title, channel, published_at, visibility, duration, lifetime views/likes/comments."""
        with Session(ctx.engine) as s:
            stmt = select(VideoVideo, VideoChannel).join(
                VideoChannel, col(VideoChannel.id) == VideoVideo.channel_id
            )
            if query:
                like = like_pattern(query.strip().lower())
                stmt = stmt.where(
                    or_(
                        func.lower(VideoVideo.title).like(like, escape=LIKE_ESCAPE),
                        func.lower(VideoVideo.description).like(like, escape=LIKE_ESCAPE),
                    )
                )
            if channel:
                stmt = stmt.where(VideoVideo.channel_id == records.channel(s, channel).id)
            if tag:
                like = like_pattern(f",{tag.strip().lower()},")
                stmt = stmt.where(func.lower("," + VideoVideo.tags + ",").like(like, escape=LIKE_ESCAPE))
            if visibility:
                stmt = stmt.where(VideoVideo.visibility == visibility)
            if published_after:
                stmt = stmt.where(
                    col(VideoVideo.published_at) >= iso_date(published_after, "published_after")
                )
            if published_before:
                before = iso_date(published_before, "published_before")
                stmt = stmt.where(col(VideoVideo.published_at) < before + "T99")
            order = {
                "newest": col(VideoVideo.published_at).desc(), "oldest": col(VideoVideo.published_at),
                "most_viewed": col(VideoVideo.view_count).desc(), "most_liked": col(VideoVideo.like_count).desc(),
            }[sort]  # fmt: skip
            stmt = stmt.order_by(order, col(VideoVideo.id))
            return as_json(
                paginate(s, stmt, page, page_size, lambda row: records.video_summary(row[0], row[1]))
            )

    @reader(app, READ)
    def get_video(video_id: str) -> str:
        """One video by its video_id: title, description, tags, category, duration, visibility, lifetime
        counters, its channel, and the playlists it is in."""
        with Session(ctx.engine) as s:
            v = records.video(s, video_id)
            c = s.get(VideoChannel, v.channel_id)
            lists = s.execute(
                select(VideoPlaylist)
                .join(VideoPlaylistItem, col(VideoPlaylistItem.playlist_id) == VideoPlaylist.id)
                .where(VideoPlaylistItem.video_id == v.id)
                .order_by(col(VideoPlaylist.id))
            ).scalars().all()  # fmt: skip
            return as_json({
                **records.video_summary(v, c), "description": v.description, "tags": v.tags.split(",") if v.tags else [],
                "category": v.category, "updated_at": v.updated_at,
                "playlists": [{"playlist_id": p.id, "title": p.title} for p in lists],
            })  # fmt: skip

    def stats_payload(
        s: Session, video_ids: list[int | None], start: str, end: str, daily: bool
    ) -> dict[str, Any]:
        sums = [func.sum(getattr(VideoDailyStat, m)) for m in METRICS]
        rows = s.execute(
            select(VideoDailyStat.date, *sums)
            .where(col(VideoDailyStat.video_id).in_(video_ids), col(VideoDailyStat.date).between(start, end))
            .group_by(col(VideoDailyStat.date))
            .order_by(col(VideoDailyStat.date))
        ).all()
        days = [{"date": r[0], **{m: int(r[k + 1] or 0) for k, m in enumerate(METRICS)}} for r in rows]
        totals = {m: sum(d[m] for d in days) for m in METRICS}
        out: dict[str, Any] = {"start_date": start, "end_date": end, "totals": totals}
        if days:
            best = max(days, key=lambda d: d["views"])
            out["best_day"] = {"date": best["date"], "views": best["views"]}
            out["average_daily_views"] = round(totals["views"] / len(days), 1)
        if daily:
            out["days"] = days
        return out

    @reader(app, READ)
    def get_video_stats(video_id: str, start_date: str | None = None, end_date: str | None = None) -> str:
        """Daily statistics of one video between two dates (YYYY-MM-DD, inclusive; default: the whole
        window 2026-09-01 to yesterday): views, watch time, likes, comments, shares, subscribers gained,
        impressions per day, with totals, the best day and average daily views."""
        start, end = _range(start_date, end_date)
        with Session(ctx.engine) as s:
            v = records.video(s, video_id)
            return as_json(
                {"video_id": v.video_key, "title": v.title, **stats_payload(s, [v.id], start, end, True)}
            )

    @reader(app, READ)
    def get_channel_stats(channel: str, start_date: str | None = None, end_date: str | None = None) -> str:
        """A channel's statistics summed over all its videos between two dates (YYYY-MM-DD, inclusive;
        default: the whole window): totals, daily figures, and its five most viewed videos in the period."""
        start, end = _range(start_date, end_date)
        with Session(ctx.engine) as s:
            c = records.channel(s, channel)
            vids = s.execute(select(VideoVideo).where(VideoVideo.channel_id == c.id)).scalars().all()
            top = s.execute(
                select(VideoVideo.video_key, VideoVideo.title, func.sum(VideoDailyStat.views).label("v"))
                .join(VideoDailyStat, col(VideoDailyStat.video_id) == VideoVideo.id)
                .where(VideoVideo.channel_id == c.id, col(VideoDailyStat.date).between(start, end))
                .group_by(col(VideoVideo.video_key), col(VideoVideo.title))
                .order_by(func.sum(VideoDailyStat.views).desc(), col(VideoVideo.video_key))
                .limit(5)
            ).all()
            payload = stats_payload(s, [v.id for v in vids], start, end, True)
            payload["top_videos"] = [{"video_id": k, "title": t, "views": int(n)} for k, t, n in top]
            return as_json({"channel": c.handle, **payload})

    @reader(app, READ)
    def list_comments(
        video_id: str,
        sort: Literal["newest", "top"] = "newest",
        include_hidden: bool = False,
        page: int = 1,
        page_size: int = 20,
    ) -> str:
        """Comment threads of a video, one page of top-level comments at a time, each with its replies:
        comment_id, author, body, posted_at, likes. sort: newest or top (most liked). Hidden comments
        (spam, abuse) are left out unless include_hidden."""
        with Session(ctx.engine) as s:
            v = records.video(s, video_id)
            stmt = select(VideoComment).where(
                VideoComment.video_id == v.id, col(VideoComment.parent_id).is_(None)
            )
            if not include_hidden:
                stmt = stmt.where(col(VideoComment.hidden).is_(False))
            first = (
                col(VideoComment.posted_at).desc()
                if sort == "newest"
                else col(VideoComment.like_count).desc()
            )
            stmt = stmt.order_by(first, col(VideoComment.id).desc())
            result = paginate(s, stmt, page, page_size, lambda row: row[0])
            ids = [c.id for c in result["items"]]
            reply_stmt = (
                select(VideoComment)
                .where(col(VideoComment.parent_id).in_(ids))
                .order_by(col(VideoComment.id))
            )
            if not include_hidden:
                reply_stmt = reply_stmt.where(col(VideoComment.hidden).is_(False))
            replies: dict[int | None, list[dict[str, Any]]] = {}
            for r in s.execute(reply_stmt).scalars():
                replies.setdefault(r.parent_id, []).append(records.comment_dict(r))
            result["items"] = [
                {**records.comment_dict(c), "replies": replies.get(c.id, [])} for c in result["items"]
            ]
            return as_json({"video_id": v.video_key, "comment_count": v.comment_count, **result})

    @reader(app, READ)
    def list_playlists(channel: str | None = None) -> str:
        """Playlists (all, or one channel's): playlist_id, title, channel, visibility, number of videos."""
        with Session(ctx.engine) as s:
            stmt = select(VideoPlaylist).order_by(col(VideoPlaylist.id))
            if channel:
                stmt = stmt.where(VideoPlaylist.channel_id == records.channel(s, channel).id)
            return as_json([records.playlist_dict(s, p, False) for p in s.execute(stmt).scalars()])

    @reader(app, READ)
    def get_playlist(playlist_id: int) -> str:
        """One playlist with its videos in order (position, video_id, title, views, added_at)."""
        with Session(ctx.engine) as s:
            return as_json(records.playlist_dict(s, records.playlist(s, playlist_id), True))

    register_writes(app, ctx)
    return app


SPEC = ServerSpec(
    name="video",
    description="Video platform creator studio: channels, videos, daily statistics, comments, playlists",
    build=build,
    tables=TABLES,
    seed=seed,
    scenario="VP",
)
