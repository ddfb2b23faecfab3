#!/usr/bin/env bash
# The cost of keyspace notifications, beside Redis 7.0 in one run: SET and
# INCR (50 clients, random keys, -P 1 and -P 16) on
#   redis-off, before-off, after-off   notify-keyspace-events "" (the default):
#                                      BEFORE and AFTER floodgate binaries
#   redis-kea, after-kea               KEA, nobody subscribed
#   redis-sub, after-sub               KEA and one client in PSUBSCRIBE
#                                      __key*__:* (two messages per command)
# The servers run turn by turn in each rep, so the machine's load falls on
# all alike; medians of REPS. CPU per request is the server's on-CPU time
# (scripts/measure.sh).
#
#   BEFORE=/tmp/fg-main AFTER=bin/floodgate scripts/bench-notify.sh
set -euo pipefail
cd "$(dirname "$0")/.."
REPS=${REPS:-5}; N=${N:-100000}; BASE=${BASE:-27460}
BEFORE=${BEFORE:?a floodgate binary}; AFTER=${AFTER:-bin/floodgate}
tmp=$(mktemp -d)
names=(redis-off before-off after-off redis-kea after-kea redis-sub after-sub)
pids=()
for i in "${!names[@]}"; do
  n=${names[$i]}; p=$((BASE + i)); mkdir -p "$tmp/$n"
  case $n in
    redis-*) redis-server --port "$p" --bind 127.0.0.1 --save '' --appendonly no --dir "$tmp/$n" --logfile "$tmp/$n.log" & ;;
    before-*) "$BEFORE" --port "$p" --loglevel warning --save "" --appendonly no --dir "$tmp/$n" & ;;
    after-*) "$AFTER" --port "$p" --loglevel warning --save "" --appendonly no --dir "$tmp/$n" & ;;
  esac
  pids+=($!)
done
subs=()
trap 'kill "${subs[@]}" "${pids[@]}" 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"' EXIT
for i in "${!names[@]}"; do
  p=$((BASE + i))
  for _ in $(seq 100); do redis-cli -p "$p" ping >/dev/null 2>&1 && break; sleep 0.05; done
  case ${names[$i]} in
    *-kea|*-sub) redis-cli -p "$p" CONFIG SET notify-keyspace-events KEA >/dev/null ;;
  esac
  case ${names[$i]} in
    *-sub) redis-cli -p "$p" PSUBSCRIBE '__key*__:*' >/dev/null & subs+=($!) ;;
  esac
done
. scripts/measure.sh
out="$tmp/results"
for r in $(seq "$REPS"); do
  echo "rep $r, load average $(cut -d' ' -f1 /proc/loadavg)" >&2
  for P in 1 16; do
    for c in "SET key:__rand_int__ value" "INCR counter:__rand_int__"; do
      for i in "${!names[@]}"; do
        # shellcheck disable=SC2086 # the command's words
        echo "${c%% *}-P$P-${names[$i]} $(per_request $((BASE + i)) "${pids[$i]}" "$P" $c)" >>"$out"
      done
    done
  done
done
echo "load average at the end: $(cut -d' ' -f1 /proc/loadavg)" >&2
medians "$out" | awk '{ printf "%-22s ops/s %8.0f  CPU µs/op %6.3f\n", $1, $2, $3 }'
