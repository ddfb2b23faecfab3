//go:build !linux

package server

import "net"

// eventLoop is Linux's (loop_linux.go); elsewhere every connection is
// served by redcon on a goroutine of its own.
type eventLoop struct{}

func (s *Server) startLoop(net.Listener) bool { return false }

func (l *eventLoop) pollBusy() {}

func (s *Server) wakeLoop() {}
