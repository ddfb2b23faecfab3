#!/usr/bin/env bash
# set-memory.sh: bytes per set member in real Redis, for BENCHMARKS.md
# ("## Sets"): keys of N members, about 100,000 members per size, in two
# shapes: integers ("<n>", an intset up to 512 members) and strings
# ("10.0.<a>.<b>", an IP address per member: a hashtable in Redis 7.0).
# Usage: scripts/set-memory.sh [port]   (starts and stops its own redis-server)
set -euo pipefail
port=${1:-7432}
source "$(dirname "$0")/lib.sh"
dir=$(mktemp -d)
trap stop_servers EXIT
start_redis "$port"
wait_ping "$port"
cli() { redis-cli -p "$port" "$@"; }

printf '%-8s %-8s %-8s %-10s %-14s %s\n' shape size keys members "B/member" encoding
for shape in int ip; do
	for size in 10 100 10000; do
		keys=$((100000 / size)); [ "$keys" -lt 10 ] && keys=10
		cli flushall >/dev/null
		before=$(used "$port")
		awk -v size="$size" -v keys="$keys" -v shape="$shape" 'BEGIN {
			for (k = 0; k < keys; k++) {
				line = "SADD k" k
				for (i = 0; i < size; i++) {
					if (shape == "int") line = line " " (1000000 + i * 7)
					else line = line " 10.0." int(i / 256) "." (i % 256)
				}
				print line
			}
		}' | cli >/dev/null
		after=$(used "$port")
		members=$((keys * size))
		printf '%-8s %-8s %-8s %-10s %-14s %s\n' "$shape" "$size" "$keys" "$members" \
			"$(awk -v d=$((after - before)) -v m="$members" 'BEGIN {printf "%.1f", d / m}')" "$(cli object encoding k0)"
	done
done
