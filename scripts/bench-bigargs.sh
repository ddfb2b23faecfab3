#!/usr/bin/env bash
# bench-bigargs.sh: commands with huge arguments, redis-server and floodgate
# (built from this tree) side by side in one run, over TCP: a 1M-argument
# RPUSH, SADD, HSET, MSET, DEL, MGET, EXISTS and UNLINK (of the keys a
# 1M-argument MSET made), SREM and HDEL of what SADD and HSET added, a
# SUNION of 1M missing keys, a 200 MB SET and RPUSH, a ZADD of 500,000
# pairs, an EVAL with 1M ARGV, an RPUSH of ten 20 MB values (PUSH20MBx10)
# and a SUNIONSTORE d k k of a 1M-member set. A workload's setup runs first,
# then the timed request once the server is idle.
# ONLY= picks the workloads whose name contains it. Each run gets a fresh server. Prints, per workload and
# server, the median of REPS runs of the wall time (first byte sent to
# reply read), the server's peak resident set, its resident set after and
# 3 s later (settled, -settle).
#
#   scripts/bench-bigargs.sh            # REPS=3
#   REPS=5 ONLY=SET scripts/bench-bigargs.sh
#   PORT=27490 scripts/bench-bigargs.sh   # every server on this port
set -euo pipefail
cd "$(dirname "$0")/.."
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
go build -o "$dir/floodgate" ./cmd/floodgate
nice go run ./scripts/bigargs -reps "${REPS:-3}" -only "${ONLY:-}" -port "${PORT:-0}" \
	"redis=redis-server --port {port} --bind 127.0.0.1 --save '' --appendonly no --dir $dir" \
	"floodgate=$dir/floodgate --port {port} --bind 127.0.0.1 --save '' --appendonly no --dir $dir"
