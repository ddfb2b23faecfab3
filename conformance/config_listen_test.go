package conformance

import (
	"fmt"
	"net"
	"testing"
	"time"
)

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

// TestConfigSetBindNone: bind "" is no address (setConfigBindOption), so
// the TCP sockets close and no new client can connect, while connections
// already open are served; a bind address opens them again.
func TestConfigSetBindNone(t *testing.T) {
	results := map[string]string{}
	for _, addr := range append([]string{redisAddr}, floodgates()...) {
		if transportName(addr) == "floodgate over Dial" {
			continue // Dial needs no socket
		}
		results[addr] = bindNone(t, addr)
	}
	for addr, got := range results {
		if got != results[redisAddr] {
			t.Errorf("%s:\n got: %s\nwant: %s", transportName(addr), got, results[redisAddr])
		}
	}
	if want := `"" -> "+OK\r\n" get "*2\r\n$4\r\nbind\r\n$0\r\n\r\n" ping "+PONG\r\n" dial:refused back "+OK\r\n" dial:ok`; results[redisAddr] != want {
		t.Errorf("Redis: %s", results[redisAddr])
	}
}

func bindNone(t *testing.T, addr string) string {
	c, err := dialRaw(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.close()
	host, _, _ := net.SplitHostPort(addr)
	do := func(args ...string) string {
		r, err := c.do(args...)
		if err != nil {
			t.Fatal(err)
		}
		return fmt.Sprintf("%q", r)
	}
	dial := func() string {
		nc, err := net.DialTimeout("tcp", addr, 5*time.Second)
		if err != nil {
			return "refused"
		}
		nc.Close()
		return "ok"
	}
	out := `"" -> ` + do("CONFIG", "SET", "bind", "")
	out += " get " + do("CONFIG", "GET", "bind")
	out += " ping " + do("PING")
	out += " dial:" + dial()
	out += " back " + do("CONFIG", "SET", "bind", host)
	return out + " dial:" + dial()
}
