#!/usr/bin/env bash
# memory-side-by-side.sh: INFO used_memory per element, redis-server and
# floodgate (built from this tree) in one run, for every collection row of
# BENCHMARKS.md: integer sets (an intset up to 512), a rate limiter's hash
# ("10.0.<a>.<b>" -> "<i % 100>"), lists, hashes and sorted sets of
# "<ms>-<i>", and sets of such strings; keys of 10, 100 and 10,000
# elements, about 100,000 elements per size (lib.sh's measure). Keys are
# k0, k1, ... or PREFIX0, PREFIX1, ... (PREFIX=setkey: for longer names).
# Usage: [PREFIX=p] scripts/memory-side-by-side.sh [kind ...]   (ports 7481, 7482)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh
export PREFIX=${PREFIX:-k}
export KEY0=${PREFIX}0
start_redis 7481
start_floodgate 7482
wait_ping 7481 7482
# Each generator prints one command a key: GENERATOR KEYS SIZE.
intsets() { awk -v keys="$1" -v size="$2" -v p="$PREFIX" 'BEGIN { for (k = 0; k < keys; k++) { line = "SADD " p k; for (i = 0; i < size; i++) line = line " " (1000000 + i * 7); print line } }'; }
iphash() { awk -v keys="$1" -v size="$2" -v p="$PREFIX" 'BEGIN { for (k = 0; k < keys; k++) { line = "HSET " p k; for (i = 0; i < size; i++) line = line " 10.0." int(i / 256) "." (i % 256) " " (i % 100); print line } }'; }
lists() { awk -v keys="$1" -v size="$2" -v p="$PREFIX" 'BEGIN { for (k = 0; k < keys; k++) { line = "RPUSH " p k; for (i = 0; i < size; i++) line = line " " sprintf("%.0f", 1700000000000 + i) "-" i; print line } }'; }
hashes() { awk -v keys="$1" -v size="$2" -v p="$PREFIX" 'BEGIN { for (k = 0; k < keys; k++) { line = "HSET " p k; for (i = 0; i < size; i++) { ms = sprintf("%.0f", 1700000000000 + i); line = line " " ms "-" i " " ms }; print line } }'; }
zsets() { awk -v keys="$1" -v size="$2" -v p="$PREFIX" 'BEGIN { for (k = 0; k < keys; k++) { line = "ZADD " p k; for (i = 0; i < size; i++) { ms = sprintf("%.0f", 1700000000000 + i); line = line " " ms " " ms "-" i }; print line } }'; }
strsets() { awk -v keys="$1" -v size="$2" -v p="$PREFIX" 'BEGIN { for (k = 0; k < keys; k++) { line = "SADD " p k; for (i = 0; i < size; i++) line = line " " sprintf("%.0f", 1700000000000 + i) "-" i; print line } }'; }
printf '%-9s %-6s %12s %12s %6s\n' kind size "redis B/el" "floodgate" ratio
for kind in "${@:-intsets iphash lists hashes zsets strsets}"; do
	for k in $kind; do
		for size in 10 100 10000; do
			r=$(measure 7481 "$size" "$k" | awk '{print $4}')
			f=$(measure 7482 "$size" "$k" | awk '{print $4}')
			printf '%-9s %-6s %12s %12s %6s\n' "$k" "$size" "$r" "$f" "$(awk -v r="$r" -v f="$f" 'BEGIN {printf "%.2f", f / r}')"
		done
	done
done
