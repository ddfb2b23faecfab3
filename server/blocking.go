package server

import (
	"container/heap"
	"math"
	"math/big"
	"slices"
	"sync"
	"time"

	"github.com/floodgate/floodgate/internal/number"
	"github.com/floodgate/floodgate/internal/resp"
	"github.com/floodgate/floodgate/store"
)

// Blocking commands (BLPOP, BLMOVE, BZPOPMIN, ...) as Redis's blocked.c
// serves them.
//
// A blocking command that finds nothing to pop registers its client as a
// waiter (block) and writes nothing. The registry belongs to the server and
// is guarded by the execution lock; it is keyed by database and key, and is
// FIFO per key. Whenever a list or a sorted set is stored at a key someone
// waits on (store.OnReady: a push creating the list, RENAME, COPY, ...), the
// key is queued as ready, and after every top-level command (execute: after
// a whole EXEC or script, never inside one, as Redis's
// handleClientsBlockedOnKeys) serveReady hands each ready key to its waiters
// in the order they blocked, running the blocked command's serve function as
// the waiting client. A waiter's own push (BLMOVE's target) may make further
// keys ready, which the same pass serves. The timer goroutine (blockTimer)
// answers waiters whose timeout has passed.
//
// The transport takes part through conn (conn.go), the same for the event
// loop and the goroutine transport:
//
//   - After running a command, process (with the lock still held) checks
//     Client.isBlocked. If set, the connection is blocked: process runs
//     none of its further input, which stays in the input buffer (as
//     Redis's query buffer, under the same limit), but the transport keeps
//     reading the socket, so a disconnect is seen at once and closedConn
//     forgets the wait.
//   - Whoever unblocks the client (a push, the timer, CLIENT UNBLOCK) calls
//     conn.wake with the complete reply, on any goroutine, with the
//     execution lock held. wake never blocks: it leaves the reply for the
//     transport's goroutine and asks the transport to call conn.resume
//     (the event loop: a woken list and its eventfd; a goroutine: an
//     expired read deadline), which appends the reply after everything
//     sent before, runs the input that arrived meanwhile, and the
//     transport then flushes.
type blocking struct {
	waiting   map[blockKey][]*waiter
	ready     []blockKey
	isReady   map[blockKey]bool
	deadlines waiterHeap    // by deadline in the server's clock, as Redis's
	count     int           // blocked clients, for INFO's blocked_clients
	rearm     chan struct{} // tells blockTimer that the earliest deadline changed; made with it
	timerOnce sync.Once     // starts blockTimer, with the first deadline
}

type blockKey struct {
	db  int
	key string
}

// waiter is one blocked client.
type waiter struct {
	c     *Client
	cmd   *Command // the blocking command, for its commandstats
	db    int
	keys  []string
	kind  store.Kind // the type of value that can serve it
	serve func(c *Client, key []byte)
	// ready, when set, says whether the value now at key serves the
	// waiter: a stream read waits for an entry after its ID, and is not
	// the only one served (it takes nothing away).
	ready func(v store.Value, key string) bool
	// groupRead marks an XREADGROUP, which fails when its key is deleted
	// or no longer holds a stream.
	groupRead bool
	// deadline is when it times out, in unix ms of the server's clock
	// (store.Store.Now, which a test double's manual clock moves); 0: never.
	deadline int64
	heapIdx  int
	// onTimeout answers the client when its time is up or CLIENT UNBLOCK
	// ... TIMEOUT ends the wait; nil: a null array, as the pops answer.
	onTimeout func(c *Client)
	// micros and args are the blocking call's own duration and its
	// arguments (copied: the request's buffer is reused), which its
	// statistics and slow log entry carry once a push serves it.
	micros int64
	args   [][]byte
	// waitOffset and waitReplicas are WAIT's: the offset to be
	// acknowledged and by how many replicas.
	waitOffset   int64
	waitReplicas int64
	// shutdown marks a SHUTDOWN waiting for the replicas, which only the
	// shutdown's end answers (CLIENT UNBLOCK leaves it).
	shutdown bool
}

// timeoutAnswer is what w's client is answered when the wait times out.
func (w *waiter) timeoutAnswer() func(c *Client) {
	if w.onTimeout != nil {
		return w.onTimeout
	}
	return timedOut
}

// Errors of blocking commands, with Redis 7.0's text.
const (
	errTimeoutFloat    = "ERR timeout is not a float or out of range"
	errTimeoutNegative = "ERR timeout is negative"
	errUnblockedByCmd  = "UNBLOCKED client unblocked via CLIENT UNBLOCK"
	errUnblockReason   = "ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR"
)

func (s *Server) initBlocking() {
	// The maps, and the store's OnReady (a closure), come with the first
	// blocked client (block): most servers never have one, and keyReady
	// does nothing while none waits.
	s.blocking = blocking{}
}

// timeoutArg parses a blocking command's timeout in seconds, as Redis's
// getTimeoutFromObjectOrReply: a long double (string2ld), times 1000 and
// rounded up to milliseconds in long double precision; 0 is forever. A
// millisecond count past a long long converts to LLONG_MIN in C, so it is
// "negative", as in Redis.
func timeoutArg(c *Client, b []byte) (time.Duration, bool) {
	f, ok := c.string2ld(b)
	if !ok {
		c.w.Error(errTimeoutFloat)
		return 0, false
	}
	ms := new(big.Float).SetPrec(number.LongDoublePrec).Mul(f, thousand)
	if ms.IsInf() {
		c.w.Error(errTimeoutNegative)
		return 0, false
	}
	n, acc := ms.Int(nil) // truncated towards zero: Below if a positive fraction was cut
	if acc == big.Below {
		n.Add(n, big.NewInt(1))
	}
	if !n.IsInt64() || n.Sign() < 0 {
		c.w.Error(errTimeoutNegative)
		return 0, false
	}
	if n.Int64() > math.MaxInt64/int64(time.Millisecond) {
		return 0, true // beyond any deadline time can hold: forever
	}
	return time.Duration(n.Int64()) * time.Millisecond, true
}

var thousand = big.NewFloat(1000)

// mayBlock reports whether c may block: not inside EXEC or a script
// (Redis's CLIENT_DENY_BLOCKING, where a blocking command answers as if
// it had timed out at once), and only on a connection that can be woken.
func (c *Client) mayBlock() bool {
	return !c.inScript && !c.inExec && c.conn != nil
}

// isBlocked reports whether c waits in a blocking command. Transports read
// it with the execution lock held.
func (c *Client) isBlocked() bool { return c.blockedOn != nil }

// blockingPops is what the blocking pops of one type differ by (BLPOP,
// BRPOP and BLMPOP for lists; BZPOPMIN, BZPOPMAX and BZMPOP for sorted
// sets): Redis has a blockingPopGenericCommand per type, alike but for
// these.
type blockingPops[V store.Value] struct {
	kind store.Kind
	end  func(c *Client, b []byte) (end, ok bool)                // the MPOP form's LEFT|RIGHT or MIN|MAX
	one  func(c *Client, key []byte, v V, end bool)              // BLPOP's or BZPOPMIN's reply
	many func(c *Client, key []byte, v V, end bool, count int64) // BLMPOP's or BZMPOP's reply
}

// pop serves the form "key [key ...] timeout", popping one element.
func (p *blockingPops[V]) pop(c *Client, args [][]byte, end bool) {
	p.popOrBlock(c, args[1:len(args)-1], args[len(args)-1], func(c *Client, key []byte, v V) {
		p.one(c, key, v, end)
	})
}

// mpop serves the form "timeout numkeys key [key ...] end [COUNT count]".
func (p *blockingPops[V]) mpop(c *Client, args [][]byte) {
	keys, end, count, ok := mpopArgs(c, args, 2, p.end)
	if !ok {
		return
	}
	p.popOrBlock(c, keys, args[1], func(c *Client, key []byte, v V) {
		p.many(c, key, v, end, count)
	})
}

func (p *blockingPops[V]) popOrBlock(c *Client, keys [][]byte, timeoutArgument []byte, serve func(c *Client, key []byte, v V)) {
	if timeout, ok := timeoutArg(c, timeoutArgument); ok {
		popOrBlock(c, keys, p.kind, timeout, serve)
	}
}

// popOrBlock is the common part of Redis's blockingPopGenericCommand and
// blockingGenericZpopCommand: serve the first of keys that holds a V, or
// block c on them all until one does (answering a null array at once
// where c may not block). A key of another type answers WRONGTYPE, even
// after missing ones.
func popOrBlock[V store.Value](c *Client, keys [][]byte, kind store.Kind, timeout time.Duration, serve func(c *Client, key []byte, v V)) {
	var none V // V is a pointer type: nil when the key is missing
	for _, key := range keys {
		v, ok := valueAs[V](c, key)
		if !ok {
			return
		}
		if any(v) != any(none) {
			serve(c, key, v)
			return
		}
	}
	if !c.mayBlock() {
		c.w.NullArray()
		return
	}
	c.srv.block(c, keys, kind, timeout, func(c *Client, key []byte) {
		v, _ := valueAs[V](c, key)
		serve(c, key, v)
	})
}

// block registers c as waiting on keys for a value of kind, until timeout
// (0: forever). serve runs as c, with the lock held, once one of the keys
// holds such a value; it pops and replies.
func (s *Server) block(c *Client, keys [][]byte, kind store.Kind, timeout time.Duration, serve func(c *Client, key []byte)) {
	b := &s.blocking
	if b.waiting == nil {
		b.waiting, b.isReady = make(map[blockKey][]*waiter), make(map[blockKey]bool)
		s.store.OnReady = s.keyReady
	}
	w := &waiter{c: c, cmd: c.cmd, db: c.db.Index(), kind: kind, serve: serve, heapIdx: -1}
	for _, k := range keys {
		key := string(k)
		bk := blockKey{w.db, key}
		if ws := b.waiting[bk]; len(ws) > 0 && ws[len(ws)-1] == w {
			continue // a key named twice waits once, as Redis's dictAdd
		}
		w.keys = append(w.keys, key)
		b.waiting[bk] = append(b.waiting[bk], w)
	}
	c.blockedOn = w
	b.count++
	if timeout > 0 {
		w.deadline = s.store.Now() + timeout.Milliseconds()
		heap.Push(&b.deadlines, w)
		if b.deadlines[0] == w {
			s.rearmBlockTimer()
		}
	}
}

// forget removes w from the registry.
func (s *Server) forget(w *waiter) {
	b := &s.blocking
	for _, key := range w.keys {
		bk := blockKey{w.db, key}
		ws := b.waiting[bk]
		for i, x := range ws {
			if x == w {
				ws = append(ws[:i], ws[i+1:]...)
				break
			}
		}
		if len(ws) == 0 {
			delete(b.waiting, bk)
		} else {
			b.waiting[bk] = ws
		}
	}
	if w.heapIdx >= 0 {
		heap.Remove(&b.deadlines, w.heapIdx)
	}
	w.c.blockedOn = nil
	b.count--
}

// unblock forgets w and sends its client the reply that answer writes,
// through the transport's wake hook.
func (s *Server) unblock(w *waiter, answer func(c *Client)) {
	s.forget(w)
	c := w.c
	var buf resp.Buffer
	rw := resp.NewWriter(&buf, &s.errorStats) // the reply's errors count in errorstats
	rw.SetProto(c.protocol())
	saved := c.w
	c.w = rw
	// Under CLIENT REPLY OFF the reply is dropped and messages are not
	// (CLIENT_PUSHING): they keep to the inbox then, before the reply.
	if !c.conn.reply.Muted {
		c.conn.answering = &buf
	}
	answer(c)
	c.conn.answering = nil
	c.w = saved
	if c.resp != nil {
		c.resp.Errors += rw.Errors
	}
	// The call was counted when the command blocked; an error it answers
	// now (CLIENT UNBLOCK ... ERROR) fails it then, as Redis's
	// updateStatsOnUnblock counts it.
	if rw.Errors > 0 && w.cmd != nil {
		s.stat(w.cmd.id).failed++
	}
	c.conn.wake(buf.B)
}

// servedStats records a blocked command served by a push as Redis's
// updateStatsOnUnblock does: its time (the blocking call's, again, plus the
// serving's) goes to commandstats, its latency histogram and the slow log.
// A wait that times out or is unblocked records none of these.
func (s *Server) servedStats(w *waiter, serving int64) {
	if w.cmd == nil {
		return
	}
	total := w.micros + serving
	s.latencyEvent("command-unblocking", serving/1000) // the reply's time, as updateStatsOnUnblock
	st := s.stat(w.cmd.id)
	st.usec += total
	s.recordCall(w.c, w.cmd, w.args, len(w.args), st, total)
}

// keyReadyBytes is keyReady for a key as the command's bytes, made a
// string only when somebody waits: XADD's string of its key was a fifth of
// a fill's garbage.
func (s *Server) keyReadyBytes(db *store.DB, key []byte) {
	if s.blocking.count > 0 {
		s.keyReady(db, string(key))
	}
}

// keyReady is the store's OnReady: key of db now holds a list or a sorted
// set. Cheap when nobody waits, since every SET of such a value calls it.
func (s *Server) keyReady(db *store.DB, key string) {
	b := &s.blocking
	if b.count == 0 {
		return
	}
	bk := blockKey{db.Index(), key}
	if len(b.waiting[bk]) == 0 || b.isReady[bk] {
		return
	}
	b.isReady[bk] = true
	b.ready = append(b.ready, bk)
}

// keysReadyIn queues every waited-on key of database i (after SWAPDB or
// FLUSHDB, as Redis's scanDatabaseForReadyKeys and
// scanDatabaseForDeletedStreams): serveReady serves those that now hold
// a value, and fails the XREADGROUP readers of those that no longer hold
// a stream (an XREADGROUP only waits on a stream that exists, and its
// deletion ends the wait, so a missing key was a stream before).
func (s *Server) keysReadyIn(i int) {
	db := s.store.DB(i)
	for bk := range s.blocking.waiting {
		if bk.db == i {
			s.keyReady(db, bk.key)
		}
	}
}

// serveReady serves the waiters of every ready key, first blocked first,
// while the key holds a value of the type they wait for.
func (s *Server) serveReady() {
	b := &s.blocking
	for len(b.ready) > 0 {
		keys := b.ready
		b.ready = nil
		for _, bk := range keys {
			delete(b.isReady, bk)
			db := s.store.DB(bk.db)
			key := []byte(bk.key)
			for {
				e := db.Get(key)
				if e == nil || e.Kind() != store.KindStream {
					s.failGroupReaders(bk)
				}
				if e == nil {
					break
				}
				var next *waiter
				for _, w := range b.waiting[bk] {
					if w.kind == e.Kind() && (w.ready == nil || w.ready(e.Value(), bk.key)) {
						next = w
						break
					}
				}
				if next == nil {
					break
				}
				db.PreWrite(key) // outside invoke: a BGSAVE's snapshot keeps the value first
				s.serveLogged(next, key)
			}
		}
	}
}

// errGroupReadKeyGone is what a blocked XREADGROUP gets when its stream
// is deleted or overwritten.
const errGroupReadKeyGone = "UNBLOCKED the stream key no longer exists"

// failGroupReaders answers the XREADGROUP readers waiting on a key that
// holds no stream any more, first blocked first, as Redis's
// unblockDeletedStreamReadgroupClients.
func (s *Server) failGroupReaders(bk blockKey) {
	for _, w := range slices.Clone(s.blocking.waiting[bk]) {
		if w.groupRead {
			s.unblock(w, func(c *Client) { c.w.Error(errGroupReadKeyGone) })
		}
	}
}

// serveLogged serves a waiter and, with the AOF on, logs the pop it did as
// its serve function named it (LPOP, LMOVE, ZPOPMIN ...), on its own, as
// Redis's serveClientBlockedOnList and afterCommand: the command that
// blocked was logged as nothing, having changed nothing then.
func (s *Server) serveLogged(w *waiter, key []byte) {
	c := w.c
	c.propArgs, c.propNone = nil, false
	start := time.Since(s.started)
	s.unblock(w, func(c *Client) { w.serve(c, key) })
	s.servedStats(w, int64((time.Since(s.started)-start)/time.Microsecond))
	if c.propArgs != nil {
		s.propagate(w.db, c.propArgs...)
		c.propArgs = nil
	}
	s.propagatePending(true) // a served XREADGROUP queued its XCLAIMs itself
}

// timedOut answers a waiter whose time is up: a null array, whatever the
// command (Redis's replyToBlockedClientTimedOut).
func timedOut(c *Client) { c.w.NullArray() }

// rearmBlockTimer tells blockTimer that the earliest deadline, or the
// clock, has changed.
func (s *Server) rearmBlockTimer() {
	// The channel too comes with the first wait that has a timeout.
	s.blocking.timerOnce.Do(func() {
		s.blocking.rearm = make(chan struct{}, 1)
		s.spawn(s.blockTimer)
	})
	select {
	case s.blocking.rearm <- struct{}{}:
	default:
	}
}

// blockTimer answers waiters whose timeout has passed, holding the
// execution lock as a command would. It sleeps on the wall clock for what
// the server's clock says is left, and looks again: a manual clock that
// stands still costs one wake-up per wait, and one moved forward is served
// by ExpireNow.
func (s *Server) blockTimer() {
	t := time.NewTimer(time.Hour)
	t.Stop()
	for {
		select {
		case <-s.stop:
			t.Stop()
			return
		case <-s.blocking.rearm:
		case <-t.C:
		}
		s.lock <- struct{}{}
		s.store.Refresh()
		next := s.timeOutBlocked()
		<-s.lock
		t.Stop()
		if next >= 0 {
			t.Reset(next)
		}
	}
}

// timeOutBlocked answers the waiters whose deadline has passed on the
// server's clock (as of the store's last Refresh) and returns how long
// until the next one's, or -1 if none waits with a timeout. Called with
// the lock held.
func (s *Server) timeOutBlocked() time.Duration {
	now := s.store.Now()
	d := &s.blocking.deadlines
	for len(*d) > 0 && (*d)[0].deadline <= now {
		s.unblock((*d)[0], (*d)[0].timeoutAnswer())
	}
	if len(*d) == 0 {
		return -1
	}
	return time.Duration((*d)[0].deadline-now) * time.Millisecond
}

// clientGone forgets the wait of a client whose connection closed.
// Called with the lock held.
func (s *Server) clientGone(c *Client) {
	if w := c.blockedOn; w != nil {
		s.forget(w)
	}
}

// cmdClientUnblock is CLIENT UNBLOCK id [TIMEOUT|ERROR].
func cmdClientUnblock(c *Client, args [][]byte) {
	if len(args) > 4 {
		c.errorf("ERR unknown subcommand or wrong number of arguments for '%s'. Try CLIENT HELP.", sanitizeError(string(args[1])))
		return
	}
	asError := false
	if len(args) == 4 {
		switch {
		case eqFold(args[3], "timeout"):
		case eqFold(args[3], "error"):
			asError = true
		default:
			c.w.Error(errUnblockReason)
			return
		}
	}
	id, ok := intArg(c, args[2])
	if !ok {
		return
	}
	var target *Client
	for _, cl := range c.srv.clientsByID() {
		if cl.id == id {
			target = cl
		}
	}
	if target == nil || target.blockedOn == nil || target.blockedOn.shutdown {
		c.w.Int(0)
		return
	}
	answer := target.blockedOn.timeoutAnswer()
	if asError {
		answer = func(c *Client) { c.w.Error(errUnblockedByCmd) }
	}
	c.srv.unblock(target.blockedOn, answer)
	c.w.Int(1)
}

// waiterHeap orders waiters by deadline.
type waiterHeap []*waiter

func (h waiterHeap) Len() int           { return len(h) }
func (h waiterHeap) Less(i, j int) bool { return h[i].deadline < h[j].deadline }
func (h waiterHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].heapIdx, h[j].heapIdx = i, j
}
func (h *waiterHeap) Push(x any) {
	w := x.(*waiter)
	w.heapIdx = len(*h)
	*h = append(*h, w)
}
func (h *waiterHeap) Pop() any {
	old := *h
	w := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	w.heapIdx = -1
	return w
}
