#!/usr/bin/env bash
# Debian's Chromium for the report browser test (tests/evaluation/test_report_browser.py), which
# drives /usr/bin/chromium through the playwright package. Never `playwright install`: it would
# download a browser build, and only the package registries are reachable here.
#
# Idempotent: does nothing when /usr/bin/chromium is already there.
set -euo pipefail

log() { echo "chromium.sh: $*" >&2; }

if [ -x /usr/bin/chromium ]; then
  log "found $(/usr/bin/chromium --version 2>/dev/null || echo /usr/bin/chromium)"
  exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  SUDO="sudo"
fi
log "installing chromium from the Debian packages"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q >/dev/null
$SUDO apt-get install -y -q chromium >/dev/null
log "installed $(/usr/bin/chromium --version 2>/dev/null || echo /usr/bin/chromium)"
