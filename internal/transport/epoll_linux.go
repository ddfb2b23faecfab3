//go:build linux

package transport

import (
	"errors"
	"io"
	"net"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The event loop serves TCP (and Unix-socket) connections the way Redis's
// ae loop does: one goroutine waits on epoll, reads each readable socket
// once, runs the complete requests it read under the execution lock, and
// writes the replies with one write. A goroutine per connection (the
// goroutine transport, kept for Dial's in-memory connections) costs more
// per request: Go's netpoller reads until EAGAIN before parking, so a
// request costs about two reads, plus a goroutine wake-up and a scheduler
// round trip. BENCHMARKS.md has the figures.
//
// Reading, parsing and running are the connection's (Conn): each reads
// into a query buffer of its own, as Redis's clients do, and requests are
// parsed in place, their arguments slices of it; the clients cron has the
// loop shrink the buffers of idle connections. Replies are written once
// every ready connection has been served, as Redis writes them in
// beforeSleep: a client woken by its reply while the loop still serves
// others is woken by the kernel at the writer's expense, and writing them
// together made a request cost 10-15% less system time.
//
// While a script runs past lua-time-limit on the loop's own goroutine, the
// script's instruction hook calls PollBusy, which writes the round's
// pending replies and serves every other connection as Redis's
// processEventsWhileBlocked does: through the ordinary dispatch, which
// answers BUSY where Redis does and runs the commands allowed while busy
// (SCRIPT KILL, SHUTDOWN NOSAVE, MULTI, WATCH, ...) at once. A script run
// for a goroutine-served client serves the loop's clients in busy turns
// (the server's acquire): the loop never waits for a busy script.

const loopEvents = 256 // epoll events taken per wait

// Loop is an event loop: a server's, made with its first connection.
type Loop struct {
	host   Host
	epfd   int
	wakefd int // an eventfd: new connections and Close wake the loop
	// block says the loop sleeps in epoll_wait itself (see wait); else
	// epfd is in Go's netpoller (epoll, epfile) and the loop parks there.
	block  bool
	epoll  syscall.RawConn
	epfile *os.File
	// idle says a blocking loop found no event in a whole busyMillis: it
	// then parks in Go's netpoller (see wait). idleSpells counts the times
	// it became idle, for the tests.
	idle       bool
	idleSpells atomic.Int64
	busyMillis uintptr // busyMillis when the loop was made

	// Touched by the loop's goroutine only.
	conns   []*loopConn // by descriptor: a slice, as an fd indexes it densely
	events  []unix.EpollEvent
	now     int64       // the time read once per round and phase (Clock), for the connections' Moved
	pending []*loopConn // with replies to write at the end of the round
	// pushedTo: connections that only received pushes this round (pub/sub
	// messages, monitor lines, invalidations: pushDirect), written after
	// pending (flushPending).
	pushedTo []*loopConn
	// bcastDue: a batch of the round left BCAST invalidations to send
	// (broadcast); standIn stands for the loop as the running
	// connection meanwhile, so that they go straight into the replies.
	bcastDue bool
	standIn  *loopConn
	iov      [][]byte // flush's writev vector, reused
	polling  bool     // inside pollBusy
	dead     []*loopConn

	listeners []*loopListener // the sockets it accepts from (epoll_accept_linux.go)

	mu        sync.Mutex
	incoming  []*loopConn // accepted on a goroutine, not yet registered
	woken     []*loopConn // blocked clients with a reply to take (woke)
	listenOps []listenOp  // changes to listeners
	done      bool        // the loop has shut down: nothing more is taken

	// resizeDue is set by the clients cron: the loop resizes its
	// connections' query buffers (resizeQueryBuffers). mayResize says a
	// connection read since, or holds a buffer with room to give back:
	// the cron then sets resizeDue.
	resizeDue, mayResize atomic.Bool
}

// loopConn is one event-loop connection: the server's Conn, and the
// socket as the loop sees it; it is the connection's Handle.
type loopConn struct {
	Conn
	loop   *Loop
	addr   string // the peer's
	laddr  string
	queued bool   // in the loop's pending list
	mask   uint32 // epoll interest
	closed bool
	tls    *loopTLS // a tls-port connection's session; nil for plain ones

	// fd is read by Close from any goroutine (CLIENT KILL, CloseClients),
	// and set to -1 by the loop when it closes the socket.
	mu     sync.Mutex
	fd     int
	killed atomic.Bool
}

// LoopAccepts says the event loop accepts from listening sockets itself
// (epoll_accept_linux.go).
const LoopAccepts = true

// Adopt hands nc, accepted on another goroutine (from a listener Serve
// was given, or from Start's sockets without the loop), to the loop. It
// returns false, leaving nc open, when nc is not a socket the loop can
// poll: serve it on a goroutine (Serve).
func (l *Loop) Adopt(nc net.Conn) bool {
	lc, err := l.adopt(nc)
	if err != nil {
		return false
	}
	l.handOver(lc)
	return true
}

// handOver queues lc, accepted on another goroutine, for the loop to
// register, or closes it if the loop has shut down.
func (l *Loop) handOver(lc *loopConn) {
	l.mu.Lock()
	done := l.done
	if !done {
		l.incoming = append(l.incoming, lc)
	}
	l.mu.Unlock()
	if done {
		unix.Close(lc.fd)
		return
	}
	l.wake()
}

// NewLoop creates an event loop serving h's connections; Run runs it.
// ownsProcessor asks for a processor of its own to sleep on (see wait).
func NewLoop(h Host, ownsProcessor bool) (*Loop, error) {
	epfd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return nil, err
	}
	wakefd, err := unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK)
	if err != nil {
		unix.Close(epfd)
		return nil, err
	}
	l := &Loop{
		host:   h,
		epfd:   epfd,
		wakefd: wakefd,
		events: make([]unix.EpollEvent, loopEvents),

		busyMillis: uintptr(BusyMillis),
	}
	ev := unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(wakefd)}
	err = unix.EpollCtl(epfd, unix.EPOLL_CTL_ADD, wakefd, &ev)
	if err != nil {
		unix.Close(wakefd)
		unix.Close(epfd)
		return nil, err
	}
	l.block = ownsProcessor && claimProcessor()
	if !l.block {
		// A non-blocking epoll descriptor is readable while it has events,
		// so Go's own netpoller can wait on it: the loop parks like any
		// goroutine.
		if err := unix.SetNonblock(epfd, true); err != nil {
			unix.Close(wakefd)
			unix.Close(epfd)
			return nil, err
		}
		l.epfile = os.NewFile(uintptr(epfd), "epoll")
		if l.epoll, err = l.epfile.SyscallConn(); err != nil {
			l.epfile.Close()
			unix.Close(wakefd)
			return nil, err
		}
	}
	return l, nil
}

// Wake makes the loop notice that the server is closing; safe from any
// goroutine.
func (l *Loop) Wake() { l.wake() }

// wake wakes the loop unless it has shut down: its eventfd is closed then,
// and the number may be another file's.
func (l *Loop) wake() {
	var one = [8]byte{1}
	l.mu.Lock()
	if !l.done {
		unix.Write(l.wakefd, one[:])
	}
	l.mu.Unlock()
}

// adopt takes a duplicate of nc's descriptor and closes nc, which takes
// the socket out of Go's netpoller; the duplicate keeps it open.
func (l *Loop) adopt(nc net.Conn) (*loopConn, error) {
	fd, err := dupSocket(nc)
	if err != nil {
		return nil, err
	}
	if err := unix.SetNonblock(fd, true); err != nil {
		unix.Close(fd)
		return nil, err
	}
	lc := &loopConn{fd: fd, laddr: nc.LocalAddr().String(), loop: l, addr: nc.RemoteAddr().String()}
	nc.Close()
	return lc, nil
}

// dupSocket duplicates the descriptor of a socket of Go's net package (a
// net.Conn or net.Listener) for the loop, which alone closes it.
func dupSocket(sock any) (int, error) {
	sc, ok := sock.(syscall.Conn)
	if !ok {
		return -1, errors.ErrUnsupported
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return -1, err
	}
	fd := -1
	var dupErr error
	if err := raw.Control(func(f uintptr) {
		fd, dupErr = unix.FcntlInt(f, unix.F_DUPFD_CLOEXEC, 0)
	}); err != nil {
		return -1, err
	}
	return fd, dupErr
}

// Run serves the loop's connections until the server closes; it closes
// them all before it returns.
func (l *Loop) Run() {
	h := l.host
	for {
		n, err := l.wait()
		if err != nil && err != unix.EINTR {
			h.Log().Error("epoll_wait failed", "err", err)
			break
		}
		l.now = Clock()
		// New connections first: a client that opened connections and
		// then sent a request finds them registered when its request
		// runs, even when epoll lists its socket first (a level-triggered
		// socket reported last round is listed again ahead of the rest).
		for i := 0; i < n; i++ {
			if ev := l.events[i]; ev.Pad == listenerTag {
				l.acceptOn(l.listenerOf(ev.Fd))
			}
		}
		for i := 0; i < n; i++ {
			ev := l.events[i]
			if ev.Pad == listenerTag {
				continue
			}
			if int(ev.Fd) == l.wakefd {
				l.takePosted()
				continue
			}
			if lc := l.conn(ev.Fd); lc != nil {
				l.serve(lc, ev.Events)
			}
		}
		// The replies are stamped with the time they leave, after the
		// round's commands (a script among them may have run for seconds),
		// so that timeout never counts a long command as idleness: the
		// end of the last command, which invoke read anyway.
		l.now = max(l.now, h.CallEnd())
		if l.bcastDue {
			l.broadcast()
		}
		l.flushPending(nil)
		l.releaseDead()
		if l.resizeDue.Load() {
			l.resizeQueryBuffers()
		}
		if h.Closing() {
			break
		}
	}
	l.shutdown()
}

// takePosted takes what other goroutines posted before waking the loop:
// new connections, woken clients and listening-socket changes. The loop
// and a busy script's poll (pollBusy) both answer a wake with it.
func (l *Loop) takePosted() {
	l.takeIncoming()
	l.takeWoken()
	l.takeListenOps()
}

// takeIncoming registers the connections the accept loop handed over.
func (l *Loop) takeIncoming() {
	var buf [8]byte
	unix.Read(l.wakefd, buf[:])
	l.mu.Lock()
	incoming := l.incoming
	l.incoming = nil
	l.mu.Unlock()
	for _, lc := range incoming {
		l.register(lc)
	}
}

// register makes lc a client served by the loop, or closes it if the
// server is closing.
func (l *Loop) register(lc *loopConn) {
	if lc.Conn = l.host.Accept(lc, lc.addr); lc.Conn == nil {
		unix.Close(lc.fd)
		return
	}
	lc.mask = unix.EPOLLIN
	ev := unix.EpollEvent{Events: lc.mask, Fd: int32(lc.fd)}
	if err := unix.EpollCtl(l.epfd, unix.EPOLL_CTL_ADD, lc.fd, &ev); err != nil {
		l.release(lc, err)
		return
	}
	if lc.fd >= len(l.conns) {
		l.conns = append(l.conns, make([]*loopConn, lc.fd+1-len(l.conns))...)
	}
	l.conns[lc.fd] = lc
	// The handshake's reads may have taken records sent right after it:
	// no event will tell of them.
	if lc.tls != nil && l.decrypt(lc) && !lc.closed && !lc.queued {
		lc.queued = true
		l.pending = append(l.pending, lc)
	}
}

// conn returns the connection of descriptor fd, nil if none.
func (l *Loop) conn(fd int32) *loopConn {
	if int(fd) < len(l.conns) {
		return l.conns[fd]
	}
	return nil
}

// Woke has the loop's goroutine, which alone touches the connection's
// buffers, resume it (takeWoken).
func (lc *loopConn) Woke() {
	l := lc.loop
	l.mu.Lock()
	l.woken = append(l.woken, lc)
	l.mu.Unlock()
	l.wake()
}

// Direct is a pub/sub message's shortcut (DirectPusher) when the
// publisher's batch runs on this connection's own event loop (running is
// its connection's Handle): the loop's goroutine, which alone touches the
// connection's buffers, is the one running, so the frame may go straight
// into the replies, and Direct puts the connection in the round's list of
// those to write. It reports false, and does nothing, when the frame must
// go through the inbox instead (another goroutine's batch).
func (lc *loopConn) Direct(running Handle) bool {
	r, ok := running.(*loopConn)
	if !ok || r.loop != lc.loop || lc.closed {
		return false
	}
	if !lc.queued {
		lc.queued = true
		lc.loop.pushedTo = append(lc.loop.pushedTo, lc)
	}
	return true
}

// BroadcastAfterRound has the BCAST invalidations of the running batch
// sent once the loop's round is done (Batcher).
func (lc *loopConn) BroadcastAfterRound() { lc.loop.bcastDue = true }

// PollBusy serves the loop's other connections from a busy script's
// hook, on the loop's goroutine (BusyPoller).
func (lc *loopConn) PollBusy() { lc.loop.pollBusy(lc) }

// takeWoken resumes the blocked connections whose reply has come: the
// reply and what their input then runs go out with the round's replies.
func (l *Loop) takeWoken() {
	l.mu.Lock()
	woken := l.woken
	l.woken = nil
	l.mu.Unlock()
	for _, lc := range woken {
		if lc.closed {
			continue
		}
		if lc.killed.Load() { // a TLS connection's kill
			l.close(lc, nil)
			continue
		}
		woke, keep := lc.Resume(l.polling)
		if keep && lc.TakePushes() { // pub/sub messages
			woke = true
		}
		switch {
		case !woke:
		case !keep:
			l.flush(lc)
			l.close(lc, nil)
		case !lc.queued:
			lc.queued = true
			l.pending = append(l.pending, lc)
		}
	}
}

// serve handles one epoll event of a connection, reading into its query
// buffer; replies wait in the pending list.
func (l *Loop) serve(lc *loopConn, events uint32) {
	if lc.killed.Load() {
		l.close(lc, nil)
		return
	}
	if lc.unsent() > 0 {
		// Waiting for the socket to take earlier replies: nothing is read
		// until it has (a client that does not read its replies stops
		// being read, instead of growing its buffer without bound).
		if events&(unix.EPOLLOUT|unix.EPOLLERR|unix.EPOLLHUP) != 0 {
			l.flushAndMaybeClose(lc)
		}
		return
	}
	if l.read(lc) && !lc.closed && !lc.queued {
		lc.queued = true
		l.pending = append(l.pending, lc)
	}
}

// flushPending writes the replies of the round, except keep's (the
// connection whose batch is still running, or nil): first to the
// connections whose requests ran, then to those that were only pushed to.
// Redis's order is the same in effect (handleClientsWithPendingWrites
// walks a list each client joins at its head, so a publisher, queued by
// its reply after its subscribers, is written before them). It matters
// for a fan-out: publishers answered first send their next PUBLISH while
// the loop still writes to the subscribers, so the next round finds them
// all ready and each subscriber's write carries more messages. Written
// last, the 50 publishers of scripts/bench-pubsub.sh at 1,000 subscribers
// had sent 31 PUBLISHes a round on average, against Redis's 47: 1.5
// writes to a subscriber for each of Redis's (perf stat's sendto count:
// 646,000 against 423,000 for 20,000 messages); written first, 47 and
// 426,000, and 0.26 µs of CPU per delivered message against 0.34.
func (l *Loop) flushPending(keep *loopConn) {
	l.pending = l.flushList(l.pending, keep)
	l.pushedTo = l.flushList(l.pushedTo, keep)
}

// flushList writes the replies of the connections of list but keep's and
// returns what is left of it (keep, if it was in it).
func (l *Loop) flushList(list []*loopConn, keep *loopConn) []*loopConn {
	kept := list[:0]
	for _, lc := range list {
		if lc == keep {
			kept = append(kept, lc)
			continue
		}
		lc.queued = false
		if !lc.closed {
			l.flushAndMaybeClose(lc)
		}
	}
	clear(list[len(kept):])
	return kept
}

// flushAndMaybeClose writes lc's replies and closes it once they are out
// if it asked to be closed (QUIT, a protocol error, CLIENT KILL of itself).
func (l *Loop) flushAndMaybeClose(lc *loopConn) {
	l.flush(lc)
	if !lc.closed && lc.Closing() && lc.unsent() == 0 {
		l.close(lc, nil)
	}
}

// read reads once from lc into its query buffer and runs what it
// completes. It returns false when the connection was closed or nothing
// was read.
func (l *Loop) read(lc *loopConn) bool {
	if lc.tls != nil {
		return l.readTLS(lc)
	}
	buf := lc.ReadBuf(nil)
	n, err := rawRead(lc.fd, buf)
	if err == unix.EAGAIN || err == unix.EINTR {
		return false
	}
	if err != nil || n == 0 {
		if err == nil {
			err = io.EOF
		}
		l.host.CountRead() // Redis counts the read that finds the end too
		l.close(lc, err)
		return false
	}
	lc.Moved(l.now)
	if !l.mayResize.Load() {
		l.mayResize.Store(true)
	}
	if !lc.Received(buf, n, l.polling) {
		l.flush(lc)
		l.close(lc, nil)
		return false
	}
	return true
}

// flush writes lc's pending replies, after the AOF feed (FlushAOF): one
// send when they are one block, else writev of up to writevBlocks blocks
// at a time, each block released once written.
func (l *Loop) flush(lc *loopConn) {
	l.host.FlushAOF()
	left := lc.Flushing()
	if lc.tls != nil {
		l.flushTLS(lc)
		return
	}
	for left > 0 {
		var n int
		var err error
		if l.iov = lc.Buffers(l.iov[:0]); len(l.iov) == 1 {
			n, err = rawWrite(lc.fd, l.iov[0])
		} else {
			n, err = unix.Writev(lc.fd, l.iov[:min(len(l.iov), writevBlocks)])
		}
		clear(l.iov)
		if err == unix.EINTR {
			continue
		}
		if err == unix.EAGAIN {
			break
		}
		if err != nil {
			l.close(lc, err)
			return
		}
		if n > 0 {
			lc.Moved(l.now)
		}
		left = lc.Flushed(n)
	}
	if left > 0 {
		l.setMask(lc, unix.EPOLLOUT)
	} else {
		l.setMask(lc, unix.EPOLLIN)
	}
}

func (l *Loop) setMask(lc *loopConn, mask uint32) {
	if lc.closed || lc.mask == mask {
		return
	}
	lc.mask = mask
	ev := unix.EpollEvent{Events: mask, Fd: int32(lc.fd)}
	if err := unix.EpollCtl(l.epfd, unix.EPOLL_CTL_MOD, lc.fd, &ev); err != nil {
		l.close(lc, err)
	}
}

// close ends a connection. Inside pollBusy the running batch holds the
// execution lock that unregistering may need, so the connection only
// leaves epoll there and is released after the batch.
func (l *Loop) close(lc *loopConn, err error) {
	if lc.closed {
		return
	}
	lc.closed = true
	if l.polling {
		unix.EpollCtl(l.epfd, unix.EPOLL_CTL_DEL, lc.fd, nil)
		l.dead = append(l.dead, lc)
		return
	}
	l.release(lc, err)
}

func (l *Loop) release(lc *loopConn, err error) {
	lc.closed = true
	unix.EpollCtl(l.epfd, unix.EPOLL_CTL_DEL, lc.fd, nil)
	if lc.fd < len(l.conns) && l.conns[lc.fd] == lc { // not registered if epoll refused it
		l.conns[lc.fd] = nil
	}
	if lc.tls != nil {
		lc.tls.closeNotify(lc.fd)
	}
	lc.mu.Lock()
	unix.Close(lc.fd)
	lc.fd = -1
	lc.mu.Unlock()
	if err != nil && err != io.EOF {
		l.host.Log().Debug("connection closed", "addr", lc.addr, "err", err)
	}
	l.host.Closed(lc.Conn)
}

func (l *Loop) releaseDead() {
	for _, lc := range l.dead {
		l.release(lc, nil)
	}
	l.dead = l.dead[:0]
}

// shutdown gives every connection one last chance to take its replies,
// then closes it (the server's Close waits for that).
func (l *Loop) shutdown() {
	l.mu.Lock()
	l.done = true
	l.mu.Unlock()
	l.takeIncoming()
	l.takeListenOps()
	for _, ll := range l.listeners {
		l.letGo(ll)
	}
	l.listeners = nil
	l.flushPending(nil)
	l.releaseDead()
	for _, lc := range l.conns {
		if lc == nil {
			continue
		}
		if lc.tls != nil {
			if l.flush(lc); !lc.closed {
				l.release(lc, nil)
			}
			continue
		}
		for _, b := range lc.Buffers(nil) {
			if _, err := unix.Write(lc.fd, b); err != nil {
				break
			}
		}
		l.release(lc, nil)
	}
	unix.Close(l.wakefd)
	if l.epfile != nil {
		l.epfile.Close()
	} else {
		unix.Close(l.epfd)
	}
	if l.block {
		blockingLoops.Add(-1)
	}
}

// blockingLoops counts the loops of the process that keep a processor.
var blockingLoops atomic.Int32

// claimProcessor reserves a processor for a loop that will sleep on it,
// leaving at least one to the rest of the program: with every processor
// held by a sleeping loop, nothing else would run but in the 10 ms slices
// the runtime's monitor forces.
func claimProcessor() bool {
	if blockingLoops.Add(1) <= int32(runtime.GOMAXPROCS(0)-1) {
		return true
	}
	blockingLoops.Add(-1)
	return false
}

// wait returns the next events, sleeping until there are some.
//
// With a processor of its own (Config.LoopOwnsProcessor, claimProcessor)
// the loop sleeps in epoll_wait itself, by a raw system call that keeps its
// processor, as Redis's loop does: one call a round. The runtime's other
// processors run everything else (timers, the collector, goroutine
// clients); the collector's and the monitor's preemption signals
// interrupt the call (EINTR), and the loop stops at its next safe point.
// The wait also ends after busyMillis, so that the collector never waits
// long for the loop even where those signals are off
// (GODEBUG=asyncpreemptoff=1). epfd is then not in Go's netpoller: there,
// every event woke a second thread for nothing (14 µs a request instead
// of 7).
//
// A loop that found no event in a whole busyMillis is idle: it parks in
// Go's netpoller until the next event, on a duplicate of epfd registered
// there only for that time (parkIdle). A raw wait counts as running to the
// runtime, whose monitor interrupts it every 10 ms to preempt it: 50
// signals a second, about a third of an idle binary's CPU (BENCHMARKS.md).
// Under load the waits are short and stay raw.
//
// Otherwise (an embedded server, or no processor to spare) the loop must
// not keep one while it sleeps: it parks in Go's netpoller on epfd.
// Blocking in epoll_wait as an ordinary system call would make the
// runtime's monitor wake every 20 µs to hand the processor to another
// thread (40,000 nanosleeps, 5,000 futex calls and a fifth of the CPU per
// 50,000 requests, strace -c).
func (l *Loop) wait() (int, error) {
	if !l.block {
		return l.park()
	}
	if l.idle {
		if n, ok, err := l.parkIdle(); ok {
			return n, err
		}
		// No descriptor to spare (EMFILE): a raw wait serves as well.
	}
	r, _, e := unix.RawSyscall6(unix.SYS_EPOLL_PWAIT, uintptr(l.epfd), uintptr(unsafe.Pointer(&l.events[0])), uintptr(len(l.events)), l.busyMillis, 0, 0)
	if e != 0 {
		return 0, e
	}
	if r == 0 {
		l.idle = true
		l.idleSpells.Add(1)
	}
	return int(r), nil
}

// BusyMillis bounds a raw wait; one that ends without an event makes the
// loop idle. The runtime's monitor preempts a goroutine after 10 ms, so a
// loop under load seldom meets it. A variable for the tests; a loop reads
// it once, when it is made.
var BusyMillis = 10

// parkIdle parks an idle blocking loop in Go's netpoller until there are
// events, on a duplicate of epfd registered there for the time. ok is
// false when the duplicate cannot be made. The loop is no longer idle
// after it.
func (l *Loop) parkIdle() (n int, ok bool, err error) {
	l.idle = false
	fd, err := unix.FcntlInt(uintptr(l.epfd), unix.F_DUPFD_CLOEXEC, 0)
	if err != nil {
		return 0, false, nil
	}
	// O_NONBLOCK is the open file's, so epfd gets it too: epoll_wait does
	// not look at it.
	if unix.SetNonblock(fd, true) != nil {
		unix.Close(fd)
		return 0, false, nil
	}
	f := os.NewFile(uintptr(fd), "epoll")
	// Out of the netpoller once awake: under load it would wake a thread
	// for every event (above).
	defer f.Close()
	rc, err := f.SyscallConn()
	if err != nil {
		return 0, false, nil
	}
	n, err = l.parkOn(rc)
	return n, true, err
}

// park is wait for a loop without a processor of its own.
func (l *Loop) park() (int, error) { return l.parkOn(l.epoll) }

// parkOn parks the loop in Go's netpoller on rc, epfd or a duplicate of
// it, until epfd has events. It is a function of its own because the
// closure's results live on the heap: two allocations a round, which the
// blocking wait should not pay.
func (l *Loop) parkOn(rc syscall.RawConn) (n int, err error) {
	rerr := rc.Read(func(uintptr) bool {
		n, err = epollPoll(l.epfd, l.events)
		return n > 0 || (err != nil && err != unix.EINTR)
	})
	if err == nil {
		err = rerr
	}
	return n, err
}

// pollBusy runs inside a script that is past its time limit, on the loop's
// goroutine (which holds the execution lock for it): it serves every
// connection but current, the script's own, once, without waiting.
func (l *Loop) pollBusy(current *loopConn) {
	if l.polling {
		return
	}
	l.polling = true
	defer func() { l.polling = false }()
	l.now = Clock()
	// The round's replies so far go out now, as Redis's beforeSleep runs
	// from processEventsWhileBlocked: a client served earlier in the round
	// would otherwise wait for the script to end. The running batch's own
	// replies wait for it.
	l.flushPending(current)
	var events [64]unix.EpollEvent
	n, err := epollPoll(l.epfd, events[:])
	if err != nil {
		return
	}
	for i := 0; i < n; i++ {
		ev := events[i]
		if ev.Pad == listenerTag {
			l.acceptOn(l.listenerOf(ev.Fd)) // as processEventsWhileBlocked does
			continue
		}
		if int(ev.Fd) == l.wakefd {
			l.takePosted()
			continue
		}
		if lc := l.conn(ev.Fd); lc != nil && lc != current && !lc.closed {
			l.serve(lc, ev.Events) // the script's own client is not read, as in Redis
		}
	}
	l.flushPending(current)
}

// RequestResize has the loop resize its connections' query buffers soon
// if any may need it (the clients cron); safe from any goroutine.
func (l *Loop) RequestResize() {
	if l.mayResize.Load() && !l.resizeDue.Swap(true) {
		l.wake()
	}
}

// resizeQueryBuffers runs Redis's clientsCronResizeQueryBuffer on every
// connection, between batches: none of them has a request running, whose
// arguments could be in its buffer.
func (l *Loop) resizeQueryBuffers() {
	l.resizeDue.Store(false)
	l.mayResize.Store(false)
	now := Clock()
	more := false
	for _, lc := range l.conns {
		if lc != nil && !lc.closed {
			more = lc.ResizeQueryBuffer(now) || more
		}
	}
	if more {
		l.mayResize.Store(true)
	}
}

// Kill asks the loop to close the connection; safe from any goroutine.
// The socket is shut down at once, so the peer sees the close even while
// the loop waits for the execution lock.
func (lc *loopConn) Kill() {
	lc.killed.Store(true)
	if lc.tls != nil {
		// The loop closes it, with a close_notify, as Redis's
		// SSL_shutdown: a socket shut down could not carry it.
		lc.Woke()
		return
	}
	lc.mu.Lock()
	if lc.fd >= 0 {
		unix.Shutdown(lc.fd, unix.SHUT_RDWR)
	}
	lc.mu.Unlock()
}

func (lc *loopConn) Interrupt()        {} // the loop closes its connections itself
func (lc *loopConn) LocalAddr() string { return lc.laddr }

// SocketFD is the socket's descriptor, for CLIENT LIST; -1 once closed.
func (lc *loopConn) SocketFD() int {
	lc.mu.Lock()
	defer lc.mu.Unlock()
	return lc.fd
}

// The socket calls cannot block (the descriptors are non-blocking, and
// epoll_wait has a zero timeout), so they are raw system calls, which
// skip the scheduler's bookkeeping for calls that might (see wait).

func rawRead(fd int, p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	n, _, e := unix.RawSyscall(unix.SYS_READ, uintptr(fd), uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
	if e != 0 {
		return 0, e
	}
	return int(n), nil
}

// writevBlocks is how many reply blocks one writev sends at most (1 MB).
const writevBlocks = 64

// rawWrite sends with MSG_NOSIGNAL: a peer that has gone away is an EPIPE
// error, not a SIGPIPE.
func rawWrite(fd int, p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	n, _, e := unix.RawSyscall6(unix.SYS_SENDTO, uintptr(fd), uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)), unix.MSG_NOSIGNAL, 0, 0)
	if e != 0 {
		return 0, e
	}
	return int(n), nil
}

// epollPoll is epoll_wait with a zero timeout (for the front's
// first-connection watch too).
func epollPoll(epfd int, events []unix.EpollEvent) (int, error) {
	n, _, e := unix.RawSyscall6(unix.SYS_EPOLL_PWAIT, uintptr(epfd), uintptr(unsafe.Pointer(&events[0])), uintptr(len(events)), 0, 0, 0)
	if e != 0 {
		return 0, e
	}
	return int(n), nil
}

// broadcast sends the BCAST invalidations of the round's batches, once
// per round as Redis's beforeSleep does, rather than once per batch, which
// under 50 writers sent each BCAST client a message per write. If the lock
// is taken (a busy script's), it is tried again next round, and the
// expiry cron sends them meanwhile.
func (l *Loop) broadcast() {
	if l.standIn == nil {
		l.standIn = &loopConn{loop: l, fd: -1, closed: true}
	}
	if l.host.Broadcast(l.standIn) {
		l.bcastDue = false
	}
}

// OwnsProcessor reports whether the loop sleeps on a processor of its own
// (see wait), for the tests; InNetpoller whether its epoll set is in Go's
// netpoller, which it is exactly when it does not; IdleSpells how many
// times it became idle.
func (l *Loop) OwnsProcessor() bool { return l.block }
func (l *Loop) InNetpoller() bool   { return l.epfile != nil }
func (l *Loop) IdleSpells() int64   { return l.idleSpells.Load() }

// TLSConns counts the open TLS connections registered with the loop, for
// the tests: called while the loop runs no round (the caller holds the
// execution lock a round's batches need, and the loop registers
// connections between batches only).
func (l *Loop) TLSConns() int {
	n := 0
	for _, lc := range l.conns {
		if lc != nil && lc.tls != nil && !lc.closed {
			n++
		}
	}
	return n
}
