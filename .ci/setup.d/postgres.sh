#!/usr/bin/env bash
# A PostgreSQL server for the MCP server tests: installs the Debian packages when no PostgreSQL
# is found, runs a dedicated cluster (initdb + pg_ctl, no systemd) listening on 127.0.0.1 only,
# creates the role (with CREATEROLE) and database `mseval`, and appends MSEVAL_TEST_PG_URL to "$MSEVAL_CI_ENV".
#
# Idempotent: an existing cluster is reused, a stopped one is started, an existing role and
# database are kept. As root the cluster runs as the `postgres` user (the server refuses root);
# otherwise as the calling user, with its data under ~/.cache.
#
# Settings (environment): MSEVAL_PG_PORT (55432), MSEVAL_PG_DATA (cluster folder),
# MSEVAL_PG_PASSWORD (password of role mseval; the server listens on loopback only).
set -euo pipefail

PORT="${MSEVAL_PG_PORT:-55432}"
PASSWORD="${MSEVAL_PG_PASSWORD:-mseval}"
START_TIMEOUT_S=60 # a cold start on a busy 2-core machine; a normal one takes about a second

log() { echo "postgres.sh: $*" >&2; }

find_bindir() {
  # Debian keeps each major version's server tools in /usr/lib/postgresql/<v>/bin; prefer the
  # newest. Otherwise any initdb on PATH (e.g. a build under /usr/local/bin) with its pg_ctl.
  local dir
  dir="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)"
  if [ -n "$dir" ] && [ -x "$dir/initdb" ] && [ -x "$dir/pg_ctl" ] && [ -x "$dir/psql" ]; then
    echo "$dir"
    return
  fi
  if command -v initdb >/dev/null && command -v pg_ctl >/dev/null && command -v psql >/dev/null; then
    dirname "$(readlink -f "$(command -v initdb)")"
  fi
}

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo -n "$@"; fi
}

BINDIR="$(find_bindir)"
if [ -z "$BINDIR" ]; then
  log "installing PostgreSQL from the Debian packages"
  export DEBIAN_FRONTEND=noninteractive
  as_root apt-get install -y -q postgresql >/dev/null || {
    as_root apt-get update -q >/dev/null
    as_root apt-get install -y -q postgresql >/dev/null
  }
  BINDIR="$(find_bindir)"
  [ -n "$BINDIR" ] || { log "PostgreSQL installed but initdb/pg_ctl/psql not found"; exit 1; }
fi
# psql may live elsewhere than initdb (a client package on PATH).
PSQL="$BINDIR/psql"
[ -x "$PSQL" ] || PSQL="$(command -v psql)"

if [ "$(id -u)" -eq 0 ]; then
  OWNER=postgres
  id -u "$OWNER" >/dev/null 2>&1 || useradd --system --home-dir /var/lib/postgresql --shell /bin/sh "$OWNER"
  DATA="${MSEVAL_PG_DATA:-/var/lib/postgresql/mseval-ci}"
  mkdir -p "$(dirname "$DATA")"
  install -d -o "$OWNER" -m 700 "$DATA"
  run() { runuser -u "$OWNER" -- "$@"; }
else
  OWNER="$(id -un)"
  DATA="${MSEVAL_PG_DATA:-$HOME/.cache/mseval/postgres}"
  mkdir -p "$DATA" && chmod 700 "$DATA"
  run() { "$@"; }
fi
# The socket sits in the (private) data folder: no dependency on /var/run/postgresql.
SOCKET_DIR="$DATA"

if [ ! -f "$DATA/PG_VERSION" ]; then
  log "creating a cluster in $DATA"
  run "$BINDIR/initdb" -D "$DATA" -E UTF8 --locale=C --auth-local=peer --auth-host=scram-sha-256 >/dev/null
  cat <<EOF | run tee -a "$DATA/postgresql.conf" >/dev/null
# mseval test cluster (.ci/setup.d/postgres.sh)
listen_addresses = '127.0.0.1'
port = $PORT
unix_socket_directories = '$SOCKET_DIR'
# Throwaway test data: durability is not worth the fsyncs.
fsync = off
synchronous_commit = off
full_page_writes = off
EOF
fi

if ! run "$BINDIR/pg_ctl" -D "$DATA" status >/dev/null 2>&1; then
  log "starting the cluster on 127.0.0.1:$PORT"
  run "$BINDIR/pg_ctl" -D "$DATA" -l "$DATA/server.log" -w -t "$START_TIMEOUT_S" start >/dev/null || {
    tail -n 20 "$DATA/server.log" >&2
    exit 1
  }
fi

sql() { run "$PSQL" -h "$SOCKET_DIR" -p "$PORT" -d postgres -v ON_ERROR_STOP=1 -qtAc "$1"; }
if [ -z "$(sql "SELECT 1 FROM pg_roles WHERE rolname = 'mseval'")" ]; then
  sql "CREATE ROLE mseval LOGIN PASSWORD '$PASSWORD'"
fi
# CREATEROLE: each episode gets its own role with rights on its own schema only.
sql "ALTER ROLE mseval CREATEROLE"
if [ -z "$(sql "SELECT 1 FROM pg_database WHERE datname = 'mseval'")" ]; then
  sql "CREATE DATABASE mseval OWNER mseval"
fi

URL="postgresql+psycopg://mseval:$PASSWORD@127.0.0.1:$PORT/mseval"
if [ -n "${MSEVAL_CI_ENV:-}" ]; then
  echo "MSEVAL_TEST_PG_URL=$URL" >>"$MSEVAL_CI_ENV"
fi
log "ready: $URL"
