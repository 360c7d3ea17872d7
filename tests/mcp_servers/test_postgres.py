"""PostgreSQL world state: each episode is its own schema, filled from the template schema, and
neither the tools nor raw SQL of one episode see another's writes (skipped without a server)."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text as sql_text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError

from mcp_servers.common import registry, worldstate
from mcp_servers.common.db import make_engine
from mcp_servers.warehouse import access, pg_role
from mcp_servers.warehouse.schema import TABLES as WAREHOUSE_TABLES
from tests.mcp_servers.support import PG_URL_ENV, World, as_data, serve, text

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.skipif(not os.environ.get(PG_URL_ENV), reason=f"no PostgreSQL: set {PG_URL_ENV}"),
]


@pytest.fixture
def episodes(tmp_path: Path) -> Iterator[tuple[World, World]]:
    """Two fresh episodes on the PostgreSQL server, dropped afterwards."""
    worlds = []
    for name in ("a", "b"):
        url = worldstate.create_episode_db(
            os.environ[PG_URL_ENV], f"pgtest-{name}-{uuid.uuid4().hex[:12]}", tmp_path
        )
        (tmp_path / name).mkdir()
        worlds.append(
            World(url=url, engine=make_engine(url), workspace=tmp_path / name, base=os.environ[PG_URL_ENV])
        )
    try:
        yield worlds[0], worlds[1]
    finally:
        for w in worlds:
            w.engine.dispose()
            worldstate.drop_episode_db(w.base, w.url)


def schema_of(world: World) -> str:
    with world.engine.connect() as conn:
        return str(conn.execute(sql_text("SELECT current_schema()")).scalar())


async def test_episodes_get_separate_schemas(episodes: tuple[World, World]) -> None:
    a, b = episodes
    assert schema_of(a) != schema_of(b)
    assert schema_of(a).startswith("ep_pgtest_a_") and schema_of(b).startswith("ep_pgtest_b_")
    assert a.dump() == b.dump()  # both start from the same seeded template


def catalog(url: str, schema: str) -> dict[str, list[tuple[Any, ...]]]:
    """Schema `schema`'s columns, indexes and constraints as PostgreSQL defines them, its own
    name written `S` (a default names its sequence, a definition may name the schema)."""
    queries = {
        "columns": "SELECT table_name, column_name, data_type, is_nullable, column_default "
        "FROM information_schema.columns WHERE table_schema = :s",
        "indexes": "SELECT tablename, indexname, indexdef FROM pg_indexes WHERE schemaname = :s",
        "constraints": "SELECT c.conrelid::regclass::text, c.conname, c.contype, pg_get_constraintdef(c.oid) "
        "FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace WHERE n.nspname = :s",
    }
    out: dict[str, list[tuple[Any, ...]]] = {}
    engine = make_engine(url)
    try:
        with engine.connect() as conn:
            for kind, query in queries.items():
                rows = conn.execute(sql_text(query), {"s": schema}).all()
                out[kind] = sorted(
                    tuple(str(v).replace(f'"{schema}".', "S.").replace(f"{schema}.", "S.") for v in row)
                    for row in rows
                )
    finally:
        engine.dispose()
    return out


async def test_an_episode_schema_is_defined_as_the_template_is(episodes: tuple[World, World]) -> None:
    """An episode's tables are made by one script (foreign keys and indexes after the rows), the
    template's by `create_all`: the two must define the same columns, indexes and constraints."""
    a, _ = episodes
    template = catalog(a.base, worldstate.pg_template_schema())
    assert len(template["columns"]) > 400 and template["indexes"] and template["constraints"]
    episode = catalog(a.base, schema_of(a))
    for kind in template:
        assert episode[kind] == template[kind], kind
    tables = [m.__table__ for spec in registry.all_specs() for m in spec.tables]  # type: ignore[attr-defined]
    declared = sum(len(table.foreign_key_constraints) for table in tables)
    assert sum(1 for c in episode["constraints"] if c[2] == "f") == declared == 80


async def test_episodes_do_not_see_each_others_writes(episodes: tuple[World, World]) -> None:
    a, b = episodes
    coupon = {
        "code": "PGONLY",
        "kind": "fixed",
        "value": 5,
        "valid_from": "2026-12-01",
        "valid_until": "2026-12-31",
    }
    async with serve("shop", a) as shop_a, serve("shop", b) as shop_b:
        made = await shop_a.call_tool("create_coupon", coupon)
        assert not made.is_error, text(made)
        codes_a = {c["code"] for c in as_data(await shop_a.call_tool("list_coupons", {}))}
        codes_b = {c["code"] for c in as_data(await shop_b.call_tool("list_coupons", {}))}
        assert "PGONLY" in codes_a and "PGONLY" not in codes_b
        # each episode's sequences continue from the seed on their own: the same next id in both
        for shop in (shop_a, shop_b):
            product = as_data(
                await shop.call_tool("search_products", {"in_stock_only": True, "page_size": 1})
            )
            items = [{"sku": product["items"][0]["sku"], "quantity": 1}]
            placed = await shop.call_tool("create_order", {"customer": "CU10001", "items": items})
            assert "ORD-100901" in text(placed), text(placed)
    # raw SQL with unqualified table names resolves in the episode's own schema
    sql = sql_text("SELECT COUNT(*) FROM shop_coupons WHERE code = 'PGONLY'")
    for world, expected in ((a, 1), (b, 0)):
        with world.engine.connect() as conn:
            assert conn.execute(sql).scalar() == expected


def test_dropping_an_episode_removes_only_its_schema(tmp_path: Path) -> None:
    base = os.environ[PG_URL_ENV]
    urls = [worldstate.create_episode_db(base, f"pgdrop-{uuid.uuid4().hex[:12]}", tmp_path) for _ in range(2)]
    schemas = [str(make_url(u).query["options"]).removeprefix("-csearch_path=") for u in urls]
    worldstate.drop_episode_db(base, urls[0])
    engine = make_engine(base)
    try:
        with engine.connect() as conn:
            found = set(
                conn.execute(
                    sql_text(
                        "SELECT schema_name FROM information_schema.schemata WHERE schema_name = ANY(:s)"
                    ),
                    {"s": schemas},
                ).scalars()
            )
        assert found == {schemas[1]}
    finally:
        worldstate.drop_episode_db(base, urls[1])
        engine.dispose()


def _role_of(world: World) -> str:
    with world.engine.connect() as conn:
        return str(conn.execute(sql_text("SELECT current_user")).scalar())


async def test_an_episode_connects_as_its_own_role_and_cannot_read_another_schema(
    episodes: tuple[World, World],
) -> None:
    """(`.ci/setup.d/postgres.sh` gives the test role CREATEROLE, so each episode has a role.)"""
    a, b = episodes
    assert _role_of(a) == schema_of(a) and _role_of(b) == schema_of(b)
    template = worldstate.pg_template_schema()
    with a.engine.connect() as conn:
        assert conn.execute(sql_text("SELECT COUNT(*) FROM shop_coupons")).scalar() > 0
    for schema in (schema_of(b), template):
        with a.engine.connect() as conn, pytest.raises(DBAPIError, match="permission denied"):
            conn.execute(sql_text(f'SELECT COUNT(*) FROM "{schema}".shop_coupons'))
    async with serve("warehouse", a) as wh_a:  # and the warehouse reads only its own tables
        other = await wh_a.call_tool(
            "run_query", {"sql": f'SELECT COUNT(*) FROM "{schema_of(b)}".warehouse_regions'}
        )
        assert other.is_error and "permission denied" in text(other), text(other)


def _role_exists(base: str, role: str) -> bool:
    engine = make_engine(base)
    try:
        with engine.connect() as conn:
            return (
                conn.execute(sql_text("SELECT 1 FROM pg_roles WHERE rolname = :r"), {"r": role}).first()
                is not None
            )
    finally:
        engine.dispose()


def test_dropping_an_episode_removes_its_role(tmp_path: Path) -> None:
    base = os.environ[PG_URL_ENV]
    url = worldstate.create_episode_db(base, f"pgrole-{uuid.uuid4().hex[:12]}", tmp_path)
    role = make_url(url).username
    assert role is not None and role.startswith("ep_pgrole_")
    worldstate.drop_episode_db(base, url)
    assert not _role_exists(base, role)


def _reader_of(world: World) -> str:
    return pg_role.reader_role(schema_of(world))


def test_the_warehouse_reader_may_select_the_warehouse_tables_and_nothing_else(
    episodes: tuple[World, World],
) -> None:
    a, b = episodes
    reader, schema = _reader_of(a), schema_of(a)
    assert reader != _reader_of(b) and reader == f"{schema}_wh"
    engine = make_engine(a.base)
    try:
        with engine.connect() as conn:
            role = conn.execute(
                sql_text(
                    "SELECT rolcanlogin, rolinherit, rolsuper, rolcreaterole, rolcreatedb, rolreplication, "
                    "rolbypassrls FROM pg_roles WHERE rolname = :r"
                ),
                {"r": reader},
            ).one()
            assert tuple(role) == (True, False, False, False, False, False, False)
            # a member of no role: not of pg_read_all_data, pg_read_all_settings, pg_read_server_files...
            member_of = conn.execute(
                sql_text("SELECT count(*) FROM pg_auth_members WHERE member = to_regrole(:r)"), {"r": reader}
            ).scalar()
            assert member_of == 0
            readable = conn.execute(
                sql_text(
                    "SELECT n.nspname, c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
                    "WHERE c.relkind IN ('r', 'v', 'm', 'p', 'f') AND n.nspname NOT IN ('pg_catalog', "
                    "'information_schema') AND has_table_privilege(:r, c.oid, 'SELECT, INSERT, UPDATE, DELETE')"
                ),
                {"r": reader},
            ).all()
            warehouse = {model.__tablename__ for model in WAREHOUSE_TABLES}  # type: ignore[attr-defined]
            assert sorted(readable) == sorted((schema, t) for t in warehouse)
            for t in warehouse:
                assert not conn.execute(
                    sql_text("SELECT has_table_privilege(:r, :t, 'INSERT, UPDATE, DELETE, TRUNCATE')"),
                    {"r": reader, "t": f'"{schema}".{t}'},
                ).scalar()
            usable = set(
                conn.execute(
                    sql_text(
                        "SELECT nspname FROM pg_namespace WHERE has_schema_privilege(:r, oid, 'USAGE') "
                        "AND nspname NOT IN ('pg_catalog', 'information_schema', 'public')"
                    ),
                    {"r": reader},
                ).scalars()
            )
            assert usable == {schema}
    finally:
        engine.dispose()


def test_dropping_an_episode_removes_its_warehouse_reader_and_a_rerun_makes_it_afresh(tmp_path: Path) -> None:
    """Roles are cluster-wide: the reader goes with its episode, and a killed attempt's reader
    does not stop the same episode from being made again (with a new password)."""
    base = os.environ[PG_URL_ENV]
    episode_id = f"pgreader-{uuid.uuid4().hex[:12]}"
    first = worldstate.create_episode_db(base, episode_id, tmp_path)
    again = worldstate.create_episode_db(base, episode_id, tmp_path)  # as after a killed attempt
    reader = pg_role.reader_role(str(make_url(again).username))
    assert make_url(first).password != make_url(again).password
    engine = make_engine(again)
    reader_engine = pg_role.query_engine(engine)
    try:
        assert reader_engine is not engine and reader_engine.url.username == reader
        with reader_engine.connect() as conn:
            assert conn.execute(sql_text("SELECT current_user, COUNT(*) FROM warehouse_regions")).one() == (
                reader,
                8,
            )
    finally:
        reader_engine.dispose()
        engine.dispose()
        worldstate.drop_episode_db(base, again)
    assert not _role_exists(base, reader)


def test_every_allowed_warehouse_function_is_a_plain_builtin() -> None:
    """The allow-list names functions of pg_catalog that PUBLIC may run as their caller (none
    SECURITY DEFINER, none with privileges of its own) - a misspelt entry would fail here."""
    engine = make_engine(os.environ[PG_URL_ENV])
    try:
        with engine.connect() as conn:
            rows = conn.execute(
                sql_text(
                    "SELECT proname, bool_or(prosecdef), bool_and(proacl IS NULL) FROM pg_proc "
                    "WHERE pronamespace = 'pg_catalog'::regnamespace AND proname = ANY(:names) GROUP BY proname"
                ),
                {"names": sorted(access.PG_FUNCTIONS)},
            ).all()
    finally:
        engine.dispose()
    assert {r[0] for r in rows} == access.PG_FUNCTIONS
    assert [r[0] for r in rows if r[1] or not r[2]] == []
    assert not access.PG_SYNTAX_CALLS & access.PG_FUNCTIONS


def test_a_role_without_createrole_shares_itself_and_says_so(caplog: pytest.LogCaptureFixture) -> None:
    base = os.environ[PG_URL_ENV]
    name = f"mseval_limited_{uuid.uuid4().hex[:8]}"
    engine = make_engine(base)
    try:
        with engine.begin() as conn:
            conn.execute(sql_text(f"CREATE ROLE {name} LOGIN PASSWORD 'limited'"))
        limited = make_url(base).set(username=name, password="limited").render_as_string(hide_password=False)
        with caplog.at_level("WARNING"):
            assert worldstate._roles_per_episode(limited) is False
        assert f"ALTER ROLE {name} CREATEROLE" in caplog.text
        assert worldstate._roles_per_episode(base) is True
    finally:
        with engine.begin() as conn:
            conn.execute(sql_text(f"DROP ROLE IF EXISTS {name}"))
        engine.dispose()


def test_a_role_without_createrole_runs_episodes_in_schemas_of_its_own(tmp_path: Path) -> None:
    """Regression: with such a role every episode was absent: making or dropping an episode
    dropped its warehouse reader with `DROP ROLE IF EXISTS`, which PostgreSQL refuses to a role
    without CREATEROLE even when there is no such role."""
    base = os.environ[PG_URL_ENV]
    name = f"mseval_limited_{uuid.uuid4().hex[:8]}"
    engine = make_engine(base)
    template = worldstate._pg_template(engine)
    database = make_url(base).database
    grants = [
        f'CREATE ON DATABASE "{database}"',
        f'USAGE ON SCHEMA "{template}"',
        f'SELECT ON ALL TABLES IN SCHEMA "{template}"',
    ]
    try:
        with engine.begin() as conn:
            conn.execute(sql_text(f"CREATE ROLE {name} LOGIN PASSWORD 'limited'"))
            for grant in grants:
                conn.execute(sql_text(f"GRANT {grant} TO {name}"))
        limited = make_url(base).set(username=name, password="limited").render_as_string(hide_password=False)
        url = worldstate.create_episode_db(limited, f"pgtest-limited-{uuid.uuid4().hex[:12]}", tmp_path)
        assert make_url(url).username == name  # the episode shares the URL's role
        world = make_engine(url)
        try:
            with world.connect() as conn:
                assert conn.execute(sql_text("SELECT count(*) FROM lms_course")).scalar()
                schema = conn.execute(sql_text("SELECT current_schema()")).scalar()
        finally:
            world.dispose()
        worldstate.drop_episode_db(limited, url)
        with engine.connect() as conn:
            found = conn.execute(
                sql_text("SELECT 1 FROM information_schema.schemata WHERE schema_name = :s"), {"s": schema}
            ).first()
        assert found is None
    finally:
        with engine.begin() as conn:
            for grant in grants:
                conn.execute(sql_text(f"REVOKE {grant} FROM {name}"))
            conn.execute(sql_text(f"DROP ROLE IF EXISTS {name}"))
        engine.dispose()


def test_a_new_template_drops_only_templates_unused_for_a_week(monkeypatch: pytest.MonkeyPatch) -> None:
    """Building a template dropped every other one: two checkouts of different server code
    against one database rebuilt theirs by turns (and could drop one an episode was copying)."""
    engine = make_engine(os.environ[PG_URL_ENV])
    tag = uuid.uuid4().hex[:8]
    old, recent, new = (f"mseval_tpl_{tag}_{n}" for n in ("old", "recent", "new"))
    try:
        with engine.begin() as conn:
            for schema in (old, recent):
                conn.execute(sql_text(f'CREATE SCHEMA "{schema}"'))
            worldstate._mark_used(conn, recent, worldstate.dt.datetime.now(worldstate.dt.UTC))
        monkeypatch.setattr(worldstate, "template_key", lambda: f"{tag}_new")
        assert worldstate._pg_template(engine) == new
        with engine.connect() as conn:
            names = set(conn.execute(sql_text("SELECT nspname FROM pg_namespace")).scalars())
        assert new in names and recent in names and old not in names
    finally:
        with engine.begin() as conn:
            for schema in (old, recent, new):
                conn.execute(sql_text(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'))
        engine.dispose()


def test_an_episode_roles_password_is_never_in_a_statement_nor_in_the_error_of_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """CREATE ROLE ... PASSWORD carried the password in clear: in the server's log of a failed
    statement or of DDL, in pg_stat_activity and, when the statement failed (here: the server
    ends the connection as it comes), in the error's [SQL: …], which a run records as the
    episode's reason and prints. Now only its SCRAM verifier is sent; the role still logs in."""
    import traceback

    from sqlalchemy import event
    from sqlalchemy.engine import Engine

    base = os.environ[PG_URL_ENV]
    password = "5ec7e7" * 5 + "ab"  # what the episode role is given
    monkeypatch.setattr(worldstate.secrets, "token_hex", lambda _n: password)
    sent: list[str] = []

    def watch(conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        sent.append(statement)

    event.listen(Engine, "before_cursor_execute", watch)
    try:
        url = worldstate.create_episode_db(base, f"pgpw-{uuid.uuid4().hex[:12]}", tmp_path)
    finally:
        event.remove(Engine, "before_cursor_execute", watch)
    try:
        assert any(s.startswith("CREATE ROLE") for s in sent)
        assert not [s for s in sent if password in s or pg_role.reader_password(password) in s]
        assert make_url(url).password == password
        world = make_engine(url)  # the role logs in with the password it was given
        try:
            with world.connect() as conn:
                assert conn.execute(sql_text("SELECT current_user")).scalar() == make_url(url).username
        finally:
            world.dispose()
    finally:
        worldstate.drop_episode_db(base, url)

    def end_at_create_role(conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        if statement.startswith("CREATE ROLE"):  # the server ends this connection now
            admin = make_engine(base)
            try:
                with admin.begin() as other:
                    pid = conn.connection.dbapi_connection.info.backend_pid
                    other.execute(sql_text("SELECT pg_terminate_backend(:p, 60000)"), {"p": pid})
            finally:
                admin.dispose()

    episode = f"pgpw-{uuid.uuid4().hex[:12]}"
    event.listen(Engine, "before_cursor_execute", end_at_create_role)
    try:
        with pytest.raises(DBAPIError) as failed:
            worldstate.create_episode_db(base, episode, tmp_path)
    finally:
        event.remove(Engine, "before_cursor_execute", end_at_create_role)
    told = "".join(traceback.format_exception(failed.value))
    assert "CREATE ROLE" in told and password not in told
    assert not _role_exists(base, worldstate.pg_schema_name(episode))  # undone with its transaction


def test_a_base_url_with_its_password_as_a_query_parameter_still_logs_episodes_in_as_their_role(
    tmp_path: Path,
) -> None:
    """libpq takes the password as `?password=`, and the driver prefers it to the URL's: the
    episode's URL kept the base's `?password=`, so its servers logged in as the episode role
    with the base role's password and every database tool failed ('password authentication
    failed for user "ep_…"'): a run scored each episode a failure, none absent."""
    base = make_url(os.environ[PG_URL_ENV])
    assert base.password is not None
    in_query = base.set(password=None).update_query_dict({"password": base.password})
    url = worldstate.create_episode_db(
        in_query.render_as_string(hide_password=False), f"pgq-{uuid.uuid4().hex[:12]}", tmp_path
    )
    try:
        world = make_engine(url)
        try:
            with world.connect() as conn:
                assert conn.execute(sql_text("SELECT current_user")).scalar() == make_url(url).username
        finally:
            world.dispose()
        assert "password" not in make_url(url).query  # nor is the base role's password handed on
    finally:
        worldstate.drop_episode_db(os.environ[PG_URL_ENV], url)
