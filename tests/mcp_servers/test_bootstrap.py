"""`python -m mcp_servers.<name>` (and `mseval servers serve`) run alone."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from mcp_servers.common.bootstrap import DB_ENV


def test_the_default_database_is_beside_the_workspace_not_in_it(tmp_path: Path) -> None:
    """Regression: without --db the world database was world.sqlite inside the workspace, where
    the terminal's rm and write_file (and python_execute) could rewrite the world."""
    workspace = tmp_path / "serve" / "workspace"
    env = {k: v for k, v in os.environ.items() if k != DB_ENV}
    # With its input closed, the stdio server seeds its database and ends at once.
    subprocess.run(
        [sys.executable, "-m", "mcp_servers.mail", "--workspace", str(workspace)],
        stdin=subprocess.DEVNULL, capture_output=True, env=env, timeout=60, check=True,
    )  # fmt: skip
    assert workspace.is_dir() and not (workspace / "world.sqlite").exists()
    assert (tmp_path / "serve" / "world.sqlite").is_file()
