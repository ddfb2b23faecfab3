#!/usr/bin/env bash
# INCREX beside floodgate's INCR and Redis 7.0's EVALSHA of the seed-001
# fixed-window script (INCR, EXPIRE on the first hit), in one run:
# redis-benchmark, 50 clients, random keys, -P 1 and -P 16; the servers take
# turns in each rep, medians of REPS. CPU per decision is the server's
# on-CPU time (scripts/measure.sh).
#
#   FG=bin/floodgate scripts/bench-increx.sh
#
# EXTRA=1 adds the other expiry writers on both servers (SET k v EX 60,
# EXPIRE k 60 on 100,000 keys set first) and floodgate's CL.THROTTLE and GCRA
# (Redis 7.0 has neither).
set -euo pipefail
cd "$(dirname "$0")/.."
REPS=${REPS:-3}; N=${N:-100000}; RPORT=${RPORT:-17459}; FPORT=${FPORT:-17460}
FG=${FG:-bin/floodgate}
SEED001="local c = redis.call('INCR', KEYS[1]) if c == 1 then redis.call('EXPIRE', KEYS[1], ARGV[2]) end if c > tonumber(ARGV[1]) then return 0 end return 1"
tmp=$(mktemp -d)
redis-server --port $RPORT --bind 127.0.0.1 --save '' --appendonly no --dir "$tmp" --logfile "$tmp/redis.log" & RP=$!
mkdir -p "$tmp/fg"
"$FG" --port $FPORT --loglevel warning --save "" --appendonly no --dir "$tmp/fg" & FP=$!
trap 'kill $RP $FP 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"' EXIT
for p in $RPORT $FPORT; do
  for _ in $(seq 100); do redis-cli -p "$p" ping >/dev/null 2>&1 && break; sleep 0.05; done
done
RS=$(redis-cli -p $RPORT SCRIPT LOAD "$SEED001")
. scripts/measure.sh
out="$tmp/results"
for r in $(seq "$REPS"); do
  echo "rep $r, load average $(cut -d' ' -f1 /proc/loadavg)" >&2
  for P in 1 16; do
    echo "redis-evalsha-$P $(per_request $RPORT $RP $P EVALSHA "$RS" 1 'rate:__rand_int__' 100 60)" >>"$out"
    echo "fg-incr-$P $(per_request $FPORT $FP $P INCR 'rate:__rand_int__')" >>"$out"
    echo "fg-increx-ex-$P $(per_request $FPORT $FP $P INCREX 'rate:__rand_int__' EX 60)" >>"$out"
    echo "fg-increx-limit-$P $(per_request $FPORT $FP $P INCREX 'rate:__rand_int__' UBOUND 100 EX 60 ENX)" >>"$out"
    if [ "${EXTRA:-0}" = 1 ]; then
      for s in "redis $RPORT $RP" "fg $FPORT $FP"; do
        set -- $s
        echo "$1-set-ex-$P $(per_request $2 $3 $P SET 'rate:__rand_int__' 1 EX 60)" >>"$out"
        echo "$1-expire-$P $(FILL=rate: per_request $2 $3 $P EXPIRE 'rate:__rand_int__' 60)" >>"$out"
      done
      echo "fg-cl.throttle-$P $(per_request $FPORT $FP $P CL.THROTTLE 'rate:__rand_int__' 99 100 60)" >>"$out"
      echo "fg-gcra-$P $(per_request $FPORT $FP $P GCRA 'rate:__rand_int__' 99 100 60)" >>"$out"
    fi
  done
done
echo "load average at the end: $(cut -d' ' -f1 /proc/loadavg)" >&2
medians "$out" | awk '{ printf "%-20s ops/s %8.0f  CPU µs/op %6.2f\n", $1, $2, $3 }'
