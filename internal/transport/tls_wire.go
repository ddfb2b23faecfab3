package transport

import (
	"net"
	"time"
)

// tlsWire is the net.Conn a TLS connection's tls.Conn runs over. During
// the handshake (on a goroutine, blocking) it is the socket itself. Once
// the event loop serves the connection (loop mode) it is two buffers:
// Read serves the ciphertext the loop read from the socket and, when
// there is none, fails with errWouldBlock, a temporary net.Error, which
// crypto/tls's readRecordOrCCS returns without making it the connection's
// permanent error, keeping a partial record in its rawInput for the next
// Read; Write appends the records to out, which the loop sends like plain
// replies. Only the loop's goroutine touches it in loop mode.
type tlsWire struct {
	net.Conn // the socket; closed once the loop has its own descriptor
	loop     bool
	in       []byte // ciphertext read, not yet taken by tls.Conn
	out      []byte // records written, not yet sent
}

// NetConn is the socket, for CLIENT LIST's fd (transport's goroutine
// Handle looks through wrappers).
func (w *tlsWire) NetConn() net.Conn { return w.Conn }

// errWouldBlock is tlsWire.Read's "no more bytes until the next read".
var errWouldBlock net.Error = wouldBlock{}

type wouldBlock struct{}

func (wouldBlock) Error() string   { return "tls wire: would block" }
func (wouldBlock) Timeout() bool   { return true }
func (wouldBlock) Temporary() bool { return true }

func (w *tlsWire) Read(p []byte) (int, error) {
	if !w.loop {
		return w.Conn.Read(p)
	}
	if len(w.in) == 0 {
		return 0, errWouldBlock
	}
	n := copy(p, w.in)
	w.in = w.in[n:]
	return n, nil
}

func (w *tlsWire) Write(p []byte) (int, error) {
	if !w.loop {
		return w.Conn.Write(p)
	}
	w.out = append(w.out, p...)
	return len(p), nil
}

// Close leaves the socket to the loop, which closes its descriptor.
func (w *tlsWire) Close() error {
	if w.loop {
		return nil
	}
	return w.Conn.Close()
}

// The deadlines crypto/tls sets (closeNotify's write deadline) mean
// nothing to buffers.
func (w *tlsWire) SetDeadline(t time.Time) error {
	if w.loop {
		return nil
	}
	return w.Conn.SetDeadline(t)
}

func (w *tlsWire) SetReadDeadline(t time.Time) error {
	if w.loop {
		return nil
	}
	return w.Conn.SetReadDeadline(t)
}

func (w *tlsWire) SetWriteDeadline(t time.Time) error {
	if w.loop {
		return nil
	}
	return w.Conn.SetWriteDeadline(t)
}
