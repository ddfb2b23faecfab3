//go:build linux

package transport

import (
	"crypto/tls"
	"errors"
	"io"
	"net"

	"golang.org/x/sys/unix"
)

// TLS connections on the event loop. The handshake runs on a goroutine
// (ServeTLS), blocking, over a tlsWire around the socket; then the
// connection is handed here, and the wire switches to loop mode: the loop
// reads the socket once per readable event into the wire, and calls
// tls.Conn.Read until the wire runs dry (errWouldBlock), feeding the
// plaintext to the same parser and dispatch as any connection. Nothing is
// left inside the tls.Conn when the loop goes back to epoll_wait: a Read
// stops only at errWouldBlock, so a record it decrypted but did not
// return, or one whole in its rawInput, is taken first. Replies are
// encrypted with one tls.Conn.Write per reply block (a round's replies
// are one block, so one record, up to 16 KB) into the wire's out, sent as
// plain replies are; what tls.Conn writes while reading (a TLS 1.3
// KeyUpdate answer, an alert) goes out the same way.

// loopTLS is a loop connection's TLS session.
type loopTLS struct {
	tc   *tls.Conn
	wire *tlsWire
	sent int    // of wire.out
	rbuf []byte // what the socket is read into, wire.in a part of it
}

// tlsReadSize is what one read of a TLS socket asks for: a whole record
// at most (16 KB and its overhead).
const tlsReadSize = 16<<10 + 512

// tlsFlushBytes is how much plaintext is encrypted before the records are
// sent: with large replies, a send per 64 KB rather than per record.
const tlsFlushBytes = 64 << 10

// adoptTLS hands a connection whose handshake is done to the event loop;
// false when it cannot take it, and the caller serves it on its goroutine.
func (l *Loop) adoptTLS(nc net.Conn, tc *tls.Conn, wire *tlsWire) bool {
	fd, err := dupSocket(nc)
	if err != nil {
		return false
	}
	if err := unix.SetNonblock(fd, true); err != nil {
		unix.Close(fd)
		return false
	}
	// The goroutine is done with the socket: from here the wire is the
	// loop's, and Go's netpoller lets go of the original descriptor.
	wire.loop = true
	lc := &loopConn{fd: fd, laddr: nc.LocalAddr().String(), loop: l, addr: nc.RemoteAddr().String(), tls: &loopTLS{tc: tc, wire: wire}}
	nc.Close()
	l.handOver(lc)
	return true
}

// readTLS reads lc's socket once and runs the plaintext it decrypts. It
// returns false when the connection was closed or has nothing to send.
func (l *Loop) readTLS(lc *loopConn) bool {
	w := lc.tls.wire
	// One buffer for the connection's life: wire.in moves along it as
	// tls.Conn takes bytes, so its own capacity shrinks.
	if lc.tls.rbuf == nil {
		lc.tls.rbuf = make([]byte, tlsReadSize)
	}
	n, err := rawRead(lc.fd, lc.tls.rbuf)
	if err == unix.EAGAIN || err == unix.EINTR {
		return false
	}
	if err != nil || n == 0 {
		if err == nil {
			err = io.EOF
		}
		l.host.CountRead()
		l.close(lc, err)
		return false
	}
	w.in = lc.tls.rbuf[:n]
	lc.Moved(l.now)
	if !l.mayResize.Load() {
		l.mayResize.Store(true)
	}
	return l.decrypt(lc)
}

// decrypt calls tls.Conn.Read until the wire is dry, handing each piece of
// plaintext to Received. It returns false when the connection was closed
// or has nothing to send.
func (l *Loop) decrypt(lc *loopConn) bool {
	t := lc.tls
	got := false
	for !lc.Closing() {
		buf := lc.ReadBuf(nil)
		if len(buf) == 0 {
			l.close(lc, nil) // no room left, as a plain read of nothing
			return false
		}
		n, err := t.tc.Read(buf)
		if n > 0 {
			got = true
			if !lc.Received(buf, n, l.polling) {
				l.flush(lc)
				l.close(lc, nil)
				return false
			}
		}
		if errors.Is(err, errWouldBlock) {
			break
		}
		if err != nil {
			// A close_notify (io.EOF), a bad record: the replies of what
			// came before still go, then any alert tls.Conn wrote.
			l.flush(lc)
			l.close(lc, err)
			return false
		}
	}
	t.wire.in = nil
	return got || len(t.wire.out) > t.sent
}

// unsent is what lc has not yet sent: replies, and records.
func (lc *loopConn) unsent() int {
	n := lc.Pending()
	if lc.tls != nil {
		n += len(lc.tls.wire.out) - lc.tls.sent
	}
	return n
}

// flushTLS encrypts lc's replies and sends the records until the socket
// takes no more; the replies not yet encrypted stay in the reply list,
// counted against client-output-buffer-limit as plain ones.
func (l *Loop) flushTLS(lc *loopConn) {
	t := lc.tls
	left := lc.Pending()
	for {
		for len(t.wire.out) > t.sent {
			n, err := rawWrite(lc.fd, t.wire.out[t.sent:])
			if err == unix.EINTR {
				continue
			}
			if err == unix.EAGAIN {
				l.setMask(lc, unix.EPOLLOUT)
				return
			}
			if err != nil {
				l.close(lc, err)
				return
			}
			lc.Moved(l.now)
			t.sent += n
		}
		t.sent = 0
		if cap(t.wire.out) > tlsFlushBytes*2 {
			t.wire.out = nil
		} else {
			t.wire.out = t.wire.out[:0]
		}
		if left == 0 {
			break
		}
		for left > 0 && len(t.wire.out) < tlsFlushBytes {
			l.iov = lc.Buffers(l.iov[:0])
			n, err := t.tc.Write(l.iov[0])
			clear(l.iov)
			left = lc.Flushed(n)
			if err != nil {
				l.close(lc, err)
				return
			}
		}
	}
	l.setMask(lc, unix.EPOLLIN)
}

// closeNotify sends a close_notify alert after what is left of the
// records, as Redis's SSL_shutdown on close; best effort, never waiting.
func (t *loopTLS) closeNotify(fd int) {
	t.tc.Close() // writes the alert into the wire
	if len(t.wire.out) > t.sent {
		rawWrite(fd, t.wire.out[t.sent:])
	}
	t.wire.out, t.sent = nil, 0
}
