package server

import (
	"log/slog"
	"net"

	"github.com/floodgate/floodgate/internal/transport"
)

// host is the Server as its transports see it (transport.Host, and
// transport.FrontHost for the sockets Start opened): a type of
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

func (h *host) CallEnd() int64   { return h.callEnd.Load() }
func (h *host) KeepAlive() int64 { return h.tcpKeepalive.Load() }

func (h *host) Admit(remote net.Addr) string {
	refusal := (*Server)(h).acceptRefusal(remote)
	if refusal != "" {
		h.rejectedConns.Add(1)
	}
	return refusal
}

// OutOfFDs answers a waiting client with the max-clients error through
// the process's spare descriptor (refuseOutOfFDs).
func (h *host) OutOfFDs(err error, refuse func(reply string) bool) bool {
	return (*Server)(h).refuseOutOfFDs(err, func() {
		if refuse(errMaxClients) {
			h.rejectedConns.Add(1)
		}
	})
}

// StartLoop makes the event loop (or finds it) for the front's sockets.
func (h *host) StartLoop() *transport.Loop { return (*Server)(h).startLoop() }

// StartAcceptLoop serves what the front's goroutines accept, through the
// server's listener over the front.
func (h *host) StartAcceptLoop() { (*Server)(h).startAcceptLoop(h.ln) }

// Broadcast sends a round's BCAST invalidations for the event loop, with
// standIn, the loop's, as the running connection, so that they go
// straight into the replies of the loop's connections.
func (h *host) Broadcast(standIn transport.Handle) bool {
	s := (*Server)(h)
	select {
	case s.lock <- struct{}{}:
	default:
		return false
	}
	if s.bcastConn == nil || s.bcastConn.tr != standIn {
		s.bcastConn = &conn{srv: s, tr: standIn}
	}
	s.running = s.bcastConn
	s.trackingBroadcast()
	s.running = nil
	<-s.lock
	return true
}

// serveOnGoroutine serves nc on a goroutine of its own (transport.Serve).
func (s *Server) serveOnGoroutine(nc net.Conn) { transport.Serve(s.host(), nc) }
