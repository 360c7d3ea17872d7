"""The video server's write tools: playlists (create, add, remove, reorder), comment moderation
(reply as the channel owner, hide), and video metadata.

Playlist positions stay 1..n without gaps. Every playlist change first touches the playlist row
(`updated_at`), which takes the write lock (SQLite) or the row lock (PostgreSQL) before the items
are read, so concurrent editors of one playlist queue up instead of interleaving positions.
"""

from __future__ import annotations

from typing import Literal

from mcp.server.mcpserver import MCPServer
from sqlalchemy import update
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col

from mcp_servers.common.spec import ServerContext
from mcp_servers.common.tooling import ToolError, writer
from mcp_servers.video import records
from mcp_servers.video.schema import (
    NOW,
    VideoChannel,
    VideoComment,
    VideoPlaylist,
    VideoPlaylistItem,
    VideoVideo,
)

WRITE = "record-update"
MAX_PLAYLIST = 500
Visibility = Literal["public", "unlisted", "private"]


def _lock(s: Session, p: VideoPlaylist) -> list[tuple[VideoPlaylistItem, VideoVideo]]:
    """Lock the playlist for this transaction and return its items in order."""
    s.connection().execute(update(VideoPlaylist).where(col(VideoPlaylist.id) == p.id).values(updated_at=NOW))
    return records.playlist_items(s, p)


def _renumber(s: Session, items: list[VideoPlaylistItem]) -> None:
    for position, item in enumerate(items, 1):
        if item.position != position:
            item.position = position
            s.add(item)


def _addable(s: Session, p: VideoPlaylist, v: VideoVideo) -> None:
    if v.visibility != "public" and v.channel_id != p.channel_id:
        raise ToolError(f"video {v.video_key} is {v.visibility} on another channel and cannot be added")


def _check_title(title: str, limit: int) -> str:
    title = title.strip()
    if not 1 <= len(title) <= limit or "<" in title or ">" in title:
        raise ToolError(f"a title must be 1-{limit} characters, without '<' or '>'")
    return title


def register_writes(app: MCPServer, ctx: ServerContext) -> None:
    """Add the write tools to `app`."""

    @writer(app, WRITE)
    def create_playlist(
        channel: str,
        title: str,
        description: str = "",
        visibility: Visibility = "public",
        video_ids: list[str] | None = None,
    ) -> str:
        """Create a playlist on a channel (handle like @cookwithmara), optionally with its first videos in
        order. Videos must be public, or belong to that channel. Returns the new playlist_id."""
        title = _check_title(title, 150)
        with Session(ctx.engine) as s:
            c = records.channel(s, channel)
            keys = list(dict.fromkeys(k.strip() for k in video_ids or []))
            if len(keys) > MAX_PLAYLIST:
                raise ToolError(f"a playlist holds at most {MAX_PLAYLIST} videos")
            p = VideoPlaylist(
                channel_id=c.id or 0, title=title, description=description, visibility=visibility,
                created_at=NOW, updated_at=NOW,
            )  # fmt: skip
            s.add(p)
            s.flush()
            for position, key in enumerate(keys, 1):
                v = records.video(s, key)
                _addable(s, p, v)
                s.add(
                    VideoPlaylistItem(
                        playlist_id=p.id or 0, video_id=v.id or 0, position=position, added_at=NOW
                    )
                )
            s.commit()
            return f"Playlist {p.id} {title!r} created on {c.handle} with {len(keys)} video(s)."

    @writer(app, WRITE)
    def add_to_playlist(playlist_id: int, video_id: str, position: int | None = None) -> str:
        """Add a video to a playlist at `position` (1 = first; default: at the end); later videos move down."""
        with Session(ctx.engine) as s:
            p = records.playlist(s, playlist_id)
            v = records.video(s, video_id)
            _addable(s, p, v)
            items = _lock(s, p)
            if any(existing.id == v.id for _, existing in items):
                raise ToolError(f"{v.video_key} is already in playlist {p.id}")
            if len(items) >= MAX_PLAYLIST:
                raise ToolError(f"playlist {p.id} is full ({MAX_PLAYLIST} videos)")
            if position is not None and not 1 <= position <= len(items) + 1:
                raise ToolError(f"position must be between 1 and {len(items) + 1}")
            at = position or len(items) + 1
            order = [i for i, _ in items]
            new = VideoPlaylistItem(playlist_id=p.id or 0, video_id=v.id or 0, position=at, added_at=NOW)
            order.insert(at - 1, new)
            s.add(new)
            _renumber(s, order)
            try:
                s.commit()
            except IntegrityError:
                raise ToolError(f"{v.video_key} is already in playlist {p.id}") from None
            return f"{v.video_key} added to playlist {p.id} at position {at} ({len(order)} videos)."

    @writer(app, WRITE, destructive=True)
    def remove_from_playlist(playlist_id: int, video_id: str) -> str:
        """Remove a video from a playlist; the videos after it move up."""
        with Session(ctx.engine) as s:
            p = records.playlist(s, playlist_id)
            v = records.video(s, video_id)
            items = _lock(s, p)
            gone = [i for i, existing in items if existing.id == v.id]
            if not gone:
                raise ToolError(f"{v.video_key} is not in playlist {p.id}")
            s.delete(gone[0])
            _renumber(s, [i for i, _ in items if i is not gone[0]])
            s.commit()
            return f"{v.video_key} removed from playlist {p.id} ({len(items) - 1} videos left)."

    @writer(app, WRITE)
    def reorder_playlist(playlist_id: int, video_ids: list[str]) -> str:
        """Put a playlist's videos in a new order: `video_ids` must list every video of the playlist
        exactly once, first to last (get_playlist shows the current order)."""
        with Session(ctx.engine) as s:
            p = records.playlist(s, playlist_id)
            items = _lock(s, p)
            current = {v.video_key: i for i, v in items}
            wanted = [k.strip() for k in video_ids]
            missing = [k for k in current if k not in wanted]
            extra = [k for k in wanted if k not in current]
            if missing or extra or len(wanted) != len(set(wanted)):
                raise ToolError(
                    f"video_ids must list each of the playlist's {len(current)} videos once; "
                    f"missing: {missing}, not in the playlist: {extra}"
                )
            _renumber(s, [current[k] for k in wanted])
            s.commit()
            return f"Playlist {p.id} reordered ({len(wanted)} videos)."

    @writer(app, WRITE)
    def reply_to_comment(comment_id: int, body: str) -> str:
        """Reply to a comment as the owner of the video's channel. A reply to a reply joins the same
        thread. Hidden comments cannot be answered."""
        body = body.strip()
        if not 1 <= len(body) <= 10_000:
            raise ToolError("body must be 1-10000 characters")
        with Session(ctx.engine) as s:
            c = records.comment(s, comment_id)
            if c.hidden:
                raise ToolError(f"comment {comment_id} is hidden; it cannot be answered")
            v = s.get(VideoVideo, c.video_id)
            owner = s.get(VideoChannel, v.channel_id) if v else None
            if v is None or owner is None:  # foreign keys make this impossible; say so if it happens
                raise ToolError(f"comment {comment_id} belongs to no known video")
            reply = VideoComment(
                video_id=v.id or 0, parent_id=c.parent_id or c.id, author_name=owner.owner_name,
                author_handle=owner.handle, body=body, posted_at=NOW, is_channel_owner=True,
            )  # fmt: skip
            s.add(reply)
            s.connection().execute(
                update(VideoVideo)
                .where(col(VideoVideo.id) == v.id)
                .values(comment_count=col(VideoVideo.comment_count) + 1)
            )
            s.commit()
            return f"Reply {reply.id} posted on {v.video_key} as {owner.handle}."

    @writer(app, WRITE, destructive=True)
    def hide_comment(comment_id: int, reason: Literal["spam", "abusive", "off-topic", "other"]) -> str:
        """Hide a comment from viewers (with its replies, if it starts a thread); reason: spam, abusive,
        off-topic or other. Hidden comments no longer count in the video's comment_count."""
        with Session(ctx.engine) as s:
            c = records.comment(s, comment_id)
            if c.hidden:
                raise ToolError(f"comment {comment_id} is already hidden ({c.hidden_reason})")
            done = s.connection().execute(
                update(VideoComment)
                .where(col(VideoComment.id) == c.id, col(VideoComment.hidden).is_(False))
                .values(hidden=True, hidden_reason=reason)
            )
            if done.rowcount != 1:
                raise ToolError(f"comment {comment_id} was hidden meanwhile")
            replies = s.connection().execute(
                update(VideoComment)
                .where(col(VideoComment.parent_id) == c.id, col(VideoComment.hidden).is_(False))
                .values(hidden=True, hidden_reason=reason)
            )
            n = 1 + replies.rowcount
            s.connection().execute(
                update(VideoVideo)
                .where(col(VideoVideo.id) == c.video_id)
                .values(comment_count=col(VideoVideo.comment_count) - n)
            )
            s.commit()
            tail = f" and {n - 1} repl{'y' if n == 2 else 'ies'}" if n > 1 else ""
            return f"Comment {comment_id}{tail} hidden ({reason})."

    @writer(app, WRITE, destructive=True)
    def update_video(
        video_id: str,
        title: str | None = None,
        description: str | None = None,
        tags: list[str] | None = None,
        visibility: Visibility | None = None,
    ) -> str:
        """Change a video's metadata: title (1-100 characters), description (up to 5000), tags (a list,
        replacing the old ones; 500 characters in all) and/or visibility (public, unlisted, private)."""
        if title is None and description is None and tags is None and visibility is None:
            raise ToolError("give at least one of title, description, tags, visibility")
        with Session(ctx.engine) as s:
            v = records.video(s, video_id)
            changed = []
            if title is not None:
                v.title = _check_title(title, 100)
                changed.append("title")
            if description is not None:
                if len(description) > 5000:
                    raise ToolError("description must be at most 5000 characters")
                v.description = description
                changed.append("description")
            if tags is not None:
                clean = list(dict.fromkeys(t.strip() for t in tags if t.strip()))
                if any("," in t for t in clean) or sum(len(t) for t in clean) > 500:
                    raise ToolError("tags must not contain commas and must total at most 500 characters")
                v.tags = ",".join(clean)
                changed.append("tags")
            if visibility is not None:
                v.visibility = visibility
                changed.append("visibility")
            v.updated_at = NOW
            s.add(v)
            s.commit()
            return f"{v.video_key} updated: {', '.join(changed)}."
