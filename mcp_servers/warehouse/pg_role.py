"""The warehouse's own PostgreSQL role per episode: `run_query` logs in as it, so the database
itself lets a query read the episode's warehouse tables and nothing else.

`worldstate` creates it beside the episode's own role (`create_reader`, only when it can create
roles) and drops it with the episode's schema (`drop_reader`). Its name is the schema's plus
`_wh`: unique per episode as the schema is (a schema name ends in a hash, never in `_wh`), and
within PostgreSQL's 63-byte limit. Its password is an HMAC of the episode role's, so the server
derives it from the URL it was given and nothing else has to be stored or passed.

The role may log in and nothing more (no inheritance, member of no role): USAGE on the episode
schema and SELECT on exactly the warehouse tables. PUBLIC's defaults still apply to it (EXECUTE
on most built-in functions, reading `pg_catalog`), which `access.py` closes with its allow-lists.
"""

from __future__ import annotations

import hashlib
import hmac

from sqlalchemy import create_engine, text
from sqlalchemy.engine import Connection, Engine
from sqlalchemy.pool import NullPool

from mcp_servers.common.db import create_login_role, episode_schema
from mcp_servers.warehouse.schema import TABLES

READER_SUFFIX = "_wh"
_MAX_NAME_BYTES = 63  # PostgreSQL cuts longer names silently (NAMEDATALEN - 1)


def reader_role(schema: str) -> str:
    """The reader role of the episode whose schema is `schema`."""
    role = f"{schema}{READER_SUFFIX}"
    if len(role.encode()) > _MAX_NAME_BYTES:
        raise ValueError(f"schema name {schema!r} too long for a reader role")
    return role


def reader_password(episode_password: str) -> str:
    return hmac.new(episode_password.encode(), b"mseval warehouse reader", hashlib.sha256).hexdigest()[:32]


def create_reader(conn: Connection, schema: str, episode_password: str) -> None:
    """Create the reader role of `schema` (as a role with CREATEROLE that owns the tables)."""
    role = reader_role(schema)
    tables = ", ".join(f'"{schema}"."{model.__tablename__}"' for model in TABLES)  # type: ignore[attr-defined]
    create_login_role(conn, role, reader_password(episode_password))
    conn.execute(text(f'GRANT USAGE ON SCHEMA "{schema}" TO "{role}"'))
    conn.execute(text(f'GRANT SELECT ON {tables} TO "{role}"'))


def drop_reader(conn: Connection, schema: str) -> None:
    """Drop the reader role of `schema`, if any; after the schema, whose grants it holds. Asked
    first: PostgreSQL refuses even `DROP ROLE IF EXISTS` to a role without CREATEROLE, whose
    episodes never have a reader."""
    role = reader_role(schema)
    if conn.execute(text("SELECT 1 FROM pg_roles WHERE rolname = :r"), {"r": role}).first():
        conn.execute(text(f'DROP ROLE "{role}"'))


def query_engine(engine: Engine) -> Engine:
    """The engine `run_query` uses on `engine`'s PostgreSQL episode: logged in as its reader role
    when the episode has one (its URL logs in as the role named like its schema), else `engine`.

    The reader's engine keeps no pool: each query opens its own connection (~9 ms here), so none
    is left open when the episode's roles are dropped."""
    url = engine.url
    schema = episode_schema(url)
    if not schema.startswith("ep_") or url.username != schema or url.password is None:
        return engine
    reader = url.set(username=reader_role(schema), password=reader_password(str(url.password)))
    return create_engine(reader, poolclass=NullPool)
