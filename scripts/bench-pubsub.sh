#!/usr/bin/env bash
# PUBLISH to 1 and to 1,000 subscribers, floodgate beside Redis 7.0 in one
# run: redis-benchmark (50 clients) publishes N messages of 16 bytes to a
# channel that SUBS connections (scripts/pubsub-subscribers.py, which read
# everything) subscribe to. Prints, per server and fan-out, PUBLISH/s, the
# server's on-CPU µs per PUBLISH and per delivered message
# (scripts/measure.sh's server_cpu). Medians of REPS.
#
#   N=100000 REPS=3 [RP=17461 FP=17462] scripts/bench-pubsub.sh
set -euo pipefail
cd "$(dirname "$0")/.."
REPS=${REPS:-3}; N=${N:-100000}; FANOUTS=${FANOUTS:-"1 1000"}
dir=$(mktemp -d)
. scripts/lib.sh
trap stop_servers EXIT
. scripts/measure.sh
RP=${RP:-17461}; FP=${FP:-17462}
start_redis $RP
start_floodgate $FP
wait_ping $RP $FP
rpid=$(cat "$dir/redis.pid"); fpid=$(cat "$dir/floodgate.pid")
out="$dir/results"
for subs in $FANOUTS; do
  for r in $(seq "$REPS"); do
    for srv in redis floodgate; do
      if [ $srv = redis ]; then p=$RP; pid=$rpid; else p=$FP; pid=$fpid; fi
      python3 scripts/pubsub-subscribers.py "$p" "$subs" ch & sp=$!
      for _ in $(seq 200); do
        [ "$(redis-cli -p "$p" PUBSUB NUMSUB ch | tail -1)" = "$subs" ] && break
        sleep 0.05
      done
      b=$(server_cpu "$pid")
      o=$(redis-benchmark -p "$p" -c 50 -n "$N" -q PUBLISH ch 0123456789abcdef 2>/dev/null | tr '\r' '\n' |
          awk '/requests per second/ {for (i=2;i<=NF;i++) if ($i == "requests") v = $(i-1)} END {print v}')
      a=$(server_cpu "$pid")
      kill $sp; wait $sp 2>/dev/null || true
      for _ in $(seq 200); do
        [ "$(redis-cli -p "$p" PUBSUB NUMSUB ch | tail -1)" = 0 ] && break
        sleep 0.05
      done
      echo "$srv-$subs $(awk -v o="$o" -v t=$((a - b)) -v n="$N" -v s="$subs" 'BEGIN {printf "%.0f %.3f %.4f", o, t / n, t / n / s}')" >>"$out"
    done
  done
done
echo "server-fanout publish/s cpu_us/publish cpu_us/message"
sort "$out" | awk '
  { if ($1 != k && k != "") flush(); k = $1; o[++n] = $2; c[n] = $3; m[n] = $4 }
  END { flush() }
  function med(a, q,   i, j, t) { for (i = 1; i <= q; i++) for (j = i + 1; j <= q; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }; return a[int((q + 1) / 2)] }
  function flush() { print k, med(o, n), med(c, n), med(m, n); n = 0 }'
