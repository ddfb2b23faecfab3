package conformance

import (
	"bytes"
	"io"
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
		// sdssplitargs's corners (internal/argline has the full table).
		{"inline-quote-mid-word", "ECHO a\"b c\"\r\nECHO a'b\\'c'\r\n"},
		{"inline-quote-then-word", "ECHO \"a\"b\r\nPING\r\n"},
		{"inline-quote-then-vtab", "ECHO \"a\"\v\r\nECHO 'a'\f\r\n"},
		{"inline-vtab-in-word", "ECHO a\vb\r\nECHO \va\r\n"},
		{"inline-bad-hex", "ECHO \"\\xZZ\\x4\\x\"\r\n"},
		{"inline-escapes", "ECHO \"\\n\\r\\t\\b\\a\\z\\\"\\\\\"\r\nECHO '\\n\\''\r\n"},
		{"inline-backslash-at-end", "ECHO \"a\\\r\nPING\r\n"},
		{"inline-single-backslash-quote-at-end", "ECHO 'a\\'\r\nPING\r\n"},
		// Redis finds the end of an inline line with strchr: a NUL hides
		// the newline, and the request waits until it is too big.
		{"inline-nul", "ECHO a\x00b c\r\nPING\r\n"},
		{"inline-nul-in-quotes", "ECHO \"a\x00b\"\r\nPING\r\n"},
		{"inline-nul-too-big", "ECHO a\x00\r\n" + big},
		{"inline-nul-after-line", "PING\r\n\x00\r\nPING\r\n"},
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
		// string2ll: no leading zero, sign or space in a length.
		{"multibulk-leading-zero", "*01\r\n$4\r\nPING\r\n"},
		{"multibulk-minus-zero", "*-0\r\nPING\r\n"},
		{"multibulk-plus", "*+1\r\n$4\r\nPING\r\n"},
		{"bulk-leading-zero", "*1\r\n$04\r\nPING\r\n"},
		{"bulk-minus-zero", "*1\r\n$-0\r\nPING\r\n"},
		{"bulk-plus", "*1\r\n$+4\r\nPING\r\n"},
		{"bulk-trailing-space", "*1\r\n$4 \r\nPING\r\n"},
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
			want := rawExchange(t, redisAddr, tc.raw)
			countsMu.Lock()
			counts["(raw protocol)"]++
			countsMu.Unlock()
			for _, addr := range floodgates() {
				if got := rawExchange(t, addr, tc.raw); !bytes.Equal(want, got) {
					t.Errorf("%.60q over %s\n%s", tc.raw, transportName(addr), replyDiff(want, got))
				}
			}
		})
	}
}

// rawExchange writes raw, half-closes, and returns all the server sent
// before closing the connection.
func rawExchange(t *testing.T, addr, raw string) []byte {
	t.Helper()
	c, err := dialConn(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(time.Minute))
	if _, err := c.Write([]byte(raw)); err != nil {
		t.Fatal(err)
	}
	c.(interface{ CloseWrite() error }).CloseWrite()
	out, err := io.ReadAll(c)
	if err != nil && !isReset(err) {
		t.Fatalf("read: %v (after %q)", err, out)
	}
	return out
}

// isReset reports a connection reset: a server that closes with unread
// input (a protocol error) makes the kernel send RST.
func isReset(err error) bool { return strings.Contains(err.Error(), "connection reset") }
