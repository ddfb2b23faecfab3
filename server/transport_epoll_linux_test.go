package server

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/floodgate/floodgate/internal/transport"
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

// The loop sleeps in epoll_wait on a processor of its own when it may keep
// one (LoopOwnsProcessor) and the runtime has another for the rest, and
// parks in Go's netpoller otherwise: either way it serves, wakes blocked
// clients and notices a killed connection.
func TestLoopWaitModes(t *testing.T) {
	for _, tc := range []struct {
		owns  bool
		procs int
		block bool
	}{
		{owns: false, procs: 2, block: false}, // embedded
		{owns: true, procs: 1, block: false},  // no processor to spare
		{owns: true, procs: 2, block: true},   // the binary
	} {
		t.Run(fmt.Sprintf("owns=%v,GOMAXPROCS=%d", tc.owns, tc.procs), func(t *testing.T) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(tc.procs))
			srv := New(Config{Addr: "127.0.0.1:0", LoopOwnsProcessor: tc.owns})
			if err := srv.Start(); err != nil {
				t.Fatal(err)
			}
			defer srv.Close()
			a, b := dialRaw(t, srv), dialRaw(t, srv)
			a.send("PING\r\n")
			a.expect("+PONG\r\n")
			l := srv.loop.Load()
			if l == nil {
				t.Fatal("no event loop")
			}
			if l.OwnsProcessor() != tc.block {
				t.Fatalf("block = %v, want %v", l.OwnsProcessor(), tc.block)
			}
			if l.OwnsProcessor() == l.InNetpoller() {
				t.Fatal("the epoll set must be in Go's netpoller exactly when the loop parks there")
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

// A blocking loop that finds no event for BusyMillis parks in Go's
// netpoller, and serves the next request from there: it goes idle again
// after each one.
func TestLoopParksWhenIdle(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	defer func(ms int) { transport.BusyMillis = ms }(transport.BusyMillis)
	transport.BusyMillis = 1
	srv := New(Config{Addr: "127.0.0.1:0", LoopOwnsProcessor: true})
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	c := dialRaw(t, srv)
	c.send("PING\r\n")
	c.expect("+PONG\r\n")
	l := srv.loop.Load()
	if l == nil || !l.OwnsProcessor() {
		t.Fatal("no blocking event loop")
	}
	waitFor(t, "the loop idle", func() bool { return l.IdleSpells() > 0 })
	for i := range 3 {
		spells := l.IdleSpells() // parked: nothing happens until the request
		c.send(fmt.Sprintf("ECHO %d\r\n", i))
		c.expect(fmt.Sprintf("$1\r\n%d\r\n", i))
		waitFor(t, "the loop idle again", func() bool { return l.IdleSpells() > spells })
	}
}

// Loops that sleep on a processor leave at least one to the rest of the
// program: with GOMAXPROCS 2 a second such server parks instead, and the
// processor is claimable again once the first closes.
func TestLoopClaimsSpareProcessorsOnly(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	start := func() *Server {
		srv := New(Config{Addr: "127.0.0.1:0", LoopOwnsProcessor: true})
		if err := srv.Start(); err != nil {
			t.Fatal(err)
		}
		c := dialRaw(t, srv)
		c.send("PING\r\n")
		c.expect("+PONG\r\n")
		return srv
	}
	first, second := start(), start()
	if !first.loop.Load().OwnsProcessor() || second.loop.Load().OwnsProcessor() {
		t.Fatalf("block: first %v, second %v; want true, false", first.loop.Load().OwnsProcessor(), second.loop.Load().OwnsProcessor())
	}
	second.Close()
	first.Close()
	third := start()
	defer third.Close()
	if !third.loop.Load().OwnsProcessor() {
		t.Fatal("the processor was not given back when the first server closed")
	}
}
