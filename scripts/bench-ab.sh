#!/usr/bin/env bash
# Before/after of two floodgate binaries beside Redis 7.0 in one run:
# CL.THROTTLE against Redis's EVALSHA of the ratelimit GCRA script (the
# current gcra.lua, and OLD_GCRA's for comparison), -P 1 and -P 16, and
# GET/SET/INCR at -P 1. The three servers run turn by turn in each rep, so
# the machine's load falls on all alike; medians of REPS. CPU per request is
# the server's on-CPU time (scripts/measure.sh).
#
#   BEFORE=/tmp/fg-old AFTER=bin/floodgate OLD_GCRA=73d252e scripts/bench-ab.sh
set -euo pipefail
cd "$(dirname "$0")/.."
REPS=${REPS:-3}; N=${N:-100000}
BEFORE=${BEFORE:?a floodgate binary}; AFTER=${AFTER:-bin/floodgate}; OLD_GCRA=${OLD_GCRA:-HEAD}
OLD="$(cat ratelimit/prelude.lua; echo; git show "$OLD_GCRA":ratelimit/gcra.lua)"
NEW="$(cat ratelimit/prelude.lua; echo; cat ratelimit/gcra.lua)"
tmp=$(mktemp -d)
redis-server --port 17449 --bind 127.0.0.1 --save '' --appendonly no --dir "$tmp" --logfile "$tmp/redis.log" & RP=$!
mkdir -p "$tmp/before" "$tmp/after"
# Persistence off, as Redis above: the default save points would write a
# dump.rdb into the working tree in the middle of the measurement.
"$BEFORE" --port 17450 --loglevel warning --save "" --appendonly no --dir "$tmp/before" & BP=$!
"$AFTER" --port 17451 --loglevel warning --save "" --appendonly no --dir "$tmp/after" & AP=$!
trap 'kill $RP $BP $AP 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"' EXIT
for p in 17449 17450 17451; do
  for _ in $(seq 100); do redis-cli -p "$p" ping >/dev/null 2>&1 && break; sleep 0.05; done
done
RSO=$(redis-cli -p 17449 SCRIPT LOAD "$OLD"); RSN=$(redis-cli -p 17449 SCRIPT LOAD "$NEW")
. scripts/measure.sh
out="$tmp/results"
for r in $(seq "$REPS"); do
  echo "rep $r, load average $(cut -d' ' -f1 /proc/loadavg)" >&2
  for P in 1 16; do
    echo "redis-new-$P $(per_request 17449 $RP $P EVALSHA "$RSN" 1 '{rate:__rand_int__}:gcra' - 100 60000000 100 1)" >>"$out"
    echo "redis-old-$P $(per_request 17449 $RP $P EVALSHA "$RSO" 1 '{rate:__rand_int__}:gcra' - 100 60000000 100 1)" >>"$out"
    echo "before-$P $(per_request 17450 $BP $P CL.THROTTLE '{rate:__rand_int__}:gcra:ns' 99 100 60)" >>"$out"
    echo "after-$P $(per_request 17451 $AP $P CL.THROTTLE '{rate:__rand_int__}:gcra:ns' 99 100 60)" >>"$out"
  done
  for c in "GET key:__rand_int__" "SET key:__rand_int__ value" "INCR counter:__rand_int__"; do
    n=${c%% *}
    # shellcheck disable=SC2086 # the command's words
    { echo "redis-$n $(per_request 17449 $RP 1 $c)"; echo "before-$n $(per_request 17450 $BP 1 $c)"; echo "after-$n $(per_request 17451 $AP 1 $c)"; } >>"$out"
  done
done
echo "load average at the end: $(cut -d' ' -f1 /proc/loadavg)" >&2
medians "$out" | awk '{ printf "%-14s ops/s %8.0f  CPU µs/op %6.2f\n", $1, $2, $3 }'
