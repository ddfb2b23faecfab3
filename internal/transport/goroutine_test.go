package transport

import (
	"bytes"
	"io"
	"log/slog"
	"net"
	"sync"
	"testing"
	"time"
)

// echoConn is a Conn that answers each read with what it read, upper-cased,
// and asks to be closed on "quit".
type echoConn struct {
	in, out []byte
	closing bool
}

// ReadBuf reads into scratch, or, for the event loop (nil), a buffer of
// the connection's own.
func (c *echoConn) ReadBuf(scratch []byte) []byte {
	if scratch != nil {
		return scratch
	}
	if c.in == nil {
		c.in = make([]byte, 4096)
	}
	return c.in
}
func (c *echoConn) Received(buf []byte, n int, _ bool) bool {
	in := buf[:n]
	if bytes.Equal(in, []byte("quit")) {
		c.closing = true
	}
	c.out = append(c.out, bytes.ToUpper(in)...)
	return true
}
func (c *echoConn) Blocked() bool                { return false }
func (c *echoConn) Resume(bool) (bool, bool)     { return false, true }
func (c *echoConn) TakePushes() bool             { return false }
func (c *echoConn) Closing() bool                { return c.closing }
func (c *echoConn) Moved(int64)                  {}
func (c *echoConn) Flushing() int                { return len(c.out) }
func (c *echoConn) Buffers(b [][]byte) [][]byte  { return append(b, c.out) }
func (c *echoConn) Flushed(n int) int            { c.out = c.out[n:]; return len(c.out) }
func (c *echoConn) Pending() int                 { return len(c.out) }
func (c *echoConn) WriteBlocked()                {}
func (c *echoConn) ResizeQueryBuffer(int64) bool { return false }

// echoHost accepts connections as echoConns unless refusing, and records
// the AOF flushes and the closes.
type echoHost struct {
	refuse bool
	done   chan struct{}

	mu      sync.Mutex
	flushes int
	closed  []Conn
	refusal string // Admit's answer
	closing bool
}

func (h *echoHost) Accept(Handle, string) Conn {
	if h.refuse {
		return nil
	}
	return &echoConn{}
}
func (h *echoHost) Closed(c Conn) {
	h.mu.Lock()
	h.closed = append(h.closed, c)
	h.mu.Unlock()
}
func (h *echoHost) FlushAOF() {
	h.mu.Lock()
	h.flushes++
	h.mu.Unlock()
}
func (h *echoHost) Closing() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.closing
}
func (h *echoHost) CountRead()            {}
func (h *echoHost) Done() <-chan struct{} { return h.done }
func (h *echoHost) Log() *slog.Logger     { return slog.New(slog.DiscardHandler) }
func (h *echoHost) Admit(net.Addr) string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.refusal
}
func (h *echoHost) KeepAlive() int64                       { return 0 }
func (h *echoHost) CallEnd() int64                         { return 0 }
func (h *echoHost) Broadcast(Handle) bool                  { return true }
func (h *echoHost) OutOfFDs(error, func(string) bool) bool { return false }

func (h *echoHost) closes() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.closed)
}

func TestPipeServesThroughConn(t *testing.T) {
	h := &echoHost{done: make(chan struct{})}
	c := Pipe(h)
	if c == nil {
		t.Fatal("Pipe refused")
	}
	c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := c.Write([]byte("ping")); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, 4)
	if _, err := io.ReadFull(c, got); err != nil || string(got) != "PING" {
		t.Fatalf("reply %q, %v; want PING", got, err)
	}
	// A client closing is closed once its reply is out.
	c.Write([]byte("quit"))
	rest, err := io.ReadAll(c)
	if err != nil || string(rest) != "QUIT" {
		t.Fatalf("after quit: %q, %v; want QUIT then EOF", rest, err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for h.closes() == 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond) // polling for Closed, bounded
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if len(h.closed) != 1 || h.flushes != 2 {
		t.Fatalf("closed %d times, %d AOF flushes; want 1 and 2 (one per write)", len(h.closed), h.flushes)
	}
}

func TestPipeRefused(t *testing.T) {
	h := &echoHost{refuse: true, done: make(chan struct{})}
	if c := Pipe(h); c != nil {
		t.Fatal("Pipe served a connection the host refused")
	}
	if n := h.closes(); n != 0 {
		t.Fatalf("Closed called %d times for a connection never accepted", n)
	}
}
