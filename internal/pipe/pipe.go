// Package pipe is a buffered in-memory net.Conn, the connection of the
// server's Dial: unlike net.Pipe's, a write never waits for the reader, as
// a socket's write does not while its buffer has room, so a client may
// write a long pipeline before it reads the replies. A waiting read blocks
// on a sync.Cond, which testing/synctest sees as durably blocked.
package pipe

import (
	"io"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// Addr is a pipe end's address, "pipe".
type Addr struct{}

func (Addr) Network() string { return "pipe" }
func (Addr) String() string  { return "pipe" }

// New returns the two ends of a buffered in-memory connection.
func New() (*Conn, *Conn) {
	ab, ba := newPipeBuffer(), newPipeBuffer()
	return &Conn{in: ba, out: ab}, &Conn{in: ab, out: ba}
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

// Conn is one end of a pipe.
type Conn struct {
	in, out       *pipeBuffer
	closed        atomic.Bool
	writeDeadline atomic.Pointer[time.Time]
}

func (c *Conn) Read(p []byte) (int, error) {
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

func (c *Conn) Write(p []byte) (int, error) {
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
func (c *Conn) Close() error {
	if !c.closed.CompareAndSwap(false, true) {
		return net.ErrClosed
	}
	c.out.close()
	c.in.close()
	return nil
}

// CloseWrite closes the writing direction only, as TCP's half-close does:
// the peer reads io.EOF after what was written, and this end still reads.
func (c *Conn) CloseWrite() error {
	if c.closed.Load() {
		return net.ErrClosed
	}
	c.out.close()
	return nil
}

func (c *Conn) LocalAddr() net.Addr  { return Addr{} }
func (c *Conn) RemoteAddr() net.Addr { return Addr{} }

func (c *Conn) SetDeadline(t time.Time) error {
	c.SetReadDeadline(t)
	return c.SetWriteDeadline(t)
}

func (c *Conn) SetReadDeadline(t time.Time) error {
	c.in.setDeadline(t)
	return nil
}

func (c *Conn) SetWriteDeadline(t time.Time) error {
	c.writeDeadline.Store(&t)
	return nil
}
