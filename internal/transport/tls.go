package transport

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"syscall"
	"time"
)

// TLS connections (tls-port) are served by the event loop, through
// crypto/tls over a tlsWire (epoll_tls_linux.go): the same parser,
// dispatch and reply list as every connection. The handshake, a blocking
// call in crypto/tls, runs first on a goroutine of its own over the
// socket; then the connection is handed to the loop. Where there is no
// loop (non-Linux, Config.GoroutineConns) it stays on that goroutine,
// served by the goroutine transport with the tls.Conn as its net.Conn.
//
// A connection is made a client once its handshake is done (Redis makes
// the client first and answers nothing before the handshake either), and
// Host.Admit (protected mode, maxclients) is then asked as for TCP, the
// refusal sent over TLS.

// ServeTLS runs the server side of nc's TLS handshake with cfg (ctx ends
// it early: the server closing), then serves the connection: on the event
// loop loop returns (nil: none), else on this goroutine, which returns once
// the connection is closed.
func ServeTLS(ctx context.Context, h Host, nc net.Conn, cfg *tls.Config, loop func() *Loop) {
	SetKeepAlive(nc, h.KeepAlive())
	wire := &tlsWire{Conn: nc}
	tc := tls.Server(wire, cfg)
	if err := tc.HandshakeContext(ctx); err != nil {
		if !h.Closing() {
			h.Log().Warn("Error accepting a client connection: " + err.Error())
		}
		nc.Close()
		return
	}
	if refusal := h.Admit(nc.RemoteAddr()); refusal != "" {
		tc.Write([]byte(refusal))
		tc.Close()
		return
	}
	if l := loop(); l != nil && l.adoptTLS(nc, tc, wire) {
		return
	}
	ServeHere(h, tc)
}

// SetKeepAlive is Redis's anetKeepAlive for tcp-keepalive seconds: probes
// after that long idle, then every third of it, three of them; 0 turns
// keepalive off (Go turns it on by default).
func SetKeepAlive(c net.Conn, secs int64) {
	tc, ok := c.(*net.TCPConn)
	if !ok {
		return
	}
	if secs <= 0 {
		tc.SetKeepAlive(false)
		return
	}
	tc.SetKeepAliveConfig(net.KeepAliveConfig{Enable: true, Idle: time.Duration(secs) * time.Second, Interval: time.Duration(keepAliveInterval(secs)) * time.Second, Count: 3})
}

// IsOutOfFDs reports whether err is an accept's for want of descriptors
// (the process's or the system's).
func IsOutOfFDs(err error) bool {
	return errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE)
}

// keepAliveInterval is anetKeepAlive's interval between probes: a third of
// the idle time in whole seconds (Go's would round it up), at least one.
func keepAliveInterval(secs int64) int64 { return max(secs/3, 1) }
