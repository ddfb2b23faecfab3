//go:build linux

package transport

import (
	"errors"
	"io"
	"net"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"
)

// frontHost is an echoHost with the event loop a Front asks for, made on
// the first StartLoop.
type frontHost struct {
	*echoHost
	t *testing.T

	mu   sync.Mutex
	loop *Loop
	ran  chan struct{} // closed when the loop's Run returns
}

func newFrontHost(t *testing.T) *frontHost {
	h := &frontHost{echoHost: &echoHost{done: make(chan struct{})}, t: t}
	t.Cleanup(h.stop)
	return h
}

func (h *frontHost) StartLoop() *Loop {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.loop == nil {
		l, err := NewLoop(h, false)
		if err != nil {
			h.t.Errorf("NewLoop: %v", err)
			return nil
		}
		h.loop, h.ran = l, make(chan struct{})
		go func() { defer close(h.ran); l.Run() }()
	}
	return h.loop
}

func (h *frontHost) StartAcceptLoop() {}

// stop ends the loop, if one was made.
func (h *frontHost) stop() {
	h.echoHost.mu.Lock()
	h.closing = true
	h.echoHost.mu.Unlock()
	h.mu.Lock()
	l, ran := h.loop, h.ran
	h.mu.Unlock()
	if l == nil {
		return
	}
	l.Wake()
	select {
	case <-ran:
	case <-time.After(10 * time.Second):
		h.t.Error("the loop did not stop once the host was closing")
	}
}

// serveFront is a Front on a free port of 127.0.0.1, served as the
// server serves it (the event loop from the first connection).
func serveFront(t *testing.T, h FrontHost) *Front {
	t.Helper()
	lns, err := ListenAll([]string{"127.0.0.1"}, "0")
	if err != nil {
		t.Fatal(err)
	}
	f := NewFront(h, lns)
	f.Serve(true)
	return f
}

// frontSocket is the descriptor of f's one raw listening socket.
func frontSocket(t *testing.T, f *Front) int {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	rl, ok := f.lns[0].(*rawListener)
	if !ok {
		t.Fatalf("the front's socket is a %T, not a raw one", f.lns[0])
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

// waitFor polls cond until it holds, failing after a deadline.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond) // polling, bounded by the deadline
	}
}

// dialPing connects to addr, served by an echoHost, and checks that
// "ping" is answered.
func dialPing(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	c.SetDeadline(time.Now().Add(10 * time.Second))
	c.Write([]byte("ping"))
	got := make([]byte, 4)
	if _, err := io.ReadFull(c, got); err != nil || string(got) != "PING" {
		t.Fatalf("reply %q, %v; want PING", got, err)
	}
	return c
}

// A closed front's socket that never had a client is shut down and kept
// for the next one (keptSocket): its port refuses connections and is
// free at once, as after close(2), and the next front listens on the
// same descriptor, on a port of the kernel's choosing, and serves on it.
// A socket the event loop accepted from is closed, never kept (the loop's
// duplicate of it was open). The kept sockets go with the watch.
func TestClosedSocketIsKept(t *testing.T) {
	dropKept() // room to keep one: fronts closed just before may have filled it
	h := newFrontHost(t)
	first := serveFront(t, h)
	fd, addr := frontSocket(t, first), first.Addr().String()
	first.Close()
	if !slices.Contains(keptSockets(), fd) {
		t.Fatalf("socket %d of a front closed without a client is not kept (kept: %v)", fd, keptSockets())
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

	second := serveFront(t, h)
	if got := frontSocket(t, second); got != fd {
		t.Fatalf("the next front listens on descriptor %d, not on the kept %d", got, fd)
	}
	dialPing(t, second.Addr().String()).Close()
	second.Close() // the loop has its socket: closed
	if slices.Contains(keptSockets(), fd) {
		t.Fatal("a socket the event loop accepted from is kept")
	}

	waitFor(t, "the watch to end", WatchIdle)
	if kept := keptSockets(); len(kept) != 0 {
		t.Fatalf("the watch ended and keeps sockets %v", kept)
	}
}

// At most maxKept sockets are kept: the others close as before.
func TestKeptSocketsAreBounded(t *testing.T) {
	dropKept()
	h := newFrontHost(t)
	// Watched till the end, so the watch (and what it keeps) cannot go.
	defer serveFront(t, h).Close()
	var fronts []*Front
	for range maxKept + 3 {
		fronts = append(fronts, serveFront(t, h))
	}
	for _, f := range fronts {
		f.Close()
	}
	if kept := keptSockets(); len(kept) != maxKept {
		t.Fatalf("%d fronts closed without a client left %d sockets kept, want %d", len(fronts), len(kept), maxKept)
	}
}
