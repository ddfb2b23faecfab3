#!/usr/bin/env bash
# Makes sure a real redis-server (the reference for conformance tests) is on
# PATH: installs Debian's package when missing and we are root, otherwise
# says exactly what to do. Never lets the tests skip conformance silently.
set -euo pipefail
if command -v redis-server >/dev/null 2>&1; then
  exit 0
fi
if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "redis-server not found: installing Debian's redis-server package..." >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null
  apt-get install -y -qq redis-server >/dev/null
  # The package starts a system service on 6379; the tests start their own.
  (service redis-server stop >/dev/null 2>&1 || true)
  command -v redis-server >/dev/null && exit 0
fi
echo "redis-server is required for the conformance tests: run 'sudo apt-get install redis-server' (Debian/Ubuntu) and retry." >&2
exit 1
