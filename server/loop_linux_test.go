package server

import (
	"os"
	"testing"
)

// Servers that had event-loop connections give back every descriptor when
// they close: the sockets, the epoll set and its eventfd.
func TestLoopReleasesDescriptors(t *testing.T) {
	count := func() int {
		fds, err := os.ReadDir("/proc/self/fd")
		if err != nil {
			t.Skip("no /proc/self/fd:", err)
		}
		return len(fds)
	}
	before := count()
	for i := 0; i < 20; i++ {
		srv := New(Config{Addr: "127.0.0.1:0"})
		if err := srv.Start(); err != nil {
			t.Fatal(err)
		}
		var clients []*rawClient
		for j := 0; j < 5; j++ {
			c := dialRaw(t, srv)
			c.send("PING\r\n")
			c.expect("+PONG\r\n")
			clients = append(clients, c)
		}
		srv.Close()
		for _, c := range clients {
			c.expectClosed()
			c.c.Close()
		}
	}
	if after := count(); after > before+2 {
		t.Fatalf("descriptors: %d before, %d after 20 servers with 5 connections each", before, after)
	}
}
