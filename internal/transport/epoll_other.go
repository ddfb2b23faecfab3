//go:build !linux

package transport

import (
	"crypto/tls"
	"errors"
	"net"
)

// Loop is Linux's (epoll_linux.go); elsewhere every connection is served
// on a goroutine of its own (goroutine.go), through the same parser and
// dispatch, and NewLoop fails.
type Loop struct{}

// LoopAccepts says the event loop accepts from listening sockets itself.
const LoopAccepts = false

// NewLoop: no event loop here.
func NewLoop(Host, bool) (*Loop, error) { return nil, errors.ErrUnsupported }

func (l *Loop) Run()                        {}
func (l *Loop) Adopt(net.Conn) bool         { return false }
func (l *Loop) Wake()                       {}
func (l *Loop) RequestResize()              {}
func (l *Loop) Listen([]net.Listener) error { return errors.ErrUnsupported }
func (l *Loop) Unlisten([]net.Listener)     {}

// adoptTLS: no loop to hand a TLS connection to.
func (l *Loop) adoptTLS(net.Conn, *tls.Conn, *tlsWire) bool { return false }
