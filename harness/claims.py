"""A run's claim: which process runs it (`Owner`, a row of the store's claims table), and
whether the process behind a claim is still alive (same host: its pid; any host: renewed lately)."""

from __future__ import annotations

import os
import socket
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# A running process renews its run's claim this often; a claim not renewed for CLAIM_STALE_S
# is abandoned (its process died on another machine, or stopped without releasing it).
CLAIM_RENEW_S = 10.0
CLAIM_STALE_S = 60.0


@dataclass(frozen=True)
class Owner:
    """The process that runs a run."""

    token: str = field(default_factory=lambda: uuid.uuid4().hex)
    host: str = field(default_factory=socket.gethostname)
    pid: int = field(default_factory=os.getpid)

    def row(self, run_id: str) -> dict[str, Any]:
        return {
            "run_id": run_id,
            "token": self.token,
            "host": self.host,
            "pid": self.pid,
            "heartbeat_at": time.time(),
        }


def process_exists(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    try:  # an exited process its parent has not reaped yet is gone too
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return stat.rpartition(")")[2].split()[:1] != ["Z"]


def claim_alive(claim: Any, now: float) -> bool:
    if now - claim.heartbeat_at > CLAIM_STALE_S:
        return False
    return claim.host != socket.gethostname() or process_exists(claim.pid)
