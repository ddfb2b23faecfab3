package server

import "testing"

// TestSharedIntegersStayPut checks that every command changing a string in
// place leaves alone another key holding the same small integer, which
// the store keeps as one shared value (Redis's shared.integers).
func TestSharedIntegersStayPut(t *testing.T) {
	srv := startProtocolServer(t, Config{})
	c := dialRaw(t, srv)
	for _, tc := range []struct{ cmd, want string }{
		{"INCR a\r\n", ":6\r\n"},
		{"INCRBY a 10000\r\n", ":10005\r\n"},
		{"DECR a\r\n", ":4\r\n"},
		{"DECRBY a -3\r\n", ":8\r\n"},
		{"INCRBYFLOAT a 1.5\r\n", "$3\r\n6.5\r\n"},
		{"APPEND a 1\r\n", ":2\r\n"},
		{"SETRANGE a 0 9\r\n", ":1\r\n"},
		{"SETBIT a 7 0\r\n", ":1\r\n"},
		{"BITFIELD a SET u8 0 55\r\n", "*1\r\n:53\r\n"},
	} {
		c.send("SET a 5\r\n")
		c.expect("+OK\r\n")
		c.send("SET b 5\r\n")
		c.expect("+OK\r\n")
		c.send(tc.cmd)
		c.expect(tc.want)
		c.send("GET b\r\n")
		c.expect("$1\r\n5\r\n")
		c.send("OBJECT REFCOUNT b\r\n")
		c.expect(":2147483647\r\n")
	}
}
