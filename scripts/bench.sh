#!/usr/bin/env bash
# Side-by-side benchmark of floodgate and real Redis in one run, with
# redis-benchmark as the load generator (it shares the machine's cores).
# For each workload and server it reports the median of REPS runs of:
# ops/s, and server CPU time per operation (utime+stime from /proc, so the
# load generator's own CPU is not counted), and floodgate/Redis ratios.
#
#   scripts/bench.sh            # defaults: 200k requests, 50 clients, 3 reps
#   N=500000 REPS=5 scripts/bench.sh
#   WORKLOADS=throttle scripts/bench.sh   # CL.THROTTLE against the GCRA script
set -euo pipefail
cd "$(dirname "$0")/.."

N=${N:-200000}
CLIENTS=${CLIENTS:-50}
REPS=${REPS:-3}
KEYSPACE=${KEYSPACE:-100000}
FG_BIN=${FG_BIN:-bin/floodgate}
RPORT=${RPORT:-17379}
FPORT=${FPORT:-17380}

command -v redis-benchmark >/dev/null || { echo "redis-benchmark not found: apt-get install redis-tools" >&2; exit 1; }
[ -x "$FG_BIN" ] || go build -o "$FG_BIN" ./cmd/floodgate

tmp=$(mktemp -d)
redis-server --port "$RPORT" --bind 127.0.0.1 --save '' --appendonly no --dir "$tmp" --logfile "$tmp/redis.log" &
RPID=$!
"$FG_BIN" --port "$FPORT" --loglevel warning &
FPID=$!
trap 'kill $RPID $FPID 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"' EXIT
for p in "$RPORT" "$FPORT"; do
  for _ in $(seq 100); do redis-cli -p "$p" ping >/dev/null 2>&1 && break; sleep 0.05; done
done

# The seed 001 script: INCR first, EXPIRE on the first hit, deny over the limit.
SEED001="local c = redis.call('INCR', KEYS[1]) if c == 1 then redis.call('EXPIRE', KEYS[1], ARGV[2]) end if c > tonumber(ARGV[1]) then return 0 end return 1"
# A sliding-window log: trim, count, add a unique member, refresh the TTL.
SLIDING="local t = redis.call('TIME') local now = t[1] * 1000 + math.floor(t[2] / 1000) local window = tonumber(ARGV[2]) redis.call('ZREMRANGEBYSCORE', KEYS[1], 0, now - window) local n = redis.call('ZCARD', KEYS[1]) if n < tonumber(ARGV[1]) then redis.call('ZADD', KEYS[1], now, t[1] .. '-' .. t[2]) redis.call('PEXPIRE', KEYS[1], window) return 1 end return 0"

sha_of() { redis-cli -p "$1" SCRIPT LOAD "$2"; }

cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

# run PORT PID PIPELINE ARGS... -> "ops_per_sec cpu_us_per_op"
run() {
  local port=$1 pid=$2 pipe=$3; shift 3
  redis-cli -p "$port" FLUSHALL >/dev/null
  local before after ops
  before=$(cpu_ticks "$pid")
  ops=$(redis-benchmark -p "$port" -c "$CLIENTS" -n "$N" -r "$KEYSPACE" -P "$pipe" -q "$@" 2>/dev/null |
        tr '\r' '\n' | awk '/requests per second/ {for (i=2;i<=NF;i++) if ($i == "requests") v = $(i-1)} END {print v}')
  after=$(cpu_ticks "$pid")
  local hz; hz=$(getconf CLK_TCK)
  awk -v o="$ops" -v t=$((after - before)) -v hz="$hz" -v n="$N" 'BEGIN { printf "%s %.3f\n", o, t * 1e6 / hz / n }'
}

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

printf '| workload | pipeline | Redis ops/s | floodgate ops/s | ops ratio | Redis CPU µs/op | floodgate CPU µs/op | CPU ratio |\n'
printf '|---|---:|---:|---:|---:|---:|---:|---:|\n'

bench() {
  local name=$1 pipe=$2; shift 2
  local rops=() rcpu=() fops=() fcpu=()
  for _ in $(seq "$REPS"); do
    read -r o c < <(run "$RPORT" "$RPID" "$pipe" "${@/__SHA__/$RSHA}"); rops+=("$o"); rcpu+=("$c")
    read -r o c < <(run "$FPORT" "$FPID" "$pipe" "${@/__SHA__/$FSHA}"); fops+=("$o"); fcpu+=("$c")
  done
  local ro rc fo fc
  ro=$(printf '%s\n' "${rops[@]}" | median); rc=$(printf '%s\n' "${rcpu[@]}" | median)
  fo=$(printf '%s\n' "${fops[@]}" | median); fc=$(printf '%s\n' "${fcpu[@]}" | median)
  awk -v n="$name" -v p="$pipe" -v ro="$ro" -v fo="$fo" -v rc="$rc" -v fc="$fc" 'BEGIN {
    printf "| %s | %s | %.0f | %.0f | %.2f | %.2f | %.2f | %.2f |\n", n, p, ro, fo, (ro > 0 ? fo / ro : 0), rc, fc, (rc > 0 ? fc / rc : 0) }'
}

# bench_pair NAME PIPE: Redis runs RARGS, floodgate runs FARGS (arrays), for
# a command floodgate has natively and Redis only as a script.
bench_pair() {
  local name=$1 pipe=$2
  local rops=() rcpu=() fops=() fcpu=()
  for _ in $(seq "$REPS"); do
    read -r o c < <(run "$RPORT" "$RPID" "$pipe" "${RARGS[@]}"); rops+=("$o"); rcpu+=("$c")
    read -r o c < <(run "$FPORT" "$FPID" "$pipe" "${FARGS[@]}"); fops+=("$o"); fcpu+=("$c")
  done
  local ro rc fo fc
  ro=$(printf '%s\n' "${rops[@]}" | median); rc=$(printf '%s\n' "${rcpu[@]}" | median)
  fo=$(printf '%s\n' "${fops[@]}" | median); fc=$(printf '%s\n' "${fcpu[@]}" | median)
  awk -v n="$name" -v p="$pipe" -v ro="$ro" -v fo="$fo" -v rc="$rc" -v fc="$fc" 'BEGIN {
    printf "| %s | %s | %.0f | %.0f | %.2f | %.2f | %.2f | %.2f |\n", n, p, ro, fo, (ro > 0 ? fo / ro : 0), rc, fc, (rc > 0 ? fc / rc : 0) }'
}

RSHA="" FSHA=""
WORKLOADS=${WORKLOADS:-"basic scripts throttle"}
# redis-benchmark's own default suite (no -t), test by test so that each
# row has its server CPU. An LRANGE_* row includes the N LPUSHes that
# redis-benchmark runs first to fill its list, on both servers alike.
if [[ $WORKLOADS == *default* ]]; then
  for srv in "$RPORT" "$FPORT"; do
    if ! redis-benchmark -p "$srv" -n 1000 -q >/dev/null 2>"$tmp/default.err"; then
      echo "redis-benchmark's default suite stopped on port $srv: $(cat "$tmp/default.err")" >&2; exit 1
    fi
  done
  for t in ping_inline ping_mbulk set get incr lpush rpush lpop rpop sadd hset spop zadd zpopmin lrange_100 lrange_300 lrange_500 lrange_600 mset; do
    bench "$t" 1 -t "$t"
  done
fi
if [[ $WORKLOADS == *basic* ]]; then
  for p in 1 16; do
    bench "SET" "$p" SET key:__rand_int__ value
    bench "GET" "$p" GET key:__rand_int__
    bench "INCR" "$p" INCR counter:__rand_int__
  done
fi
if [[ $WORKLOADS == *scripts* ]]; then
  for which in SEED001 SLIDING; do
    RSHA=$(sha_of "$RPORT" "${!which}")
    FSHA=$(sha_of "$FPORT" "${!which}")
    if [ "$RSHA" != "$FSHA" ]; then echo "SCRIPT LOAD differs: redis $RSHA floodgate $FSHA" >&2; exit 1; fi
    for p in 1 16; do
      if [ "$which" = SEED001 ]; then
        bench "EVALSHA seed 001" "$p" EVALSHA __SHA__ 1 rate:user:__rand_int__ 100 60
      else
        bench "EVALSHA sliding window" "$p" EVALSHA __SHA__ 1 rate:ip:__rand_int__ 100 60000
      fi
    done
  done
fi
# GCRA decisions: floodgate's native CL.THROTTLE against the ratelimit
# package's GCRA script (prelude.lua + gcra.lua) by EVALSHA, on Redis and on
# floodgate. Same limit: 100 per minute, burst 100; ARGV[1] "-" makes the
# script read TIME, as CL.THROTTLE reads the server's clock.
if [[ $WORKLOADS == *throttle* ]]; then
  GCRA="$(cat ratelimit/prelude.lua; echo; cat ratelimit/gcra.lua)"
  RSHA=$(sha_of "$RPORT" "$GCRA")
  FSHA=$(sha_of "$FPORT" "$GCRA")
  if [ "$RSHA" != "$FSHA" ]; then echo "SCRIPT LOAD differs: redis $RSHA floodgate $FSHA" >&2; exit 1; fi
  RARGS=(EVALSHA "$RSHA" 1 "{rate:__rand_int__}:gcra" - 100 60000000 100 1)
  for p in 1 16; do
    FARGS=(CL.THROTTLE "{rate:__rand_int__}:gcra:ns" 99 100 60)
    bench_pair "CL.THROTTLE (floodgate) vs EVALSHA gcra (Redis)" "$p"
    bench "EVALSHA gcra" "$p" EVALSHA __SHA__ 1 "{rate:__rand_int__}:gcra" - 100 60000000 100 1
  done
fi
