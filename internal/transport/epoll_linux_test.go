//go:build linux

package transport

import (
	"io"
	"net"
	"testing"
	"time"
)

// The event loop serves a listening socket it is given through Host and
// Conn alone: the connection is accepted, read, answered, closed once it
// asks to be, and reported closed; Admit's refusal reaches the client.
func TestLoopServesThroughConn(t *testing.T) {
	h := &echoHost{done: make(chan struct{})}
	l, err := NewLoop(h, false)
	if err != nil {
		t.Fatal(err)
	}
	ran := make(chan struct{})
	go func() { defer close(ran); l.Run() }()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	if err := l.Listen([]net.Listener{ln}); err != nil {
		t.Fatal(err)
	}
	c := dialPing(t, ln.Addr().String())
	c.Write([]byte("quit"))
	if rest, err := io.ReadAll(c); err != nil || string(rest) != "QUIT" {
		t.Fatalf("after quit: %q, %v; want QUIT then EOF", rest, err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for h.closes() == 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond) // polling for Closed, bounded
	}
	if n := h.closes(); n != 1 {
		t.Fatalf("Closed %d times; want 1", n)
	}

	h.mu.Lock()
	h.refusal = "-ERR max number of clients reached\r\n"
	h.mu.Unlock()
	c2, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	c2.SetDeadline(time.Now().Add(10 * time.Second))
	if b, err := io.ReadAll(c2); err != nil || string(b) != h.refusal {
		t.Fatalf("refused client read %q, %v; want the refusal, then EOF", b, err)
	}

	h.mu.Lock()
	h.closing = true
	h.mu.Unlock()
	l.Wake()
	select {
	case <-ran:
	case <-time.After(10 * time.Second):
		t.Fatal("the loop did not stop once the host was closing")
	}
}
