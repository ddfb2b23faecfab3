#!/usr/bin/env bash
# Two floodgate builds (A, B) beside Redis 7.0 in one run, at -P $P (16):
# INCR and INCREX EX on each build, Redis's EVALSHA of the seed-001
# fixed-window script; EXTRA=1 adds SET EX, CL.THROTTLE, GCRA and EXPIRE
# (on 100,000 keys set first). Servers take turns, medians of REPS; CPU per
# request as scripts/measure.sh. Swap A and B for a second run: the order
# inside a rep is fixed.
#
#   A=/tmp/fg-before B=bin/floodgate REPS=5 EXTRA=1 scripts/bench-increx-ab.sh
#
# PORT=p puts the three servers on p, p+1, p+2 (27561 by default).
set -euo pipefail
cd "$(dirname "$0")/.."
REPS=${REPS:-5}; N=${N:-100000}; PORT=${PORT:-27561}
RPORT=$PORT; APORT=$((PORT + 1)); BPORT=$((PORT + 2))
A=${A:?a floodgate binary}; B=${B:-bin/floodgate}
tmp=$(mktemp -d)
redis-server --port $RPORT --bind 127.0.0.1 --save '' --appendonly no --dir "$tmp" --logfile "$tmp/redis.log" & RP=$!
mkdir -p "$tmp/a" "$tmp/b"
"$A" --port $APORT --loglevel warning --save "" --appendonly no --dir "$tmp/a" & AP=$!
"$B" --port $BPORT --loglevel warning --save "" --appendonly no --dir "$tmp/b" & BP=$!
trap 'kill $RP $AP $BP 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"' EXIT
for p in $RPORT $APORT $BPORT; do for _ in $(seq 100); do redis-cli -p "$p" ping >/dev/null 2>&1 && break; sleep 0.05; done; done
SEED001="local c = redis.call('INCR', KEYS[1]) if c == 1 then redis.call('EXPIRE', KEYS[1], ARGV[2]) end if c > tonumber(ARGV[1]) then return 0 end return 1"
RS=$(redis-cli -p $RPORT SCRIPT LOAD "$SEED001")
. scripts/measure.sh
out="$tmp/results"
P=${P:-16}
for r in $(seq "$REPS"); do
  echo "rep $r, load $(cut -d' ' -f1 /proc/loadavg)" >&2
  echo "redis-evalsha $(per_request $RPORT $RP $P EVALSHA "$RS" 1 'rate:__rand_int__' 100 60)" >>"$out"
  for s in "a $APORT $AP" "b $BPORT $BP"; do
    set -- $s
    echo "$1-incr $(per_request $2 $3 $P INCR 'rate:__rand_int__')" >>"$out"
    echo "$1-increx-ex $(per_request $2 $3 $P INCREX 'rate:__rand_int__' EX 60)" >>"$out"
    if [ "${EXTRA:-0}" = 1 ]; then
      echo "$1-set-ex $(per_request $2 $3 $P SET 'rate:__rand_int__' 1 EX 60)" >>"$out"
      echo "$1-cl.throttle $(per_request $2 $3 $P CL.THROTTLE 'rate:__rand_int__' 99 100 60)" >>"$out"
      echo "$1-gcra $(per_request $2 $3 $P GCRA 'rate:__rand_int__' 99 100 60)" >>"$out"
      echo "$1-expire $(FILL=rate: per_request $2 $3 $P EXPIRE 'rate:__rand_int__' 60)" >>"$out"
    fi
  done
done
echo "load at end $(cut -d' ' -f1 /proc/loadavg)" >&2
medians "$out" | awk '{ printf "%-16s ops/s %8.0f  CPU µs/op %6.3f\n", $1, $2, $3 }'
