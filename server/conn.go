package server

import (
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/tidwall/redcon"

	"github.com/floodgate/floodgate/aof"
	"github.com/floodgate/floodgate/internal/resp"
	"github.com/floodgate/floodgate/internal/transport"
)

// conn is a client connection as every transport has it, Redis's client
// struct reduced to its I/O: an input buffer, the one request parser, the
// output buffer the client's resp.Writer appends to, and process, the one
// path from parsed requests to dispatch. A transport (the epoll event loop,
// the goroutine per connection of Dial, --goroutine-conns and non-Linux
// systems) only moves bytes: it reads into ReadBuf, hands what it read to
// Received, and writes out; conn is its transport.Conn (package
// internal/transport has the contract).
type conn struct {
	srv    *Server
	client *Client
	tr     transport.Handle

	parser resp.Parser
	// in is the query buffer: unparsed input (a partial request) and,
	// for an event-loop connection, where its reads go, as Redis's
	// querybuf; nil when none. The clients cron has the loop shrink it
	// (resizeQueryBuffer).
	in       []byte
	readIn   bool // the last ReadBuf returned in's free part
	scratch  bool // the transport reads into a buffer of its own (ReadBuf)
	lent     bool // a command kept part of in (lend)
	lentSize int  // the size of the argument it kept
	// rejoined is a postponed request whose start was sealed, written out
	// again, which received puts back ahead of the unparsed input.
	rejoined []byte
	// transient is the bytes a long request being read holds, which the
	// GC tuner counts (seal), or a big bulk's buffer (ReadBuf), bulkHeld,
	// until a request has run.
	transient int64
	bulkHeld  bool
	// inPeak is the most in held since the last resizeQueryBuffer
	// (Redis's querybuf_peak). Touched by the transport's goroutine only.
	inPeak int
	// Replies not yet written, as Redis's client reply list: full blocks
	// of about replyChunk bytes, oldest first, then reply.B, the block
	// being filled. A large reply is many blocks, written and released one
	// by one, never one contiguous slice grown by copying. reply.Muted
	// drops every reply while CLIENT REPLY OFF or SKIP is in effect
	// (Client.replyOff and replySkip say which).
	blocks     [][]byte
	blockBytes int // bytes in blocks
	peakOut    int // the most blockBytes has been since the list was last empty
	reply      resp.Buffer
	// outLimited is set once the client passed its output buffer limit: it
	// is closed without its replies, and new ones are dropped (Redis's
	// CLIENT_CLOSE_ASAP).
	outLimited bool
	softSince  atomic.Int64 // unix seconds since which the soft limit is passed; 0: under it
	// lastIO is when the client last sent or was sent bytes (ioClock), for
	// timeout and CLIENT LIST idle.
	lastIO atomic.Int64
	// oll and omem are the reply list's length and bytes for CLIENT LIST,
	// which another goroutine reads.
	oll  atomic.Int32
	omem atomic.Int64
	// qbuf, qbufFree and argvMem are CLIENT LIST's qbuf, qbuf-free and
	// argv-mem: the bytes of the query buffer not yet parsed into
	// arguments (while a batch runs, all the bytes read), its free room,
	// and the bytes of the arguments of the partial request.
	qbuf, qbufFree, argvMem atomic.Int64
	// rbuf is CLIENT LIST's rbs, rbp and obl (replybuf.go).
	rbuf replyBufStats
	// writeWait is set while replies wait for the socket to take them
	// (a write left bytes, or one is under way): CLIENT LIST's events=w.
	writeWait atomic.Bool

	// blocked is set while the client waits in a blocking command
	// (blocking.go): process runs none of its input, which waits in the
	// input buffer, until resume. Touched by the transport's goroutine only.
	blocked bool
	// woken is a blocked client's reply, left by wake for resume.
	wakeMu  sync.Mutex
	woken   []byte
	isWoken bool
	// pushed is the pub/sub messages other clients published to this one,
	// not yet moved to the replies (pubsub.go), guarded by wakeMu;
	// wokenPre those that came before a blocked client's reply.
	// pushSpare and pushScratch are buffers kept for reuse.
	pushed, wokenPre, pushSpare, pushScratch []byte
	// pushedLen is len(pushed), stored under wakeMu with each change, so
	// that a publisher's fast path (transport.DirectPusher, once per
	// subscriber per message) and the output limit read it without the
	// lock: at 1,000 subscribers taking wakeMu there was 7% of the
	// server's CPU.
	pushedLen atomic.Int64
	// answering is the reply a blocked client is being served into
	// (Server.unblock), nil otherwise; guarded by the execution lock.
	// What is published to the client while it is served goes there, in
	// place, as Redis writes it into the receiver's reply as it goes.
	answering *resp.Buffer

	// killed is set by CLIENT KILL from another client (Server.killClient):
	// requests the connection read before the kill do not run after it.
	killed atomic.Bool

	// turnDone is handed to a busy script's hook with a busy turn (see
	// Server.acquire) and signalled when the turn is over; one per
	// connection, so taking the lock allocates nothing.
	turnDone chan struct{}
}

// Reply buffers larger than this are dropped once written rather than kept
// for the connection's next replies.
const keepReplyBytes = 64 << 10

func newConn(s *Server, tr transport.Handle) *conn {
	cn := &conn{}
	cn.init(s, tr)
	return cn
}

func (cn *conn) init(s *Server, tr transport.Handle) {
	cn.srv, cn.tr, cn.turnDone = s, tr, make(chan struct{})
	cn.parser.MaxBulkLen = &s.protoMaxBulkLen
	cn.parser.Long = takesLongArgs
	cn.reply.Grow = cn.reserve
	cn.lastIO.Store(ioClock())
	cn.rbuf.init(time.Now())
}

// ReadBuf returns where the next read goes: with a scratch buffer (the
// goroutine transport), scratch while no partial request is held, the
// requests then parsed in place; else the free part of the query buffer,
// made of queryBufLen bytes at first, as Redis's. The buffer grows to
// hold at least the rest of the bulk being read when its length is known
// (so a big bulk is read straight into place, as Redis reads a bulk of
// PROTO_MBULK_BIG_ARG or more into a buffer of its size) and at least
// doubles, so a request that takes many reads is copied O(1) times per
// byte: growing by a fixed step made a 1M-argument request, 13 MB,
// cost 4.5 GB of copying (scripts/bench-bigargs.sh). Once most of a full
// buffer is complete arguments of a long request, the buffer is sealed
// instead (seal).
func (cn *conn) ReadBuf(scratch []byte) []byte {
	cn.scratch = scratch != nil
	if len(cn.in) == 0 && scratch != nil {
		cn.readIn = false
		return scratch[:cap(scratch)]
	}
	cn.readIn = true
	if cap(cn.in) == 0 {
		cn.in = make([]byte, 0, queryBufLen)
	}
	need := cn.parser.Need(len(cn.in))
	free := cap(cn.in) - len(cn.in)
	if need >= bigArg && 2*cn.parser.BulkBytes() <= cap(cn.in) && !cn.client.mustAuth() {
		// A big bulk still to come in a buffer more than twice its size
		// (a doubled one, or one a bigger request left) moves to a buffer
		// of its size, as Redis moves it to the start of its query buffer
		// and sizes that for it: then it is kept, not copied (Seal,
		// lend). Ten 300 KB MSET values after a big RPUSH were copied.
		cn.seal(cn.parser.Sealable(), need)
		return cn.in[len(cn.in):cap(cn.in)]
	}
	if free < max(need, minReadRoom) {
		if done := cn.parser.Sealable(); done >= queryBufLen && 2*done >= len(cn.in) && !cn.client.mustAuth() {
			cn.seal(done, need)
			return cn.in[len(cn.in):cap(cn.in)]
		}
		room := max(need, len(cn.in), queryBufLen)
		if cn.client.mustAuth() {
			room = unauthRoom(room, len(cn.in))
		}
		if free < room {
			if room >= hugeBufMin {
				cn.srv.collectBeforeBulk(room)
			}
			grown := make([]byte, len(cn.in), len(cn.in)+room)
			if room >= hugeBufMin {
				adviseHuge(grown)
				// The buffer is live until its request has run, as a long
				// request's parts are: held, so that no collection starts
				// while it is read or its bulk copied. One that started
				// during the copy of a 200 MB RPUSH value could not stop
				// the copying goroutine and spun a core until it was done:
				// 1 s of CPU, Redis's whole command 1.3 s.
				cn.hold(int64(cap(grown)))
				cn.bulkHeld = true
			}
			copy(grown, cn.in)
			cn.in = grown
		}
	}
	return cn.in[len(cn.in):cap(cn.in)]
}

// seal hands the first done bytes of the query buffer, complete arguments
// of a long request, to the parser, which copies them out compacted
// (resp.Parser.Seal), and moves the rest (a partial argument) to the
// buffer's start, in a new buffer only when it needs room for need more
// bytes, or to double, up to sealedBufMax (a big bulk's is its size, and
// one the parser kept is always left to it): as Redis moves each argument
// out of its query buffer as soon as it is parsed, a long request is
// held as its arguments' bytes, and the buffer it is read into is reused.
// A 1M-argument DEL (17 MB) allocated 64 MB of doubling buffers before
// it was sealed, and its collections took half of its CPU; sealed as
// read, its 1 MB buffers held 17 MB until it had run, compacted 11 MB.
func (cn *conn) seal(done, need int) {
	if cn.transient == 0 {
		cn.srv.collectBeforeSeal() // the first seal of a long request
	}
	compact := cn.parser.SealedBytes()
	args, kept := cn.parser.Seal(cn.in)
	rest := cn.in[done:]
	if kept {
		// The parser keeps the buffer, a big bulk's: the next one, whose
		// length is not yet known, gets a buffer of its size once it is
		// (ReadBuf), which a megabyte to begin with would have added to.
		cn.in = append(make([]byte, 0, max(len(rest)+max(need, minReadRoom), queryBufLen)), rest...)
	} else if need >= bigArg {
		cn.in = append(make([]byte, 0, len(rest)+need), rest...) // a big bulk's: its size
	} else if size := max(len(rest)+max(need, minReadRoom), min(2*cap(cn.in), sealedBufMax)); size > cap(cn.in) {
		cn.in = append(make([]byte, 0, size), rest...)
	} else {
		cn.in = cn.in[:copy(cn.in, rest)]
	}
	// The sealed arguments, and their slices in the args the parser makes
	// (none for a request it returns as LongArgs), are held until the
	// request has run.
	held := int64(compact)
	if !cn.parser.Longing() {
		held += int64(args) * int64(unsafe.Sizeof([]byte(nil)))
	}
	cn.hold(held)
}

// hold tells the GC tuner of n more bytes the request being read holds
// until it has run (transient).
func (cn *conn) hold(n int64) {
	cn.transient += n
	cn.srv.holdTransient(n)
}

// releaseTransient gives back what hold told the GC tuner, once the
// request has run or the connection is gone.
func (cn *conn) releaseTransient() {
	cn.bulkHeld = false
	if cn.transient > 0 {
		cn.srv.holdTransient(-cn.transient)
		cn.transient = 0
	}
}

// sealedBufMax bounds the buffers a long request is read into after its
// first ones are sealed: reads of a megabyte take what a socket holds.
const sealedBufMax = 1 << 20

// hugeBufMin is the least room a query buffer grows by for which it asks
// for huge pages (adviseHuge): a big bulk being read.
const hugeBufMin = 8 << 20

// queryBufLen is the query buffer's first size, Redis's PROTO_IOBUF_LEN.
const queryBufLen = 16 << 10

// minReadRoom is the least free room a read into the input buffer gets
// before the buffer grows.
const minReadRoom = 8 << 10

// bigArg is Redis's PROTO_MBULK_BIG_ARG: an argument this large that
// fills most of the input buffer may be kept by the command (lend).
const bigArg = 32 << 10

// lend reports whether the running command may keep b, one of its
// arguments, without copying it, as Redis's SET keeps the query buffer
// of a big argument as the value: b is at least bigArg bytes and more
// than half of the connection's own input buffer. The connection then
// gives the buffer up (received starts a new one), so a 200 MB SET costs
// 200 MB, not twice that. A big bulk of a long request whose read buffer
// the parser kept as its part is lent as it is: that buffer is no one
// else's (MSET of ten 20 MB values: 412 MB at the peak copied, Redis
// 212).
func (cn *conn) lend(b []byte) bool {
	if cn.parser.Kept(b) {
		return true // its own buffer, which the parser kept (resp.Parser.Seal)
	}
	if len(b) < bigArg || 2*len(b) <= cap(cn.in) {
		return false
	}
	whole := cn.in[:cap(cn.in)]
	base := uintptr(unsafe.Pointer(unsafe.SliceData(whole)))
	at := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	if at < base || at+uintptr(len(b)) > base+uintptr(len(whole)) {
		return false
	}
	cn.lent, cn.lentSize = true, len(b)
	return true
}

// Moved records that the client sent or was sent bytes at now (an
// ioClock reading; Redis's lastinteraction counts writes too). The
// transport passes the time: the event loop reads the clock once per
// round, not twice per request.
func (cn *conn) Moved(now int64) { cn.lastIO.Store(now) }

// ioClock is the clock of lastIO, the transports' (transport.Clock).
func ioClock() int64 { return transport.Clock() }

// ioTime is t (read with its monotonic clock) on ioClock's scale.
func ioTime(t time.Time) int64 { return transport.ClockAt(t) }

// Received runs the complete requests among the n bytes read into buf (as
// returned by ReadBuf) and keeps a partial request in the input buffer.
// inHook is set when the script's hook calls it on the goroutine that holds
// the execution lock for the script (pollBusy). It returns false when the
// client must be closed now, without a word, as Redis closes a client over
// client-query-buffer-limit (the replies before still go out).
func (cn *conn) Received(buf []byte, n int, inHook bool) bool {
	var data []byte
	if n > 0 {
		cn.srv.net.in.Add(int64(n))
		cn.srv.net.reads.Add(1)
	}
	own := cn.readIn || len(cn.in) > 0
	if own {
		cn.in = cn.in[:len(cn.in)+n]
		data = cn.in
		cn.inPeak = max(cn.inPeak, len(data))
	} else {
		data = buf[:n]
	}
	cn.qbuf.Store(int64(len(data)))
	cn.qbufFree.Store(int64(cap(data) - len(data)))
	cn.argvMem.Store(0) // the arguments parsed so far are in data, counted in qbuf
	used := cn.process(data, inHook)
	cn.parser.Release(false)
	rest := data[used:]
	switch {
	case cn.client.closing:
		cn.in = nil
	case cn.rejoined != nil:
		// A request CLIENT PAUSE held back, whole again, runs first.
		cn.in = append(cn.rejoined, rest...)
		cn.rejoined = nil
	case int64(len(rest)) > cn.srv.queryBufferLimit.Load():
		cn.srv.log.Warn("closing client that reached max query buffer length", "addr", cn.client.addr)
		cn.in = nil
		return false
	case cn.lent:
		// A command kept part of the buffer: the rest moves to a new one,
		// sized for another argument like the one kept (Redis assumes
		// that a fat argument is followed by others), up to 1 MB: Go
		// clears the memory it hands out again, which Redis's malloc
		// does not touch.
		room := max(len(rest)+4<<10, min(cn.lentSize+2, 1<<20))
		cn.in = append(make([]byte, 0, room), rest...)
	case !own:
		if len(rest) > 0 {
			extra := min(max(cn.parser.Need(len(rest)), 4<<10), 64<<10)
			if cn.client.mustAuth() {
				extra = unauthRoom(extra, len(rest))
			}
			cn.in = make([]byte, len(rest), len(rest)+extra)
			copy(cn.in, rest)
		}
	case len(rest) == 0 && cn.scratch:
		cn.in = nil // the goroutine transport reads into its scratch buffer
	case used > 0:
		cn.in = cn.in[:copy(cn.in, rest)]
	}
	cn.lent = false
	if !cn.parser.Sealing() && (used > 0 || !cn.bulkHeld) {
		cn.releaseTransient() // the long request, or the big bulk's, has run
	}
	cn.noteQueryBuffer()
	cn.afterReadEviction(inHook)
	return true
}

// noteQueryBuffer publishes the query buffer's figures for CLIENT LIST:
// Redis copies the arguments of a partial request out of its buffer as
// they are parsed, so its qbuf counts only the bytes after them, and its
// argv-mem the arguments.
func (cn *conn) noteQueryBuffer() {
	parsed, argBytes := cn.parser.Progress()
	cn.qbuf.Store(int64(len(cn.in) - parsed))
	cn.qbufFree.Store(int64(cap(cn.in) - len(cn.in)))
	cn.argvMem.Store(argBytes)
}

// ResizeQueryBuffer is Redis's clientsCronResizeQueryBuffer, run by the
// transport's goroutine when no batch of the connection runs: a buffer
// wasting more than 4 KB is dropped to its content after more than two
// seconds idle, or cut down to its recent peak when that is less than half
// of it. It reports whether more than 4 KB are still free.
func (cn *conn) ResizeQueryBuffer(now int64) bool {
	if avail := cap(cn.in) - len(cn.in); avail > 4<<10 {
		size := 0
		switch {
		case now-cn.lastIO.Load() > 2*int64(time.Second):
			size = len(cn.in)
		case cap(cn.in) > resizeThreshold && cap(cn.in)/2 > cn.inPeak:
			size = max(len(cn.in), cn.inPeak, cn.parser.BulkBytes())
		default:
			size = -1
		}
		was := cap(cn.in)
		switch {
		case size == 0:
			cn.in = nil
		case size > 0 && cap(cn.in)-size > 4<<10:
			// Not when it would save little: a big bulk being read sits in
			// a buffer of its size, which Redis's realloc keeps in place.
			cn.in = append(make([]byte, 0, size), cn.in...)
		}
		if cap(cn.in) < was {
			cn.parser.Release(true) // the last request's arguments would keep it
			if was >= bigArg {
				cn.srv.noteGarbage(uint64(was))
			}
		}
		cn.noteQueryBuffer()
	}
	cn.inPeak = max(len(cn.in), cn.parser.BulkBytes())
	return cap(cn.in)-len(cn.in) > 4<<10
}

// resizeThreshold is Redis's PROTO_RESIZE_THRESHOLD.
const resizeThreshold = 32 << 10

// process runs the complete requests at the start of data, as Redis's
// processInputBuffer, and returns the bytes they took. The execution lock
// is taken at the first request and held to the last, as one batch; while
// a script is past its time limit the batch runs in a busy turn instead
// (Server.acquire), where dispatch answers as Redis's processCommand does
// while busy.
func (cn *conn) process(data []byte, inHook bool) int {
	s := cn.srv
	c := cn.client
	h := holdNone
	if inHook {
		h = holdHook
	}
	off := 0
	if inHook {
		cn.TakePushes()
	}
	for off < len(data) && !c.closing && !cn.blocked {
		st, used, args, msg := cn.parser.Next(data[off:], !c.mustAuth())
		if st == resp.ParseIncomplete {
			break
		}
		off += used
		var long *resp.LongArgs
		switch st {
		case resp.ParseLong:
			long = cn.parser.TakeLong()
		case resp.ParseSkip:
			continue
		case resp.ParseError:
			s.errorStats.count(cn, msg) // addReplyError counts it, muted or not
			if !cn.reply.Muted {
				cn.reserve(len(msg) + 8)
				cn.reply.B = redcon.AppendError(cn.reply.B, msg)
			}
			c.closing = true
			s.log.Info("protocol error", "addr", c.addr, "err", msg)
			continue
		}
		if h == holdNone {
			h = s.acquire(cn.turnDone)
			if h == holdLock {
				s.running = cn
			}
			// Messages published before this batch go out before its
			// replies.
			cn.TakePushes()
			// Killed while waiting for the lock; a kill needs the lock, so
			// once it is held nobody kills us mid-batch.
			if cn.killed.Load() {
				break
			}
		}
		if long != nil {
			if h == holdLock && s.runsLong(c, long) {
				args = long.Head(slowlogMaxArgs)
			} else {
				args, long = long.Slices(), nil
			}
		}
		if h == holdLock {
			s.executeFrom(c, args, long)
			cn.blocked = c.isBlocked()
			if c.postponed {
				// Held back by CLIENT PAUSE: the request stays unread and
				// runs again when the pause ends. One whose start was
				// sealed is no longer whole in data: it is written out again
				// from its arguments, ahead of the rest.
				c.postponed = false
				if cn.parser.Sealed() {
					cn.rejoined = aof.AppendCommand(nil, args...)
				} else {
					off -= used
				}
				continue
			}
		} else {
			s.answerBusy(c, args)
		}
		if !cn.blocked {
			c.replied()
		}
	}
	if h == holdLock {
		// BCAST invalidations go out once the event loop's round is done,
		// as Redis's beforeSleep sends them; a goroutine's, after its batch.
		if s.tracking.bcastDirty {
			if b, ok := cn.tr.(transport.Batcher); ok {
				b.BroadcastAfterRound()
			} else {
				s.trackingBroadcast()
			}
		}
		s.running = nil
	}
	s.releaseHold(h, cn.turnDone)
	return off
}

// wake hands a blocked client's reply to its connection: called by
// whoever unblocks the client, on any goroutine, with the execution lock
// held (see blocking.go).
func (cn *conn) wake(reply []byte) {
	cn.wakeMu.Lock()
	cn.woken, cn.isWoken = reply, true
	if len(cn.pushed) > 0 { // published before the reply: written before it
		cn.wokenPre = append(cn.wokenPre, cn.pushed...)
		cn.pushed = cn.pushed[:0]
		cn.pushedLen.Store(0)
	}
	cn.wakeMu.Unlock()
	cn.tr.Woke()
}

// Resume runs on the transport's goroutine once wake has been called: the
// reply goes out after every earlier one, and the input that arrived while
// the client was blocked runs. woken is false if there was no reply to
// take; keep as received's.
func (cn *conn) Resume(inHook bool) (woken, keep bool) {
	cn.wakeMu.Lock()
	reply, woken, pre := cn.woken, cn.isWoken, cn.wokenPre
	cn.woken, cn.isWoken, cn.wokenPre = nil, false, nil
	cn.wakeMu.Unlock()
	if !woken {
		return false, true
	}
	if len(pre) > 0 && !cn.outLimited {
		cn.raw(pre)
	}
	if !cn.reply.Muted {
		cn.raw(reply)
	}
	cn.client.replied()
	cn.blocked = false
	return true, cn.Received(nil, 0, inHook)
}

// replyChunk is the size of a reply block (Redis's PROTO_REPLY_CHUNK_BYTES).
const replyChunk = 16 << 10

// unauthQueryBytes bounds an unauthenticated client's partial request: ten
// bulks of 16384 bytes and their headers, the most the parser lets it
// announce (Redis 7.0's processMultibulkBuffer limits).
const unauthQueryBytes = 10*(16384+32) + 32

// unauthRoom bounds the room an unauthenticated client's input buffer
// grows by, so that its buffer never holds much more than the request the
// parser would let it finish: idle half-sent requests cannot pin memory.
func unauthRoom(want, have int) int {
	return min(want, max(unauthQueryBytes+(4<<10)-have, 1<<10))
}

// reserve makes room for n more bytes of reply in reply.B, so that
// appending them never copies the replies before: a block that cannot take
// them is moved to the list and a new one started. It is reply's Grow.
func (cn *conn) reserve(n int) {
	if cap(cn.reply.B)-len(cn.reply.B) >= n {
		return
	}
	cn.addBlock(cn.reply.B)
	cn.reply.B = make([]byte, 0, max(n, replyChunk))
}

// addBlock moves b to the list of full blocks.
func (cn *conn) addBlock(b []byte) {
	if len(b) == 0 {
		return
	}
	cn.blocks = append(cn.blocks, b)
	cn.blockBytes += len(b)
	cn.peakOut = max(cn.peakOut, cn.blockBytes)
	cn.noteBlocks()
	cn.outputGrew()
}

// adopt appends b, which the connection owns from now on (a replica's
// RDB), to the replies as a block of its own: copying 25 MB on the event
// loop's goroutine stalled every client of the loop for 300 ms.
func (cn *conn) adopt(b []byte) {
	cn.addBlock(cn.reply.B)
	cn.reply.B = nil
	cn.addBlock(b)
}

// raw appends b to the replies.
func (cn *conn) raw(b []byte) {
	cn.reserve(len(b))
	cn.reply.B = append(cn.reply.B, b...)
}

// pendingBytes is the size of the replies not yet written.
func (cn *conn) pendingBytes() int { return cn.blockBytes + len(cn.reply.B) }

// Pending is pendingBytes, for the transport.
func (cn *conn) Pending() int { return cn.pendingBytes() }

// WriteBlocked records that the socket takes no more for now: CLIENT
// LIST's events=w.
func (cn *conn) WriteBlocked() { cn.writeWait.Store(true) }

// joined returns the pending replies as one slice.
func (cn *conn) joined() []byte {
	if len(cn.blocks) == 0 {
		return cn.reply.B
	}
	b := make([]byte, 0, cn.pendingBytes())
	for _, blk := range cn.blocks {
		b = append(b, blk...)
	}
	return append(b, cn.reply.B...)
}

// Blocked reports whether the client waits in a blocking command.
func (cn *conn) Blocked() bool { return cn.blocked }

// Closing reports whether the client is to be closed once its replies are
// written.
func (cn *conn) Closing() bool { return cn.client.closing }

// Flushing readies the pending replies for a write and returns their size:
// a client over its output limit has them dropped; the rest count for
// CLIENT LIST's rbp and, until written, its events=w.
func (cn *conn) Flushing() int {
	if cn.outLimited {
		cn.dropOutput()
	}
	n := cn.pendingBytes()
	if n > 0 {
		cn.rbuf.written(n)
		cn.writeWait.Store(true)
	}
	return n
}

// Buffers returns the pending replies in order, appended to bufs.
func (cn *conn) Buffers(bufs [][]byte) [][]byte {
	bufs = append(bufs, cn.blocks...)
	if len(cn.reply.B) > 0 {
		bufs = append(bufs, cn.reply.B)
	}
	return bufs
}

// outputGrew enforces client-output-buffer-limit each time a block is
// full, as Redis's closeClientOnOutputBufferLimitReached after each reply
// added to the list (the clients cron checks too, for the soft limit's
// seconds): the client is closed at once and its replies dropped.
func (cn *conn) outputGrew() {
	if cn.outLimited {
		cn.dropOutput()
		return
	}
	if cn.client == nil || !cn.overOutputLimit(time.Now().Unix()) {
		return
	}
	cn.outLimited = true
	cn.client.closing = true
	cn.srv.logOutputLimit(cn.client)
	cn.dropOutput()
}

// overOutputLimit is Redis's checkClientOutputBufferLimits: the reply
// list's bytes reach the hard limit, or have stayed at or over the soft
// limit for more than its seconds. now is in unix seconds. Safe from any
// goroutine.
func (cn *conn) overOutputLimit(now int64) bool {
	lim := cn.srv.OutputLimits()[cn.outputClass()]
	used := uint64(cn.omem.Load()) + uint64(cn.pendingPushes())
	if lim.Hard != 0 && used >= lim.Hard {
		return true
	}
	if lim.Soft == 0 || used < lim.Soft {
		cn.softSince.Store(0)
		return false
	}
	since := cn.softSince.Load()
	if since == 0 {
		cn.softSince.Store(now)
		return false
	}
	return now-since > lim.SoftSeconds
}

func (s *Server) logOutputLimit(c *Client) {
	s.log.Warn("Client " + c.infoLine(time.Now(), nil) + " scheduled to be closed ASAP for overcoming of output buffer limits.")
}

// dropOutput discards the pending replies of a client closed for its
// output buffer limit.
func (cn *conn) dropOutput() {
	clear(cn.blocks)
	cn.blocks, cn.blockBytes, cn.reply.B = cn.blocks[:0], 0, nil
	cn.noteBlocks()
}

func (cn *conn) noteBlocks() {
	cn.oll.Store(int32(len(cn.blocks)))
	cn.omem.Store(int64(cn.blockBytes))
}

// bigOutput is the reply list size past which the memory is handed back
// to the system once the list is gone (see releaseOutput).
const bigOutput = 16 << 20

// releaseOutput drops the replies of a connection that is gone. After a
// large list, the memory goes back to the system now rather than at the
// Go scavenger's pace, as Redis's allocator returns a freed reply list.
func (cn *conn) releaseOutput() {
	big := cn.peakOut >= bigOutput
	cn.dropOutput()
	cn.in, cn.peakOut = nil, 0
	if big {
		cn.srv.returnMemory()
	}
}

// returnMemory returns freed heap to the system, one call at a time, and
// spaces the idle-heap purge after it by purgeSpacing times its duration
// (gctune.go).
func (s *Server) returnMemory() {
	if s.returningMemory.CompareAndSwap(false, true) {
		go func() {
			began := time.Now()
			debug.FreeOSMemory()
			s.nextPurge.Store(time.Now().Add(purgeSpacing * time.Since(began)).UnixNano())
			s.returningMemory.Store(false)
		}()
	}
}

// Flushed drops the written part (written bytes) of the pending replies,
// releasing the blocks written and keeping out's memory for the next
// replies unless it grew large, and returns the bytes left.
func (cn *conn) Flushed(written int) int {
	if written > 0 {
		cn.srv.net.out.Add(int64(written))
		cn.srv.net.writes.Add(1)
	}
	i := 0
	for i < len(cn.blocks) && written >= len(cn.blocks[i]) {
		written -= len(cn.blocks[i])
		cn.blockBytes -= len(cn.blocks[i])
		cn.blocks[i] = nil
		i++
	}
	if i > 0 {
		n := copy(cn.blocks, cn.blocks[i:])
		clear(cn.blocks[n:])
		cn.blocks = cn.blocks[:n]
		if n == 0 {
			if cap(cn.blocks) > 64 {
				cn.blocks = nil
			}
			if cn.peakOut >= bigOutput {
				cn.srv.returnMemory() // a slow reader has taken a large list
			}
			cn.peakOut = 0
		}
	}
	if len(cn.blocks) > 0 {
		cn.blocks[0] = cn.blocks[0][written:]
		cn.blockBytes -= written
		cn.noteBlocks()
		cn.writeWait.Store(true)
		return cn.pendingBytes()
	}
	if i > 0 {
		cn.noteBlocks()
	}
	rest := cn.reply.B[written:]
	switch {
	case len(rest) == 0 && cap(cn.reply.B) > keepReplyBytes:
		cn.reply.B = nil
	case len(rest) == 0:
		cn.reply.B = cn.reply.B[:0]
	case written > 0:
		cn.reply.B = cn.reply.B[:copy(cn.reply.B, rest)]
	}
	cn.writeWait.Store(len(rest) > 0)
	return len(rest)
}
