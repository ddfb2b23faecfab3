#!/usr/bin/env bash
# Master CPU per request with one replica attached, floodgate beside Redis
# 7.0 in one run: each master has a redis-server 7.0 replica; INCR and an
# EVALSHA of a small limiter script at -P 1 and -P 16, turn by turn, medians
# of REPS. CPU per request is the master's on-CPU time (scripts/measure.sh).
#
#   FLOODGATE=bin/floodgate scripts/bench-repl.sh
set -euo pipefail
cd "$(dirname "$0")/.."
REPS=${REPS:-3}; N=${N:-100000}
FLOODGATE=${FLOODGATE:-bin/floodgate}
tmp=$(mktemp -d)
mkdir -p "$tmp"/{rm,rr,fm,fr}
SCRIPT="local n = redis.call('INCR', KEYS[1]) if n == 1 then redis.call('PEXPIRE', KEYS[1], 60000) end return n"
redis-server --port 17461 --bind 127.0.0.1 --save '' --appendonly no --dir "$tmp/rm" --logfile "$tmp/rm.log" --repl-diskless-sync-delay 0 & RM=$!
"$FLOODGATE" --port 17463 --loglevel warning --save "" --appendonly no --dir "$tmp/fm" --repl-diskless-sync-delay 0 & FM=$!
trap 'kill $RM $FM $RR $FR 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"' EXIT
for p in 17461 17463; do
  for _ in $(seq 100); do redis-cli -p "$p" ping >/dev/null 2>&1 && break; sleep 0.05; done
done
redis-server --port 17462 --bind 127.0.0.1 --save '' --appendonly no --dir "$tmp/rr" --logfile "$tmp/rr.log" --replicaof 127.0.0.1 17461 & RR=$!
redis-server --port 17464 --bind 127.0.0.1 --save '' --appendonly no --dir "$tmp/fr" --logfile "$tmp/fr.log" --replicaof 127.0.0.1 17463 & FR=$!
for p in 17462 17464; do
  for _ in $(seq 200); do redis-cli -p "$p" info replication 2>/dev/null | grep -q master_link_status:up && break; sleep 0.05; done
done
RS=$(redis-cli -p 17461 SCRIPT LOAD "$SCRIPT"); FS=$(redis-cli -p 17463 SCRIPT LOAD "$SCRIPT")
. scripts/measure.sh
out="$tmp/results"
for r in $(seq "$REPS"); do
  echo "rep $r, load average $(cut -d' ' -f1 /proc/loadavg)" >&2
  for P in 1 16; do
    echo "redis-incr-P$P $(per_request 17461 $RM $P INCR 'counter:__rand_int__')" >>"$out"
    echo "floodgate-incr-P$P $(per_request 17463 $FM $P INCR 'counter:__rand_int__')" >>"$out"
    echo "redis-evalsha-P$P $(per_request 17461 $RM $P EVALSHA "$RS" 1 'limit:__rand_int__')" >>"$out"
    echo "floodgate-evalsha-P$P $(per_request 17463 $FM $P EVALSHA "$FS" 1 'limit:__rand_int__')" >>"$out"
  done
done
echo "name ops/s master-cpu-us/request (medians of $REPS)"
medians "$out"
for p in 17462 17464; do
  echo "replica $p: $(redis-cli -p $p dbsize) keys, $(redis-cli -p $p info replication | grep -E 'master_link_status' | tr -d '\r')"
done
