#!/usr/bin/env bash
# collection-memory.sh: bytes per element of lists, sets and hashes in real
# Redis, for the per-type memory of BENCHMARKS.md ("## Collections"; sets
# of other shapes: scripts/set-memory.sh): keys of N elements "<ms>-<i>" (a
# hash maps each to "<ms>"), about 100,000 elements per size, each key
# built by one command. hash-ip is a rate limiter's hash: fields
# "10.0.<a>.<b>" (a client's address) mapped to a small counter "<i % 100>".
# Usage: scripts/collection-memory.sh list|set|hash|hash-ip [port]   (starts and
# stops its own redis-server). Sorted sets: scripts/zset-memory.sh.
set -euo pipefail
kind=${1:?usage: $0 list|set|hash|hash-ip [port]}
port=${2:-7432}
case "$kind" in
list) cmd=RPUSH ;; set) cmd=SADD ;; hash | hash-ip) cmd=HSET ;;
*) echo "unknown kind $kind" >&2; exit 2 ;;
esac
source "$(dirname "$0")/lib.sh"
start_redis "$port"
wait_ping "$port"
# adds KEYS SIZE: one $cmd of SIZE elements of the kind asked for per key.
adds() {
	awk -v keys="$1" -v size="$2" -v cmd="$cmd" -v kind="$kind" 'BEGIN {
		for (k = 0; k < keys; k++) {
			line = cmd " k" k
			for (i = 0; i < size; i++) {
				ms = sprintf("%.0f", 1700000000000 + i)
				if (kind == "hash-ip") line = line " 10.0." int(i / 256) "." (i % 256) " " (i % 100)
				else line = line " " ms "-" i
				if (kind == "hash") line = line " " ms
			}
			print line
		}
	}'
}

printf '%-8s %-8s %-10s %-14s %s\n' size keys elements "B/element" encoding
for size in 10 100 10000; do
	measure "$port" "$size" adds
done
