//go:build unix

package main

import (
	"net"
	"syscall"
)

// alive reports whether an idle connection is still open: a non-blocking
// peek finds nothing to read (EAGAIN). End of file, an error, or bytes the
// upstream sent unasked all mean the connection cannot carry a request.
func alive(conn net.Conn) bool {
	sc, ok := conn.(syscall.Conn)
	if !ok {
		return true
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return false
	}
	ok = false
	var buf [1]byte
	err = raw.Read(func(fd uintptr) bool {
		_, _, rerr := syscall.Recvfrom(int(fd), buf[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		ok = rerr == syscall.EAGAIN || rerr == syscall.EWOULDBLOCK
		return true
	})
	return err == nil && ok
}
