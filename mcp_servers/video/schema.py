"""Video-platform tables. Videos are addressed by an 11-character public id (`video_key`); daily
statistics run from `STATS_FROM` to yesterday (today's figures are not final). Lifetime counters
on a video (`view_count`, `like_count`, `comment_count`) include the days before the statistics
window; `comment_count` counts visible comments and replies."""

from __future__ import annotations

from sqlalchemy import UniqueConstraint
from sqlmodel import Field, SQLModel

TODAY = "2026-11-20"
NOW = f"{TODAY}T12:00:00"
STATS_FROM = "2026-09-01"
STATS_TO = "2026-11-19"


class VideoChannel(SQLModel, table=True):
    __tablename__ = "video_channels"
    id: int | None = Field(default=None, primary_key=True)
    handle: str = Field(unique=True, index=True)  # e.g. @cookwithmara
    title: str
    description: str
    category: str
    country: str
    created_on: str
    subscriber_count: int
    owner_name: str


class VideoVideo(SQLModel, table=True):
    __tablename__ = "video_videos"
    id: int | None = Field(default=None, primary_key=True)
    video_key: str = Field(unique=True, index=True)
    channel_id: int = Field(foreign_key="video_channels.id", index=True)
    title: str
    description: str
    tags: str  # comma-separated
    category: str
    duration_seconds: int
    published_at: str = Field(index=True)
    visibility: str  # public | unlisted | private
    view_count: int
    like_count: int
    comment_count: int
    updated_at: str


class VideoDailyStat(SQLModel, table=True):
    __tablename__ = "video_daily_stats"
    __table_args__ = (UniqueConstraint("video_id", "date"),)
    id: int | None = Field(default=None, primary_key=True)
    video_id: int = Field(foreign_key="video_videos.id", index=True)
    date: str = Field(index=True)
    views: int
    watch_time_minutes: int
    likes: int
    comments: int
    shares: int
    subscribers_gained: int
    impressions: int


class VideoComment(SQLModel, table=True):
    __tablename__ = "video_comments"
    id: int | None = Field(default=None, primary_key=True)
    video_id: int = Field(foreign_key="video_videos.id", index=True)
    parent_id: int | None = Field(default=None, foreign_key="video_comments.id", index=True)
    author_name: str
    author_handle: str
    body: str
    posted_at: str
    like_count: int = 0
    is_channel_owner: bool = False
    hidden: bool = False
    hidden_reason: str | None = None


class VideoPlaylist(SQLModel, table=True):
    __tablename__ = "video_playlists"
    id: int | None = Field(default=None, primary_key=True)
    channel_id: int = Field(foreign_key="video_channels.id", index=True)
    title: str
    description: str = ""
    visibility: str  # public | unlisted | private
    created_at: str
    updated_at: str


class VideoPlaylistItem(SQLModel, table=True):
    __tablename__ = "video_playlist_items"
    __table_args__ = (UniqueConstraint("playlist_id", "video_id"),)
    id: int | None = Field(default=None, primary_key=True)
    playlist_id: int = Field(foreign_key="video_playlists.id", index=True)
    video_id: int = Field(foreign_key="video_videos.id", index=True)
    position: int  # 1-based
    added_at: str


TABLES = (VideoChannel, VideoVideo, VideoDailyStat, VideoComment, VideoPlaylist, VideoPlaylistItem)
