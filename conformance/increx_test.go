package conformance

import (
	"bytes"
	"fmt"
	"testing"
)

// INCREX and GCRA are Redis 8.8's; the reference Redis 7.0 has neither, so
// their replies are golden-tested in server/cmd_increx_test.go. What they
// share with Redis 7.0 is checked here against the real server: each error
// that INCRBY, INCRBYFLOAT or SET gives for the same input has the
// same bytes as Redis's (RESP2 and RESP3), and leaves the key as Redis's
// failed command does.
func TestIncrExSharesRedisTexts(t *testing.T) {
	setup := [][]string{
		{"DEL", "n", "s", "l", "huge", "x"},
		{"SET", "n", "1.5"},
		{"SET", "s", "abc"},
		{"LPUSH", "l", "a"},
		{"SET", "huge", "1.18973149535723176502e+4932"},
	}
	pairs := []struct{ redis, floodgate []string }{
		{[]string{"INCRBY", "n", "1"}, []string{"INCREX", "n", "BYINT", "1"}},
		{[]string{"INCR", "n"}, []string{"INCREX", "n"}},
		{[]string{"INCRBY", "x", "abc"}, []string{"INCREX", "x", "BYINT", "abc"}},
		{[]string{"INCRBY", "x", "9223372036854775808"}, []string{"INCREX", "x", "BYINT", "9223372036854775808"}},
		{[]string{"INCRBYFLOAT", "s", "1"}, []string{"INCREX", "s", "BYFLOAT", "1"}},
		{[]string{"INCRBYFLOAT", "x", "abc"}, []string{"INCREX", "x", "BYFLOAT", "abc"}},
		{[]string{"INCRBYFLOAT", "huge", "1.18973149535723176502e+4932"}, []string{"INCREX", "huge", "BYFLOAT", "1.18973149535723176502e+4932"}},
		{[]string{"INCR", "l"}, []string{"INCREX", "l"}},
		{[]string{"INCRBYFLOAT", "l", "1"}, []string{"INCREX", "l", "BYFLOAT", "1"}},
		{[]string{"SET", "x", "1", "EX", "1", "PX", "1"}, []string{"INCREX", "x", "EX", "1", "PX", "1"}},
		{[]string{"SET", "x", "1", "EX"}, []string{"INCREX", "x", "EX"}},
		{[]string{"SET", "x", "1", "EX", "abc"}, []string{"INCREX", "x", "EX", "abc"}},
		{[]string{"SET", "x", "1", "FOO"}, []string{"INCREX", "x", "FOO"}},
		// GCRA's number errors are Redis's parsers'.
		{[]string{"INCRBY", "x", "abc"}, []string{"GCRA", "x", "abc", "1", "1"}},
		{[]string{"INCRBY", "x", "abc"}, []string{"GCRA", "x", "1", "1", "1", "TOKENS", "abc"}},
		{[]string{"INCRBYFLOAT", "x", "abc"}, []string{"GCRA", "x", "1", "1", "abc"}},
		{[]string{"INCR", "l"}, []string{"GCRA", "l", "1", "1", "1"}},
		// What the failed commands left: the same keyspace.
		{[]string{"GET", "n"}, []string{"GET", "n"}},
		{[]string{"GET", "s"}, []string{"GET", "s"}},
		{[]string{"EXISTS", "x"}, []string{"EXISTS", "x"}},
		{[]string{"GET", "huge"}, []string{"GET", "huge"}},
	}
	for _, proto := range []string{"2", "3"} {
		conns := map[string]*rawConn{}
		for _, addr := range append([]string{redisAddr}, floodgates()...) {
			c := dialHello(t, addr, proto)
			defer c.close()
			for _, cmd := range setup {
				if _, err := c.do(cmd...); err != nil {
					t.Fatal(err)
				}
			}
			conns[addr] = c
		}
		for _, p := range pairs {
			want, err := conns[redisAddr].do(p.redis...)
			if err != nil {
				t.Fatal(err)
			}
			for _, addr := range floodgates() {
				got, err := conns[addr].do(p.floodgate...)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, want) {
					t.Errorf("RESP%s %s: %q on %s, Redis's %s: %q", proto, fmt.Sprint(p.floodgate), got, transportName(addr), fmt.Sprint(p.redis), want)
				}
			}
		}
	}
}
