#!/usr/bin/env bash
# zset-memory.sh: bytes per sorted-set member in real Redis, for the
# sliding-window data of BENCHMARKS.md ("## Sorted sets"): keys of N members
# "<ms>-<seq>" scored <ms>, about 100,000 members per size.
# Usage: scripts/zset-memory.sh [port]   (starts and stops its own redis-server)
set -euo pipefail
port=${1:-7431}
source "$(dirname "$0")/lib.sh"
start_redis "$port"
wait_ping "$port"
# zadds KEYS SIZE: a ZADD of SIZE members "<ms>-<i>" scored <ms> per key.
zadds() {
	awk -v keys="$1" -v size="$2" 'BEGIN {
		for (k = 0; k < keys; k++) {
			line = "ZADD k" k
			for (i = 0; i < size; i++) { ms = sprintf("%.0f", 1700000000000 + i); line = line " " ms " " ms "-" i }
			print line
		}
	}'
}

printf '%-8s %-8s %-10s %-14s %s\n' size keys members "B/member" encoding
for size in 10 100 10000; do
	measure "$port" "$size" zadds
done
