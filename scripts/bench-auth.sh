#!/usr/bin/env bash
# Wrong AUTH guesses on one connection beside Redis 7.0, in one run:
# scripts/authguess pipelines N guesses DEPTH deep at a requirepass
# (AUTH pass) and, with USER_TOO=1, at a user's password (AUTH alice pass),
# on each server turn by turn; medians of REPS. CPU per guess is the
# server's on-CPU time (scripts/measure.sh). Both servers aggregate the
# guesses into one ACL LOG entry and count them in INFO.
#
#   FLOODGATE=bin/floodgate REPS=5 scripts/bench-auth.sh
set -euo pipefail
cd "$(dirname "$0")/.."
REPS=${REPS:-3}; N=${N:-500000}; DEPTH=${DEPTH:-16}
RPORT=${RPORT:-24101}; FPORT=${FPORT:-24102}
tmp=$(mktemp -d)
FLOODGATE=${FLOODGATE:-}
if [ -z "$FLOODGATE" ]; then go build -o "$tmp/floodgate" ./cmd/floodgate; FLOODGATE=$tmp/floodgate; fi
go build -o "$tmp/authguess" ./scripts/authguess
redis-server --port "$RPORT" --bind 127.0.0.1 --requirepass secret --save '' --appendonly no --dir "$tmp" --logfile "$tmp/redis.log" & RP=$!
"$FLOODGATE" --port "$FPORT" --bind 127.0.0.1 --requirepass secret --loglevel warning --save "" --appendonly no --dir "$tmp" & FP=$!
trap 'kill $RP $FP 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"' EXIT
for p in "$RPORT" "$FPORT"; do
  for _ in $(seq 100); do redis-cli -p "$p" -a secret --no-auth-warning ping >/dev/null 2>&1 && break; sleep 0.05; done
  redis-cli -p "$p" -a secret --no-auth-warning ACL SETUSER alice on '>right' '+@all' '~*' >/dev/null
done
. scripts/measure.sh
out="$tmp/results"
for r in $(seq "$REPS"); do
  echo "rep $r, load average $(cut -d' ' -f1 /proc/loadavg)" >&2
  for who in redis floodgate; do
    port=$RPORT pid=$RP
    [ "$who" = floodgate ] && port=$FPORT pid=$FP
    echo "$who-requirepass $("$tmp/authguess" -addr 127.0.0.1:$port -pid $pid -n "$N" -depth "$DEPTH")" >>"$out"
    if [ -n "${USER_TOO:-}" ]; then
      echo "$who-user $("$tmp/authguess" -addr 127.0.0.1:$port -pid $pid -n "$N" -depth "$DEPTH" -user alice)" >>"$out"
    fi
  done
done
echo "load average at the end: $(cut -d' ' -f1 /proc/loadavg)" >&2
medians "$out" | awk '{ printf "%-22s guesses/s %8.0f  CPU µs/guess %6.2f\n", $1, $2, $3 }'
