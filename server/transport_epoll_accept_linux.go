//go:build linux

package server

import (
	"net"
	"os"
	"slices"
	"strconv"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// The event loop accepts from the sockets StartAddr opened (the front
// listener's) itself, as Redis's ae loop does: they are in its epoll set,
// and a connection is a client, registered and listed by CLIENT LIST,
// from the round in which the loop sees it. Accepted on a goroutine of
// its own, a connection became one only when that goroutine had run and
// handed it over, which with one processor (floodgate's default) is when
// the loop parks: a client that sent CLIENT LIST right after opening
// connections did not see them, where Redis lists them (redis-py's
// test_client_list_client_id). A listener that Serve was given keeps
// being accepted from on a goroutine: the loop polls only sockets whose
// closing it controls.
//
// The loop polls a duplicate of each socket's descriptor, which only it
// closes: closing the socket from another goroutine (Close, CONFIG SET
// port) could let the number be reused for another socket while the
// loop still accepts from it. The closer shuts the socket down, which
// makes it refuse connections at once, and tells the loop to let go.

// await has the event loop made, to accept from the front's sockets,
// once ln has a connection to accept; until then the server pays for
// neither the loop nor its descriptors (a test double that starts and
// stops without a client). Start's raw sockets are watched by connWatch;
// a socket of Go's (IPv6, a host name) by a goroutine parked in the
// netpoller (awaitLoop). Where neither can be had, the socket is accepted
// from on a goroutine, which makes the loop with its first connection
// (handoff). f.mu is held.
func (f *frontListener) await(ln net.Listener) {
	rl, ok := ln.(*rawListener)
	if !ok {
		go f.awaitLoop(ln)
		return
	}
	if err := connWatch.add(f, rl); err != nil {
		f.srv.log.Warn("cannot watch the listening socket; accepting on a goroutine", "err", err)
		go f.acceptFrom(ln)
	}
}

// awaitLoop waits in Go's netpoller until ln has a connection to accept,
// then has the loop made (loopReady).
func (f *frontListener) awaitLoop(ln net.Listener) {
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
func (f *frontListener) loopReady(ln net.Listener) {
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
	if l := f.srv.startLoop(); l != nil {
		err := l.listen(f.lns)
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
		f.srv.log.Warn("the event loop cannot accept; accepting on goroutines", "err", err)
	}
	go f.acceptFrom(ln) // the others do when they wake
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
	front *frontListener
}

// add watches ln, a socket of f, for its first connection. Its event
// carries a token rather than the descriptor: a socket closed and its
// number reused by another server's would otherwise be taken for it.
// EPOLLONESHOT: a socket whose event was taken is not reported again,
// whether or not its front still wants it.
func (w *firstConnWatch) add(f *frontListener, ln *rawListener) error {
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

// maxAcceptsPerCall is how many connections one readiness event of a
// listening socket accepts (Redis's MAX_ACCEPTS_PER_CALL); more wait for
// the next round, so a flood of connections does not starve the clients.
const maxAcceptsPerCall = 1000

// listenerTag marks a listening socket's epoll events (in the event's
// data, beside its descriptor); connections' are 0.
const listenerTag = 1

// loopListener is a listening socket the loop accepts from.
type loopListener struct {
	ln  net.Listener // the front's socket, for its address and identity
	fd  int          // the loop's duplicate of its descriptor
	tcp bool

	// Touched by the loop's goroutine only.
	polled  bool          // in the epoll set; not while backing off
	backoff time.Duration // after a failed accept; 0 once one succeeds
	timer   *time.Timer   // ends the backoff
	gone    bool          // let go of (unlisten) or the loop shut down
}

// listenOp is a change to the loop's listening sockets, made by the loop
// when it next wakes.
type listenOp struct {
	add    *loopListener // a socket to accept from
	drop   net.Listener  // a socket to let go of
	resume *loopListener // a socket whose backoff has ended
}

// listen makes the loop accept from lns, all or none.
func (l *eventLoop) listen(lns []net.Listener) error {
	var added []*loopListener
	for _, ln := range lns {
		ll, err := dupListener(ln)
		if err != nil {
			for _, a := range added {
				unix.Close(a.fd)
			}
			return err
		}
		added = append(added, ll)
	}
	ops := make([]listenOp, len(added))
	for i, ll := range added {
		ops[i].add = ll
	}
	if !l.post(ops...) {
		for _, ll := range added {
			unix.Close(ll.fd)
		}
	}
	return nil
}

// dupListener takes a duplicate of ln's descriptor for the loop.
func dupListener(ln net.Listener) (*loopListener, error) {
	fd, err := dupSocket(ln)
	if err != nil {
		return nil, err
	}
	_, tcp := ln.Addr().(*net.TCPAddr)
	return &loopListener{ln: ln, fd: fd, tcp: tcp}, nil // non-blocking: the flag is the socket's, shared with Go's
}

// unlisten shuts lns down, so that they refuse connections from now on,
// and has the loop close its duplicates of them; their owner closes the
// sockets themselves.
func (l *eventLoop) unlisten(lns []net.Listener) {
	ops := make([]listenOp, len(lns))
	for i, ln := range lns {
		if sc, ok := ln.(syscall.Conn); ok {
			if raw, err := sc.SyscallConn(); err == nil {
				raw.Control(func(fd uintptr) { unix.Shutdown(int(fd), unix.SHUT_RD) })
			}
		}
		ops[i].drop = ln
	}
	l.post(ops...) // once the loop is done, its sockets are closed
}

// post hands ops to the loop and wakes it; false once the loop is done.
func (l *eventLoop) post(ops ...listenOp) bool {
	l.mu.Lock()
	done := l.done
	if !done {
		l.listenOps = append(l.listenOps, ops...)
	}
	l.mu.Unlock()
	if !done {
		l.wake()
	}
	return !done
}

// takeListenOps applies the changes to the listening sockets posted since
// the last wake.
func (l *eventLoop) takeListenOps() {
	l.mu.Lock()
	ops := l.listenOps
	l.listenOps = nil
	l.mu.Unlock()
	for _, op := range ops {
		switch {
		case op.add != nil:
			l.listeners = append(l.listeners, op.add)
			l.poll(op.add)
		case op.drop != nil:
			for i, ll := range l.listeners {
				if ll.ln == op.drop {
					l.letGo(ll)
					l.listeners = append(l.listeners[:i], l.listeners[i+1:]...)
					break
				}
			}
		case op.resume != nil && !op.resume.gone:
			l.poll(op.resume)
		}
	}
}

// poll puts ll in the epoll set.
func (l *eventLoop) poll(ll *loopListener) {
	ev := unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(ll.fd), Pad: listenerTag}
	if err := unix.EpollCtl(l.epfd, unix.EPOLL_CTL_ADD, ll.fd, &ev); err != nil {
		l.srv.log.Warn("cannot accept on the event loop", "addr", ll.ln.Addr().String(), "err", err)
		return
	}
	ll.polled = true
}

// letGo closes the loop's duplicate of ll's descriptor (which takes it
// out of the epoll set).
func (l *eventLoop) letGo(ll *loopListener) {
	ll.gone = true
	if ll.timer != nil {
		ll.timer.Stop()
	}
	unix.Close(ll.fd)
}

// listenerOf returns the listening socket of descriptor fd.
func (l *eventLoop) listenerOf(fd int32) *loopListener {
	for _, ll := range l.listeners {
		if ll.fd == int(fd) {
			return ll
		}
	}
	return nil
}

// acceptOn accepts the connections waiting on ll, up to
// maxAcceptsPerCall, and registers each as a client at once.
func (l *eventLoop) acceptOn(ll *loopListener) {
	if ll == nil || !ll.polled {
		return
	}
	for i := 0; i < maxAcceptsPerCall; i++ {
		fd, peer, err := unix.Accept4(ll.fd, unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC)
		if err != nil {
			if l.acceptFailed(ll, err) {
				continue
			}
			return
		}
		ll.backoff = 0
		l.adoptAccepted(ll, fd, peer)
	}
}

// acceptFailed handles accept's error err; it reports whether to go on
// accepting now.
func (l *eventLoop) acceptFailed(ll *loopListener, err error) bool {
	switch err {
	case unix.EAGAIN:
		return false
	case unix.EINTR, unix.ECONNABORTED:
		return true
	case unix.EINVAL:
		// Shut down (unlisten): nothing more to accept, and the loop
		// lets go of it when it takes the op.
		l.pause(ll)
		return false
	}
	s := l.srv
	opErr := &net.OpError{Op: "accept", Net: ll.ln.Addr().Network(), Addr: ll.ln.Addr(), Err: os.NewSyscallError("accept4", err)}
	outOfFDs := isOutOfFDs(err)
	// As on a goroutine, the spare descriptor answers a client. The
	// descriptor table being full, accept fails whether or not one waits:
	// with none, the socket is not readable and stays polled.
	var refused bool
	if outOfFDs && s.front.refuseOutOfFDs(opErr, func() { refused = l.refuseOne(ll) }) {
		return refused
	}
	// Out of descriptors or memory: the socket stays readable, so the
	// loop would spin on it. It leaves the epoll set for a while instead,
	// backing off as the accept goroutine does.
	ll.backoff = min(max(2*ll.backoff, 5*time.Millisecond), time.Second)
	if !outOfFDs { // refuseOutOfFDs has logged it
		s.log.Warn("accept failed", "err", opErr, "retry_in", ll.backoff)
	}
	l.pause(ll)
	ll.timer = time.AfterFunc(ll.backoff, func() { l.post(listenOp{resume: ll}) })
	return false
}

// pause takes ll out of the epoll set.
func (l *eventLoop) pause(ll *loopListener) {
	if ll.polled {
		unix.EpollCtl(l.epfd, unix.EPOLL_CTL_DEL, ll.fd, nil)
		ll.polled = false
	}
}

// refuseOne accepts a connection from ll, tells it the server has no room
// and closes it (refuseOutOfFDs, while the spare is closed). It reports
// whether one was waiting.
func (l *eventLoop) refuseOne(ll *loopListener) bool {
	fd, _, err := unix.Accept4(ll.fd, unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC)
	if err != nil {
		return false
	}
	l.srv.rejectedConns.Add(1)
	rawWrite(fd, []byte(errMaxClients))
	unix.Close(fd)
	return true
}

// adoptAccepted makes the accepted socket fd a client, or answers and
// closes it as Redis does (refusal); its options are those Go's net
// package and setKeepAlive give a socket accepted on a goroutine.
func (l *eventLoop) adoptAccepted(ll *loopListener, fd int, peer unix.Sockaddr) {
	s := l.srv
	remote := sockaddrAddr(peer)
	if refusal := s.acceptRefusal(remote); refusal != "" {
		s.rejectedConns.Add(1)
		rawWrite(fd, []byte(refusal))
		unix.Close(fd)
		return
	}
	if ll.tcp {
		unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1)
		setKeepAliveFD(fd, s.tcpKeepalive.Load())
	}
	lc := &loopConn{fd: fd}
	if local, err := unix.Getsockname(fd); err == nil {
		lc.laddr = addrString(sockaddrAddr(local))
	}
	lc.init(s, lc)
	lc.loop = l
	lc.addr = addrString(remote)
	l.register(lc)
}

// setKeepAliveFD is setKeepAlive for a descriptor: Redis's anetKeepAlive,
// which stops at the first option the system refuses. An accepted socket
// starts with keepalive off.
func setKeepAliveFD(fd int, secs int64) {
	if secs <= 0 {
		return
	}
	opts := [...]struct{ level, opt, value int }{
		{unix.SOL_SOCKET, unix.SO_KEEPALIVE, 1},
		{unix.IPPROTO_TCP, unix.TCP_KEEPIDLE, int(secs)},
		{unix.IPPROTO_TCP, unix.TCP_KEEPINTVL, int(keepAliveInterval(secs))},
		{unix.IPPROTO_TCP, unix.TCP_KEEPCNT, 3},
	}
	for _, o := range opts {
		if unix.SetsockoptInt(fd, o.level, o.opt, o.value) != nil {
			return
		}
	}
}

// sockaddrAddr is the net.Addr Go's net package makes of sa, so that
// addresses read the same (CLIENT LIST's addr and laddr) whichever way a
// connection was accepted.
func sockaddrAddr(sa unix.Sockaddr) net.Addr {
	switch sa := sa.(type) {
	case *unix.SockaddrInet4:
		return &net.TCPAddr{IP: sa.Addr[:], Port: sa.Port}
	case *unix.SockaddrInet6:
		return &net.TCPAddr{IP: sa.Addr[:], Port: sa.Port, Zone: zoneName(sa.ZoneId)}
	case *unix.SockaddrUnix:
		return &net.UnixAddr{Name: sa.Name, Net: "unix"}
	}
	return nil
}

// zoneName is Go's name for an IPv6 zone: the interface's, else its index.
func zoneName(index uint32) string {
	if index == 0 {
		return ""
	}
	if ifi, err := net.InterfaceByIndex(int(index)); err == nil {
		return ifi.Name
	}
	return strconv.Itoa(int(index))
}

func addrString(a net.Addr) string {
	if a == nil {
		return "<nil>"
	}
	return a.String()
}
