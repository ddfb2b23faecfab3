#!/usr/bin/env bash
# TLS beside Redis 7.0 with TLS, in one run: GET and EVALSHA (a one-line
# script) at -P 1 and -P 16 over redis-benchmark --tls, and, for plain TCP
# not getting slower, GET at -P 1 and -P 16 on a floodgate without the TLS
# code (BEFORE) and with it (AFTER). Servers run turn by turn in each rep;
# medians of REPS. CPU per request is the server's on-CPU time
# (scripts/measure.sh). A throw-away CA is made with openssl.
#
# ONLY=tcp runs the plain-TCP rows only, adding AFTER with
# --goroutine-conns (the transport TLS connections get) for its cost.
#
# Both negotiate TLS 1.3 with redis-benchmark, but Go picks AES-128-GCM and
# OpenSSL AES-256-GCM; SAME_SUITE=1 has Redis use AES-128-GCM too
# (tls-ciphersuites; Go cannot be restricted to one TLS 1.3 suite).
#
# PORT=N moves the eight ports (N to N+12; default 17449).
#
#   BEFORE=/tmp/fg-old AFTER=bin/floodgate scripts/bench-tls.sh
set -euo pipefail
cd "$(dirname "$0")/.."
REPS=${REPS:-3}; N=${N:-100000}
B=${PORT:-17449}
RT=$((B)) RL=$((B + 10)) BT=$((B + 1)) AT=$((B + 2)) AL=$((B + 12)) GT=$((B + 3))
BEFORE=${BEFORE:?a floodgate binary}; AFTER=${AFTER:-bin/floodgate}
tmp=$(mktemp -d)
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1 -subj /CN=ca \
  -keyout "$tmp/ca.key" -out "$tmp/ca.crt" 2>/dev/null
openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj /CN=127.0.0.1 \
  -keyout "$tmp/server.key" -out "$tmp/server.csr" 2>/dev/null
printf 'subjectAltName=IP:127.0.0.1\n' >"$tmp/ext"
openssl x509 -req -in "$tmp/server.csr" -CA "$tmp/ca.crt" -CAkey "$tmp/ca.key" -CAcreateserial -days 1 \
  -extfile "$tmp/ext" -out "$tmp/server.crt" 2>/dev/null
TLSARGS=(--tls-cert-file "$tmp/server.crt" --tls-key-file "$tmp/server.key" --tls-ca-cert-file "$tmp/ca.crt" --tls-auth-clients no)
mkdir -p "$tmp/before" "$tmp/after"
RSUITE=(); [ -n "${SAME_SUITE:-}" ] && RSUITE=(--tls-ciphersuites TLS_AES_128_GCM_SHA256)
redis-server --port $RT --tls-port $RL "${TLSARGS[@]}" "${RSUITE[@]}" --bind 127.0.0.1 --save '' --appendonly no --dir "$tmp" --logfile "$tmp/redis.log" & RP=$!
"$AFTER" --port $AT --tls-port $AL "${TLSARGS[@]}" --loglevel warning --save "" --appendonly no --dir "$tmp/after" & AP=$!
"$BEFORE" --port $BT --loglevel warning --save "" --appendonly no --dir "$tmp/before" & BP=$!
mkdir -p "$tmp/goroutine"
"$AFTER" --port $GT --goroutine-conns --loglevel warning --save "" --appendonly no --dir "$tmp/goroutine" & GP=$!
trap 'kill $RP $BP $AP $GP 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"' EXIT
for p in $RT $BT $AT $GT; do
  for _ in $(seq 100); do redis-cli -p "$p" ping >/dev/null 2>&1 && break; sleep 0.05; done
done
SCRIPT='return redis.call("GET", KEYS[1])'
RS=$(redis-cli -p $RT SCRIPT LOAD "$SCRIPT"); redis-cli -p $AT SCRIPT LOAD "$SCRIPT" >/dev/null
. scripts/measure.sh
# tls_request PLAINPORT TLSPORT PID PIPELINE ARGS...: per_request over TLS.
tls_request() {
  local p=$1 tp=$2 pid=$3 pipe=$4; shift 4
  redis-cli -p "$p" FLUSHALL >/dev/null
  local b o a; b=$(server_cpu "$pid")
  o=$(redis-benchmark -p "$tp" --tls --cacert "$tmp/ca.crt" -c 50 -n "$N" -r 100000 -P "$pipe" -q "$@" 2>/dev/null | tr '\r' '\n' |
      awk '/requests per second/ {for (i=2;i<=NF;i++) if ($i == "requests") v = $(i-1)} END {print v}')
  a=$(server_cpu "$pid")
  awk -v o="$o" -v t=$((a - b)) -v n="$N" 'BEGIN {printf "%.0f %.3f", o, t / n}'
}
out="$tmp/results"
for r in $(seq "$REPS"); do
  echo "rep $r, load average $(cut -d' ' -f1 /proc/loadavg)" >&2
  for P in 1 16; do
    if [ "${ONLY:-}" = tcp ]; then
      echo "redis-tcp-GET-$P $(per_request $RT $RP $P GET 'key:__rand_int__')" >>"$out"
      echo "before-tcp-GET-$P $(per_request $BT $BP $P GET 'key:__rand_int__')" >>"$out"
      echo "after-tcp-GET-$P $(per_request $AT $AP $P GET 'key:__rand_int__')" >>"$out"
      echo "after-goroutine-GET-$P $(per_request $GT $GP $P GET 'key:__rand_int__')" >>"$out"
      continue
    fi
    echo "redis-tls-GET-$P $(tls_request $RT $RL $RP $P GET 'key:__rand_int__')" >>"$out"
    echo "fg-tls-GET-$P $(tls_request $AT $AL $AP $P GET 'key:__rand_int__')" >>"$out"
    echo "redis-tls-EVALSHA-$P $(tls_request $RT $RL $RP $P EVALSHA "$RS" 1 'key:__rand_int__')" >>"$out"
    echo "fg-tls-EVALSHA-$P $(tls_request $AT $AL $AP $P EVALSHA "$RS" 1 'key:__rand_int__')" >>"$out"
    echo "redis-tcp-GET-$P $(per_request $RT $RP $P GET 'key:__rand_int__')" >>"$out"
    echo "before-tcp-GET-$P $(per_request $BT $BP $P GET 'key:__rand_int__')" >>"$out"
    echo "after-tcp-GET-$P $(per_request $AT $AP $P GET 'key:__rand_int__')" >>"$out"
  done
done
echo "load average at the end: $(cut -d' ' -f1 /proc/loadavg)" >&2
medians "$out" | awk '{ printf "%-22s ops/s %8.0f  CPU µs/op %6.2f\n", $1, $2, $3 }'
