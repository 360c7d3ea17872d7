"""The run store on PostgreSQL (harness/store.py, `--store postgresql+psycopg://…`): what a
shared server does to it. Skipped without $MSEVAL_TEST_PG_URL."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator

import pytest
import sqlalchemy as sa

from harness.store import Owner, Store
from tests.mcp_servers.support import PG_URL_ENV

pytestmark = pytest.mark.skipif(not os.environ.get(PG_URL_ENV), reason=f"${PG_URL_ENV} not set")


@pytest.fixture
def pg_store_url() -> Iterator[str]:
    """A store URL on the test server, in a schema of its own, dropped afterwards."""
    base = os.environ[PG_URL_ENV]
    schema = f"store_test_{uuid.uuid4().hex[:8]}"
    admin = sa.create_engine(base)
    with admin.begin() as conn:
        conn.exec_driver_sql(f"CREATE SCHEMA {schema}")
    try:
        yield f"{base}{'&' if '?' in base else '?'}options=-csearch_path%3D{schema}"
    finally:
        with admin.begin() as conn:
            conn.exec_driver_sql(f"DROP SCHEMA {schema} CASCADE")
        admin.dispose()


def _end_backends(store: Store) -> int:
    """End, as a server restart or a DBA would, the backend of the connection `store` keeps in
    its pool; returns its pid."""
    with store.engine.connect() as conn:  # the pool's connection, given back after
        pid = int(conn.exec_driver_sql("SELECT pg_backend_pid()").scalar_one())
    admin = sa.create_engine(os.environ[PG_URL_ENV])
    try:
        with admin.begin() as conn:  # with a timeout, it returns once the backend has exited
            ended = conn.execute(sa.text("SELECT pg_terminate_backend(:p, 60000)"), {"p": pid}).scalar_one()
        assert ended
    finally:
        admin.dispose()
    return pid


def test_a_store_connection_ended_by_the_server_is_replaced_not_a_stopped_run(pg_store_url: str) -> None:
    """The store's pooled connections were used untried: once the server ended one (restart,
    pg_terminate_backend, idle timeout), the run's next write failed ('could not record events:
    consuming input failed: server closed the connection unexpectedly') and the run stopped,
    though the server was there again. Each is now tried before use and replaced."""
    store = Store(pg_store_url)
    owner = Owner()
    try:
        store.create_run("r1", "m1", {"matrix": ["sim:oracle/spec"]}, owner)
        old = _end_backends(store)
        store.renew_claim("r1", owner)  # a write on a fresh connection, no StoreError
        with store.engine.connect() as conn:
            assert int(conn.exec_driver_sql("SELECT pg_backend_pid()").scalar_one()) != old
        assert [r.run_id for r in store.runs()] == ["r1"]
    finally:
        store.close()
