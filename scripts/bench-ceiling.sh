#!/usr/bin/env bash
# How fast redis-benchmark can go at -P 1 on this machine, against what
# CL.THROTTLE reaches: PING on Redis and on floodgate (no work at all)
# beside Redis's EVALSHA of the ratelimit GCRA script and floodgate's
# CL.THROTTLE, turn by turn in each rep, medians of REPS. If PING cannot
# reach 1.5x Redis's EVALSHA throughput, no server can here.
#
#   REPS=5 scripts/bench-ceiling.sh [floodgate binary]
set -euo pipefail
cd "$(dirname "$0")/.."
REPS=${REPS:-5}; N=${N:-200000}; FG=${1:-bin/floodgate}
tmp=$(mktemp -d)
redis-server --port 17449 --bind 127.0.0.1 --save '' --appendonly no --dir "$tmp" --logfile "$tmp/redis.log" & RP=$!
"$FG" --port 17451 --loglevel warning --save "" --appendonly no --dir "$tmp" & FP=$!
trap 'kill $RP $FP 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"' EXIT
for p in 17449 17451; do
  for _ in $(seq 100); do redis-cli -p "$p" ping >/dev/null 2>&1 && break; sleep 0.05; done
done
kill -0 $RP && kill -0 $FP || { echo "a server did not start (ports 17449, 17451 busy?)" >&2; exit 1; }
RS=$(redis-cli -p 17449 SCRIPT LOAD "$(cat ratelimit/prelude.lua; echo; cat ratelimit/gcra.lua)")
. scripts/measure.sh
out="$tmp/results"
for r in $(seq "$REPS"); do
  echo "rep $r, load average $(cut -d' ' -f1 /proc/loadavg)" >&2
  { echo "redis-EVALSHA $(per_request 17449 $RP 1 EVALSHA "$RS" 1 '{rate:__rand_int__}:gcra' - 100 60000000 100 1)"
    echo "redis-PING $(per_request 17449 $RP 1 -t ping_mbulk)"
    echo "floodgate-PING $(per_request 17451 $FP 1 -t ping_mbulk)"
    echo "floodgate-CL.THROTTLE $(per_request 17451 $FP 1 CL.THROTTLE '{rate:__rand_int__}:gcra:ns' 99 100 60)"
  } >>"$out"
done
medians "$out" | awk '
  { k[NR] = $1; o[NR] = $2; c[NR] = $3; if ($1 == "redis-EVALSHA") { ro = $2; rc = $3 } }
  END { for (i = 1; i <= NR; i++) printf "%-22s ops/s %8.0f (%.2fx)  CPU µs/op %6.2f (%.2f)\n", k[i], o[i], o[i] / ro, c[i], c[i] / rc }'
