#!/usr/bin/env bash
# What floodgate-gateway adds to a request, each piece its own process as in
# production: an upstream (scripts/gatewayload -serve), a floodgate and a
# redis-server store, one gateway per store, and one more on floodgate with
# GOMAXPROCS=1 (gw-floodgate-1p) and one on the net/http front end
# (gw-floodgate-nethttp), and a bare httputil.ReverseProxy
# (bare-proxy: no limiter, no store; the floor any Go gateway pays for one
# more HTTP hop). scripts/gatewayload sends
# sequential keep-alive GETs turn by turn directly to the upstream and
# through each gateway, so every path sees the same load; the added latency
# is a path's p50/p99 minus direct's in the same rep. CPU per request is the
# gateway's own process (and each store's per decision), from schedstat,
# with its thread wake-ups per request; allocations per request are the
# gateway's go_memstats_mallocs_total. Medians of REPS.
# With BEFORE=<a floodgate-gateway binary>, a gateway of that build runs
# beside this tree's on the floodgate store, for an A/B in one run.
#
#   REPS=5 N=5000 scripts/bench-gateway.sh
#   BEFORE=/tmp/gw-old scripts/bench-gateway.sh
#
# Ports 26001-26055 (the gateway helper's range).
set -euo pipefail
cd "$(dirname "$0")/.."
REPS=${REPS:-5}; N=${N:-5000}
dir=$(mktemp -d)
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; wait 2>/dev/null; rm -rf "$dir"' EXIT
go build -o "$dir/floodgate" ./cmd/floodgate
go build -o "$dir/floodgate-gateway" ./cmd/floodgate-gateway
go build -o "$dir/gatewayload" ./scripts/gatewayload

redis-server --port 26001 --bind 127.0.0.1 --save '' --appendonly no --dir "$dir" --logfile "$dir/redis.log" & pids+=($!); RPID=$!
"$dir/floodgate" --port 26002 --save "" --appendonly no --dir "$dir" >"$dir/floodgate.log" 2>&1 & pids+=($!); FPID=$!
"$dir/gatewayload" -serve 127.0.0.1:26010 & pids+=($!)
"$dir/gatewayload" -proxy 127.0.0.1:26012 -to http://127.0.0.1:26010 & pids+=($!); BPID=$!
for p in 26001 26002; do
  for _ in $(seq 100); do redis-cli -p "$p" ping >/dev/null 2>&1 && break; sleep 0.05; done
done
# gateway NAME BINARY PORT STORE [ENV=VALUE [FLAG]]: a gateway on PORT
# (admin PORT+1); its pid in the variable NAME. A limit no run reaches, a generous
# store timeout (a loaded machine's missed 100 ms would turn into
# fail-closed 503s).
gateway() {
  env ${5:-} "$2" ${6:-} --listen 127.0.0.1:"$3" --admin-addr 127.0.0.1:$(($3 + 1)) --upstream http://127.0.0.1:26010 \
    --redis "$4" --ip-limit 1000000000/1s --store-timeout 2s --log-level error >"$dir/$1.log" 2>&1 & pids+=($!)
  printf -v "$1" %s $!
}
gateway GF "$dir/floodgate-gateway" 26020 127.0.0.1:26002
gateway GR "$dir/floodgate-gateway" 26030 127.0.0.1:26001
# The same gateway on one P: no thread to wake per goroutine switch.
gateway G1 "$dir/floodgate-gateway" 26050 127.0.0.1:26002 GOMAXPROCS=1
# The same gateway on the net/http front end (the default is fasthttp).
gateway GN "$dir/floodgate-gateway" 26054 127.0.0.1:26002 "" --front-end=net/http
targets="direct=http://127.0.0.1:26010/,gw-floodgate=http://127.0.0.1:26020/,gw-redis=http://127.0.0.1:26030/"
targets+=",gw-floodgate-1p=http://127.0.0.1:26050/,gw-floodgate-nethttp=http://127.0.0.1:26054/,bare-proxy=http://127.0.0.1:26012/"
procs="gw-floodgate=$GF,gw-redis=$GR,gw-floodgate-1p=$G1,gw-floodgate-nethttp=$GN,bare-proxy=$BPID,store-redis=$RPID"
metrics="gw-floodgate=http://127.0.0.1:26021/metrics,gw-redis=http://127.0.0.1:26031/metrics"
metrics+=",gw-floodgate-1p=http://127.0.0.1:26051/metrics,gw-floodgate-nethttp=http://127.0.0.1:26055/metrics"
if [ -n "${BEFORE:-}" ]; then
  gateway GB "$BEFORE" 26040 127.0.0.1:26002
  targets+=",before-floodgate=http://127.0.0.1:26040/"
  procs+=",before-floodgate=$GB"
  metrics+=",before-floodgate=http://127.0.0.1:26041/metrics"
fi
# The floodgate store's CPU per decision: its gateways share it.
procs+=",store-floodgate=$FPID/$(( ${BEFORE:+1} + 3 ))"
for p in 26021 26031 26051 26055 ${BEFORE:+26041}; do
  for _ in $(seq 100); do curl -sf "http://127.0.0.1:$p/healthz" >/dev/null && break; sleep 0.05; done
done

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for r in $(seq "$REPS"); do
  "$dir/gatewayload" -n "$N" -targets "$targets" -pids "$procs" -metrics "$metrics" | sed "s/^/$r /" >>"$dir/results"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
# Added latency per rep (path minus direct in that rep), then medians.
printf "%-18s %8s %8s %10s %10s %12s %8s %8s\n" path "p50 µs" "p99 µs" "added p50" "added p99" "CPU µs/req" allocs wake-ups
awk '
  $3 != "-" { p50[$1, $2] = $3; p99[$1, $2] = $4 }
  { cpu[$2, $1] = $5; al[$2, $1] = $6; wk[$2, $1] = $7; names[$2] = 1; reps[$1] = 1 }
  END {
    for (r in reps) for (n in names) if ((r, n) in p50) {
      add50[n] = add50[n] " " (p50[r, n] - p50[r, "direct"]); add99[n] = add99[n] " " (p99[r, n] - p99[r, "direct"])
      a50[n] = a50[n] " " p50[r, n]; a99[n] = a99[n] " " p99[r, n]
    }
    for (n in names) for (r in reps) { c[n] = c[n] " " cpu[n, r]; a[n] = a[n] " " al[n, r]; w[n] = w[n] " " wk[n, r] }
    for (n in names) printf "%-18s %8s %8s %10s %10s %12s %8s %8s\n", n, med(a50[n]), med(a99[n]), med(add50[n]), med(add99[n]), med(c[n]), med(a[n]), med(w[n])
  }
  function med(s,   v, k, i, j, t) {
    k = split(s, v, " "); if (k == 0 || v[1] == "-") return "-"
    for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (v[j] + 0 < v[i] + 0) { t = v[i]; v[i] = v[j]; v[j] = t }
    return (k % 2) ? v[(k + 1) / 2] : (v[k / 2] + v[k / 2 + 1]) / 2
  }' "$dir/results" | sort
