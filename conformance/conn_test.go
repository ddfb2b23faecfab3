package conformance

import "testing"

// TestConnSetInfo: Redis 7.0 has no CLIENT SETINFO (it came in 7.2), so
// floodgate refuses it with Redis's error, and neither COMMAND nor CLIENT
// HELP lists it. Clients of 7.2 (go-redis 9, redis-py 5) send it on connect
// and ignore the error.
func TestConnSetInfo(t *testing.T) {
	runCases(t, []tcase{
		{"setinfo", []string{
			"CLIENT SETINFO lib-name x", "CLIENT SETINFO lib-ver 1.0", "client setinfo LIB-NAME x",
			"CLIENT SETINFO", "CLIENT SETINFO lib-name", "CLIENT SETINFO lib-name a b", `CLIENT SETINFO lib-name "a b"`,
			"CLIENT SETINFO nosuch x",
			"COMMAND INFO client|setinfo", "COMMAND DOCS client|setinfo", "COMMAND LIST FILTERBY PATTERN client|set*",
			"CLIENT HELP",
		}},
	})
}
