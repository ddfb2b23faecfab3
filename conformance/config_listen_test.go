package conformance

import "testing"

// TestConfigSetBindRebinds: CONFIG SET bind closes the old sockets before
// it opens the new ones, so the value in effect and a set that overlaps it
// are applied, and one that cannot be bound is refused and the old set
// serves again. (The servers' own ports differ, so CONFIG SET port to its
// value is in server/listen_rebind_test.go; 0.0.0.0 and "* -::*" take the
// same path but would listen beyond loopback, which the tests do not.)
func TestConfigSetBindRebinds(t *testing.T) {
	runCases(t, []tcase{
		{"bind", []string{
			"CONFIG SET bind 127.0.0.1", "CONFIG GET bind", "PING",
			`CONFIG SET bind "127.0.0.1 127.0.0.2"`, "CONFIG GET bind", "PING",
			`CONFIG SET bind "127.0.0.2 127.0.0.1"`, "CONFIG GET bind",
			`CONFIG SET bind "127.0.0.1 192.0.2.1"`, "CONFIG GET bind", "PING",
			`CONFIG SET bind "127.0.0.1 -192.0.2.1"`, "CONFIG GET bind",
			"CONFIG SET bind 127.0.0.1", "CONFIG GET bind",
		}},
	})
}
