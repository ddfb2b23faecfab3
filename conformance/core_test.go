package conformance

import "testing"

func TestCore(t *testing.T) {
	runCases(t, []tcase{
		{"ping", []string{"PING", "PING hello", "PING a b", "ping"}},
		{"echo", []string{"ECHO hi", "ECHO", "ECHO a b", `ECHO "with space"`}},
		{"unknown", []string{"NOSUCH", "NOSUCH a b c", `nosuch "x\ny"`}},
		{"select", []string{"SELECT 1", "SELECT 16", "SELECT -1", "SELECT x", "SELECT"}},
		{"incr", []string{"INCR n", "INCR n", "GET n", "DEL n", "GET n"}},
	})
}
