package conformance

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// TestScriptingBusy compares, byte for byte, how Redis and floodgate (over
// TCP, where the event loop serves clients, and over Dial, where a
// goroutine does) answer while a script runs past lua-time-limit: in the
// order of processCommand, with the allow-busy commands run at once, and
// SCRIPT KILL ending the script with its error.
func TestScriptingBusy(t *testing.T) {
	ask := []string{
		"NOSUCHCMD a", "GET", "SCRIPT BOGUS", "PING", "SET k v", "MULTI", "NOSUCH", "EXEC",
		"MULTI", "GET a", "WATCH x", "EXEC", "MULTI", "DISCARD", "WATCH a", "UNWATCH", "SCRIPT KILL",
	}
	want := busyExchange(t, redisAddr, ask)
	for _, addr := range floodgates() {
		if got := busyExchange(t, addr, ask); !bytes.Equal(want, got) {
			t.Errorf("while busy:\n  redis:     %q\n  %s: %q", want, transportName(addr), got)
		}
	}
	countsMu.Lock()
	counts["(busy script)"] += len(ask)
	countsMu.Unlock()
}

// busyExchange runs an endless script on one connection of addr, waits
// until another is answered BUSY, sends the lines on a third (pipelined,
// as one write) and returns their replies followed by the script's.
func busyExchange(t *testing.T, addr string, lines []string) []byte {
	t.Helper()
	var conns []*rawConn
	for range 3 {
		c, err := dialRaw(addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.close()
		conns = append(conns, c)
	}
	runner, probe, asker := conns[0], conns[1], conns[2]
	if reply, err := probe.do("CONFIG", "SET", "lua-time-limit", "10"); err != nil || string(reply) != "+OK\r\n" {
		t.Fatalf("CONFIG SET lua-time-limit: %q %v", reply, err)
	}
	if err := runner.send("EVAL", "while true do end", "0"); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Minute)
	for {
		reply, err := probe.do("PING")
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(string(reply), "-BUSY") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: no BUSY within a minute (last reply %q)", addr, reply)
		}
		time.Sleep(2 * time.Millisecond) // polling interval, bounded by the deadline
	}
	var req bytes.Buffer
	for _, line := range lines {
		args, err := splitArgs(line)
		if err != nil {
			t.Fatal(err)
		}
		req.WriteString(multibulk(args))
	}
	if err := asker.sendRaw(req.Bytes()); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	for range lines {
		reply, err := asker.read()
		if err != nil {
			t.Fatalf("%s: %v after %q", addr, err, out.Bytes())
		}
		out.Write(reply)
	}
	reply, err := runner.read()
	if err != nil {
		t.Fatalf("%s: the script's reply: %v", addr, err)
	}
	out.Write(reply)
	probe.do("CONFIG", "SET", "lua-time-limit", "5000")
	return out.Bytes()
}
