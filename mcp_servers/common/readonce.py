"""A value a server instance reads from its world once, at first use, and keeps.

Only for tables that none of that server's tools write: a task's setup fills them before the
server starts, so what the first call reads is what every later call would. The value must be
plain (no ORM object: those belong to the session they were read in). Each server's tests pin
that none of its tools writes the tables it keeps."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Generic, TypeVar

from sqlmodel import Session

T = TypeVar("T")


class ReadOnce(Generic[T]):
    """`load(session)` run in the session of the first `get`, its value kept for this instance."""

    def __init__(self, load: Callable[[Session], T]) -> None:
        self._load = load
        self._value: T | None = None
        self._lock = threading.Lock()  # tools may run in worker threads: one read, not several

    def get(self, s: Session) -> T:
        if self._value is None:
            with self._lock:
                if self._value is None:
                    self._value = self._load(s)
        return self._value
