"""Looking up video-platform records by the keys a creator uses (channel handle, video id,
playlist id, comment id), and rendering them as the compact dicts the tools return."""

from __future__ import annotations

from typing import Any

from sqlalchemy import func
from sqlmodel import Session, col, select

from mcp_servers.common.tooling import ToolError
from mcp_servers.common.values import numeric_id
from mcp_servers.video.schema import VideoChannel, VideoComment, VideoPlaylist, VideoPlaylistItem, VideoVideo


def channel(s: Session, key: str) -> VideoChannel:
    k = key.strip()
    if (n := numeric_id(k)) is not None:
        stmt = select(VideoChannel).where(VideoChannel.id == n)
    else:
        handle = k if k.startswith("@") else f"@{k}"
        stmt = select(VideoChannel).where(
            (func.lower(VideoChannel.handle) == handle.lower())
            | (func.lower(VideoChannel.title) == k.lower())
        )
    found = s.execute(stmt).scalars().first()
    if found is None:
        raise ToolError(f"no channel {key!r}; give a handle like @cookwithmara (list_channels shows them)")
    return found


def video(s: Session, video_id: str) -> VideoVideo:
    found = s.execute(select(VideoVideo).where(VideoVideo.video_key == video_id.strip())).scalar_one_or_none()
    if found is None:
        raise ToolError(f"no video {video_id!r}; video ids are 11 characters, e.g. from search_videos")
    return found


def playlist(s: Session, playlist_id: int) -> VideoPlaylist:
    found = s.get(VideoPlaylist, playlist_id)
    if found is None:
        raise ToolError(f"no playlist {playlist_id}; list_playlists shows them")
    return found


def comment(s: Session, comment_id: int) -> VideoComment:
    found = s.get(VideoComment, comment_id)
    if found is None:
        raise ToolError(f"no comment {comment_id}; list_comments shows comment ids")
    return found


def video_summary(v: VideoVideo, ch: VideoChannel | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"video_id": v.video_key, "title": v.title}
    if ch is not None:
        out["channel"] = ch.handle
    out.update(
        published_at=v.published_at, visibility=v.visibility, duration_seconds=v.duration_seconds,
        views=v.view_count, likes=v.like_count, comments=v.comment_count,
    )  # fmt: skip
    return out


def playlist_items(s: Session, p: VideoPlaylist) -> list[tuple[VideoPlaylistItem, VideoVideo]]:
    rows = s.execute(
        select(VideoPlaylistItem, VideoVideo)
        .join(VideoVideo, col(VideoVideo.id) == VideoPlaylistItem.video_id)
        .where(VideoPlaylistItem.playlist_id == p.id)
        .order_by(col(VideoPlaylistItem.position), col(VideoPlaylistItem.id))
    ).all()
    return [(i, v) for i, v in rows]


def playlist_dict(s: Session, p: VideoPlaylist, with_items: bool) -> dict[str, Any]:
    ch = s.get(VideoChannel, p.channel_id)
    items = playlist_items(s, p)
    out: dict[str, Any] = {
        "playlist_id": p.id, "title": p.title, "channel": ch.handle if ch else None, "description": p.description,
        "visibility": p.visibility, "videos": len(items), "created_at": p.created_at, "updated_at": p.updated_at,
    }  # fmt: skip
    if with_items:
        out["items"] = [
            {
                "position": i.position,
                "video_id": v.video_key,
                "title": v.title,
                "views": v.view_count,
                "added_at": i.added_at,
            }
            for i, v in items
        ]
    return out


def comment_dict(c: VideoComment) -> dict[str, Any]:
    out: dict[str, Any] = {
        "comment_id": c.id, "author": c.author_name, "author_handle": c.author_handle, "body": c.body,
        "posted_at": c.posted_at, "likes": c.like_count,
    }  # fmt: skip
    if c.is_channel_owner:
        out["is_channel_owner"] = True
    if c.hidden:
        out["hidden"] = True
        out["hidden_reason"] = c.hidden_reason
    return out
