#!/usr/bin/env bash
# eviction-attack.sh: the key-rotation attack on a bounded limiter store.
# Writes N distinct counters "rate:ip:<n>" (INCR, then EXPIRE 3600) into a
# server with maxmemory 100mb and the given policy, samples its RSS while
# it runs, and then checks that the newest keys are still counted exactly
# (the last 10,000 keys get 3 more INCRs each and must read 4).
# Runs floodgate (built from this tree) and redis-server side by side.
# Usage: scripts/eviction-attack.sh [policy] [keys] [port]
#        (default allkeys-lru 10000000 7441; uses ports port and port+1)
set -euo pipefail
policy=${1:-allkeys-lru}
keys=${2:-10000000}
port=${3:-7441}
maxmemory=100mb
dir=$(mktemp -d)
go build -o "$dir/floodgate" ./cmd/floodgate
redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no --dir "$dir" --daemonize yes \
	--pidfile "$dir/redis.pid" --logfile "$dir/redis.log" >/dev/null
"$dir/floodgate" --port $((port + 1)) --save '' --dir "$dir" >"$dir/floodgate.log" 2>&1 &
echo $! >"$dir/floodgate.pid"
trap 'kill "$(cat "$dir/redis.pid")" "$(cat "$dir/floodgate.pid")" 2>/dev/null; sleep 0.5; rm -rf "$dir"' EXIT
for p in "$port" $((port + 1)); do
	for _ in $(seq 50); do redis-cli -p "$p" ping >/dev/null 2>&1 && break; sleep 0.1; done
done
rss() { awk '/^VmRSS:/ {print $2 * 1024}' "/proc/$1/status"; }
field() { redis-cli -p "$1" info "$2" | awk -F: -v f="$3" '$1 == f {sub(/\r/, "", $2); print $2}'; }
mb() { awk -v b="$1" 'BEGIN {printf "%.1f MB", b / 1048576}'; }

printf '%s, %d keys, maxmemory %s\n' "$policy" "$keys" "$maxmemory"
printf '%-10s %10s %10s %12s %12s %12s %10s %8s\n' server "time" dbsize evicted used_memory "peak RSS" "end RSS" newest
for server in redis floodgate; do
	p=$port; [ "$server" = floodgate ] && p=$((port + 1))
	pid=$(cat "$dir/$server.pid")
	redis-cli -p "$p" config set maxmemory "$maxmemory" >/dev/null
	redis-cli -p "$p" config set maxmemory-policy "$policy" >/dev/null
	peak=0
	( while sleep 0.2; do rss "$pid"; done ) >"$dir/$server.rss" &
	sampler=$!
	start=$(date +%s.%N)
	awk -v n="$keys" 'BEGIN {
		for (i = 0; i < n; i++) printf "*2\r\n$4\r\nINCR\r\n$%d\r\nrate:ip:%d\r\n*3\r\n$6\r\nEXPIRE\r\n$%d\r\nrate:ip:%d\r\n$4\r\n3600\r\n", length("rate:ip:" i), i, length("rate:ip:" i), i
	}' | redis-cli -p "$p" --pipe >"$dir/$server.pipe"
	# The newest keys, counted again.
	awk -v n="$keys" 'BEGIN {
		for (i = n - 10000; i < n; i++) for (j = 0; j < 3; j++) printf "*2\r\n$4\r\nINCR\r\n$%d\r\nrate:ip:%d\r\n", length("rate:ip:" i), i
	}' | redis-cli -p "$p" --pipe >>"$dir/$server.pipe"
	end=$(date +%s.%N)
	kill "$sampler"; wait "$sampler" 2>/dev/null || true
	peak=$(sort -n "$dir/$server.rss" | tail -1)
	exact=$(awk -v n="$keys" 'BEGIN { for (i = n - 10000; i < n; i++) print "GET rate:ip:" i }' |
		redis-cli -p "$p" | grep -cx 4 || true)
	printf '%-10s %9.1fs %10s %12s %12s %12s %12s %8s\n' "$server" "$(echo "$end - $start" | bc)" \
		"$(redis-cli -p "$p" dbsize)" "$(field "$p" stats evicted_keys)" "$(mb "$(field "$p" memory used_memory)")" \
		"$(mb "$peak")" "$(mb "$(rss "$pid")")" "$exact/10000"
	grep -h "errors" "$dir/$server.pipe" | tr '\n' ' '; echo
done
