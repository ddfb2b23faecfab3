//go:build linux

package server

import (
	"errors"
	"io"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"github.com/tidwall/redcon"
	"golang.org/x/sys/unix"
)

// The event loop serves TCP (and Unix-socket) connections the way Redis's
// ae loop does: one goroutine waits on epoll, reads each readable socket
// once, runs the complete requests it read under the execution lock, and
// writes the replies with one write. A goroutine per connection (redcon's
// model, kept for Dial's in-memory connections) costs more per request:
// Go's netpoller reads until EAGAIN before parking, so a request costs
// about two reads, plus a goroutine wake-up and a scheduler round trip;
// and redcon copies every request. BENCHMARKS.md has the figures.
//
// Requests are parsed in place (requestParser): their arguments are slices
// of a read buffer shared by all connections; a connection owns an input
// buffer only while it holds a partial request. Replies are written once
// every ready connection has been served, as Redis writes them in
// beforeSleep: a client woken by its reply while the loop still serves
// others is woken by the kernel at the writer's expense, and writing them
// together made a request cost 10-15% less system time.
//
// While a script runs past lua-time-limit on the loop's own goroutine, the
// script's instruction hook calls pollBusy, which writes the round's
// pending replies and serves every other connection as Redis's
// processEventsWhileBlocked does: through the ordinary dispatch, which
// answers BUSY where Redis does and runs the commands allowed while busy
// (SCRIPT KILL, SHUTDOWN NOSAVE, MULTI, WATCH, ...) at once.

const (
	loopReadSize  = 64 << 10 // bytes one read asks for (Redis: 16 KB)
	loopKeepBytes = 64 << 10 // larger reply buffers are dropped once written
	loopEvents    = 256      // epoll events taken per wait
)

type eventLoop struct {
	srv    *Server
	epfd   int
	wakefd int             // an eventfd: new connections and Close wake the loop
	epoll  syscall.RawConn // epfd in Go's netpoller, to park the loop on
	epfile *os.File

	// Touched by the loop's goroutine only.
	conns   map[int32]*loopConn
	events  []unix.EpollEvent
	rbuf    []byte      // shared read buffer
	pbuf    []byte      // read buffer while pollBusy runs (rbuf backs the running batch)
	pending []*loopConn // with replies to write at the end of the round
	current *loopConn   // the connection whose batch runs
	polling bool        // inside pollBusy
	dead    []*loopConn

	mu       sync.Mutex
	incoming []*loopConn  // accepted, not yet registered
	woken    []wokenReply // blocked clients' replies, from resume
	done     bool         // the loop has shut down: nothing more is taken
}

// loopConn is one event-loop connection; it is the redcon.Conn that
// Client.conn and respWriter use, so handlers cannot tell it from redcon's.
type loopConn struct {
	ctx    any
	addr   string
	laddr  string
	parser requestParser
	in     []byte // unparsed input, owned; nil when none
	out    []byte // replies not yet written
	queued bool   // in the loop's pending list
	mask   uint32 // epoll interest
	closed bool
	paused bool // its client is blocked: input is read and kept, not run
	loop   *eventLoop

	// fd is read by Close from any goroutine (CLIENT KILL, CloseClients),
	// and set to -1 by the loop when it closes the socket.
	mu     sync.Mutex
	fd     int
	killed atomic.Bool
}

// startLoop serves ln with an event loop. It returns false where the
// loop cannot be used (the caller then serves ln with redcon). The loop
// itself is created with the first connection: a test double that starts
// and stops without one pays only for the accept goroutine.
func (s *Server) startLoop(ln net.Listener) bool {
	if s.cfg.GoroutineConns {
		return false
	}
	s.stopped.Add(1)
	go s.acceptLoop(ln)
	return true
}

// newLoop creates the epoll set and starts the loop's goroutine.
func (s *Server) newLoop() (*eventLoop, error) {
	epfd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return nil, err
	}
	wakefd, err := unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK)
	if err != nil {
		unix.Close(epfd)
		return nil, err
	}
	l := &eventLoop{
		srv:    s,
		epfd:   epfd,
		wakefd: wakefd,
		conns:  make(map[int32]*loopConn),
		events: make([]unix.EpollEvent, loopEvents),
		rbuf:   make([]byte, loopReadSize),
	}
	ev := unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(wakefd)}
	err = unix.EpollCtl(epfd, unix.EPOLL_CTL_ADD, wakefd, &ev)
	if err == nil {
		// A non-blocking epoll descriptor is readable while it has events,
		// so Go's own netpoller can wait on it: the loop parks like any
		// goroutine.
		err = unix.SetNonblock(epfd, true)
	}
	if err != nil {
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
	s.stopped.Add(1) // the accept goroutine's count is still held
	go l.run()
	s.loop.Store(l)
	if s.closed.Load() {
		l.wake() // Close may have looked for the loop before it existed
	}
	return l, nil
}

// wakeLoop makes the loop notice that the server is closing.
func (s *Server) wakeLoop() {
	if l := s.loop.Load(); l != nil {
		l.wake()
	}
}

func (l *eventLoop) wake() {
	var one = [8]byte{1}
	unix.Write(l.wakefd, one[:])
}

// acceptLoop accepts with Go's listener (accepting is rare and needs no
// speed) and hands each socket's descriptor to the loop.
func (s *Server) acceptLoop(ln net.Listener) {
	defer s.stopped.Done()
	var l *eventLoop
	defer close(s.served)
	var backoff time.Duration
	for {
		nc, err := ln.Accept()
		if err != nil {
			if s.closed.Load() || errors.Is(err, net.ErrClosed) {
				return
			}
			// Out of descriptors and the like: back off as net/http does,
			// rather than spin.
			backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
			s.log.Warn("accept failed", "err", err, "retry_in", backoff)
			select {
			case <-time.After(backoff):
			case <-s.stop:
				return
			}
			continue
		}
		backoff = 0
		if l == nil {
			if l, err = s.newLoop(); err != nil {
				s.log.Warn("cannot start the event loop; serving connections on goroutines", "err", err)
			}
		}
		var lc *loopConn
		if l != nil {
			lc, err = l.adopt(nc)
		}
		if l == nil || err != nil {
			// Not a socket the loop can poll: serve it the goroutine way.
			if pl, perr := s.pipeListener(); perr == nil {
				select {
				case pl.conns <- nc:
					continue
				case <-s.stop:
				}
			}
			nc.Close()
			continue
		}
		l.mu.Lock()
		done := l.done
		if !done {
			l.incoming = append(l.incoming, lc)
		}
		l.mu.Unlock()
		if done {
			unix.Close(lc.fd)
			continue
		}
		l.wake()
	}
}

// adopt takes a duplicate of nc's descriptor and closes nc, which takes
// the socket out of Go's netpoller; the duplicate keeps it open.
func (l *eventLoop) adopt(nc net.Conn) (*loopConn, error) {
	sc, ok := nc.(syscall.Conn)
	if !ok {
		return nil, errors.ErrUnsupported
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return nil, err
	}
	fd := -1
	var dupErr error
	if err := raw.Control(func(f uintptr) {
		fd, dupErr = unix.FcntlInt(f, unix.F_DUPFD_CLOEXEC, 0)
	}); err != nil {
		return nil, err
	}
	if dupErr != nil {
		return nil, dupErr
	}
	if err := unix.SetNonblock(fd, true); err != nil {
		unix.Close(fd)
		return nil, err
	}
	lc := &loopConn{fd: fd, addr: nc.RemoteAddr().String(), laddr: nc.LocalAddr().String(), loop: l}
	lc.parser.srv = l.srv
	nc.Close()
	return lc, nil
}

func (l *eventLoop) run() {
	s := l.srv
	defer s.stopped.Done()
	for {
		n, err := l.wait()
		if err != nil && err != unix.EINTR {
			s.log.Error("epoll_wait failed", "err", err)
			break
		}
		for i := 0; i < n; i++ {
			ev := l.events[i]
			if int(ev.Fd) == l.wakefd {
				l.takeIncoming()
				l.takeWoken()
				continue
			}
			if lc := l.conns[ev.Fd]; lc != nil {
				l.serve(lc, ev.Events, l.rbuf)
			}
		}
		l.flushPending(nil)
		l.releaseDead()
		if s.closed.Load() {
			break
		}
	}
	l.shutdown()
}

// takeIncoming registers the connections the accept loop handed over.
func (l *eventLoop) takeIncoming() {
	var buf [8]byte
	unix.Read(l.wakefd, buf[:])
	l.mu.Lock()
	incoming := l.incoming
	l.incoming = nil
	l.mu.Unlock()
	for _, lc := range incoming {
		if !l.srv.accept(lc) {
			unix.Close(lc.fd)
			continue
		}
		lc.mask = unix.EPOLLIN
		ev := unix.EpollEvent{Events: lc.mask, Fd: int32(lc.fd)}
		if err := unix.EpollCtl(l.epfd, unix.EPOLL_CTL_ADD, lc.fd, &ev); err != nil {
			l.release(lc, err)
			continue
		}
		l.conns[int32(lc.fd)] = lc
	}
}

// serve handles one epoll event of a connection, reading into scratch
// when it holds no partial request; replies wait in the pending list.
func (l *eventLoop) serve(lc *loopConn, events uint32, scratch []byte) {
	if lc.killed.Load() {
		l.close(lc, nil)
		return
	}
	if len(lc.out) > 0 {
		// Waiting for the socket to take earlier replies: nothing is read
		// until it has (a client that does not read its replies stops
		// being read, instead of growing its buffer without bound).
		if events&(unix.EPOLLOUT|unix.EPOLLERR|unix.EPOLLHUP) != 0 {
			l.flushAndMaybeClose(lc)
		}
		return
	}
	if l.read(lc, scratch) && !lc.closed && !lc.queued {
		lc.queued = true
		l.pending = append(l.pending, lc)
	}
}

// flushPending writes the replies of the round, except keep's (the
// connection whose batch is still running, or nil).
func (l *eventLoop) flushPending(keep *loopConn) {
	kept := l.pending[:0]
	for _, lc := range l.pending {
		if lc == keep {
			kept = append(kept, lc)
			continue
		}
		lc.queued = false
		if !lc.closed {
			l.flushAndMaybeClose(lc)
		}
	}
	clear(l.pending[len(kept):])
	l.pending = kept
}

// flushAndMaybeClose writes lc's replies and closes it once they are out
// if it asked to be closed (QUIT, a protocol error, CLIENT KILL of itself).
func (l *eventLoop) flushAndMaybeClose(lc *loopConn) {
	l.flush(lc)
	if !lc.closed && lc.client().closing && len(lc.out) == 0 {
		l.close(lc, nil)
	}
}

// read reads once from lc and runs what it completes. scratch is the
// buffer to read into when lc holds no partial request. It returns false
// when the connection was closed or nothing was read.
func (l *eventLoop) read(lc *loopConn, scratch []byte) bool {
	var buf []byte
	if len(lc.in) == 0 {
		buf = scratch[:cap(scratch)]
	} else {
		// A partial request: read into its buffer, growing it towards the
		// rest of a large bulk when its length is known, but geometrically,
		// so announcing a large bulk does not reserve it all at once.
		want := min(max(lc.parser.need(len(lc.in)), 16<<10), max(cap(lc.in), 16<<10))
		if cap(lc.in)-len(lc.in) < want/2 {
			grown := make([]byte, len(lc.in), len(lc.in)+want)
			copy(grown, lc.in)
			lc.in = grown
		}
		buf = lc.in[len(lc.in):cap(lc.in)]
	}
	n, err := rawRead(lc.fd, buf)
	if err == unix.EAGAIN || err == unix.EINTR {
		return false
	}
	if err != nil || n == 0 {
		if err == nil {
			err = io.EOF
		}
		l.close(lc, err)
		return false
	}
	var data []byte
	if len(lc.in) == 0 {
		data = buf[:n]
	} else {
		lc.in = lc.in[:len(lc.in)+n]
		data = lc.in
	}
	used := l.process(lc, data)
	rest := data[used:]
	c := lc.client()
	switch {
	case c.closing:
		lc.in = nil
	case int64(len(rest)) > l.srv.cfg.QueryBufferLimit:
		// As Redis, close without a word (the replies to the complete
		// requests before it still go out).
		l.srv.log.Warn("closing client that reached max query buffer length", "addr", lc.addr)
		l.flush(lc)
		l.close(lc, nil)
		return false
	case len(lc.in) == 0:
		if len(rest) > 0 {
			lc.in = make([]byte, len(rest), len(rest)+min(max(lc.parser.need(len(rest)), 4<<10), loopReadSize))
			copy(lc.in, rest)
		}
	case len(rest) == 0:
		lc.in = nil
	default:
		lc.in = lc.in[:copy(lc.in, rest)]
	}
	return true
}

// process runs the complete requests at the start of data and returns the
// bytes they took. Outside pollBusy it holds the execution lock from the
// first request to the last, as one batch.
func (l *eventLoop) process(lc *loopConn, data []byte) int {
	s := l.srv
	c := lc.client()
	locked := false
	off := 0
	for off < len(data) && !c.closing && !lc.paused {
		st, used, args, msg := lc.parser.next(data[off:], c.authed)
		if st == parseIncomplete {
			break
		}
		off += used
		switch st {
		case parseSkip:
			continue
		case parseError:
			lc.out = redcon.AppendError(lc.out, msg)
			c.closing = true
			s.log.Info("protocol error", "addr", lc.addr, "err", msg)
			continue
		}
		if l.polling {
			l.busyCommand(c, args)
			continue
		}
		if !locked {
			if !s.acquire(c, args) {
				continue
			}
			locked = true
			s.loopRunning = l
			l.current = lc
		}
		s.execute(c, args)
		if c.isBlocked() {
			lc.paused = true // until resume: see blocking.go
		}
	}
	if locked {
		s.loopRunning = nil
		l.current = nil
		s.release()
	}
	return off
}

// flush writes lc's pending replies.
func (l *eventLoop) flush(lc *loopConn) {
	written := 0
	for written < len(lc.out) {
		n, err := rawWrite(lc.fd, lc.out[written:])
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
		written += n
	}
	rest := lc.out[written:]
	switch {
	case len(rest) == 0 && cap(lc.out) > loopKeepBytes:
		lc.out = nil
	case len(rest) == 0:
		lc.out = lc.out[:0]
	case written > 0:
		lc.out = lc.out[:copy(lc.out, rest)]
	}
	if len(lc.out) > 0 {
		l.setMask(lc, unix.EPOLLOUT)
	} else {
		l.setMask(lc, unix.EPOLLIN)
	}
}

func (l *eventLoop) setMask(lc *loopConn, mask uint32) {
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
func (l *eventLoop) close(lc *loopConn, err error) {
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

func (l *eventLoop) release(lc *loopConn, err error) {
	lc.closed = true
	unix.EpollCtl(l.epfd, unix.EPOLL_CTL_DEL, lc.fd, nil)
	delete(l.conns, int32(lc.fd))
	lc.mu.Lock()
	unix.Close(lc.fd)
	lc.fd = -1
	lc.mu.Unlock()
	if err == io.EOF {
		err = nil
	}
	l.srv.closedConn(lc, err)
}

func (l *eventLoop) releaseDead() {
	for _, lc := range l.dead {
		l.release(lc, nil)
	}
	l.dead = l.dead[:0]
}

// shutdown gives every connection one last chance to take its replies,
// then closes it (Server.Close waits for that).
func (l *eventLoop) shutdown() {
	l.mu.Lock()
	l.done = true
	l.mu.Unlock()
	l.takeIncoming()
	l.flushPending(nil)
	l.releaseDead()
	for _, lc := range l.conns {
		if len(lc.out) > 0 {
			unix.Write(lc.fd, lc.out)
		}
		l.release(lc, nil)
	}
	unix.Close(l.wakefd)
	l.epfile.Close()
}

// wait returns the next events, parking the goroutine in Go's netpoller
// while there are none. Blocking in epoll_wait instead would be a system
// call the scheduler must plan for: its monitor thread then wakes every
// 20 µs to hand the processor to another thread, which cost 40,000
// nanosleeps, 5,000 futex calls and a fifth of the CPU per 50,000 requests
// (strace -c, EVALSHA, 50 clients).
func (l *eventLoop) wait() (n int, err error) {
	rerr := l.epoll.Read(func(uintptr) bool {
		n, err = epollPoll(l.epfd, l.events)
		return n > 0 || (err != nil && err != unix.EINTR)
	})
	if err == nil {
		err = rerr
	}
	return n, err
}

// pollBusy runs inside a script that is past its time limit, on the loop's
// goroutine (which holds the execution lock for it): it serves every other
// connection once, without waiting.
func (l *eventLoop) pollBusy() {
	if l.polling {
		return
	}
	l.polling = true
	defer func() { l.polling = false }()
	if l.pbuf == nil {
		l.pbuf = make([]byte, 16<<10)
	}
	// The round's replies so far go out now, as Redis's beforeSleep runs
	// from processEventsWhileBlocked: a client served earlier in the round
	// would otherwise wait for the script to end. The running batch's own
	// replies wait for it.
	l.flushPending(l.current)
	var events [64]unix.EpollEvent
	n, err := epollPoll(l.epfd, events[:])
	if err != nil {
		return
	}
	for i := 0; i < n; i++ {
		ev := events[i]
		if int(ev.Fd) == l.wakefd {
			l.takeIncoming()
			continue
		}
		if lc := l.conns[ev.Fd]; lc != nil && lc != l.current && !lc.closed {
			l.serve(lc, ev.Events, l.pbuf) // the script's own client is not read, as in Redis
		}
	}
	l.flushPending(l.current)
}

// busyCommand answers a request while a script is busy, through the
// ordinary dispatch (this goroutine holds the lock for the script), which
// then refuses what Redis refuses, in Redis's order: an unknown command or
// a wrong arity is told so, EXEC gets EXECABORT, the allow-busy commands
// run, and the rest get BUSY.
func (l *eventLoop) busyCommand(c *Client, args [][]byte) {
	s := l.srv
	s.answeringBusy = true
	s.dispatch(c, args)
	s.answeringBusy = false
}

func (lc *loopConn) client() *Client { return lc.ctx.(*Client) }

// Close asks the loop to close the connection; safe from any goroutine.
// The socket is shut down at once, so the peer sees the close even while
// the loop waits for the execution lock.
func (lc *loopConn) Close() error {
	lc.killed.Store(true)
	lc.mu.Lock()
	if lc.fd >= 0 {
		unix.Shutdown(lc.fd, unix.SHUT_RDWR)
	}
	lc.mu.Unlock()
	return nil
}

func (lc *loopConn) RemoteAddr() string          { return lc.addr }
func (lc *loopConn) WriteError(msg string)       { lc.out = redcon.AppendError(lc.out, msg) }
func (lc *loopConn) WriteString(str string)      { lc.out = redcon.AppendString(lc.out, str) }
func (lc *loopConn) WriteBulk(bulk []byte)       { lc.out = redcon.AppendBulk(lc.out, bulk) }
func (lc *loopConn) WriteBulkString(bulk string) { lc.out = redcon.AppendBulkString(lc.out, bulk) }
func (lc *loopConn) WriteInt(num int)            { lc.out = redcon.AppendInt(lc.out, int64(num)) }
func (lc *loopConn) WriteInt64(num int64)        { lc.out = redcon.AppendInt(lc.out, num) }
func (lc *loopConn) WriteUint64(num uint64)      { lc.out = redcon.AppendUint(lc.out, num) }
func (lc *loopConn) WriteArray(count int)        { lc.out = redcon.AppendArray(lc.out, count) }
func (lc *loopConn) WriteNull()                  { lc.out = redcon.AppendNull(lc.out) }
func (lc *loopConn) WriteRaw(data []byte)        { lc.out = append(lc.out, data...) }
func (lc *loopConn) WriteAny(v any)              { lc.out = redcon.AppendAny(lc.out, v) }
func (lc *loopConn) Context() any                { return lc.ctx }
func (lc *loopConn) SetContext(v any)            { lc.ctx = v }
func (lc *loopConn) SetReadBuffer(int)           {}
func (lc *loopConn) Detach() redcon.DetachedConn { return nil }
func (lc *loopConn) ReadPipeline() []redcon.Command {
	return nil
}
func (lc *loopConn) PeekPipeline() []redcon.Command { return nil }
func (lc *loopConn) NetConn() net.Conn              { return loopNetConn{lc} }
func (lc *loopConn) WriteBulkFrom(n int64, rb io.Reader) {
	lc.out = redcon.AppendBulk(lc.out, readN(rb, n))
}

func readN(r io.Reader, n int64) []byte {
	b, _ := io.ReadAll(io.LimitReader(r, n))
	return b
}

// loopNetConn is what NetConn returns for a loop connection: enough of a
// net.Conn for CLIENT LIST (LocalAddr), CLIENT KILL (Close) and Close's
// wake-up (SetReadDeadline: the loop closes its connections itself). The
// socket belongs to the loop, so Read and Write are refused.
type loopNetConn struct{ lc *loopConn }

var errLoopConn = errors.New("floodgate: the event loop owns this connection")

func (c loopNetConn) Read([]byte) (int, error)        { return 0, errLoopConn }
func (c loopNetConn) Write([]byte) (int, error)       { return 0, errLoopConn }
func (c loopNetConn) Close() error                    { return c.lc.Close() }
func (c loopNetConn) LocalAddr() net.Addr             { return loopAddr(c.lc.laddr) }
func (c loopNetConn) RemoteAddr() net.Addr            { return loopAddr(c.lc.addr) }
func (c loopNetConn) SetDeadline(time.Time) error     { return nil }
func (c loopNetConn) SetReadDeadline(time.Time) error { return nil }
func (c loopNetConn) SetWriteDeadline(time.Time) error {
	return nil
}

// FD is the socket's descriptor, for CLIENT LIST; -1 once closed.
func (c loopNetConn) FD() int {
	c.lc.mu.Lock()
	defer c.lc.mu.Unlock()
	return c.lc.fd
}

type loopAddr string

func (a loopAddr) Network() string { return "tcp" }
func (a loopAddr) String() string  { return string(a) }

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

// epollPoll is epoll_wait with a zero timeout.
func epollPoll(epfd int, events []unix.EpollEvent) (int, error) {
	n, _, e := unix.RawSyscall6(unix.SYS_EPOLL_PWAIT, uintptr(epfd), uintptr(unsafe.Pointer(&events[0])), uintptr(len(events)), 0, 0, 0)
	if e != 0 {
		return 0, e
	}
	return int(n), nil
}

// The event loop's side of blocking commands (see blocking.go): a blocked
// client's connection is paused (its input is still read, so a disconnect
// is seen, but kept), and its reply comes back through resume.

// wokenReply is a blocked client's reply on its way to the loop.
type wokenReply struct {
	lc    *loopConn
	reply []byte
}

// resume is the connection's Client.wake: it hands the reply to the loop's
// goroutine, which alone touches the connection's buffers.
func (lc *loopConn) resume(reply []byte) {
	l := lc.loop
	l.mu.Lock()
	l.woken = append(l.woken, wokenReply{lc, reply})
	l.mu.Unlock()
	l.wake()
}

// takeWoken queues the replies of unblocked clients and runs the input
// they sent while blocked.
func (l *eventLoop) takeWoken() {
	l.mu.Lock()
	woken := l.woken
	l.woken = nil
	l.mu.Unlock()
	for _, wk := range woken {
		lc := wk.lc
		if lc.closed {
			continue
		}
		lc.out = append(lc.out, wk.reply...)
		lc.paused = false
		if len(lc.in) > 0 {
			used := l.process(lc, lc.in)
			if lc.client().closing || used == len(lc.in) {
				lc.in = nil
			} else {
				lc.in = lc.in[:copy(lc.in, lc.in[used:])]
			}
		}
		if !lc.closed && !lc.queued {
			lc.queued = true
			l.pending = append(l.pending, lc)
		}
	}
}
