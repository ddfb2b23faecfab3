#!/usr/bin/env bash
# The cost of client-side caching on a GET/SET load, floodgate beside
# Redis 7.0 in one run: scripts/trackload's 50 RESP3 connections send N
# requests (9 GETs to 1 SET of 10,000 keys) with tracking off, on, and in
# BCAST mode (one prefix covering every key). The servers run turn by turn
# in each rep, so the machine's load falls on both alike. Prints, per
# server and mode, requests/s, the server's on-CPU µs per request
# (scripts/measure.sh's schedstat) and invalidations received per request;
# medians of REPS.
#
#   N=200000 REPS=3 scripts/bench-tracking.sh
set -euo pipefail
cd "$(dirname "$0")/.."
REPS=${REPS:-3}; N=${N:-200000}; MODES=${MODES:-"off on bcast"}
dir=$(mktemp -d)
. scripts/lib.sh
trap stop_servers EXIT
RP=17471; FP=17472
start_redis $RP
start_floodgate $FP
go build -o "$dir/trackload" ./scripts/trackload
wait_ping $RP $FP
rpid=$(cat "$dir/redis.pid"); fpid=$(cat "$dir/floodgate.pid")
out="$dir/results"
for r in $(seq "$REPS"); do
  echo "rep $r, load average $(cut -d' ' -f1 /proc/loadavg)" >&2
  for mode in $MODES; do
    echo "redis-$mode $("$dir/trackload" -addr 127.0.0.1:$RP -pid "$rpid" -n "$N" -tracking "$mode")" >>"$out"
    echo "floodgate-$mode $("$dir/trackload" -addr 127.0.0.1:$FP -pid "$fpid" -n "$N" -tracking "$mode")" >>"$out"
  done
done
echo "load average at the end: $(cut -d' ' -f1 /proc/loadavg)" >&2
echo "server-mode requests/s cpu_us/request invalidations/request"
sort "$out" | awk '
  { if ($1 != k && k != "") flush(); k = $1; o[++n] = $2; c[n] = $3; m[n] = $4 }
  END { flush() }
  function med(a, q,   i, j, t) { for (i = 1; i <= q; i++) for (j = i + 1; j <= q; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }; return a[int((q + 1) / 2)] }
  function flush() { print k, med(o, n), med(c, n), med(m, n); n = 0 }'
