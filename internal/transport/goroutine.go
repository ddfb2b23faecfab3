package server

import (
	"crypto/tls"
	"errors"
	"net"
	"os"
	"syscall"
	"time"
)

// The goroutine transport serves a connection on a goroutine of its own:
// it reads from the net.Conn into the connection's buffers, hands the bytes
// to the same parser and dispatch as the event loop (conn.received), and
// writes the replies of each read with one write. Dial's in-memory
// connections use it, as do non-Linux systems and Config.GoroutineConns.
// A client that does not read its replies blocks its own goroutine's write,
// so it stops being read (back-pressure) and costs nobody else anything.

// goReadSize is what one read asks for (Redis: 16 KB).
const goReadSize = 16 << 10

// goConn is a goroutine-served connection's transport.
type goConn struct {
	nc net.Conn
}

func (g goConn) kill()             { g.nc.Close() }
func (g goConn) interrupt()        { g.nc.SetReadDeadline(time.Unix(1, 0)) }
func (g goConn) woke()             { g.interrupt() } // serveConn's read returns and resumes
func (g goConn) localAddr() string { return g.nc.LocalAddr().String() }

// socketFD is the socket's descriptor, for CLIENT LIST; -1 for a pipe.
func (g goConn) socketFD() int {
	nc := g.nc
	if tc, ok := nc.(*tls.Conn); ok {
		nc = tc.NetConn()
	}
	if w, ok := nc.(*tlsWire); ok {
		nc = w.Conn
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

// serveOnGoroutine serves nc on a goroutine of its own.
func (s *Server) serveOnGoroutine(nc net.Conn) {
	cn := newConn(s, goConn{nc})
	if !s.accept(cn, nc.RemoteAddr().String()) {
		nc.Close()
		return
	}
	go s.serveConn(cn, nc)
}

// serveConn reads nc into cn until the client or the server closes it; a
// client that asked to be closed (QUIT, a protocol error) is closed once
// its replies are written.
func (s *Server) serveConn(cn *conn, nc net.Conn) {
	defer s.closedConn(cn)
	defer nc.Close()
	scratch := make([]byte, goReadSize)
	var bufs net.Buffers
	c := cn.client
	for !c.closing {
		buf := cn.readBuf(scratch)
		n, err := nc.Read(buf)
		if errors.Is(err, os.ErrDeadlineExceeded) {
			// interrupt (the server closing) or woke (a blocked client's
			// reply); a woke may come late, after its reply was taken.
			nc.SetReadDeadline(time.Time{})
			if s.closed.Load() {
				return
			}
			err = nil
		}
		keep := true
		if n > 0 {
			cn.movedBytes(ioClock())
			keep = cn.received(buf, n, false)
		} else if err != nil {
			s.net.reads.Add(1) // Redis counts the read that finds the end too
		}
		if cn.blocked && keep {
			if woken, ok := cn.resume(false); woken {
				keep = ok
			}
		}
		if keep {
			cn.takePushes() // pub/sub messages (woke)
		}
		// The replies before a blocking command go out now, as Redis
		// sends them; the blocked client's own comes with resume.
		if cn.outLimited {
			cn.dropOutput()
		}
		if cn.pendingBytes() > 0 {
			cn.rbuf.written(cn.pendingBytes())
			s.aofFlush()
			bufs = net.Buffers(cn.buffers(bufs[:0]))
			cn.writeWait.Store(true) // WriteTo returns once the socket took it all
			written, werr := bufs.WriteTo(nc)
			clear(bufs)
			if written > 0 {
				cn.movedBytes(ioClock())
			}
			cn.flushed(int(written))
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

// acceptLoop accepts connections from ln and hands each to handoff (the
// event loop's or serveOnGoroutine) until the server closes.
func (s *Server) acceptLoop(ln net.Listener, handoff func(net.Conn)) {
	defer s.stopped.Done()
	var backoff time.Duration
	for {
		nc, err := ln.Accept()
		if err != nil {
			if s.closed.Load() || errors.Is(err, net.ErrClosed) {
				return
			}
			// Out of descriptors and the like: back off as net/http does,
			// rather than spin.
			backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
			s.log.Warn("accept failed", "err", err, "retry_in", backoff)
			select {
			case <-time.After(backoff):
			case <-s.stop:
				return
			}
			continue
		}
		backoff = 0
		handoff(nc)
	}
}
