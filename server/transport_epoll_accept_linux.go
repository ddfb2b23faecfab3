//go:build linux

package server

import (
	"net"
	"os"
	"slices"
	"strconv"
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

// awaitLoop waits until ln has a connection to accept, then creates the
// event loop and has it accept from the front's sockets; until then the
// server pays for neither the loop nor its descriptors (a test double
// that starts and stops without a client). Without a loop (it could not
// be created) the sockets are accepted from on goroutines.
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
	// Readable, closed, or woken by the deadline below.
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
				if other != ln {
					if d, ok := other.(interface{ SetDeadline(time.Time) error }); ok {
						d.SetDeadline(time.Unix(1, 0)) // wakes its awaitLoop
					}
				}
			}
			return
		}
		f.srv.log.Warn("the event loop cannot accept; accepting on goroutines", "err", err)
	}
	go f.acceptFrom(ln) // the others do when they wake
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
