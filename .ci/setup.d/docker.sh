#!/usr/bin/env bash
# A docker daemon for the python_execute sandbox tests: installed from Debian's packages when
# missing, started by hand (no systemd here) with no bridge network and no iptables rules;
# containers run with --network none. Tests skip the container case when no daemon answers,
# so a failure here is reported but does not stop CI.
set -uo pipefail
state="${XDG_RUNTIME_DIR:-/tmp}/mseval-ci-docker"
sock="unix://$state/docker.sock"
if DOCKER_HOST="$sock" docker version --format '{{.Server.Version}}' >/dev/null 2>&1; then
  echo "DOCKER_HOST=$sock" >> "${MSEVAL_CI_ENV:-/dev/null}"
  exit 0
fi
if ! command -v dockerd >/dev/null 2>&1; then
  apt-get install -y -q docker.io >/dev/null 2>&1 || { apt-get update -q >/dev/null 2>&1 && apt-get install -y -q docker.io >/dev/null 2>&1; } \
    || { echo "docker.sh: could not install docker.io; container tests will skip"; exit 0; }
fi
mkdir -p "$state/data" "$state/exec"
nohup dockerd --data-root "$state/data" --exec-root "$state/exec" -H "$sock" --pidfile "$state/docker.pid" \
  --bridge=none --iptables=false --ip-masq=false >"$state/dockerd.log" 2>&1 &
for _ in $(seq 1 60); do
  if DOCKER_HOST="$sock" docker version --format '{{.Server.Version}}' >/dev/null 2>&1; then
    echo "DOCKER_HOST=$sock" >> "${MSEVAL_CI_ENV:-/dev/null}"
    echo "docker.sh: daemon up at $sock"
    exit 0
  fi
  sleep 0.5
done
echo "docker.sh: the daemon did not start (see $state/dockerd.log); container tests will skip"
exit 0
