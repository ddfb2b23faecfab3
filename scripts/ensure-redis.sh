#!/usr/bin/env bash
# Makes sure the reference programs the tests compare floodgate with are on
# PATH: Debian's redis-server (required: the conformance tests), and
# redis-sentinel and prometheus-redis-exporter (the failover and exporter
# tests, which skip with a message naming the package when it is missing).
# Installs what is missing when we are root with apt-get, otherwise says
# exactly what to do. Never lets the tests skip conformance silently.
set -euo pipefail

# binary:package pairs.
required="redis-server:redis-server"
optional="redis-sentinel:redis-sentinel prometheus-redis-exporter:prometheus-redis-exporter"

missing=()
for pair in $required $optional; do
  command -v "${pair%%:*}" >/dev/null 2>&1 || missing+=("${pair#*:}")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing Debian packages the tests use: ${missing[*]}..." >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null || true
  apt-get install -y -qq "${missing[@]}" >/dev/null || true
  # The packages start system services on 6379/26379/9121; the tests start their own.
  for svc in redis-server redis-sentinel prometheus-redis-exporter; do
    (service "$svc" stop >/dev/null 2>&1 || true)
  done
fi

status=0
for pair in $required; do
  if ! command -v "${pair%%:*}" >/dev/null 2>&1; then
    echo "${pair%%:*} is required for the conformance tests: run 'sudo apt-get install ${pair#*:}' (Debian/Ubuntu) and retry." >&2
    status=1
  fi
done
for pair in $optional; do
  if ! command -v "${pair%%:*}" >/dev/null 2>&1; then
    echo "note: ${pair%%:*} not found; the tests that need it will skip (install with 'sudo apt-get install ${pair#*:}')." >&2
  fi
done
exit $status
