#!/usr/bin/env bash
# make test: every package once, one line each ("ok", "FAIL" or "no test
# files"), a failing test's own short output, then a one-line summary. The
# whole output is kept in .test.log. server, store and internal run under
# the race detector; conformance compares with a real redis-server.
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
# (store 1 min, rdb 35 s), conformance and persistence 45 s each (cmd 20 s,
# ratelimit 12 s, luaengine 5 s), the accounting run 1 s; all but server's
# scaled down from runs at load 10-20, which took 2-2.5 times as long.
run() {
	"$GO" test -count=1 "$@" 2>&1 | tee -a "$log" | grep -v -E '^(PASS|FAIL)$|^\?.*\[no test files\]$|^testing: warning: no tests to run'
	[ "${PIPESTATUS[0]}" -eq 0 ] || status=1
}

run -timeout 15m -race ./server/... ./store/... ./internal/... ./rdb/...
run -timeout 6m ./luaengine/... ./third_party/... ./ratelimit/... ./cmd/... ./aof/... ./persistence/... ./failover/... ./conformance/... \
	./metrics/... ./replication/...
# The accounting against the heap, which the race detector's allocator
# (no tiny blocks) would not match: once more without it.
run -timeout 1m -run '^TestAccountingMatchesHeap$' ./store/

passed=$(grep -c '^ok ' "$log")
failed=$(grep -c -E '^FAIL[[:space:]]' "$log")
if [ "$status" -eq 0 ]; then
	echo "make test: all $passed packages passed in $((SECONDS - start))s (full output: $log)"
else
	echo "make test: $failed of $((passed + failed)) packages FAILED in $((SECONDS - start))s (full output: $log)"
fi
exit "$status"
