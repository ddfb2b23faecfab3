#!/usr/bin/env bash
# key-memory.sh: memory per rate-limit counter, floodgate (built from this
# tree) against redis-server, side by side: N counters "rate:ip:<n>" set by
# INCR then EXPIRE, then INFO used_memory and the process's RSS; then the
# same keys given a 3-second TTL, and RSS once DBSIZE reads 0.
# Usage: scripts/key-memory.sh [keys] [port]   (default 1000000 7451; ports port, port+1)
set -euo pipefail
keys=${1:-1000000}
port=${2:-7451}
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
used() { redis-cli -p "$1" info memory | awk -F: '$1 == "used_memory" {print $2 + 0}'; }
per() { awk -v a="$1" -v b="$2" -v n="$keys" 'BEGIN {printf "%.0f", (a - b) / n}'; }
mb() { awk -v b="$1" 'BEGIN {printf "%.1f MB", b / 1048576}'; }

printf '%d counters (INCR + EXPIRE 3600)\n' "$keys"
printf '%-10s %14s %14s %12s %16s %18s\n' server "used B/key" "RSS B/key" "RSS" "expire-to-0 time" "RSS after expiry"
for server in redis floodgate; do
	p=$port; [ "$server" = floodgate ] && p=$((port + 1))
	pid=$(cat "$dir/$server.pid")
	u0=$(used "$p"); r0=$(rss "$pid")
	awk -v n="$keys" 'BEGIN {
		for (i = 0; i < n; i++) printf "*2\r\n$4\r\nINCR\r\n$%d\r\nrate:ip:%d\r\n*3\r\n$6\r\nEXPIRE\r\n$%d\r\nrate:ip:%d\r\n$4\r\n3600\r\n", length("rate:ip:" i), i, length("rate:ip:" i), i
	}' | redis-cli -p "$p" --pipe >/dev/null
	sleep 2 # let the runtime settle (a GC cycle) before reading RSS
	u1=$(used "$p"); r1=$(rss "$pid")
	awk -v n="$keys" 'BEGIN {
		for (i = 0; i < n; i++) printf "*3\r\n$7\r\nPEXPIRE\r\n$%d\r\nrate:ip:%d\r\n$4\r\n3000\r\n", length("rate:ip:" i), i
	}' | redis-cli -p "$p" --pipe >/dev/null
	start=$(date +%s.%N)
	while [ "$(redis-cli -p "$p" dbsize)" != 0 ]; do sleep 0.2; done
	gone=$(echo "$(date +%s.%N) - $start" | bc)
	sleep 5 # the runtime gives memory back in the background
	printf '%-10s %14s %14s %12s %15.1fs %18s\n' "$server" "$(per "$u1" "$u0")" "$(per "$r1" "$r0")" "$(mb "$r1")" "$gone" "$(mb "$(rss "$pid")")"
done
