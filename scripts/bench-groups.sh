#!/usr/bin/env bash
# Consumer groups beside Redis 7.0 in one run (issue #27): server CPU µs
# per request (scripts/measure.sh, from schedstat) and ops/s of
#   - xreadgroup1:  XREADGROUP ... COUNT 1 STREAMS s >, N of them on a
#                   stream of N entries, so the PEL grows from 0 to N;
#   - xreadgroup10: the same with COUNT 10 on 10*N entries;
#   - xack:         XACK of random IDs of a PEL of N (about 2/3 hit);
#   - worker:       a worker loop as one script: XADD, XREADGROUP COUNT 1,
#                   XACK of what it read, on 100 streams;
#   - xpending:     XPENDING's summary of a PEL of N over 10 consumers;
#   - xautoclaim:   XAUTOCLAIM ... 0 0-0 COUNT 10 over that PEL (the same
#                   10 entries change hands every time).
# The servers take turns in each rep, so the machine's load falls on both
# alike; medians of REPS. On a shared machine say "measured under load".
#
#   REPS=3 N=50000 scripts/bench-groups.sh
set -euo pipefail
cd "$(dirname "$0")/.."
REPS=${REPS:-3}; N=${N:-50000}
dir=$(mktemp -d)
. scripts/lib.sh
trap stop_servers EXIT
RPORT=${RPORT:-17471}; FPORT=${FPORT:-17472}
start_pair $RPORT $FPORT
RP=$RPID; FP=$FPID
. scripts/measure.sh

WORKER="local id = redis.call('XADD', KEYS[1], '*', 'f', 'v')
local r = redis.call('XREADGROUP', 'GROUP', 'g', 'c', 'COUNT', 1, 'STREAMS', KEYS[1], '>')
return redis.call('XACK', KEYS[1], 'g', r[1][2][1][1])"

# fill PORT ENTRIES: FLUSHALL, then stream s of ENTRIES entries 1-1,
# 2-1, ... and its group g from 0.
fill() {
  redis-cli -p "$1" FLUSHALL >/dev/null
  awk -v n="$2" 'BEGIN { for (i = 1; i <= n; i++) printf "XADD s %d-1 f v\r\n", i }' | redis-cli -p "$1" --pipe >/dev/null
  redis-cli -p "$1" XGROUP CREATE s g 0 >/dev/null
}

# pending PORT: fill N, then all of them pending, delivered to consumers
# c0 ... c9 in turn (N/10 each).
pending() {
  fill "$1" "$N"
  for c in 0 1 2 3 4 5 6 7 8 9; do
    redis-cli -p "$1" XREADGROUP GROUP g "c$c" COUNT $((N / 10)) STREAMS s '>' >/dev/null
  done
}

# bench PORT PID RANDOM ARGS...: N requests of ARGS by redis-benchmark
# (50 clients, __rand_int__ below RANDOM) on the state set up before ->
# "ops/s cpu_us_per_request".
bench() {
  local p=$1 pid=$2 r=$3; shift 3
  local b o a; b=$(server_cpu "$pid")
  o=$(redis-benchmark -p "$p" -c 50 -n "$N" -r "$r" -q "$@" 2>/dev/null | tr '\r' '\n' |
      awk '/requests per second/ {for (i=2;i<=NF;i++) if ($i == "requests") v = $(i-1)} END {print v}')
  a=$(server_cpu "$pid")
  awk -v o="$o" -v t=$((a - b)) -v n="$N" 'BEGIN {printf "%.0f %.3f", o, t / n}'
}

out="$dir/results"
for r in $(seq "$REPS"); do
  echo "rep $r, load average $(cut -d' ' -f1 /proc/loadavg)" >&2
  for side in redis floodgate; do
    if [ $side = redis ]; then p=$RPORT; pid=$RP; else p=$FPORT; pid=$FP; fi
    fill $p "$N"
    echo "$side-xreadgroup1 $(bench $p "$pid" 1 XREADGROUP GROUP g c COUNT 1 STREAMS s '>')" >>"$out"
    fill $p $((N * 10))
    echo "$side-xreadgroup10 $(bench $p "$pid" 1 XREADGROUP GROUP g c COUNT 10 STREAMS s '>')" >>"$out"
    pending $p
    echo "$side-xpending $(bench $p "$pid" 1 XPENDING s g)" >>"$out"
    echo "$side-xautoclaim $(bench $p "$pid" 1 XAUTOCLAIM s g c10 0 0-0 COUNT 10)" >>"$out"
    # __rand_int__ is 12 digits: 000000001234-1 is the entry 1234-1.
    echo "$side-xack $(bench $p "$pid" "$N" XACK s g __rand_int__-1)" >>"$out"
    redis-cli -p $p FLUSHALL >/dev/null
    for i in $(seq 0 99); do printf 'XGROUP CREATE w:%012d g $ MKSTREAM\r\n' "$i"; done | redis-cli -p $p --pipe >/dev/null
    sha=$(redis-cli -p $p SCRIPT LOAD "$WORKER")
    echo "$side-worker $(bench $p "$pid" 100 EVALSHA "$sha" 1 w:__rand_int__)" >>"$out"
  done
done
echo "load average at the end: $(cut -d' ' -f1 /proc/loadavg)" >&2
medians "$out" | awk '{ printf "%-24s ops/s %8.0f  CPU µs/op %6.2f\n", $1, $2, $3 }'
medians "$out" | awk '{ split($1, p, "-"); c[p[2]] = c[p[2]] " " $3; if (p[1] == "redis") rc[p[2]] = $3; else fc[p[2]] = $3 }
  END { for (k in rc) if (rc[k] > 0) printf "floodgate/redis CPU per op %-14s %.2f\n", k, fc[k] / rc[k] }' | sort
