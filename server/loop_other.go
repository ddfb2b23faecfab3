//go:build !linux

package server

import "net"

// eventLoop is Linux's (loop_linux.go); elsewhere every connection is
// served on a goroutine of its own (conn_goroutine.go), through the same
// parser and dispatch.
type eventLoop struct{}

func (s *Server) startLoop() func(net.Conn) { return nil }

func (l *eventLoop) pollBusy(*conn) {}

func (s *Server) wakeLoop() {}
