//go:build linux

package transport

import (
	"net"
	"os"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// The event loop accepts from the listening sockets it is given (Listen)
// itself, as Redis's ae loop does: they are in its epoll set, and a
// connection is a client, registered and listed by CLIENT LIST, from the
// round in which the loop sees it. The loop polls a duplicate of each
// socket's descriptor, which only it closes: closing the socket from
// another goroutine (Close, CONFIG SET port) could let the number be
// reused for another socket while the loop still accepts from it. The
// closer shuts the socket down (Unlisten), which makes it refuse
// connections at once, and tells the loop to let go.

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

// Listen makes the loop accept from lns, all or none; safe from any
// goroutine.
func (l *Loop) Listen(lns []net.Listener) error {
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

// Unlisten shuts lns down, so that they refuse connections from now on,
// and has the loop close its duplicates of them; their owner closes the
// sockets themselves. Safe from any goroutine.
func (l *Loop) Unlisten(lns []net.Listener) {
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
func (l *Loop) post(ops ...listenOp) bool {
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
func (l *Loop) takeListenOps() {
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
func (l *Loop) poll(ll *loopListener) {
	ev := unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(ll.fd), Pad: listenerTag}
	if err := unix.EpollCtl(l.epfd, unix.EPOLL_CTL_ADD, ll.fd, &ev); err != nil {
		l.host.Log().Warn("cannot accept on the event loop", "addr", ll.ln.Addr().String(), "err", err)
		return
	}
	ll.polled = true
}

// letGo closes the loop's duplicate of ll's descriptor (which takes it
// out of the epoll set).
func (l *Loop) letGo(ll *loopListener) {
	ll.gone = true
	if ll.timer != nil {
		ll.timer.Stop()
	}
	unix.Close(ll.fd)
}

// listenerOf returns the listening socket of descriptor fd.
func (l *Loop) listenerOf(fd int32) *loopListener {
	for _, ll := range l.listeners {
		if ll.fd == int(fd) {
			return ll
		}
	}
	return nil
}

// acceptOn accepts the connections waiting on ll, up to
// maxAcceptsPerCall, and registers each as a client at once.
func (l *Loop) acceptOn(ll *loopListener) {
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
func (l *Loop) acceptFailed(ll *loopListener, err error) bool {
	switch err {
	case unix.EAGAIN:
		return false
	case unix.EINTR, unix.ECONNABORTED:
		return true
	case unix.EINVAL:
		// Shut down (Unlisten): nothing more to accept, and the loop
		// lets go of it when it takes the op.
		l.pause(ll)
		return false
	}
	h := l.host
	opErr := &net.OpError{Op: "accept", Net: ll.ln.Addr().Network(), Addr: ll.ln.Addr(), Err: os.NewSyscallError("accept4", err)}
	outOfFDs := IsOutOfFDs(err)
	// As on a goroutine, the spare descriptor answers a client. The
	// descriptor table being full, accept fails whether or not one waits:
	// with none, the socket is not readable and stays polled.
	var refused bool
	if outOfFDs && h.OutOfFDs(opErr, func(reply string) bool { refused = l.refuseOne(ll, reply); return refused }) {
		return refused
	}
	// Out of descriptors or memory: the socket stays readable, so the
	// loop would spin on it. It leaves the epoll set for a while instead,
	// backing off as the accept goroutine does.
	ll.backoff = min(max(2*ll.backoff, 5*time.Millisecond), time.Second)
	if !outOfFDs { // OutOfFDs has logged it
		h.Log().Warn("Accepting client connection: " + opErr.Error())
	}
	l.pause(ll)
	ll.timer = time.AfterFunc(ll.backoff, func() { l.post(listenOp{resume: ll}) })
	return false
}

// pause takes ll out of the epoll set.
func (l *Loop) pause(ll *loopListener) {
	if ll.polled {
		unix.EpollCtl(l.epfd, unix.EPOLL_CTL_DEL, ll.fd, nil)
		ll.polled = false
	}
}

// refuseOne accepts a connection from ll, sends it reply (the server has
// no room) and closes it (Host.OutOfFDs, while the spare is closed). It
// reports whether one was waiting.
func (l *Loop) refuseOne(ll *loopListener, reply string) bool {
	fd, _, err := unix.Accept4(ll.fd, unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC)
	if err != nil {
		return false
	}
	rawWrite(fd, []byte(reply))
	unix.Close(fd)
	return true
}

// adoptAccepted makes the accepted socket fd a client, or answers and
// closes it as Redis does (Host.Admit's refusal); its options are those
// Go's net package and SetKeepAlive give a socket accepted on a goroutine.
func (l *Loop) adoptAccepted(ll *loopListener, fd int, peer unix.Sockaddr) {
	h := l.host
	remote := sockaddrAddr(peer)
	if refusal := h.Admit(remote); refusal != "" {
		rawWrite(fd, []byte(refusal))
		unix.Close(fd)
		return
	}
	if ll.tcp {
		unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1)
		setKeepAliveFD(fd, h.KeepAlive())
	}
	lc := &loopConn{fd: fd, loop: l, addr: addrString(remote)}
	if local, err := unix.Getsockname(fd); err == nil {
		lc.laddr = addrString(sockaddrAddr(local))
	}
	l.register(lc)
}

// setKeepAliveFD is SetKeepAlive for a descriptor: Redis's anetKeepAlive,
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
