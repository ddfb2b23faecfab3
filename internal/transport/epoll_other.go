//go:build !linux

package server

import (
	"crypto/tls"
	"errors"
	"net"
)

// eventLoop is Linux's (transport_epoll_linux.go); elsewhere every connection is
// served on a goroutine of its own (transport_goroutine.go), through the same
// parser and dispatch.
type eventLoop struct{ bcastDue bool }

// loopAccepts says the event loop accepts from the sockets Start opens.
const loopAccepts = false

func (s *Server) handoff() func(net.Conn) { return s.serveOnGoroutine }

func (f *frontListener) await(ln net.Listener) { go f.acceptFrom(ln) }

// listenTCP: Linux's makes IPv4 sockets itself (transport_listen_linux.go).
func listenTCP(network, address string) (net.Listener, error) { return listenGo(network, address) }

func (l *eventLoop) listen([]net.Listener) error { return errors.ErrUnsupported }

func (l *eventLoop) unlisten([]net.Listener) {}

func (l *eventLoop) pollBusy(*conn) {}

func (l *eventLoop) requestResize() {}

func (s *Server) wakeLoop() {}

// tlsToLoop: no loop to hand a TLS connection to.
func (s *Server) tlsToLoop(net.Conn, *tls.Conn, *tlsWire) bool { return false }
