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

# go test's default 10-minute timeout per package is sized for a quiet
# machine: server's race-detector run takes about 2 minutes there, but a
# loaded 2-core machine (load 20) took it past 10. A hang still ends here.
run() {
	"$GO" test -count=1 -timeout 30m "$@" 2>&1 | tee -a "$log" | grep -v -E '^(PASS|FAIL)$|^\?.*\[no test files\]$|^testing: warning: no tests to run'
	[ "${PIPESTATUS[0]}" -eq 0 ] || status=1
}

run -race ./server/... ./store/... ./internal/... ./rdb/...
run ./luaengine/... ./third_party/... ./ratelimit/... ./cmd/... ./aof/... ./persistence/... ./conformance/...
# The accounting against the heap, which the race detector's allocator
# (no tiny blocks) would not match: once more without it.
run -run '^TestAccountingMatchesHeap$' ./store/

passed=$(grep -c '^ok ' "$log")
failed=$(grep -c -E '^FAIL[[:space:]]' "$log")
if [ "$status" -eq 0 ]; then
	echo "make test: all $passed packages passed in $((SECONDS - start))s (full output: $log)"
else
	echo "make test: $failed of $((passed + failed)) packages FAILED in $((SECONDS - start))s (full output: $log)"
fi
exit "$status"
