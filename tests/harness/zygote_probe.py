"""A child for tests/harness/test_cli_zygote.py: `python -m tests.harness.zygote_probe WHAT [ARG]`."""

from __future__ import annotations

import json
import os
import signal
import sys
import time

if __name__ == "__main__":
    what, arg = sys.argv[1], (sys.argv[2:] or [""])[0]
    if what == "show":  # what the child was given, and what it had imported
        print(json.dumps({
            "argv": sys.argv[1:], "cwd": os.getcwd(), "var": os.environ.get(arg), "stdin": sys.stdin.read(),
            "optimize": sys.flags.optimize, "project": sorted({"harness", "mcp_servers", "evaluation", "contracts"} & set(sys.modules)),
        }))  # fmt: skip
        print("to stderr", file=sys.stderr)
        sys.exit(3)
    if what == "raise":
        raise ValueError("the probe failed")
    if what == "signal":
        os.kill(os.getpid(), signal.SIGTERM)
    if what == "sleep":
        with open(arg, "w") as f:
            f.write(str(os.getpid()))
        time.sleep(3600)
