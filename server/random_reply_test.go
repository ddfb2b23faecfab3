package server

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestRandomHugeNegativeCount: a negative count past maxRandomRepeats gets
// "value is out of range" (Redis would start a reply it can never finish),
// from a client and from a script, on every encoding, with no panic; a
// missing key still answers an empty array, as Redis checks the key first.
func TestRandomHugeNegativeCount(t *testing.T) {
	logs := &logRecorder{}
	srv := startServer(t, Config{Logger: slog.New(logs)})
	c := dialRaw(t, srv)
	c.send("HSET lp a 1\r\nHSET ht a " + strings.Repeat("x", 100) + "\r\n")
	c.expect(":1\r\n:1\r\n")
	c.send("SADD ints 1 2\r\nSADD strs a\r\nZADD zlp 1 a\r\nZADD zsl 1 " + strings.Repeat("y", 100) + "\r\n")
	c.expect(":2\r\n:1\r\n:1\r\n:1\r\n")
	const outOfRange = "-ERR value is out of range\r\n"
	for _, tc := range []struct{ cmd, want string }{
		{"HRANDFIELD lp -2259345540790219970", outOfRange},
		{"HRANDFIELD lp -2259345540790219970 WITHVALUES", outOfRange},
		{"HRANDFIELD ht -2259345540790219970", outOfRange},
		{"HRANDFIELD ht -2147483648 WITHVALUES", outOfRange},
		{"HRANDFIELD nokey -2259345540790219970", "*0\r\n"},
		{"SRANDMEMBER ints -2259345540790219970", outOfRange},
		{"SRANDMEMBER strs -9223372036854775807", outOfRange},
		{"SRANDMEMBER nokey -9223372036854775807", "*0\r\n"},
		{"ZRANDMEMBER zlp -2259345540790219970", outOfRange},
		{"ZRANDMEMBER zsl -2147483648 WITHSCORES", outOfRange},
		{"ZRANDMEMBER nokey -2147483648", "*0\r\n"},
		{"HRANDFIELD lp -3", "*3\r\n$1\r\na\r\n$1\r\na\r\n$1\r\na\r\n"},
		{"EVAL \"return redis.pcall('hrandfield', 'ht', '-2259345540790219970')\" 0", outOfRange},
		{"EVAL \"return redis.pcall('srandmember', 'ints', '-2147483648')\" 0", outOfRange},
		{"EVAL \"return redis.pcall('zrandmember', 'zlp', '-2147483648')\" 0", outOfRange},
	} {
		c.send(tc.cmd + "\r\n")
		c.expect(tc.want)
	}
	if p := logs.messages("command panicked"); len(p) != 0 {
		t.Errorf("panics: %q", p)
	}
}

// TestRandomRepeatsStopAtOutputLimit: as Redis's loop checks
// CLIENT_CLOSE_ASAP, a long negative-count reply stops once the client is
// closed for its output buffer limit. The count is the largest taken:
// without that check the server would go on picking 2^31 fields for
// nothing, for longer than the connection's deadline.
func TestRandomRepeatsStopAtOutputLimit(t *testing.T) {
	srv := startServer(t, Config{})
	admin := dialRaw(t, srv)
	admin.send("CONFIG SET client-output-buffer-limit \"normal 1mb 0 0\"\r\nHSET lp a 1\r\nSADD s a\r\nZADD z 1 a\r\n")
	admin.expect("+OK\r\n:1\r\n:1\r\n:1\r\n")
	for _, cmd := range []string{"HRANDFIELD lp -2147483647 WITHVALUES", "SRANDMEMBER s -2147483647", "ZRANDMEMBER z -2147483647"} {
		c := dialConn(t, srv)
		c.Write([]byte(cmd + "\r\n"))
		if _, err := io.Copy(io.Discard, c); err != nil && !strings.Contains(err.Error(), "reset") {
			t.Fatalf("%s: the client was not closed: %v", cmd, err)
		}
		admin.send("PING\r\n")
		admin.expect("+PONG\r\n")
	}
}

// TestPanicLogRateLimited: a command that panics on every call logs its
// stack once; then a count at most every panicLogEvery.
func TestPanicLogRateLimited(t *testing.T) {
	logs := &logRecorder{}
	srv := startServer(t, Config{Logger: slog.New(logs)})
	now := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	srv.panics.mu.Lock()
	srv.panics.now = func() time.Time { return now }
	srv.panics.mu.Unlock()
	c := dialRaw(t, srv)
	const calls = 10000
	want := strings.Repeat("-ERR internal error while running 'test.panic'\r\n", calls)
	c.send(strings.Repeat("test.panic\r\n", calls) + "PING\r\n")
	c.expect(want + "+PONG\r\n")
	if got := logs.messages("command panicked"); len(got) != 1 || !strings.Contains(got[0], "goroutine") {
		t.Fatalf("first panics logged: %q", got)
	}
	if got := logs.messages("command panicked again"); len(got) != 0 {
		t.Fatalf("repeats logged within %v: %q", panicLogEvery, got)
	}
	srv.panics.mu.Lock()
	now = now.Add(panicLogEvery)
	srv.panics.mu.Unlock()
	c.send("test.panic\r\ntest.panic\r\n")
	c.expect(want[:2*len(want)/calls])
	again := logs.messages("command panicked again")
	if len(again) != 1 || !strings.Contains(again[0], "times="+"10000") || strings.Contains(again[0], "goroutine") {
		t.Fatalf("the count line: %q", again)
	}
	if n := len(logs.messages("command panicked")) + len(again); n != 2 {
		t.Errorf("%d panic lines logged, want 2", n)
	}
}

// logRecorder keeps the records a server logs, formatted as text.
type logRecorder struct {
	mu    sync.Mutex
	lines []string
}

func (l *logRecorder) Enabled(context.Context, slog.Level) bool { return true }

func (l *logRecorder) Handle(_ context.Context, r slog.Record) error {
	var b bytes.Buffer
	h := slog.NewTextHandler(&b, nil)
	h.Handle(context.Background(), r)
	l.mu.Lock()
	l.lines = append(l.lines, b.String())
	l.mu.Unlock()
	return nil
}

func (l *logRecorder) WithAttrs([]slog.Attr) slog.Handler { return l }
func (l *logRecorder) WithGroup(string) slog.Handler      { return l }

// messages returns the records whose message is msg.
func (l *logRecorder) messages(msg string) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, line := range l.lines {
		if strings.Contains(line, "msg=\""+msg+"\"") || strings.Contains(line, "msg="+msg+" ") {
			out = append(out, line)
		}
	}
	return out
}
