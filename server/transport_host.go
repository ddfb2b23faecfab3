package server

import (
	"log/slog"
	"net"

	"github.com/floodgate/floodgate/internal/transport"
)

// host is the Server as its transports see it (transport.Host): a type of
// its own, so that the methods the transports call are not the Server's
// exported API.
type host Server

// host returns s as its transports' transport.Host.
func (s *Server) host() *host { return (*host)(s) }

func (h *host) Accept(tr transport.Handle, addr string) transport.Conn {
	s := (*Server)(h)
	cn := newConn(s, tr)
	if !s.accept(cn, addr) {
		return nil
	}
	return cn
}

func (h *host) Closed(c transport.Conn) { (*Server)(h).closedConn(c.(*conn)) }
func (h *host) FlushAOF()               { (*Server)(h).aofFlush() }
func (h *host) Closing() bool           { return h.closed.Load() }
func (h *host) CountRead()              { h.net.reads.Add(1) }
func (h *host) Done() <-chan struct{}   { return h.stop }
func (h *host) Log() *slog.Logger       { return h.log }

// serveOnGoroutine serves nc on a goroutine of its own (transport.Serve).
func (s *Server) serveOnGoroutine(nc net.Conn) { transport.Serve(s.host(), nc) }
