#!/usr/bin/env bash
# Before/after of two floodgate binaries' transports in one run: each
# binary on the epoll event loop and with --goroutine-conns, SET, GET,
# INCR and an EVALSHA at -P 1 and -P 16. The four servers take turns in
# each rep (in reverse order every other rep), so the machine's load falls
# on all alike; medians of REPS. CPU per request is the server's on-CPU
# time (scripts/measure.sh).
#
#   BEFORE=/tmp/fg-old AFTER=bin/floodgate scripts/bench-transport-ab.sh
#
# PORT (27511 by default) is the first of four consecutive ports; MODES
# ("loop go") and PIPELINES ("1 16") narrow the run.
set -euo pipefail
cd "$(dirname "$0")/.."
REPS=${REPS:-3}; N=${N:-100000}; PORT=${PORT:-27511}
MODES=${MODES:-loop go}; PIPELINES=${PIPELINES:-1 16}
BEFORE=${BEFORE:?a floodgate binary}; AFTER=${AFTER:-bin/floodgate}
tmp=$(mktemp -d)
names=(before-loop after-loop before-go after-go)
bins=("$BEFORE" "$AFTER" "$BEFORE" "$AFTER")
flags=("" "" --goroutine-conns --goroutine-conns)
pids=()
for i in 0 1 2 3; do
  mkdir -p "$tmp/$i"
  # shellcheck disable=SC2086 # an empty flag is no word
  "${bins[$i]}" --port $((PORT + i)) --loglevel warning --save "" --appendonly no --dir "$tmp/$i" ${flags[$i]} & pids+=($!)
done
trap 'kill "${pids[@]}" 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"' EXIT
for i in 0 1 2 3; do
  for _ in $(seq 100); do redis-cli -p $((PORT + i)) ping >/dev/null 2>&1 && break; sleep 0.05; done
done
SCRIPT="return redis.call('INCR', KEYS[1])"
. scripts/measure.sh
out="$tmp/results"
for r in $(seq "$REPS"); do
  echo "rep $r, load average $(cut -d' ' -f1 /proc/loadavg)" >&2
  # Odd reps run the servers in order, even ones in reverse, so that
  # going first or second in a pair biases neither binary.
  order="0 1 2 3"; [ $((r % 2)) -eq 0 ] && order="3 2 1 0"
  for P in $PIPELINES; do
    for i in $order; do
      [[ " $MODES " == *" ${names[$i]#*-} "* ]] || continue
      p=$((PORT + i)); sha=$(redis-cli -p $p SCRIPT LOAD "$SCRIPT")
      for c in "GET key:__rand_int__" "SET key:__rand_int__ value" "INCR counter:__rand_int__" "EVALSHA $sha 1 key:__rand_int__"; do
        # shellcheck disable=SC2086 # the command's words
        echo "${c%% *}-P$P-${names[$i]} $(per_request $p "${pids[$i]}" "$P" $c)" >>"$out"
      done
    done
  done
done
echo "load average at the end: $(cut -d' ' -f1 /proc/loadavg)" >&2
medians "$out" | awk '{ printf "%-26s ops/s %8.0f  CPU µs/op %6.2f\n", $1, $2, $3 }'
