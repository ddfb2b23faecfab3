#!/usr/bin/env bash
# keys-memory.sh: RSS of KEYS * over 5,000,000 keys, redis-server vs floodgate (BENCHMARKS.md, "## Slow readers").
# Usage: scripts/keys-memory.sh /path/to/floodgate   (WHICH="floodgate" to run one)
set -u
fg=$1
awk 'BEGIN{for(i=0;i<5000000;i++) printf "*3\r\n$3\r\nSET\r\n$%d\r\nkey:%d\r\n$1\r\n1\r\n", length("key:" i), i}' > "${TMPDIR:-/tmp}/keys-load.resp"
for which in ${WHICH:-redis floodgate}; do
  if [ $which = redis ]; then redis-server --port 7471 --save '' --appendonly no >/dev/null & else $fg --port 7471 --save "" --dir "${TMPDIR:-/tmp}" >/dev/null & fi
  pid=$!
  for _ in $(seq 50); do redis-cli -p 7471 ping >/dev/null 2>&1 && break; sleep 0.1; done
  redis-cli -p 7471 --pipe < "${TMPDIR:-/tmp}/keys-load.resp" >/dev/null
  before=$(awk '/VmRSS/{print $2}' /proc/$pid/status)
  peak=0
  ( redis-cli -p 7471 keys '*' > /dev/null ) & kp=$!
  while kill -0 $kp 2>/dev/null; do r=$(awk '/VmRSS/{print $2}' /proc/$pid/status); [ "$r" -gt "$peak" ] && peak=$r; sleep 0.05; done
  sleep 2; after=$(awk '/VmRSS/{print $2}' /proc/$pid/status)
  echo "$which: RSS before $((before/1024)) MB, peak during KEYS * $((peak/1024)) MB, 2 s after $((after/1024)) MB"
  kill $pid; wait $pid 2>/dev/null
done
