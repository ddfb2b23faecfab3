//go:build linux

package transport

import "golang.org/x/sys/unix"

// A test suite starts a server per test, and most of them never see a
// TCP client. Making and destroying their sockets was most of a start
// and close (socket, setsockopt, bind and close: 4 of 7 system calls, 10
// µs of 15 on a VM where a system call costs 1 µs). So a closed server's
// socket that was still waiting for its first connection is shut down
// rather than closed, and kept: shutdown(2) of a listening socket resets
// the connections waiting on it and gives its port back (bound to port
// 0, it holds none of its own), so the port refuses connections at once
// as after close(2), and the next server's listen(2) on it picks a free
// port, as bind(2) to port 0 does. The watch keeps them, at most
// maxKept, until it ends (watchLinger after its last socket), so a
// program that has closed its servers holds none.

// maxKept bounds the sockets kept: a suite running tests in parallel
// closes a few at a time.
const maxKept = 8

// keptSocket is a shut-down listening socket bound to ip with no port.
type keptSocket struct {
	fd int
	ip [4]byte
}

// keep shuts ln down and keeps its descriptor, if ln is still watched for
// its first connection (so no duplicate of it was made: the event loop's
// would go on accepting from it) and there is room. It takes ln out of
// the epoll set first, or the shutdown would wake the watch.
func (w *firstConnWatch) keep(ln *rawListener) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if ln.token == 0 || len(w.kept) >= maxKept {
		return false
	}
	if unix.EpollCtl(w.epfd, unix.EPOLL_CTL_DEL, ln.fd, nil) != nil {
		return false
	}
	w.drop(ln)
	if unix.Shutdown(ln.fd, unix.SHUT_RD) != nil {
		unix.Close(ln.fd)
		return true
	}
	w.kept = append(w.kept, keptSocket{fd: ln.fd, ip: ln.ip4})
	return true
}

// takeKept hands out a kept socket bound to ip, if there is one.
func (w *firstConnWatch) takeKept(ip [4]byte) (int, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for i := len(w.kept) - 1; i >= 0; i-- {
		if k := w.kept[i]; k.ip == ip {
			w.kept = append(w.kept[:i], w.kept[i+1:]...)
			return k.fd, true
		}
	}
	return -1, false
}

// closeKept closes the kept sockets; w.mu is held.
func (w *firstConnWatch) closeKept() {
	for _, k := range w.kept {
		unix.Close(k.fd)
	}
	w.kept = w.kept[:0]
}
