package server

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strings"
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

// The loop sleeps in epoll_wait on its own processor when the runtime has
// another, and parks in Go's netpoller when it has only one (which it must
// not keep while it sleeps): either way it serves, wakes blocked clients
// and notices a killed connection.
func TestLoopWaitModes(t *testing.T) {
	for _, procs := range []int{1, 2} {
		t.Run(fmt.Sprint("GOMAXPROCS=", procs), func(t *testing.T) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
			srv := startServer(t, Config{})
			a, b := dialRaw(t, srv), dialRaw(t, srv)
			a.send("PING\r\n")
			a.expect("+PONG\r\n")
			l := srv.loop.Load()
			if l == nil {
				t.Fatal("no event loop")
			}
			if want := procs >= 2; l.block != want {
				t.Fatalf("block = %v with GOMAXPROCS %d", l.block, procs)
			}
			if l.block == (l.epfile != nil) {
				t.Fatal("the epoll set is in Go's netpoller exactly when the loop parks there")
			}
			a.send("BLPOP q 0\r\n")
			info := newRedisClient(t, srv)
			waitFor(t, "a blocked", func() bool {
				return strings.Contains(info.Info(context.Background(), "clients").Val(), "blocked_clients:1")
			})
			b.send("RPUSH q x\r\n")
			b.expect(":1\r\n")
			a.expect("*2\r\n$1\r\nq\r\n$1\r\nx\r\n")
			b.send("CLIENT KILL ADDR " + a.c.LocalAddr().String() + "\r\n")
			b.expect(":1\r\n")
			a.expectClosed()
		})
	}
}
