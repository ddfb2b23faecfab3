#!/usr/bin/env bash
# XADD's server CPU per request for two floodgate binaries (A and B, e.g.
# before and after a change) side by side with redis-server in one run:
# appends to 10 streams (the tail node's path) and XADD to 100,000 random
# keys (a new stream and node each, mostly). CPU is the process's on-CPU
# time (scripts/measure.sh's schedstat reading); medians of REPS.
#
#   A_BIN=/tmp/fg-before B_BIN=bin/floodgate PORT=27001 REPS=3 scripts/bench-xadd-ab.sh
set -euo pipefail
cd "$(dirname "$0")/.."
REPS=${REPS:-3}; N=${N:-100000}; PORT=${PORT:-17481}
A_BIN=${A_BIN:?set A_BIN and B_BIN to two floodgate binaries}
B_BIN=${B_BIN:?set A_BIN and B_BIN to two floodgate binaries}
. scripts/measure.sh
tmp=$(mktemp -d)
redis-server --port "$PORT" --save "" --appendonly no --dir "$tmp" --loglevel warning & RP=$!
"$A_BIN" --port $((PORT + 1)) --loglevel warning --save "" --appendonly no --dir "$tmp" & AP=$!
"$B_BIN" --port $((PORT + 2)) --loglevel warning --save "" --appendonly no --dir "$tmp" & BP=$!
trap 'kill $RP $AP $BP 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"' EXIT
for p in "$PORT" $((PORT + 1)) $((PORT + 2)); do
  for _ in $(seq 100); do redis-cli -p "$p" ping >/dev/null 2>&1 && break; sleep 0.05; done
done
RECORD=(user u123456 action allow cost 1)
out="$tmp/results"
for r in $(seq "$REPS"); do
  echo "rep $r, load average $(cut -d' ' -f1 /proc/loadavg)" >&2
  for s in "redis $PORT $RP" "A $((PORT + 1)) $AP" "B $((PORT + 2)) $BP"; do
    read -r label port pid <<<"$s"
    echo "$label-xadd-100k-keys $(per_request "$port" "$pid" 1 XADD audit:__rand_int__ '*' "${RECORD[@]}")" >>"$out"
    redis-cli -p "$port" FLUSHALL >/dev/null
    b=$(server_cpu "$pid")
    o=$(redis-benchmark -p "$port" -c 50 -n "$N" -r 10 -q XADD audit:__rand_int__ '*' "${RECORD[@]}" 2>/dev/null | tr '\r' '\n' |
        awk '/requests per second/ {for (i=2;i<=NF;i++) if ($i == "requests") v = $(i-1)} END {print v}')
    a=$(server_cpu "$pid")
    echo "$label-xadd-10-streams $(awk -v o="$o" -v t=$((a - b)) -v n="$N" 'BEGIN {printf "%.0f %.3f", o, t / n}')" >>"$out"
  done
done
echo "load average at the end: $(cut -d' ' -f1 /proc/loadavg)" >&2
medians "$out" | awk '{ printf "%-24s ops/s %8.0f  CPU µs/op %6.2f\n", $1, $2, $3 }'
