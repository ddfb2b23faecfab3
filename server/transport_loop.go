package server

import (
	"net"
	"sync"

	"github.com/floodgate/floodgate/internal/transport"
)

// loopStart serializes the creation of event loops (startLoop): TLS
// handshakes end on goroutines of their own, and two of them must not
// each make a loop.
var loopStart sync.Mutex

// startLoop returns the event loop (package internal/transport), creating
// it, or nil where it is not used (connections are then served on
// goroutines). It is created with the first connection: a server that
// starts and stops without one does not pay for it.
func (s *Server) startLoop() *transport.Loop {
	if s.cfg.GoroutineConns {
		return nil
	}
	if l := s.loop.Load(); l != nil {
		return l
	}
	loopStart.Lock()
	defer loopStart.Unlock()
	if l := s.loop.Load(); l != nil {
		return l
	}
	l, err := transport.NewLoop(s.host(), s.cfg.LoopOwnsProcessor)
	if err != nil {
		if transport.LoopAccepts { // else there is no loop to miss
			s.log.Warn("cannot start the event loop; serving connections on goroutines", "err", err)
		}
		return nil
	}
	s.stopped.Add(1)
	go func() {
		defer s.stopped.Done()
		l.Run()
	}()
	s.loop.Store(l)
	if s.closed.Load() {
		l.Wake() // Close may have looked for the loop before it existed
	}
	return l
}

// handoff returns how connections accepted on a goroutine (from a
// listener Serve was given, or from Start's sockets without the loop) are
// handed to the event loop.
func (s *Server) handoff() func(net.Conn) {
	if s.cfg.GoroutineConns || !transport.LoopAccepts {
		return s.serveOnGoroutine
	}
	tried := false // to create the loop
	return func(nc net.Conn) {
		l := s.loop.Load()
		if l == nil && !tried {
			tried = true
			l = s.startLoop()
		}
		if l == nil || !l.Adopt(nc) {
			// Not a socket the loop can poll: serve it the goroutine way.
			s.serveOnGoroutine(nc)
		}
	}
}

// wakeLoop makes the loop notice that the server is closing.
func (s *Server) wakeLoop() {
	if l := s.loop.Load(); l != nil {
		l.Wake()
	}
}
