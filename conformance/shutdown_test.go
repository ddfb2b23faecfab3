package conformance

import "testing"

// TestShutdownErrors: SHUTDOWN's refusals, which leave both servers up
// (failover/shutdown_test.go runs the shutdowns themselves, with
// replicas), and the shutdown settings: shutdown-on-sigterm and
// shutdown-on-sigint take several words (config.c's bit-flag enums,
// printed in the table's order), never SAVE with NOSAVE; shutdown-timeout
// is an integer from 0.
func TestShutdownErrors(t *testing.T) {
	runCases(t, []tcase{
		{"syntax", []string{
			"SHUTDOWN BOGUS", "SHUTDOWN SAVE NOSAVE", "SHUTDOWN NOSAVE NOW SAVE", "SHUTDOWN ABORT NOW",
			"SHUTDOWN NOW ABORT", "SHUTDOWN FORCE ABORT", "SHUTDOWN ABORT SAVE", "SHUTDOWN NOW NOW BOGUS", "PING",
		}},
		{"abort-with-none", []string{"SHUTDOWN ABORT", "shutdown abort", "SHUTDOWN ABORT ABORT", "PING"}},
		{"not-in-multi-or-script", []string{
			"MULTI", "SHUTDOWN", "SHUTDOWN ABORT", "EXEC",
			`EVAL "return redis.call('SHUTDOWN')" 0`, `EVAL "return redis.pcall('SHUTDOWN', 'ABORT')" 0`, "PING",
		}},
		{"on-signal-settings", []string{
			"CONFIG SET shutdown-on-sigterm save", "CONFIG GET shutdown-on-sigterm",
			`CONFIG SET shutdown-on-sigterm "force now save"`, "CONFIG GET shutdown-on-sigterm",
			`CONFIG SET shutdown-on-sigterm "NOW default"`, "CONFIG GET shutdown-on-sigterm",
			`CONFIG SET shutdown-on-sigterm "now now"`, "CONFIG GET shutdown-on-sigterm",
			`CONFIG SET shutdown-on-sigterm "save nosave"`, `CONFIG SET shutdown-on-sigterm "nosave bogus"`,
			`CONFIG SET shutdown-on-sigterm ""`, "CONFIG GET shutdown-on-sigterm",
			`CONFIG SET shutdown-on-sigint "nosave force"`, "CONFIG GET shutdown-on-sigint",
			"CONFIG SET shutdown-on-sigint default", "CONFIG GET shutdown-on-sigint", "CONFIG GET shutdown-on-sigterm",
			"CONFIG SET shutdown-on-sigterm default", "CONFIG GET shutdown-on-sigint", "CONFIG GET shutdown-on-sigterm",
		}},
		{"timeout-setting", []string{
			"CONFIG SET shutdown-timeout 0", "CONFIG GET shutdown-timeout", "CONFIG SET shutdown-timeout -1",
			"CONFIG SET shutdown-timeout x", "CONFIG SET shutdown-timeout 2147483648", "CONFIG SET shutdown-timeout 3",
			"CONFIG GET shutdown-timeout", "CONFIG SET shutdown-timeout 10",
		}},
	})
}
