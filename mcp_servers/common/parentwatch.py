"""A child server that ends with the mseval process that started it, from its first line on.

mseval names itself in `MSEVAL_SERVER_PARENT` (its pid) when it starts a child server
(`--server-transport stdio|http`). `python -m mcp_servers.<name>` then, before any heavy
import (SQLAlchemy, the MCP SDK, the server: a second or more, twelve under load), asks Linux
for SIGKILL when its parent ends (`prctl(PR_SET_PDEATHSIG)`), and ends at once when the
parent is already gone (re-parented: `getppid()` is no longer that pid). A kill -9 of mseval
used to leave children still importing alive until they were up (12-13 s under load), HTTP
ones until their watch on the parent (`--exit-with-parent`) started. A stdio child also ends
as soon as its input is closed, which is how mseval (the MCP SDK) stops it, even mid-import.

Linux sends the signal when the *thread* that started the child ends, not the process. mseval
starts its children from the thread running the episode's event loop (`asyncio.run` in the
main thread; a Ray task's own `asyncio.run`), and that loop closes its servers before it ends;
no child server is started from a worker thread (`asyncio.to_thread`, the check thread).

Elsewhere than Linux this does nothing: the `--exit-with-parent` watch, after the imports, and
a stdio server's closed input remain.
"""

from __future__ import annotations

import os
import stat
import sys

PARENT_ENV = "MSEVAL_SERVER_PARENT"
# <linux/prctl.h>
PR_SET_PDEATHSIG = 1


def exit_with_parent_from_the_start() -> None:
    """When this process is a child server (`python -m mcp_servers.<name>`) whose parent named
    itself in `MSEVAL_SERVER_PARENT`: die with that parent, and end now if it is gone.

    The variable is taken out of the environment, so nothing this server starts inherits it."""
    parent = os.environ.pop(PARENT_ENV, None)
    # `-m` while the package is imported by `python -m`: never mseval importing mcp_servers
    # with the variable in its own environment
    if parent is None or not parent.isdigit() or sys.argv[:1] != ["-m"]:
        return
    if not sys.platform.startswith("linux"):
        return
    import ctypes
    import signal

    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
    if os.getppid() != int(parent):  # it died before the line above: no signal will come
        os._exit(0)
    try:
        stdio = stat.S_ISFIFO(os.fstat(0).st_mode)  # an HTTP child's input is /dev/null
    except OSError:  # no input at all
        stdio = False
    if stdio:
        _exit_when_input_closes()


def _exit_when_input_closes() -> None:
    """End at once when the client closes this server's input: that is how an MCP client ends
    a stdio server, and one still importing (1-2 s, more under load) would see it only once
    serving, while mseval, stopping an episode whose servers were starting (Ctrl-C), waited
    the SDK's 2 s for it to exit before killing it."""
    import select
    import threading

    def watch() -> None:
        closed = select.poll()
        closed.register(0, 0)  # no events asked: poll still tells POLLHUP (no writer left)
        closed.poll()
        os._exit(0)

    threading.Thread(target=watch, name="exit-when-input-closes", daemon=True).start()
