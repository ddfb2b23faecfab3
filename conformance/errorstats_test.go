package conformance

import "testing"

// TestErrorstats compares INFO errorstats (errorstat_<PREFIX>:count=N,
// Redis 7.0.15's afterErrorReply) after errors of every origin: arity,
// unknown command, a handler's, EXEC's queued commands and EXECABORT,
// scripts (error_reply, redis.call); CONFIG RESETSTAT clears it. The
// errors of scripts' commands, with commandstats, are TestErrorCounting's.
func TestErrorstats(t *testing.T) {
	runCases(t, []tcase{
		{"errorstats", []string{
			"CONFIG RESETSTAT", "INFO errorstats",
			"GET", "NOSUCHCMD x", "SET k v", "LPUSH k x", "INCR k", "EVALSHA ffffffffffffffffffffffffffffffffffffffff 0",
			"INFO errorstats",
			`EVAL "return redis.error_reply('My Error')" 0`, `EVAL "return {err='NOSPACEINTHISERROR'}" 0`,
			`EVAL "return redis.call('lpush', KEYS[1], 'x')" 1 k`,
			"INFO errorstats",
			"MULTI", "LPUSH k x", "INCR k", "EXEC", "MULTI", "NOSUCH", "EXEC",
			"INFO errorstats", "CONFIG RESETSTAT", "INFO errorstats",
		}},
	})
}

// TestTotalErrorReplies: total_error_replies counts the same replies.
func TestTotalErrorReplies(t *testing.T) {
	lines := []string{"GET", "NOSUCHCMD x", "SET k v", "LPUSH k x", `EVAL "return redis.error_reply('My Error')" 0`,
		`EVAL "return redis.call('lpush', KEYS[1], 'x')" 1 k`, "MULTI", "LPUSH k x", "EXEC"}
	want := dirtyLikeDelta(t, redisAddr, lines)
	for _, addr := range floodgates() {
		if got := dirtyLikeDelta(t, addr, lines); got != want {
			t.Errorf("%s: total_error_replies %d, Redis %d", transportName(addr), got, want)
		}
	}
}

// dirtyLikeDelta runs lines after CONFIG RESETSTAT on one connection and
// returns total_error_replies.
func dirtyLikeDelta(t *testing.T, addr string, lines []string) int {
	t.Helper()
	c, err := dialRaw(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.close()
	for _, line := range append([]string{"FLUSHALL", "CONFIG RESETSTAT"}, lines...) {
		args, err := splitArgs(line)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := c.do(args...); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
	}
	info, err := c.do("INFO", "stats")
	if err != nil {
		t.Fatal(err)
	}
	return infoField(t, string(info), "total_error_replies")
}
