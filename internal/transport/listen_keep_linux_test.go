//go:build linux

package server

import (
	"errors"
	"net"
	"slices"
	"syscall"
	"testing"
)

// frontSocket is the descriptor of srv's one raw listening socket.
func frontSocket(t *testing.T, srv *Server) int {
	t.Helper()
	srv.front.mu.Lock()
	defer srv.front.mu.Unlock()
	rl, ok := srv.front.lns[0].(*rawListener)
	if !ok {
		t.Fatalf("the front's socket is a %T, not a raw one", srv.front.lns[0])
	}
	return rl.fd
}

func keptSockets() []int {
	connWatch.mu.Lock()
	defer connWatch.mu.Unlock()
	var fds []int
	for _, k := range connWatch.kept {
		fds = append(fds, k.fd)
	}
	return fds
}

// dropKept closes the sockets kept so far.
func dropKept() {
	connWatch.mu.Lock()
	defer connWatch.mu.Unlock()
	connWatch.closeKept()
}

// A closed server's socket that never had a client is shut down and kept
// for the next server (keptSocket): its port refuses connections and is
// free at once, as after close(2), and the next server listens on the
// same descriptor, on a port of the kernel's choosing, and serves on it.
// A socket the event loop accepted from is closed, never kept (the loop's
// duplicate of it was open). The kept sockets go with the watch.
func TestClosedSocketIsKept(t *testing.T) {
	dropKept() // room to keep one: servers closed just before may have filled it
	first := New(Config{Addr: "127.0.0.1:0"})
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	fd, addr := frontSocket(t, first), first.Addr()
	first.Close()
	if !slices.Contains(keptSockets(), fd) {
		t.Fatalf("socket %d of a server closed without a client is not kept (kept: %v)", fd, keptSockets())
	}
	if c, err := net.Dial("tcp", addr); err == nil {
		c.Close()
		t.Fatalf("%s accepts connections after Close", addr)
	} else if !errors.Is(err, syscall.ECONNREFUSED) {
		t.Fatalf("dial %s after Close: %v, want connection refused", addr, err)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("the port of a kept socket is still taken: %v", err)
	}
	ln.Close()

	second := startServer(t, Config{})
	if got := frontSocket(t, second); got != fd {
		t.Fatalf("the next server listens on descriptor %d, not on the kept %d", got, fd)
	}
	c := dialRaw(t, second)
	c.send("PING\r\n")
	c.expect("+PONG\r\n")
	c.c.Close()
	second.Close() // the loop has its socket: closed
	if slices.Contains(keptSockets(), fd) {
		t.Fatal("a socket the event loop accepted from is kept")
	}

	waitFor(t, "the watch to end", connWatch.stopped)
	if kept := keptSockets(); len(kept) != 0 {
		t.Fatalf("the watch ended and keeps sockets %v", kept)
	}
}

// At most maxKept sockets are kept: the others close as before.
func TestKeptSocketsAreBounded(t *testing.T) {
	dropKept()
	// Watched till the end, so the watch (and what it keeps) cannot go.
	startServer(t, Config{})
	var servers []*Server
	for range maxKept + 3 {
		srv := New(Config{Addr: "127.0.0.1:0"})
		if err := srv.Start(); err != nil {
			t.Fatal(err)
		}
		servers = append(servers, srv)
	}
	for _, srv := range servers {
		srv.Close()
	}
	if kept := keptSockets(); len(kept) != maxKept {
		t.Fatalf("%d servers closed without a client left %d sockets kept, want %d", len(servers), len(kept), maxKept)
	}
}
