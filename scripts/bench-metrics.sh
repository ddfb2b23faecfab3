#!/usr/bin/env bash
# The cost of the Prometheus endpoint: one floodgate binary run twice,
# metrics off and metrics-addr on with /metrics scraped every second (as a
# Prometheus with scrape_interval 1s would), beside Redis 7.0, in one run.
# The three servers take turns in each rep, so the machine's load falls on
# all alike; medians of REPS. CPU per request is the server's on-CPU time
# (scripts/measure.sh), scrapes included for the metrics-on server.
#
#   scripts/bench-metrics.sh                 # bin/floodgate, 3 reps of 100k
#   FG_BIN=/tmp/fg REPS=5 N=200000 scripts/bench-metrics.sh
set -euo pipefail
cd "$(dirname "$0")/.."
REPS=${REPS:-3}; N=${N:-100000}
FG_BIN=${FG_BIN:-bin/floodgate}
[ -x "$FG_BIN" ] || go build -o "$FG_BIN" ./cmd/floodgate
command -v redis-benchmark >/dev/null || { echo "redis-benchmark not found: apt-get install redis-tools" >&2; exit 1; }
SEED001="local c = redis.call('INCR', KEYS[1]) if c == 1 then redis.call('EXPIRE', KEYS[1], ARGV[2]) end if c > tonumber(ARGV[1]) then return 0 end return 1"
tmp=$(mktemp -d)
mkdir -p "$tmp/off" "$tmp/on"
redis-server --port 17459 --bind 127.0.0.1 --save '' --appendonly no --dir "$tmp" --logfile "$tmp/redis.log" & RP=$!
"$FG_BIN" --port 17460 --loglevel warning --save "" --appendonly no --dir "$tmp/off" & OFFP=$!
"$FG_BIN" --port 17461 --loglevel warning --save "" --appendonly no --dir "$tmp/on" --metrics-addr 127.0.0.1:17462 & ONP=$!
SP=
trap 'kill $RP $OFFP $ONP $SP 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"' EXIT
for p in 17459 17460 17461; do
  for _ in $(seq 100); do redis-cli -p "$p" ping >/dev/null 2>&1 && break; sleep 0.05; done
done
# The scraper: every second, for the whole run, whoever's turn it is.
( while sleep 1; do curl -s -o /dev/null http://127.0.0.1:17462/metrics; echo x; done >"$tmp/scrapes" ) & SP=$!
# The worst case for a scrape: the limiter's prefix table full (1,024
# prefixes, 2,048 series of floodgate_limiter_decisions_total), on both
# floodgates alike. FLUSHALL between runs leaves the counts.
for p in 17460 17461; do
  redis-benchmark -p "$p" -c 20 -n 20000 -r 5000 -q CL.THROTTLE 'tenant__rand_int__:u' 99 100 60 >/dev/null 2>&1
done
echo "limiter prefixes: $(redis-cli -p 17461 INFO limiter | tr -d '\r' | awk -F: '/^limiter_prefixes:/ {print $2}'), /metrics $(curl -s http://127.0.0.1:17462/metrics | grep -vc '^#') series" >&2
declare -A SHA
for p in 17459 17460 17461; do SHA[$p]=$(redis-cli -p "$p" SCRIPT LOAD "$SEED001"); done
. scripts/measure.sh
out="$tmp/results"
for r in $(seq "$REPS"); do
  echo "rep $r, load average $(cut -d' ' -f1 /proc/loadavg)" >&2
  for w in "1 GET key:__rand_int__" "1 SET key:__rand_int__ value" "1 INCR counter:__rand_int__" \
           "1 CL.THROTTLE user:__rand_int__ 99 100 60" "16 CL.THROTTLE user:__rand_int__ 99 100 60" "1 EVALSHA"; do
    read -r P cmd rest <<<"$w"
    name="$cmd-P$P"
    for s in "redis 17459 $RP" "off 17460 $OFFP" "on 17461 $ONP"; do
      read -r label port pid <<<"$s"
      [ "$label" = redis ] && [ "$cmd" = CL.THROTTLE ] && continue # no CL.THROTTLE in Redis
      if [ "$cmd" = EVALSHA ]; then
        echo "$label-$name $(per_request "$port" "$pid" "$P" EVALSHA "${SHA[$port]}" 1 'rate:__rand_int__' 100 60)" >>"$out"
      else
        # shellcheck disable=SC2086 # the command's words
        echo "$label-$name $(per_request "$port" "$pid" "$P" $cmd $rest)" >>"$out"
      fi
    done
  done
done
echo "load average at the end: $(cut -d' ' -f1 /proc/loadavg); $(wc -l <"$tmp/scrapes") scrapes" >&2
medians "$out" | awk '{ printf "%-22s ops/s %8.0f  CPU µs/op %6.2f\n", $1, $2, $3 }'
