package conformance

import (
	"regexp"
	"testing"
)

// MONITOR, with a monitor (@2) watching a worker (@1, and @3 where a case
// needs a second). Each line the monitor is sent is read with !monitor,
// which compares it by shape (monitorShape): the time and the client's
// port differ between servers, the rest (database, "lua", the arguments
// as sdscatrepr quotes them, the redactions) must not. A case's other
// connections are opened before MONITOR (@3 PING), so that RESP3's HELLO
// from the harness is not among the lines; withResets ends the monitor
// first. A case ends with a PING of the monitor's own, which reads any
// line still pending in place of +PONG.
func TestMonitor(t *testing.T) {
	runCases(t, withResets([]tcase{
		{"feed", []string{
			"@2 MONITOR", "SET k v", "@2 !monitor", "GET k", "@2 !monitor", `SET "a b\"\\" "\x00\r\n\t\a\b\xff"`,
			"@2 !monitor", "PING", "@2 !monitor", "ECHO 12345", "@2 !monitor", "SELECT 3", "@2 !monitor",
			"SET k 1", "@2 !monitor", "SELECT 0", "@2 !monitor", "@2 PING", "@2 !monitor",
		}},
		{"not-shown", []string{
			// Admin commands, refused ones and queued ones are not shown.
			"@2 MONITOR", "CONFIG GET maxmemory", "NOSUCH x", "GET", "CLIENT NOSUCH", "MONITOR x",
			"ECHO after", "@2 !monitor", "@2 PING", "@2 !monitor",
		}},
		{"scripts", []string{
			"@2 MONITOR", `EVAL "redis.call('set', 'x', 'y'); return redis.call('get', KEYS[1])" 1 x`, "@2 !monitor",
			"@2 !monitor", "@2 !monitor", `EVAL "redis.call('select', 5); return redis.call('incr', 'n')" 0`,
			"@2 !monitor", "@2 !monitor", "@2 !monitor", `EVAL "return 1" -1`, "@2 !monitor", "EVALSHA abc 0",
			"@2 !monitor", `EVAL_RO "return redis.call('get', 'x')" 0`, "@2 !monitor", "@2 !monitor",
			`EVAL "return redis.pcall('nosuch')" 0`, "@2 !monitor", "@2 PING", "@2 !monitor",
		}},
		{"transactions", []string{
			"@3 PING", "@2 MONITOR", "MULTI", "@2 !monitor", "SET a 1", "GET a", "EXEC", "@2 !monitor", "@2 !monitor",
			"@2 !monitor", "MULTI", "@2 !monitor", "NOSUCH", "SET b", "EXEC", "@2 !monitor", "EXEC x", "@2 !monitor",
			"EXEC", "@2 !monitor", "MULTI", "@2 !monitor", "DISCARD", "@2 !monitor",
			`MULTI`, "@2 !monitor", `EVAL "return redis.call('set', 'q', 'r')" 0`, "EXEC", "@2 !monitor",
			"@2 !monitor", "@2 !monitor", "@3 WATCH a", "@2 !monitor", "SET a 2", "@2 !monitor", "@3 MULTI",
			"@2 !monitor", "@3 GET a", "@3 EXEC", "@2 !monitor", "@2 PING", "@2 !monitor",
		}},
		{"monitor-in-multi", []string{
			"@3 PING", "@2 MONITOR", "@3 MULTI", "@2 !monitor", "@3 MONITOR", "@3 EXEC", "@2 !monitor", "@3 SET k v",
			"@2 !monitor", "@2 PING", "@2 !monitor",
		}},
		{"redacted", []string{
			"@3 PING", "@2 MONITOR", "AUTH secret", "@2 !monitor", "AUTH user secret", "@2 !monitor",
			"AUTH a b c", "@2 !monitor", "@3 !type HELLO 2 AUTH default secret", "@2 !monitor",
			"@3 !type HELLO 2 AUTH default secret SETNAME me", "@2 !monitor", "@3 HELLO 2 SETNAME me AUTH someone secret",
			"@2 !monitor", `@3 HELLO 2 SETNAME "bad name" AUTH default secret`, "@2 !monitor",
			"@3 HELLO 9 AUTH default secret", "@2 !monitor", "@3 HELLO 2 NOSUCH AUTH default secret", "@2 !monitor",
			"@3 HELLO 2 AUTH default", "@2 !monitor",
			"MIGRATE 127.0.0.1 1 nokey 0 10 AUTH secret", "@2 !monitor",
			"MIGRATE 127.0.0.1 1 nokey 0 10 COPY AUTH2 user secret REPLACE", "@2 !monitor",
			"MIGRATE 127.0.0.1 1 nokey 0 10 AUTH", "@2 !monitor",
			"MIGRATE 127.0.0.1 1 nokey 0 10 BOGUS AUTH secret", "@2 !monitor",
			`MIGRATE 127.0.0.1 1 "" 0 10 AUTH p1 AUTH2 u p2 KEYS nokey AUTH`, "@2 !monitor",
			"@2 PING", "@2 !monitor",
		}},
		{"monitor-state", []string{
			// A monitor is a replica to Redis: no keyspace commands. A second
			// MONITOR answers nothing. RESET ends monitoring.
			"@3 PING", "@2 MONITOR", "@2 !send MONITOR", "@2 GET k", "@2 SET k v", "@2 EVAL \"return 1\" 0",
			"@2 ECHO hi", "@2 !monitor", "@2 MULTI", "@2 !monitor", "@2 GET k", "@2 EXEC", "@2 !monitor",
			"@3 SET k v", "@2 !monitor", "@2 RESET", "@3 SET k w", "@2 GET k", "@2 PING",
		}},
		{"blocked", []string{
			"@3 PING", "@2 MONITOR", "@3 !send BLPOP q 0", "@2 !monitor", "LPUSH q x", "@2 !monitor",
			"@3 !recv BLPOP", "@3 !send BLPOP q 0.01", "@2 !monitor", "@3 !recv BLPOP", "@2 PING", "@2 !monitor",
		}},
		{"two-monitors", []string{
			"@3 PING", "@2 MONITOR", "@3 MONITOR", "SET k v", "@2 !monitor", "@3 !monitor", "@3 RESET", "@2 !monitor",
			"@2 PING", "@2 !monitor", "@3 PING", "@2 !monitor",
		}},
	}))
}

// monitorLine is a MONITOR line's head: "+<seconds>.<microseconds> [<db>
// <client>] ".
var monitorLine = regexp.MustCompile(`^\+[0-9]+\.[0-9]{6} \[([0-9]+) ([^ \]]+)\] `)

// monitorShape is a MONITOR line with its time dropped and its client
// reduced to what does not depend on the connection: "lua", "unix:<path>"
// or "client".
func monitorShape(raw []byte) string {
	m := monitorLine.FindSubmatchIndex(raw)
	if m == nil {
		return string(raw)
	}
	who := string(raw[m[4]:m[5]])
	switch {
	case who == "lua":
	case len(who) > 5 && who[:5] == "unix:":
	default:
		who = "client"
	}
	return "+T [" + string(raw[m[2]:m[3]]) + " " + who + "] " + string(raw[m[1]:])
}
