"""Server tests run against SQLite always, and against PostgreSQL when $MSEVAL_TEST_PG_URL is set
(`.ci/run` starts one on 127.0.0.1)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from mcp_servers.common import worldstate
from tests.mcp_servers.support import PG_URL_ENV, World, make_world


@pytest.fixture(params=["sqlite", "postgres"])
def world(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[World]:
    if request.param == "postgres" and not os.environ.get(PG_URL_ENV):
        pytest.skip(
            f"no PostgreSQL: set {PG_URL_ENV} (e.g. postgresql+psycopg://mseval@127.0.0.1:5432/mseval)"
        )
    made = make_world(tmp_path, request.param)
    yield made
    made.engine.dispose()
    worldstate.drop_episode_db(
        made.base, made.url
    )  # else every PostgreSQL run leaves ~2 GB of episode schemas
