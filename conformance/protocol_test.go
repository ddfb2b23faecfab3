package conformance

import (
	"bytes"
	"io"
	"net"
	"strings"
	"testing"
	"time"
)

// TestProtocolRaw sends raw request bytes (inline commands, malformed
// framing, protocol limits) to both servers, half-closes the connection and
// compares everything each server sends until it closes.
func TestProtocolRaw(t *testing.T) {
	big := strings.Repeat("x", 70<<10)
	cases := []struct{ name, raw string }{
		{"inline", "PING\r\n"},
		{"inline-lf", "PING\nECHO a\n"},
		{"inline-spaces", "  PING   \"a b\"  \r\n"},
		{"inline-quotes", "ECHO 'single \"x\"'\r\nECHO \"tab\\there\"\r\n"},
		{"inline-hex", "ECHO \"a\\x41\"\r\n"},
		{"inline-unbalanced", "PING \"a\r\nPING\r\n"},
		{"inline-unbalanced-single", "PING 'a'b\r\nPING\r\n"},
		{"inline-empty-lines", "\r\n\n  \r\nPING\r\n"},
		{"inline-unknown", "NOSUCH a b\r\n"},
		{"multibulk", "*2\r\n$4\r\nECHO\r\n$3\r\nabc\r\n"},
		{"pipelined", "*1\r\n$4\r\nPING\r\n*1\r\n$4\r\nPING\r\nPING\r\n"},
		{"multibulk-zero", "*0\r\nPING\r\n"},
		{"multibulk-null", "*-1\r\nPING\r\n"},
		{"multibulk-negative", "*-5\r\nPING\r\n"},
		{"multibulk-not-number", "*x\r\nPING\r\n"},
		{"multibulk-too-many", "*3000000000\r\nPING\r\n"},
		{"expected-dollar", "*1\r\nx\r\nPING\r\n"},
		{"bulk-not-number", "*1\r\n$x\r\nPING\r\n"},
		{"bulk-negative", "*1\r\n$-1\r\nPING\r\n"},
		{"bulk-too-big", "*1\r\n$600000000\r\nPING\r\n"},
		{"bulk-bad-crlf", "*1\r\n$4\r\nPINGxx"},
		{"incomplete", "*1\r\n$4\r\nPIN"},
		{"incomplete-after-complete", "PING\r\n*2\r\n$4\r\nECHO\r\n"},
		{"inline-too-big", big},
		{"inline-too-big-after-command", "PING\r\n" + big},
		{"inline-big-but-ok", strings.Repeat("y", 60<<10) + "\r\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			want, got := rawExchange(t, redisAddr, tc.raw), rawExchange(t, floodgateAddr, tc.raw)
			countsMu.Lock()
			counts["(raw protocol)"]++
			countsMu.Unlock()
			if !bytes.Equal(want, got) {
				t.Errorf("%.60q\n%s", tc.raw, replyDiff(want, got))
			}
		})
	}
}

// rawExchange writes raw, half-closes, and returns all the server sent
// before closing the connection.
func rawExchange(t *testing.T, addr, raw string) []byte {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := c.Write([]byte(raw)); err != nil {
		t.Fatal(err)
	}
	c.(*net.TCPConn).CloseWrite()
	out, err := io.ReadAll(c)
	if err != nil && !isReset(err) {
		t.Fatalf("read: %v (after %q)", err, out)
	}
	return out
}

// isReset reports a connection reset: a server that closes with unread
// input (a protocol error) makes the kernel send RST.
func isReset(err error) bool { return strings.Contains(err.Error(), "connection reset") }
