#!/usr/bin/env bash
# The server CPU one /metrics scrape costs, for two floodgate binaries side
# by side (A and B, e.g. before and after a change), on the worst case: the
# limiter's prefix table full (1,024 prefixes) and a dozen commands in
# commandstats. Each rep measures 100 scrapes over one connection per
# server in turn, less the server's idle CPU over the same time (its crons);
# medians of REPS. CPU is the process's on-CPU time (scripts/measure.sh's
# schedstat reading), so a loaded machine inflates it less than wall time.
#
#   A_BIN=/tmp/fg-before B_BIN=bin/floodgate REPS=5 scripts/bench-scrape-cpu.sh
set -euo pipefail
cd "$(dirname "$0")/.."
REPS=${REPS:-5}
A_BIN=${A_BIN:?set A_BIN and B_BIN to two floodgate binaries}
B_BIN=${B_BIN:?set A_BIN and B_BIN to two floodgate binaries}
cpu() { cat /proc/"$1"/task/*/schedstat | awk '{s += $1} END {printf "%.0f", s / 1000}'; }
tmp=$(mktemp -d)
"$A_BIN" --port 17491 --loglevel warning --save "" --appendonly no --dir "$tmp" --metrics-addr 127.0.0.1:17492 & AP=$!
"$B_BIN" --port 17493 --loglevel warning --save "" --appendonly no --dir "$tmp" --metrics-addr 127.0.0.1:17494 & BP=$!
trap 'kill $AP $BP 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"' EXIT
for p in 17491 17493; do
  for _ in $(seq 100); do redis-cli -p "$p" ping >/dev/null 2>&1 && break; sleep 0.05; done
  redis-benchmark -p "$p" -c 20 -n 20000 -r 5000 -q CL.THROTTLE 'tenant__rand_int__:u' 99 100 60 >/dev/null 2>&1
  redis-benchmark -p "$p" -c 20 -n 20000 -q -t get,set,incr,lpush,rpush,lpop,rpop,sadd,hset,spop,zadd,zpopmin,lrange,mset >/dev/null 2>&1
done
urls() { for _ in $(seq 100); do printf "http://127.0.0.1:%s/metrics " "$1"; done; }
out="$tmp/results"
for r in $(seq "$REPS"); do
  echo "rep $r, load average $(cut -d' ' -f1 /proc/loadavg)" >&2
  for s in "A $AP 17492" "B $BP 17494"; do
    read -r label pid port <<<"$s"
    b=$(cpu "$pid"); sleep 2; idle=$(( ($(cpu "$pid") - b) / 2 )) # µs per second
    b=$(cpu "$pid"); t0=$(date +%s%N)
    # shellcheck disable=SC2046 # one curl, one connection, 100 scrapes
    curl -s $(urls "$port") >/dev/null
    a=$(cpu "$pid"); t1=$(date +%s%N)
    echo "$label $(( (a - b - idle * (t1 - t0) / 1000000000) / 100 ))" >>"$out"
  done
done
echo "series: A $(curl -s http://127.0.0.1:17492/metrics | grep -vc '^#'), B $(curl -s http://127.0.0.1:17494/metrics | grep -vc '^#')" >&2
sort "$out" | awk '
  { if ($1 != k && k != "") flush(); k = $1; v[++n] = $2 }
  END { flush() }
  function flush(   i, j, t) { for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
    printf "%s: server CPU per scrape %d µs (median of %d)\n", k, v[int((n + 1) / 2)], n; n = 0 }'
