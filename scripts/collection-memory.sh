#!/usr/bin/env bash
# collection-memory.sh: bytes per element of lists, sets and hashes in real
# Redis, for the memory table of BENCHMARKS.md ("## Lists and hashes"; sets
# of other shapes: scripts/set-memory.sh): keys of N elements "<ms>-<i>" (a
# hash maps each to "<ms>"), about 100,000 elements per size, each key
# built by one command.
# Usage: scripts/collection-memory.sh list|set|hash [port]   (starts and
# stops its own redis-server). Sorted sets: scripts/zset-memory.sh.
set -euo pipefail
kind=${1:?usage: $0 list|set|hash [port]}
port=${2:-7432}
case "$kind" in
list) cmd=RPUSH ;; set) cmd=SADD ;; hash) cmd=HSET ;;
*) echo "unknown kind $kind" >&2; exit 2 ;;
esac
dir=$(mktemp -d)
redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no --dir "$dir" --daemonize yes \
	--pidfile "$dir/redis.pid" --logfile "$dir/redis.log" >/dev/null
trap 'kill "$(cat "$dir/redis.pid")"; rm -rf "$dir"' EXIT
cli() { redis-cli -p "$port" "$@"; }
for _ in $(seq 50); do cli ping >/dev/null 2>&1 && break; sleep 0.1; done
used() { cli info memory | awk -F: '/^used_memory:/ {print $2+0}'; }

printf '%-8s %-8s %-10s %-14s %s\n' size keys elements "B/element" encoding
for size in 10 100 10000; do
	keys=$((100000 / size)); [ "$keys" -lt 10 ] && keys=10
	cli flushall >/dev/null
	before=$(used)
	awk -v size="$size" -v keys="$keys" -v cmd="$cmd" -v hash="$([ "$kind" = hash ] && echo 1 || echo 0)" 'BEGIN {
		for (k = 0; k < keys; k++) {
			line = cmd " k" k
			for (i = 0; i < size; i++) {
				ms = sprintf("%.0f", 1700000000000 + i)
				line = line " " ms "-" i
				if (hash) line = line " " ms
			}
			print line
		}
	}' | cli >/dev/null
	after=$(used)
	elements=$((keys * size))
	printf '%-8s %-8s %-10s %-14s %s\n' "$size" "$keys" "$elements" \
		"$(awk -v d=$((after - before)) -v m="$elements" 'BEGIN {printf "%.1f", d / m}')" "$(cli object encoding k0)"
done
