//go:build linux

package transport

import (
	"net"
	"os"
	"slices"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Until its sockets' first connection, a Front has no event loop: it
// waits for one here (await), then has the loop made and accepting from
// them (epoll_accept_linux.go: Loop.Listen and Unlisten). A listener the
// server's Serve was given is not a Front's: it keeps being accepted from
// on a goroutine, as the loop polls only sockets whose closing it
// controls.

// await has the event loop made, to accept from the front's sockets,
// once ln has a connection to accept; until then the server pays for
// neither the loop nor its descriptors (a test double that starts and
// stops without a client). ListenAll's raw sockets are watched by connWatch;
// a socket of Go's (IPv6, a host name) by a goroutine parked in the
// netpoller (awaitLoop). Where neither can be had, the socket is accepted
// from on a goroutine, which makes the loop with its first connection
// (the server's handoff). f.mu is held.
func (f *Front) await(ln net.Listener) {
	rl, ok := ln.(*rawListener)
	if !ok {
		go f.awaitLoop(ln)
		return
	}
	if err := connWatch.add(f, rl); err != nil {
		f.host.Log().Warn("cannot watch the listening socket; accepting on a goroutine", "err", err)
		go f.acceptFrom(ln)
	}
}

// awaitLoop waits in Go's netpoller until ln has a connection to accept,
// then has the loop made (loopReady).
func (f *Front) awaitLoop(ln net.Listener) {
	sc, ok := ln.(syscall.Conn)
	if !ok {
		f.acceptFrom(ln)
		return
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		f.acceptFrom(ln)
		return
	}
	// Read parks in Go's netpoller until the socket is readable, checking
	// first: a connection that came before would not be signalled again.
	raw.Read(func(fd uintptr) bool {
		p := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		n, _ := unix.Poll(p, 0)
		return n > 0
	})
	// Readable, closed, or woken by the deadline loopReady sets.
	f.loopReady(ln)
}

// loopReady runs once ln, a socket of the front, has a connection to
// accept (or was closed): it makes the event loop and has it accept from
// all the front's sockets. Without a loop (it could not be made) the
// sockets are accepted from on goroutines.
func (f *Front) loopReady(ln net.Listener) {
	f.mu.Lock()
	defer f.mu.Unlock()
	select {
	case <-f.done:
		return
	default:
	}
	if f.loop != nil || !slices.Contains(f.lns, ln) {
		return // the loop has it, or it was replaced
	}
	if !f.awaiting {
		go f.acceptFrom(ln) // the loop could not be had
		return
	}
	f.awaiting = false
	if l := f.host.StartLoop(); l != nil {
		err := l.Listen(f.lns)
		if err == nil {
			f.loop = l
			for _, other := range f.lns {
				switch sock := other.(type) {
				case *rawListener:
					connWatch.forget(sock)
				case interface{ SetDeadline(time.Time) error }:
					if other != ln {
						sock.SetDeadline(time.Unix(1, 0)) // wakes its awaitLoop
					}
				}
			}
			return
		}
		f.host.Log().Warn("the event loop cannot accept; accepting on goroutines", "err", err)
	}
	go f.acceptFrom(ln) // the others do when they wake
}

// WatchIdle reports whether the first-connection watch holds no
// descriptor: it has gone, watchLinger after the last socket it watched
// (for a test that counts the process's descriptors).
func WatchIdle() bool {
	connWatch.mu.Lock()
	defer connWatch.mu.Unlock()
	return connWatch.epoll == nil
}

// connWatch waits for the first connection of every front socket of the
// process that has no event loop yet, in one epoll set: a socket costs
// one epoll_ctl to watch and nothing more to stop watching (closing it
// takes it out of the set). The set and its goroutine, parked in Go's
// netpoller on it, are made for the first socket watched and shared by
// every server after it, instead of a goroutine per server parked on its
// socket, whose start and wake-ups were a third of a test double's TCP
// start and close. Once nothing has been watched for watchLinger they go,
// so a program (or goleak) that has closed its servers finds neither.
var connWatch firstConnWatch

// watchLinger is how long connWatch outlives the last socket it watched:
// a test suite starts servers more often than that, and keeps it.
const watchLinger = 50 * time.Millisecond

type firstConnWatch struct {
	mu      sync.Mutex
	epoll   *os.File // nil until a socket is watched, and once idle
	epfd    int      // epoll's (its Fd method would make it blocking)
	next    uint64   // the last token given
	waiting map[uint64]watchedSocket
	idle    *time.Timer // ends the watch (stopIfIdle)
	idling  bool        // idle is set to fire
	kept    []keptSocket
}

// watchedSocket is a socket connWatch waits on, and its front.
type watchedSocket struct {
	ln    *rawListener
	front *Front
}

// add watches ln, a socket of f, for its first connection. Its event
// carries a token rather than the descriptor: a socket closed and its
// number reused by another server's would otherwise be taken for it.
// EPOLLONESHOT: a socket whose event was taken is not reported again,
// whether or not its front still wants it.
func (w *firstConnWatch) add(f *Front, ln *rawListener) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.epoll == nil {
		if err := w.start(); err != nil {
			return err
		}
	}
	w.next++
	t := w.next
	ev := unix.EpollEvent{Events: unix.EPOLLIN | unix.EPOLLONESHOT, Fd: int32(uint32(t)), Pad: int32(uint32(t >> 32))}
	if err := unix.EpollCtl(w.epfd, unix.EPOLL_CTL_ADD, ln.fd, &ev); err != nil {
		return os.NewSyscallError("epoll_ctl", err)
	}
	w.waiting[t] = watchedSocket{ln: ln, front: f}
	ln.token = t
	return nil
}

// forget stops waiting for ln, if connWatch is.
func (w *firstConnWatch) forget(ln *rawListener) {
	w.mu.Lock()
	if ln.token != 0 {
		w.drop(ln)
	}
	w.mu.Unlock()
}

// drop takes ln, which is watched, out of waiting; w.mu is held. The
// last one out arms the idle timer.
func (w *firstConnWatch) drop(ln *rawListener) {
	delete(w.waiting, ln.token)
	ln.token = 0
	if len(w.waiting) > 0 || w.idling {
		return
	}
	w.idling = true
	if w.idle == nil {
		w.idle = time.AfterFunc(watchLinger, w.stopIfIdle)
	} else {
		w.idle.Reset(watchLinger)
	}
}

// stopIfIdle closes the epoll set if nothing is watched: the netpoller
// then wakes the goroutine, which ends.
func (w *firstConnWatch) stopIfIdle() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.idling = false
	if len(w.waiting) == 0 && w.epoll != nil {
		w.epoll.Close()
		w.epoll = nil
		w.closeKept()
	}
}

// start makes the epoll set and its goroutine; w.mu is held.
func (w *firstConnWatch) start() error {
	epfd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return os.NewSyscallError("epoll_create1", err)
	}
	// Non-blocking, so that the netpoller can wait on it (as the loop's).
	if err := unix.SetNonblock(epfd, true); err != nil {
		unix.Close(epfd)
		return os.NewSyscallError("fcntl", err)
	}
	f := os.NewFile(uintptr(epfd), "epoll")
	rc, err := f.SyscallConn()
	if err != nil {
		f.Close()
		return err
	}
	if w.waiting == nil {
		w.waiting = make(map[uint64]watchedSocket)
	}
	w.epoll, w.epfd = f, epfd
	go w.run(epfd, rc)
	return nil
}

// run hands each watched socket with a connection to its front, until
// the epoll set is closed. While the callback runs the set is open (Read
// holds it), so epfd is not some other file's.
func (w *firstConnWatch) run(epfd int, rc syscall.RawConn) {
	events := make([]unix.EpollEvent, 64)
	for {
		var n int
		var err error
		rerr := rc.Read(func(uintptr) bool {
			n, err = epollPoll(epfd, events)
			return n > 0 || (err != nil && err != unix.EINTR)
		})
		for _, ev := range events[:n] {
			t := uint64(uint32(ev.Fd)) | uint64(uint32(ev.Pad))<<32
			w.mu.Lock()
			ws, ok := w.waiting[t]
			if ok {
				w.drop(ws.ln)
			}
			w.mu.Unlock()
			if ok {
				ws.front.loopReady(ws.ln)
			}
		}
		if rerr != nil {
			return // closed: idle
		}
	}
}
