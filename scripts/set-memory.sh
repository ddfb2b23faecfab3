#!/usr/bin/env bash
# set-memory.sh: bytes per set member in real Redis, for BENCHMARKS.md
# ("## Sets"): keys of N members, about 100,000 members per size, in two
# shapes: integers ("<n>", an intset up to 512 members) and strings
# ("10.0.<a>.<b>", an IP address per member: a hashtable in Redis 7.0).
# Usage: scripts/set-memory.sh [port]   (starts and stops its own redis-server)
set -euo pipefail
port=${1:-7432}
dir=$(mktemp -d)
redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no --dir "$dir" --daemonize yes \
	--pidfile "$dir/redis.pid" --logfile "$dir/redis.log" >/dev/null
trap 'kill "$(cat "$dir/redis.pid")"; rm -rf "$dir"' EXIT
cli() { redis-cli -p "$port" "$@"; }
for _ in $(seq 50); do cli ping >/dev/null 2>&1 && break; sleep 0.1; done
used() { cli info memory | awk -F: '/^used_memory:/ {print $2+0}'; }

printf '%-8s %-8s %-8s %-10s %-14s %s\n' shape size keys members "B/member" encoding
for shape in int ip; do
	for size in 10 100 10000; do
		keys=$((100000 / size)); [ "$keys" -lt 10 ] && keys=10
		cli flushall >/dev/null
		before=$(used)
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
		after=$(used)
		members=$((keys * size))
		printf '%-8s %-8s %-8s %-10s %-14s %s\n' "$shape" "$size" "$keys" "$members" \
			"$(awk -v d=$((after - before)) -v m="$members" 'BEGIN {printf "%.1f", d / m}')" "$(cli object encoding k0)"
	done
done
