package conformance

import "testing"

// TestClientPauseScriptsAndExpiry: under CLIENT PAUSE WRITE, EXEC is held
// back when the transaction queued a script that may write (EVAL and
// EVALSHA without flags, or with flags but no no-writes), as Redis's
// mstate.cmd_flags has it, and runs at once for a no-writes script or
// EVAL_RO; and a key whose time passes during the pause reads as missing
// but is neither deleted (DBSIZE) nor counted in expired_keys until the
// pause is over (expireIfNeeded's checkClientPauseTimeoutAndReturnIfPaused).
// Each pause is short, so a failing case leaves nothing paused.
func TestClientPauseScriptsAndExpiry(t *testing.T) {
	runCases(t, []tcase{
		{"pause-write-exec-eval", []string{
			"SET k 1", "@2 MULTI", `@2 EVAL "return redis.call('GET', 'k')" 0`,
			"@3 MULTI", `@3 EVAL "#!lua\nreturn redis.call('GET', 'k')" 0`,
			"@4 MULTI", "@4 EVALSHA ffffffffffffffffffffffffffffffffffffffff 0",
			"CLIENT PAUSE 5000 WRITE", "@2 !send EXEC", "@3 !send EXEC", "@4 !send EXEC", "!blocked=3", "CLIENT UNPAUSE",
			"@2 !recv EXEC", "@3 !recv EXEC", "@4 !recv EXEC",
		}},
		{"pause-write-exec-no-writes", []string{
			"SET k 1", "@2 MULTI", `@2 EVAL "#!lua flags=no-writes\nreturn redis.call('GET', 'k')" 0`, `@2 EVAL_RO "return redis.call('GET', 'k')" 0`,
			"@2 GET k", "CLIENT PAUSE 5000 WRITE", "@2 EXEC", "CLIENT UNPAUSE",
		}},
		{"pause-write-eval-queued-during-pause", []string{
			// The pause check comes before queueing: the EVAL itself waits.
			"SET k 1", "@2 MULTI", "CLIENT PAUSE 5000 WRITE", `@2 !send EVAL "return redis.call('GET', 'k')" 0`, "!blocked=1",
			"CLIENT UNPAUSE", "@2 !recv EVAL", "@2 EXEC",
		}},
		{"pause-holds-expired-keys", []string{
			// One transaction, so no active expiry runs before the pause;
			// WAIT's timeout (no replicas) lets the key's millisecond pass.
			"MULTI", "SET gone v PX 1", "SET kept v", "CLIENT PAUSE 5000 WRITE", "EXEC",
			"WAIT 1 20",
			"GET gone", "EXISTS gone", "!sort KEYS *", "DBSIZE", "!sort SCAN 0", "RANDOMKEY",
			"CLIENT UNPAUSE", "GET gone", "DBSIZE",
		}},
	})
}
