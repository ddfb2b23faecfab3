#!/usr/bin/env bash
# zset-memory.sh: bytes per sorted-set member in real Redis, for the
# sliding-window data of BENCHMARKS.md ("## Sorted sets"): keys of N members
# "<ms>-<seq>" scored <ms>, about 100,000 members per size.
# Usage: scripts/zset-memory.sh [port]   (starts and stops its own redis-server)
set -euo pipefail
port=${1:-7431}
dir=$(mktemp -d)
redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no --dir "$dir" --daemonize yes \
	--pidfile "$dir/redis.pid" --logfile "$dir/redis.log" >/dev/null
trap 'kill "$(cat "$dir/redis.pid")"; rm -rf "$dir"' EXIT
cli() { redis-cli -p "$port" "$@"; }
for _ in $(seq 50); do cli ping >/dev/null 2>&1 && break; sleep 0.1; done
used() { cli info memory | awk -F: '/^used_memory:/ {print $2+0}'; }

printf '%-8s %-8s %-10s %-14s %s\n' size keys members "B/member" encoding
for size in 10 100 10000; do
	keys=$((100000 / size)); [ "$keys" -lt 10 ] && keys=10
	cli flushall >/dev/null
	before=$(used)
	awk -v size="$size" -v keys="$keys" 'BEGIN {
		for (k = 0; k < keys; k++) {
			line = "ZADD k" k
			for (i = 0; i < size; i++) { ms = sprintf("%.0f", 1700000000000 + i); line = line " " ms " " ms "-" i }
			print line
		}
	}' | cli >/dev/null
	after=$(used)
	members=$((keys * size))
	printf '%-8s %-8s %-10s %-14s %s\n' "$size" "$keys" "$members" \
		"$(awk -v d=$((after - before)) -v m="$members" 'BEGIN {printf "%.1f", d / m}')" "$(cli object encoding k0)"
done
