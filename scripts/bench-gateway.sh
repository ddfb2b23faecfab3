#!/usr/bin/env bash
# What floodgate-gateway adds to a request, each piece its own process as in
# production: an upstream (scripts/gatewayload -serve), a floodgate and a
# redis-server store, one gateway per store, and one more on floodgate with
# GOMAXPROCS=1 (gw-floodgate-1p), one on the net/http front end
# (gw-floodgate-nethttp), one with the Go runtime's sysmon
# as it is by default (gw-floodgate-sysmon-sleeps: GODEBUG=schedtrace=0;
# the gateway otherwise keeps it awake), a bare httputil.ReverseProxy
# (bare-proxy: no limiter, no store; the floor any Go gateway pays for one
# more HTTP hop) and nginx with one worker (nginx: the floor of a proxy
# written in C; skipped, with a note, when nginx is not installed).
# scripts/gatewayload sends sequential keep-alive GETs turn by turn directly
# to the upstream and through each gateway, so every path sees the same
# load; the added latency is a path's p50/p99 minus direct's in the same
# rep. CPU per request is the gateway's own process (and each store's per
# decision), from schedstat, with its thread wake-ups per request;
# allocations per request are the gateway's go_memstats_mallocs_total.
# Medians of REPS.
# With BEFORE=<a floodgate-gateway binary>, a gateway of that build runs
# beside this tree's on the floodgate store, for an A/B in one run.
# PATHS, a regular expression over the path names, keeps the paths it
# matches (and direct).
#
#   REPS=5 N=5000 scripts/bench-gateway.sh
#   BEFORE=/tmp/gw-old scripts/bench-gateway.sh
#   PATHS='nginx|bare|gw-floodgate$' BASE=27400 scripts/bench-gateway.sh
#
# Ports BASE+1 to BASE+21 (BASE is 26000 unless given).
set -euo pipefail
cd "$(dirname "$0")/.."
REPS=${REPS:-5}; N=${N:-5000}; BASE=${BASE:-26000}; PATHS=${PATHS:-.}
dir=$(mktemp -d)
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; wait 2>/dev/null; rm -rf "$dir"' EXIT
go build -o "$dir/floodgate" ./cmd/floodgate
go build -o "$dir/floodgate-gateway" ./cmd/floodgate-gateway
go build -o "$dir/gatewayload" ./scripts/gatewayload

UP=127.0.0.1:$((BASE + 3)) RS=127.0.0.1:$((BASE + 1)) FG=127.0.0.1:$((BASE + 2))
redis-server --port $((BASE + 1)) --bind 127.0.0.1 --save '' --appendonly no --dir "$dir" --logfile "$dir/redis.log" & pids+=($!); RPID=$!
"$dir/floodgate" --port $((BASE + 2)) --save "" --appendonly no --dir "$dir" >"$dir/floodgate.log" 2>&1 & pids+=($!); FPID=$!
"$dir/gatewayload" -serve $UP & pids+=($!)
for p in $((BASE + 1)) $((BASE + 2)); do
  for _ in $(seq 100); do redis-cli -p "$p" ping >/dev/null 2>&1 && break; sleep 0.05; done
done
targets="direct=http://$UP/" procs="" metrics="" ready=() floodgates=0
# want NAME: whether PATHS keeps path NAME.
want() { [[ $1 =~ $PATHS ]]; }
# gateway NAME PORT STORE [ENV=VALUE [FLAG [BINARY]]]: a gateway on PORT
# (admin PORT+1) measured as path NAME. A limit no run reaches, a generous
# store timeout (a loaded machine's missed 100 ms would turn into
# fail-closed 503s).
gateway() {
  want "$1" || return 0
  env ${4:-} "${6:-$dir/floodgate-gateway}" ${5:-} --listen 127.0.0.1:"$2" --admin-addr 127.0.0.1:$(($2 + 1)) \
    --upstream http://$UP --redis "$3" --ip-limit 1000000000/1s --store-timeout 2s --log-level error \
    >"$dir/$1.log" 2>&1 & pids+=($!)
  targets+=",$1=http://127.0.0.1:$2/" procs+="$1=$!," metrics+="$1=http://127.0.0.1:$(($2 + 1))/metrics,"
  ready+=($(($2 + 1)))
  [ "$3" != "$FG" ] || floodgates=$((floodgates + 1))
}
gateway gw-floodgate $((BASE + 6)) $FG
gateway gw-redis $((BASE + 10)) $RS
# The same gateway on one P: no thread to wake per goroutine switch.
gateway gw-floodgate-1p $((BASE + 12)) $FG GOMAXPROCS=1
# The same gateway on the net/http front end (the default is fasthttp).
gateway gw-floodgate-nethttp $((BASE + 16)) $FG "" --front-end=net/http
gateway gw-floodgate-sysmon-sleeps $((BASE + 20)) $FG GODEBUG=schedtrace=0
[ -z "${BEFORE:-}" ] || gateway before-floodgate $((BASE + 18)) $FG "" "" "$BEFORE"
if want bare-proxy; then
  "$dir/gatewayload" -proxy 127.0.0.1:$((BASE + 4)) -to http://$UP & pids+=($!)
  targets+=",bare-proxy=http://127.0.0.1:$((BASE + 4))/" procs+="bare-proxy=$!,"
fi
# nginx set up as a C proxy would be in production: one worker,
# keep-alive HTTP/1.1 to the upstream, no access log.
if ! want nginx; then :
elif ! command -v nginx >/dev/null; then
  echo "nginx is not installed (apt-get install nginx-light): no nginx row"
else
  mkdir "$dir/nginx"
  cat >"$dir/nginx/nginx.conf" <<CONF
worker_processes 1;
daemon off;
master_process off;
error_log $dir/nginx/error.log error;
pid $dir/nginx/nginx.pid;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path $dir/nginx/body; proxy_temp_path $dir/nginx/proxy;
  fastcgi_temp_path $dir/nginx/fcgi; uwsgi_temp_path $dir/nginx/uwsgi; scgi_temp_path $dir/nginx/scgi;
  upstream up { server $UP; keepalive 16; }
  server {
    listen 127.0.0.1:$((BASE + 5));
    location / { proxy_pass http://up; proxy_http_version 1.1; proxy_set_header Connection ""; }
  }
}
CONF
  nginx -c "$dir/nginx/nginx.conf" -p "$dir/nginx" & pids+=($!)
  targets+=",nginx=http://127.0.0.1:$((BASE + 5))/" procs+="nginx=$!,"
fi
! want gw-redis || procs+="store-redis=$RPID,"
# The floodgate store's CPU per decision: its gateways share it.
[ "$floodgates" = 0 ] || procs+="store-floodgate=$FPID/$floodgates"
for p in "${ready[@]}"; do
  for _ in $(seq 100); do curl -sf "http://127.0.0.1:$p/healthz" >/dev/null && break; sleep 0.05; done
done
for p in $((BASE + 4)) $((BASE + 5)); do
  [[ $targets == *:$p/* ]] || continue
  for _ in $(seq 100); do curl -sf "http://127.0.0.1:$p/" >/dev/null && break; sleep 0.05; done
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
