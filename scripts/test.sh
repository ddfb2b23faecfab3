#!/usr/bin/env bash
# make test: every package once, one line each ("ok", "FAIL" or "no test
# files"), a failing test's own short output, then a one-line summary. The
# whole output is kept in .test.log. server, store, internal and rdb run
# under the race detector (store and rdb once more without it); conformance compares with a real redis-server.
set -uo pipefail
GO=${GO:-go}
log=.test.log
: >"$log"
status=0
start=$SECONDS

# Each line's -timeout is at least five times what its slowest package takes
# on a quiet 2-core machine, so a loaded machine has room and a hung test
# still ends in minutes (go test's -timeout applies to each package's test
# binary). Quiet-machine times: server about 2 min under the race detector
# (store 20 s), conformance and persistence 45 s each (cmd 20 s,
# ratelimit 12 s, luaengine 5 s); all but server's scaled down from runs at
# load 10-20, which took 2-2.5 times as long.
#
# The two lines run at the same time: the race line computes (the race
# detector), the other mostly waits (round trips to redis-server, sentinel
# timeouts, child processes), so together they keep both cores busy where
# one after the other left one idle. Each line's output is printed whole
# when it ends, the race line's first.
#
# -parallel 4: go test runs at most GOMAXPROCS (2 here) of a package's
# parallel tests at once by default, and most of those wait (round trips,
# a child's start, a timeout) more than they compute. The server's 35
# parallel tests took 240 s at -parallel 2 and 54 s at 4 (at load 6),
# 148 s at 4 and 131 s at 8 at another moment, with the same CPU time; the
# whole package 100 s at 4 alone (load 5-8), 206 s at 2 beside the other
# line. -p 4 on the second line: its packages wait on servers and child
# processes more than they compute (55 s of CPU in 69 s alone), and two at
# a time left conformance's 50 s behind the others' (make test 77-78 s
# with builds cached, 82 s at -p 2).
run() {
	local out=$1
	shift
	"$GO" test -count=1 "$@" >"$out" 2>&1
	echo $? >"$out.status"
}
show() {
	cat "$1" >>"$log"
	grep -v -E '^(PASS|FAIL)$|^\?.*\[no test files\]$|^testing: warning: no tests to run' "$1"
	[ "$(cat "$1.status")" -eq 0 ] || status=1
	rm -f "$1" "$1.status"
}

race=$(mktemp) plain=$(mktemp)
trap 'kill $(jobs -p) 2>/dev/null; rm -f "$race"* "$plain"*' INT TERM
run "$race" -timeout 15m -parallel 4 -race ./server/... ./store/... ./internal/... ./rdb/... &
# store and rdb once more without the race detector: their model tests,
# which run on one goroutine, skip under it (redistest.SkipUnderRace), and
# the accounting against the heap, which the race detector's allocator (no
# tiny blocks) would not match, runs only here.
run "$plain" -timeout 6m -p 4 -parallel 4 ./luaengine/... ./third_party/... ./ratelimit/... ./cmd/... ./aof/... ./persistence/... ./failover/... ./conformance/... \
	./metrics/... ./replication/... ./store/ ./rdb/ &
wait
show "$race"
show "$plain"

passed=$(grep -c '^ok ' "$log")
failed=$(grep -c -E '^FAIL[[:space:]]' "$log")
if [ "$status" -eq 0 ]; then
	echo "make test: all $passed packages passed in $((SECONDS - start))s (full output: $log)"
else
	echo "make test: $failed of $((passed + failed)) packages FAILED in $((SECONDS - start))s (full output: $log)"
fi
exit "$status"
