#!/usr/bin/env bash
# Streams and functions beside Redis 7.0 in one run (issue #27):
#   - memory per stream entry: ENTRIES entries of a limiter audit record
#     (3 small fields, "*" IDs) in STREAMS streams, used_memory and RSS
#     deltas per entry;
#   - XADD of such a record, and XRANGE ... COUNT 10 over streams of 1,000
#     entries: server CPU µs per request (scripts/measure.sh, from
#     schedstat) and ops/s;
#   - the same fixed-window limiter as EVALSHA and as FCALL, on both.
# The servers take turns in each rep, so the machine's load falls on both
# alike; medians of REPS. With BEFORE=<a floodgate binary>, that build
# takes its turn too (rows "before"), on BPORT, for a change's before and
# after in the same run.
#
#   REPS=3 N=100000 scripts/bench-streams.sh
#   MEMORY_ONLY=1 scripts/bench-streams.sh   # the memory rows alone
#   BEFORE=/tmp/fg-old MEMORY_ONLY=1 scripts/bench-streams.sh
set -euo pipefail
cd "$(dirname "$0")/.."
REPS=${REPS:-3}; N=${N:-100000}; ENTRIES=${ENTRIES:-1000000}; STREAMS=${STREAMS:-10}
dir=$(mktemp -d)
. scripts/lib.sh
trap stop_servers EXIT
RPORT=${RPORT:-17461}; FPORT=${FPORT:-17462}; BPORT=${BPORT:-17463}
# start_before: the BEFORE build on BPORT, its pid in BP.
start_before() {
  [ -n "${BEFORE:-}" ] || return 0
  "$BEFORE" --port "$BPORT" --save "" --appendonly no --dir "$dir" >"$dir/before.log" 2>&1 & BP=$!
  wait_ping "$BPORT"
}
BP=
start_pair $RPORT $FPORT
RP=$RPID; FP=$FPID
start_before
. scripts/measure.sh

LIMITER="local n = redis.call('INCR', KEYS[1]) if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end if n <= tonumber(ARGV[2]) then return 1 end return 0"
LIB="#!lua name=rl
redis.register_function('fixed_window', function(KEYS, ARGV) $LIMITER end)"
RECORD=(user u123456 action allow cost 1)

# fill_streams PORT: 100 streams s:000000000000 ... (redis-benchmark's key
# names) of 1,000 records each, explicit IDs.
fill_streams() {
  awk 'BEGIN { for (s = 0; s < 100; s++) for (i = 1; i <= 1000; i++)
    printf "XADD s:%012d %d-1 user u123456 action allow cost 1\r\n", s, i }' | redis-cli -p "$1" --pipe >/dev/null
}

# xrange PORT PID: fill, then N XRANGE COUNT 10 -> "ops/s cpu_us".
xrange() {
  redis-cli -p "$1" FLUSHALL >/dev/null
  fill_streams "$1"
  local b o a; b=$(server_cpu "$2")
  o=$(redis-benchmark -p "$1" -c 50 -n "$N" -r 100 -q XRANGE s:__rand_int__ - + COUNT 10 2>/dev/null | tr '\r' '\n' |
      awk '/requests per second/ {for (i=2;i<=NF;i++) if ($i == "requests") v = $(i-1)} END {print v}')
  a=$(server_cpu "$2")
  awk -v o="$o" -v t=$((a - b)) -v n="$N" 'BEGIN {printf "%.0f %.3f", o, t / n}'
}

# stream_memory PORT PID: ENTRIES records in STREAMS streams -> "used_bytes
# rss_bytes rss_at_rest_bytes entries", per entry: RSS right after the fill
# (used_memory settled) and REST seconds later, at rest (both servers give
# freed memory back after a while: jemalloc's decay, floodgate's idle
# purge), each from a baseline read at rest too.
REST=${REST:-3}
stream_memory() {
  redis-cli -p "$1" FLUSHALL >/dev/null
  local u0 r0 u1 r1 r2
  u0=$(settled "$1"); sleep "$REST"; r0=$(rss "$2")
  redis-benchmark -p "$1" -c 50 -n "$ENTRIES" -r "$STREAMS" -P 16 -q XADD audit:__rand_int__ '*' "${RECORD[@]}" >/dev/null 2>&1
  u1=$(settled "$1"); r1=$(rss "$2")
  sleep "$REST"; r2=$(rss "$2")
  local len; len=$(for i in $(seq 0 $((STREAMS - 1))); do redis-cli -p "$1" XLEN "$(printf 'audit:%012d' "$i")"; done | awk '{s += $1} END {print s}')
  awk -v u=$((u1 - u0)) -v r=$((r1 - r0)) -v q=$((r2 - r0)) -v n="$len" 'BEGIN {printf "%.1f %.1f %.1f %d", u / n, r / n, q / n, n}'
}

# restart: a fresh pair, for the memory rows: a Go heap that grew in an
# earlier rep keeps its pages, so RSS would hardly move.
restart() {
  kill "$RP" "$FP" $BP
  while kill -0 "$RP" 2>/dev/null || kill -0 "$FP" 2>/dev/null || { [ -n "$BP" ] && kill -0 "$BP" 2>/dev/null; }; do sleep 0.1; done
  start_pair $RPORT $FPORT
  RP=$RPID; FP=$FPID
  start_before
}
trap 'if [ -n "$BP" ]; then kill "$BP" 2>/dev/null; fi; stop_servers' EXIT

out="$dir/results"; mem="$dir/memory"
for r in $(seq "$REPS"); do
  echo "memory rep $r, load average $(cut -d' ' -f1 /proc/loadavg)" >&2
  [ "$r" -gt 1 ] && restart
  echo "redis $(stream_memory $RPORT "$RP")" >>"$mem"
  echo "floodgate $(stream_memory $FPORT "$FP")" >>"$mem"
  if [ -n "$BP" ]; then echo "before $(stream_memory $BPORT "$BP")" >>"$mem"; fi
done
for r in $(seq "$REPS"); do
  [ -n "${MEMORY_ONLY:-}" ] && break
  echo "rep $r, load average $(cut -d' ' -f1 /proc/loadavg)" >&2
  for side in redis floodgate ${BP:+before}; do
    case $side in
    redis) p=$RPORT; pid=$RP ;;
    floodgate) p=$FPORT; pid=$FP ;;
    before) p=$BPORT; pid=$BP ;;
    esac
    echo "$side-xadd $(per_request $p "$pid" 1 XADD audit:__rand_int__ '*' "${RECORD[@]}")" >>"$out"
    echo "$side-xrange10 $(xrange $p "$pid")" >>"$out"
    redis-cli -p $p FUNCTION LOAD REPLACE "$LIB" >/dev/null
    sha=$(redis-cli -p $p SCRIPT LOAD "$LIMITER")
    echo "$side-evalsha $(per_request $p "$pid" 1 EVALSHA "$sha" 1 rl:__rand_int__ 60000 100)" >>"$out"
    echo "$side-fcall $(per_request $p "$pid" 1 FCALL fixed_window 1 rl:__rand_int__ 60000 100)" >>"$out"
  done
done
echo "load average at the end: $(cut -d' ' -f1 /proc/loadavg)" >&2
echo "memory per entry (median of $REPS): used_memory, RSS right after the fill, RSS ${REST} s later"
sort "$mem" | awk '
  { if ($1 != k && k != "") flush(); k = $1; u[++n] = $2; r[n] = $3; q[n] = $4 }
  END { flush() }
  function med(a, m,   i, j, t) { for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }; return a[int((m + 1) / 2)] }
  function flush() { printf "%-10s used_memory %6.1f B/entry  RSS %6.1f B/entry  at rest %6.1f B/entry\n", k, med(u, n), med(r, n), med(q, n); n = 0 }'
[ -f "$out" ] && medians "$out" | awk '{ printf "%-20s ops/s %8.0f  CPU µs/op %6.2f\n", $1, $2, $3 }'
