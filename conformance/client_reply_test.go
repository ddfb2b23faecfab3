package conformance

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// TestClientReply: CLIENT REPLY OFF and SKIP leave no reply to read, so
// each case is sent as one pipeline, ended by CLIENT REPLY ON and an ECHO,
// and the whole byte stream up to the ECHO's reply is compared.
func TestClientReply(t *testing.T) {
	cases := []struct {
		name string
		cmds []string
	}{
		{"on", []string{"CLIENT REPLY ON", "PING"}},
		{"off", []string{"CLIENT REPLY OFF", "PING", "SET k v", "GET k", "NOSUCH", "GET", "CLIENT REPLY OFF", "CLIENT REPLY SKIP", "PING"}},
		{"skip", []string{"CLIENT REPLY SKIP", "PING", "PING", "CLIENT REPLY SKIP", "CLIENT REPLY SKIP", "ECHO a", "ECHO b"}},
		{"skip-errors", []string{"CLIENT REPLY SKIP", "NOSUCH", "ECHO a", "CLIENT REPLY SKIP", "GET", "ECHO b", "CLIENT REPLY SKIP", "INCR k x", "ECHO c"}},
		{"skip-then-on", []string{"CLIENT REPLY SKIP", "CLIENT REPLY ON", "PING"}},
		{"errors", []string{"CLIENT REPLY", "CLIENT REPLY maybe", "CLIENT REPLY on off", "client reply On", "CLIENT REPLY OFF", "CLIENT REPLY maybe"}},
		{"multi", []string{"CLIENT REPLY SKIP", "MULTI", "PING", "EXEC", "MULTI", "CLIENT REPLY SKIP", "PING", "EXEC", "PING", "PING"}},
		{"multi-off", []string{"MULTI", "PING", "CLIENT REPLY OFF", "PING", "EXEC", "PING"}},
		{"reset", []string{"CLIENT REPLY OFF", "RESET", "PING", "CLIENT REPLY SKIP", "RESET", "PING"}},
		{"blocking", []string{"CLIENT REPLY SKIP", "BLPOP nolist 0.01", "ECHO after", "CLIENT REPLY OFF", "BLPOP nolist 0.01", "ECHO muted"}},
		{"script", []string{"EVAL \"return redis.call('client','reply','off')\" 0", "CLIENT REPLY SKIP", "EVAL \"return 1\" 0", "EVAL \"return 2\" 0"}},
	}
	const marker = "end-of-case"
	stream := func(t *testing.T, addr string, cmds []string) []byte {
		c, err := dialRaw(addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.close()
		var req strings.Builder
		for _, cmd := range append(cmds, "CLIENT REPLY ON", "ECHO "+marker) {
			args, err := splitArgs(cmd)
			if err != nil {
				t.Fatal(err)
			}
			req.WriteString(multibulk(args))
		}
		if err := c.sendRaw([]byte(req.String())); err != nil {
			t.Fatal(err)
		}
		want := []byte("$11\r\n" + marker + "\r\n")
		var got []byte
		c.c.SetReadDeadline(time.Now().Add(10 * time.Second))
		buf := make([]byte, 4096)
		for !bytes.HasSuffix(got, want) {
			n, err := c.rd.Read(buf)
			if err != nil {
				t.Fatalf("%s: %v after %q", addr, err, got)
			}
			got = append(got, buf[:n]...)
		}
		return got
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			want := stream(t, redisAddr, tc.cmds)
			for _, addr := range floodgates() {
				if got := stream(t, addr, tc.cmds); !bytes.Equal(got, want) {
					t.Errorf("%s:\n got %q\nwant %q", addr, got, want)
				}
			}
		})
	}
}
