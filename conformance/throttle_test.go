package conformance

import "testing"

// CL.THROTTLE is redis-cell's command, a module the reference Redis does not
// load, so its replies are golden-tested against redis-cell's own vectors in
// server/cmd_throttle_test.go. Here it runs on both servers (marked known)
// and what is comparable is compared: that failed calls leave the keyspace
// as Redis's unknown command does, and a transaction it aborts.
func TestThrottle(t *testing.T) {
	const known = "!known=CL.THROTTLE-is-a-redis-cell-module-command "
	runCases(t, []tcase{
		{"no-such-command-in-redis", []string{
			known + "CL.THROTTLE user123 15 30 60", known + "COMMAND INFO cl.throttle",
			known + "COMMAND GETKEYS CL.THROTTLE user123 15 30 60", known + "CONFIG GET limiter-prefix-delimiter",
			known + "INFO limiter", "!type COMMAND COUNT",
		}},
		{"errors-leave-no-key", []string{
			known + "CL.THROTTLE k", known + "CL.THROTTLE k 15 30", known + "CL.THROTTLE k 15 30 60 1 2",
			known + "CL.THROTTLE k x 30 60", known + "CL.THROTTLE k 15 0 60", known + "CL.THROTTLE k 15 30 0",
			known + "CL.THROTTLE k -1 30 60", known + "CL.THROTTLE k 15 30 60 -1",
			"DBSIZE", "EXISTS k", "SCAN 0",
		}},
		{"wrong-type-untouched", []string{
			"HSET h f v", known + "CL.THROTTLE h 15 30 60", "HGETALL h", "TYPE h", "TTL h",
			"SET s abc", known + "CL.THROTTLE s 15 30 60", "GET s", "TTL s",
		}},
		{"aborts-a-transaction", []string{
			"MULTI", "SET a 1", known + "CL.THROTTLE k 15 30", "EXEC", "DBSIZE", "EXISTS a",
		}},
		{"from-a-script", []string{
			known + `EVAL "return redis.pcall('CL.THROTTLE', KEYS[1], 'x', 30, 60)" 1 k`,
			`EVAL "return redis.call('EXISTS', KEYS[1])" 1 k`,
		}},
	})
}
