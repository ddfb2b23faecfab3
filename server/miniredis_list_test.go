package server

import (
	"bufio"
	"os"
	"strings"
	"testing"
)

// miniredisPending are miniredis's commands floodgate does not have yet,
// each with why. The list only shrinks.
var miniredisPending = map[string]string{
	// Newer than Redis 7.0, which floodgate follows: miniredis registers
	// them for Redis 7.4 (HEXPIRE) and Redis 8.4 (DELEX) users; Redis
	// 7.0.15 answers them as unknown commands, and so does floodgate.
	"HEXPIRE": "Redis 7.4, not in 7.0",
	"DELEX":   "Redis 8.4, not in 7.0",
}

// TestMiniredisCommands fails when floodgate's command table lacks a
// command miniredis registers (testdata/miniredis_commands.txt), unless it
// is pending, and when a pending one has been built (then take it off the
// list).
func TestMiniredisCommands(t *testing.T) {
	initCommandTable()
	f, err := os.Open("testdata/miniredis_commands.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		name := strings.TrimSpace(sc.Text())
		if name == "" || strings.HasPrefix(name, "#") {
			continue
		}
		n++
		have := commandTable.lookup([]byte(strings.ToLower(name))) != nil
		why, pending := miniredisPending[name]
		switch {
		case !have && !pending:
			t.Errorf("miniredis has %s, floodgate does not", name)
		case have && pending:
			t.Errorf("%s is built: take it off miniredisPending (%s)", name, why)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if n < 150 {
		t.Fatalf("read %d commands from the list, expected miniredis's ~190", n)
	}
}
