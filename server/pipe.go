package server

import (
	"context"
	"io"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// Dial connects to the server in memory, with no network: the connection
// is served on a goroutine of its own rather than by the event loop, with
// the same parser, dispatch and replies as a TCP client, a busy script
// included. Together with WithoutListener it lets a server and its clients
// run inside a testing/synctest bubble, where the fake clock drives
// timeouts, TTLs and active expiry; the server must then be started inside
// the bubble too.
//
// Unlike net.Pipe the connection is buffered, as a socket is, so a client
// may write a long pipeline before it reads the replies.
func (s *Server) Dial() (net.Conn, error) {
	client, server := newPipe()
	cn := newConn(s, goConn{server})
	if !s.accept(cn, pipeAddr{}.String()) {
		return nil, ErrServerClosed
	}
	go s.serveConn(cn, server)
	return client, nil
}

// DialContext is Dial with the signature of go-redis's Options.Dialer
// (network and addr are ignored):
//
//	redis.NewClient(&redis.Options{Dialer: srv.DialContext})
func (s *Server) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return s.Dial()
}

type pipeAddr struct{}

func (pipeAddr) Network() string { return "pipe" }
func (pipeAddr) String() string  { return "pipe" }

// newPipe returns the two ends of a buffered in-memory connection.
func newPipe() (*pipeConn, *pipeConn) {
	ab, ba := newPipeBuffer(), newPipeBuffer()
	return &pipeConn{in: ba, out: ab}, &pipeConn{in: ab, out: ba}
}

// pipeBuffer is one direction of a pipe: written by one end, read by the
// other. Writes never block; a read waits for data, the writer's close, or
// the reader's deadline. A sync.Cond (rather than a mutex-guarded poll)
// keeps a waiting reader "durably blocked" for testing/synctest.
type pipeBuffer struct {
	mu       sync.Mutex
	ready    sync.Cond // data, close or deadline
	buf      []byte
	off      int // read position in buf
	closed   bool
	deadline time.Time   // the reader's
	timer    *time.Timer // wakes the reader at deadline
}

func newPipeBuffer() *pipeBuffer {
	b := &pipeBuffer{}
	b.ready.L = &b.mu
	return b
}

func (b *pipeBuffer) close() {
	b.mu.Lock()
	b.closed = true
	if b.timer != nil {
		b.timer.Stop()
	}
	b.ready.Broadcast()
	b.mu.Unlock()
}

func (b *pipeBuffer) setDeadline(t time.Time) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.deadline = t
	if b.timer != nil {
		b.timer.Stop()
		b.timer = nil
	}
	if d := time.Until(t); !t.IsZero() && d > 0 {
		b.timer = time.AfterFunc(d, func() {
			b.mu.Lock()
			b.ready.Broadcast()
			b.mu.Unlock()
		})
	}
	b.ready.Broadcast()
}

// pipeConn is one end of a pipe.
type pipeConn struct {
	in, out       *pipeBuffer
	closed        atomic.Bool
	writeDeadline atomic.Pointer[time.Time]
}

func (c *pipeConn) Read(p []byte) (int, error) {
	if c.closed.Load() {
		return 0, net.ErrClosed
	}
	b := c.in
	b.mu.Lock()
	defer b.mu.Unlock()
	for b.off == len(b.buf) {
		switch {
		case c.closed.Load():
			return 0, net.ErrClosed
		case b.closed:
			return 0, io.EOF
		case !b.deadline.IsZero() && !time.Now().Before(b.deadline):
			return 0, os.ErrDeadlineExceeded
		}
		b.ready.Wait()
	}
	n := copy(p, b.buf[b.off:])
	b.off += n
	if b.off == len(b.buf) {
		b.buf, b.off = b.buf[:0], 0
	}
	return n, nil
}

func (c *pipeConn) Write(p []byte) (int, error) {
	if c.closed.Load() {
		return 0, net.ErrClosed
	}
	if dl := c.writeDeadline.Load(); dl != nil && !dl.IsZero() && !time.Now().Before(*dl) {
		return 0, os.ErrDeadlineExceeded
	}
	b := c.out
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return 0, io.ErrClosedPipe
	}
	b.buf = append(b.buf, p...)
	b.ready.Broadcast()
	return len(p), nil
}

// Close closes both directions: the peer reads what was already written,
// then io.EOF, and its writes fail.
func (c *pipeConn) Close() error {
	if !c.closed.CompareAndSwap(false, true) {
		return net.ErrClosed
	}
	c.out.close()
	c.in.close()
	return nil
}

// CloseWrite closes the writing direction only, as TCP's half-close does:
// the peer reads io.EOF after what was written, and this end still reads.
func (c *pipeConn) CloseWrite() error {
	if c.closed.Load() {
		return net.ErrClosed
	}
	c.out.close()
	return nil
}

func (c *pipeConn) LocalAddr() net.Addr  { return pipeAddr{} }
func (c *pipeConn) RemoteAddr() net.Addr { return pipeAddr{} }

func (c *pipeConn) SetDeadline(t time.Time) error {
	c.SetReadDeadline(t)
	return c.SetWriteDeadline(t)
}

func (c *pipeConn) SetReadDeadline(t time.Time) error {
	c.in.setDeadline(t)
	return nil
}

func (c *pipeConn) SetWriteDeadline(t time.Time) error {
	c.writeDeadline.Store(&t)
	return nil
}
