#!/usr/bin/env bash
# set-memory.sh: bytes per set member in real Redis, for BENCHMARKS.md
# ("## Collections"): keys of N members, about 100,000 members per size, in two
# shapes: integers ("<n>", an intset up to 512 members) and strings
# ("10.0.<a>.<b>", an IP address per member: a hashtable in Redis 7.0).
# Usage: scripts/set-memory.sh [port]   (starts and stops its own redis-server)
set -euo pipefail
port=${1:-7432}
source "$(dirname "$0")/lib.sh"
start_redis "$port"
wait_ping "$port"
# sadds KEYS SIZE: an SADD of SIZE members of the current shape per key.
sadds() {
	awk -v keys="$1" -v size="$2" -v shape="$shape" 'BEGIN {
		for (k = 0; k < keys; k++) {
			line = "SADD k" k
			for (i = 0; i < size; i++) {
				if (shape == "int") line = line " " (1000000 + i * 7)
				else line = line " 10.0." int(i / 256) "." (i % 256)
			}
			print line
		}
	}'
}

printf '%-8s %-8s %-8s %-10s %-14s %s\n' shape size keys members "B/member" encoding
for shape in int ip; do
	for size in 10 100 10000; do
		measure "$port" "$size" sadds "$(printf '%-8s ' "$shape")"
	done
done
