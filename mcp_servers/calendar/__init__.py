"""`calendar`: calendars, events and attendees in `calendar_*` tables."""
