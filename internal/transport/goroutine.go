package transport

import (
	"crypto/tls"
	"errors"
	"net"
	"os"
	"syscall"
	"time"

	"github.com/floodgate/floodgate/internal/pipe"
)

// The goroutine transport serves a connection on a goroutine of its own:
// it reads from the net.Conn into the connection's buffers, hands the bytes
// to the same parser and dispatch as the event loop (Conn.Received), and
// writes the replies of each read with one write. Dial's in-memory
// connections use it, as do non-Linux systems and Config.GoroutineConns.
// A client that does not read its replies blocks its own goroutine's write,
// so it stops being read (back-pressure) and costs nobody else anything.

// goReadSize is what one read asks for (Redis: 16 KB).
const goReadSize = 16 << 10

// goConn is a goroutine-served connection's Handle.
type goConn struct {
	nc net.Conn
}

func (g goConn) Kill()             { g.nc.Close() }
func (g goConn) Interrupt()        { g.nc.SetReadDeadline(time.Unix(1, 0)) }
func (g goConn) Woke()             { g.Interrupt() } // serve's read returns and resumes
func (g goConn) LocalAddr() string { return g.nc.LocalAddr().String() }

// wrapper is a net.Conn over another: a tls.Conn, or the wire under it.
type wrapper interface{ NetConn() net.Conn }

// SocketFD is the socket's descriptor, for CLIENT LIST; -1 for a pipe.
func (g goConn) SocketFD() int {
	nc := g.nc
	for {
		w, ok := nc.(wrapper)
		if !ok {
			break
		}
		nc = w.NetConn()
	}
	sc, ok := nc.(syscall.Conn)
	if !ok {
		return -1
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return -1
	}
	fd := -1
	raw.Control(func(f uintptr) { fd = int(f) })
	return fd
}

var _ wrapper = (*tls.Conn)(nil)

// Serve serves nc on a goroutine of its own, as a client from nc's remote
// address; it reports false, having closed nc, when the server refuses it
// (it is closing).
func Serve(h Host, nc net.Conn) bool {
	cn := h.Accept(goConn{nc}, nc.RemoteAddr().String())
	if cn == nil {
		nc.Close()
		return false
	}
	go serve(h, cn, nc)
	return true
}

// ServeHere is Serve on the calling goroutine, which returns once the
// connection is closed (a TLS connection, whose handshake ran on it).
func ServeHere(h Host, nc net.Conn) {
	cn := h.Accept(goConn{nc}, nc.RemoteAddr().String())
	if cn == nil {
		nc.Close()
		return
	}
	serve(h, cn, nc)
}

// Pipe connects a client to h in memory, with no network, and returns the
// client's end: a buffered pipe (package pipe), served on a goroutine of
// its own. It returns nil when the server refuses it (it is closing).
func Pipe(h Host) net.Conn {
	client, server := pipe.New()
	if !Serve(h, server) {
		return nil
	}
	return client
}

// serve reads nc into cn until the client or the server closes it; a
// client that asked to be closed (QUIT, a protocol error) is closed once
// its replies are written.
func serve(h Host, cn Conn, nc net.Conn) {
	defer h.Closed(cn)
	defer nc.Close()
	scratch := make([]byte, goReadSize)
	var bufs net.Buffers
	for !cn.Closing() {
		buf := cn.ReadBuf(scratch)
		n, err := nc.Read(buf)
		if errors.Is(err, os.ErrDeadlineExceeded) {
			// Interrupt (the server closing) or Woke (a blocked client's
			// reply); a Woke may come late, after its reply was taken.
			nc.SetReadDeadline(time.Time{})
			if h.Closing() {
				return
			}
			err = nil
		}
		keep := true
		if n > 0 {
			cn.Moved(Clock())
			keep = cn.Received(buf, n, false)
		} else if err != nil {
			h.CountRead() // Redis counts the read that finds the end too
		}
		if keep && cn.Blocked() {
			if woken, ok := cn.Resume(false); woken {
				keep = ok
			}
		}
		if keep {
			cn.TakePushes() // pub/sub messages (Woke)
		}
		// The replies before a blocking command go out now, as Redis
		// sends them; the blocked client's own comes with Resume.
		if cn.Flushing() > 0 {
			h.FlushAOF()
			bufs = net.Buffers(cn.Buffers(bufs[:0]))
			written, werr := bufs.WriteTo(nc) // returns once the socket took it all
			clear(bufs)
			if written > 0 {
				cn.Moved(Clock())
			}
			cn.Flushed(int(written))
			if werr != nil {
				return
			}
		}
		if !keep {
			return
		}
		if err != nil {
			return
		}
	}
}

// AcceptLoop accepts connections from ln and hands each to handoff (the
// event loop's, or Serve) until the server closes.
func AcceptLoop(h Host, ln net.Listener, handoff func(net.Conn)) {
	var backoff time.Duration
	for {
		nc, err := ln.Accept()
		if err != nil {
			if h.Closing() || errors.Is(err, net.ErrClosed) {
				return
			}
			// Out of descriptors and the like: back off as net/http does,
			// rather than spin.
			backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
			h.Log().Warn("Accepting client connection: " + err.Error())
			select {
			case <-time.After(backoff):
			case <-h.Done():
				return
			}
			continue
		}
		backoff = 0
		handoff(nc)
	}
}
