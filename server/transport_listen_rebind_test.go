package server

import (
	"bufio"
	"net"
	"testing"
	"time"
)

// pingAt checks that addr serves: a new connection answers PING.
func pingAt(t *testing.T, addr string) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatalf("%s: %v", addr, err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(testDeadline))
	c.Write([]byte("PING\r\n"))
	if line, err := bufio.NewReader(c).ReadString('\n'); line != "+PONG\r\n" {
		t.Fatalf("PING at %s: %q, %v", addr, line, err)
	}
}

// CONFIG SET bind and port close the old sockets before opening the new
// ones, as Redis's changeBindAddr and changeListenPort do: the value in
// effect, and a set of addresses that overlaps it, are applied, not
// refused as taken. A value that cannot be bound is refused with Redis's
// text and the old addresses serve again.
func TestConfigSetBindAndPortRebind(t *testing.T) {
	for _, transport := range []string{viaLoop, viaGoroutine} {
		t.Run(transport, func(t *testing.T) {
			srv := startServerOver(t, Config{}, transport)
			_, port, _ := net.SplitHostPort(srv.Addr())
			admin := dialRaw(t, srv)
			taken, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			defer taken.Close()
			_, takenPort, _ := net.SplitHostPort(taken.Addr().String())
			for _, step := range []struct {
				args  []string
				reply string
				serve []string // hosts that must then serve on port
			}{
				{[]string{"port", port}, "+OK\r\n", []string{"127.0.0.1"}},
				{[]string{"bind", "127.0.0.1"}, "+OK\r\n", []string{"127.0.0.1"}},
				{[]string{"bind", "127.0.0.1 127.0.0.2"}, "+OK\r\n", []string{"127.0.0.1", "127.0.0.2"}},
				{[]string{"bind", "127.0.0.2 127.0.0.1"}, "+OK\r\n", []string{"127.0.0.1", "127.0.0.2"}},
				{[]string{"bind", "-::1 127.0.0.1"}, "+OK\r\n", []string{"127.0.0.1"}},
				{[]string{"port", port, "bind", "127.0.0.1"}, "+OK\r\n", []string{"127.0.0.1"}},
				// bind "": no socket, so any port is taken (as Redis's
				// listenToPort with no address) and kept for the next bind.
				{[]string{"bind", ""}, "+OK\r\n", nil},
				{[]string{"port", takenPort}, "+OK\r\n", nil},
				{[]string{"port", port}, "+OK\r\n", nil},
				{[]string{"bind", "127.0.0.1"}, "+OK\r\n", []string{"127.0.0.1"}},
				{[]string{"port", takenPort}, "-ERR CONFIG SET failed (possibly related to argument 'port') - Unable to listen on this port. Check server logs.\r\n", []string{"127.0.0.1"}},
				// 192.0.2.1 (TEST-NET-1) is no local address: it cannot be bound.
				{[]string{"bind", "127.0.0.2 192.0.2.1"}, "-ERR CONFIG SET failed (possibly related to argument 'bind') - Failed to bind to specified addresses.\r\n", []string{"127.0.0.1"}},
			} {
				admin.send(respCommand(append([]string{"CONFIG", "SET"}, step.args...)...))
				admin.expect(step.reply)
				for _, host := range step.serve {
					pingAt(t, net.JoinHostPort(host, port))
				}
				admin.send("PING\r\n") // the connection open across the change
				admin.expect("+PONG\r\n")
			}
			admin.send(respCommand("CONFIG", "GET", "bind"))
			admin.expect("*2\r\n$4\r\nbind\r\n$9\r\n127.0.0.1\r\n")
		})
	}
}
