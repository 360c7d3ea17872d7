"""The run store on PostgreSQL (harness/store.py, `--store postgresql+psycopg://…`): what a
shared server does to it. Skipped without $MSEVAL_TEST_PG_URL."""

from __future__ import annotations

import os
import secrets
import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa

from harness.claims import Owner
from harness.store import Store
from mcp_servers.common import worldstate
from mcp_servers.common.db import make_engine
from tests.harness.cli_support import catalog_copy, line_of, mseval, one_line_error
from tests.harness.support import pg_store_in_schema
from tests.mcp_servers.support import PG_URL_ENV

RUN = ("run", "-m", "sim:oracle", "-v", "spec", "--tasks", "lms-due-reminder")

pytestmark = pytest.mark.skipif(not os.environ.get(PG_URL_ENV), reason=f"${PG_URL_ENV} not set")


@pytest.fixture
def pg_store_url() -> Iterator[str]:
    """A store URL on the test server, in a schema of its own, dropped afterwards."""
    with pg_store_in_schema("store_test") as url:
        yield url


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


@pytest.fixture
def bare_role() -> Iterator[tuple[str, str, str]]:
    """A login role of its own on the test server, allowed nothing: (URL, name, password);
    dropped afterwards with what it was granted."""
    base = sa.engine.make_url(os.environ[PG_URL_ENV])
    name, password = f"bare_{uuid.uuid4().hex[:8]}", secrets.token_hex(8)
    admin = sa.create_engine(base)
    with admin.begin() as conn:
        conn.exec_driver_sql(f"CREATE ROLE {name} LOGIN PASSWORD '{password}'")
    try:
        url = base.set(username=name, password=password).render_as_string(hide_password=False)
        yield url, name, password
    finally:
        with admin.begin() as conn:
            conn.exec_driver_sql(f'REVOKE ALL ON DATABASE "{base.database}" FROM {name}')
            conn.exec_driver_sql(f"DROP ROLE {name}")
        admin.dispose()


def _run_refused(tmp_path: Path, db: str, password: str) -> str:
    store = tmp_path / "s.db"
    result = mseval(*RUN, "--db", db, "--store", f"sqlite:///{store}", "--runs-dir", str(tmp_path / "runs"))
    line = one_line_error(result)
    assert password not in result.stdout + result.stderr
    assert not store.exists() and not (tmp_path / "runs").exists()  # nothing half-done
    return line


def test_a_world_server_whose_role_may_not_create_schemas_is_bad_input(
    tmp_path: Path, bare_role: tuple[str, str, str]
) -> None:
    """Checked was only that the role could connect: the run started and every episode was
    recorded absent, 'ProgrammingError: (psycopg.errors.InsufficientPrivilege) permission denied
    for database mseval [SQL: CREATE SCHEMA "ep_…"]', exit 1."""
    url, name, password = bare_role
    line = _run_refused(tmp_path, url, password)
    assert line.startswith("--db: postgresql+psycopg://"), line
    assert f"role {name!r} may not create schemas in database" in line
    assert f'TO "{name}"' in line


def test_a_world_server_whose_template_the_role_may_not_read_is_bad_input(
    tmp_path: Path, bare_role: tuple[str, str, str]
) -> None:
    """The seeded template another role built (schemas mseval_tpl_…) is found by its name, then
    read: a role that may create schemas but not read it had every episode absent, 'permission
    denied for schema mseval_tpl_…'."""
    url, name, password = bare_role
    base = os.environ[PG_URL_ENV]
    engine = make_engine(base)
    try:
        template = worldstate._pg_template(engine)  # built by the test server's role
        with engine.begin() as conn:
            conn.exec_driver_sql(f'GRANT CREATE ON DATABASE "{engine.url.database}" TO {name}')
    finally:
        engine.dispose()
    line = _run_refused(tmp_path, url, password)
    assert line.startswith("--db: postgresql+psycopg://"), line
    assert f"role {name!r} may not read schema {template!r}" in line


def test_a_store_whose_tables_cannot_be_created_is_bad_input(
    tmp_path: Path, bare_role: tuple[str, str, str]
) -> None:
    """A search_path naming no schema that exists, or a schema the role may not create tables
    in: `mseval run` started, failed to open its store, and said 'the run stopped: … run the same
    command with --resume' (exit 1) of a run that never was."""
    base = os.environ[PG_URL_ENV]
    url, name, password = bare_role
    runs = tmp_path / "runs"
    missing = f"missing_{uuid.uuid4().hex[:8]}"
    for store, said in [
        (
            f"{base}{'&' if '?' in base else '?'}options=-csearch_path%3D{missing}",
            f"no schema to create the store in: none named in its search_path ({missing}) exists",
        ),
        (
            f"{url}{'&' if '?' in url else '?'}options=-csearch_path%3Dpublic",
            f"role {name!r} may not create the store's tables in schema 'public'",
        ),
    ]:
        result = mseval(*RUN, "--store", store, "--runs-dir", str(runs))
        line = one_line_error(result)
        assert line.startswith("--store: postgresql+psycopg://") and said in line, line
        assert password not in result.stderr and not runs.exists()


def test_a_setup_step_only_postgresql_refuses_is_bad_input_on_a_postgresql_run(tmp_path: Path) -> None:
    """The setup of each task was tried before a run on a SQLite world whatever `--db` said, and
    SQLite keeps text in a number column: on PostgreSQL every episode of the task was then
    recorded absent ('invalid input syntax for type integer'), exit 1. The try now uses the
    run's world database, in a schema of its own that is dropped after."""
    tasks, _priors, env = catalog_copy(tmp_path)
    spec = tasks / "lms" / "lms-due-reminder" / "task.yaml"
    step = "- insert: lms_course\n  rows: [{id: 900, code: X9, title: T, term: F, instructor: I, credits: many, capacity: 3}]\n"
    spec.write_text(spec.read_text().replace("servers:", f"setup:\n{step}servers:", 1))
    base = os.environ[PG_URL_ENV]
    engine = make_engine(base)
    schemas = "SELECT count(*) FROM information_schema.schemata WHERE schema_name LIKE 'ep_setup_check%%'"
    try:
        with engine.connect() as conn:
            before = conn.exec_driver_sql(schemas).scalar_one()
        store = tmp_path / "s.db"
        run = (*RUN, "--store", f"sqlite:///{store}", "--runs-dir", str(tmp_path / "runs"))
        assert mseval(*run, "--db", "sqlite", env=env).returncode == 0  # SQLite takes the step
        store.unlink()
        shutil.rmtree(tmp_path / "runs")
        result = mseval(*run, "--db", base, env=env)
        line = f"{spec}:{line_of(spec, '- insert: lms_course')}: setup step 1 cannot be applied: "
        assert one_line_error(result) == line + 'invalid input syntax for type integer: "many"'
        assert not store.exists() and not (tmp_path / "runs").exists()  # nothing half-done
        with engine.connect() as conn:
            assert conn.exec_driver_sql(schemas).scalar_one() == before
    finally:
        engine.dispose()
