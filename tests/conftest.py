"""Shared fixtures: one world-template cache per test session, so templates build once."""

from __future__ import annotations

import logging
import os
from pathlib import Path

import pytest


@pytest.fixture(scope="session", autouse=True)
def _session_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    cache = tmp_path_factory.mktemp("mseval-cache")
    os.environ["MSEVAL_CACHE"] = str(cache)
    # The MCP SDK logs every tool error at INFO; tests provoke many on purpose.
    logging.getLogger("mcp").setLevel(logging.WARNING)
    return cache
