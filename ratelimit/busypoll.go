//go:build unix

package ratelimit

import (
	"io"
	"net"
	"os"
	"sync/atomic"
	"syscall"
	"time"
)

func busyPollConn(conn net.Conn, spin time.Duration, cpus int) net.Conn {
	if spin <= 0 || cpus == 1 {
		return conn
	}
	sc, ok := conn.(syscall.Conn)
	if !ok {
		return conn
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return conn
	}
	return &pollingConn{Conn: conn, raw: raw, spin: spin}
}

// pollingConn is BusyPollConn's connection.
type pollingConn struct {
	net.Conn
	raw  syscall.RawConn
	spin time.Duration
	// replyDue is set by a Write and cleared by the next Read: only a
	// reply is worth spinning for; a connection read for anything else
	// (a peer that speaks first, an idle one) would only burn the CPU.
	replyDue atomic.Bool
}

func (c *pollingConn) Write(p []byte) (int, error) {
	n, err := c.Conn.Write(p)
	if n > 0 {
		c.replyDue.Store(true)
	}
	return n, err
}

func (c *pollingConn) Read(p []byte) (int, error) {
	if len(p) == 0 || !c.replyDue.Swap(false) {
		return c.Conn.Read(p)
	}
	var (
		n       int
		readErr error
		until   = time.Now().Add(c.spin)
		parked  bool
	)
	// RawConn.Read calls the function until it returns true, parking in
	// the netpoller between calls, and returns a deadline or a close as an
	// error: returning false once the spin is over is the ordinary wait.
	err := c.raw.Read(func(fd uintptr) bool {
		for {
			n, readErr = syscall.Read(int(fd), p)
			switch {
			case readErr == syscall.EINTR:
				continue
			case readErr != syscall.EAGAIN:
				return true
			case parked || !time.Now().Before(until):
				parked = true
				return false
			}
			// No runtime.Gosched between tries: it queues the goroutine
			// globally and wakes another thread to run it (wakep), the
			// very wake-up the poll is there to avoid.
		}
	})
	switch {
	case err != nil:
		return 0, err
	case readErr != nil:
		return 0, &net.OpError{Op: "read", Net: c.LocalAddr().Network(), Source: c.LocalAddr(), Addr: c.RemoteAddr(),
			Err: os.NewSyscallError("read", readErr)}
	case n == 0:
		return 0, io.EOF
	}
	return n, nil
}

// SyscallConn and NetConn let go-redis's pool health check peek at the
// socket through the wrapper, as it does through a *net.TCPConn.
func (c *pollingConn) SyscallConn() (syscall.RawConn, error) { return c.raw, nil }

// NetConn is the connection under the wrapper.
func (c *pollingConn) NetConn() net.Conn { return c.Conn }
