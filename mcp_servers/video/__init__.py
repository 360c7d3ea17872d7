"""`video`: a video platform's creator studio (channels, videos, daily statistics, comments, playlists)."""
