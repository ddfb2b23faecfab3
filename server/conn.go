package server

import (
	"sync"

	"github.com/tidwall/redcon"
)

// conn is a client connection as every transport has it, Redis's client
// struct reduced to its I/O: an input buffer, the one request parser, the
// output buffer the client's respWriter appends to, and process, the one
// path from parsed requests to dispatch. A transport (the epoll event loop,
// the goroutine per connection of Dial, --goroutine-conns and non-Linux
// systems) only moves bytes: it reads into readBuf, hands what it read to
// received, and writes out.
type conn struct {
	srv    *Server
	client *Client
	tr     transport
	loop   *eventLoop // the event loop serving the connection; nil on a goroutine

	parser requestParser
	in     []byte // unparsed input (a partial request), owned; nil when none
	out    []byte // replies not yet written

	// blocked is set while the client waits in a blocking command
	// (blocking.go): process runs none of its input, which waits in the
	// input buffer, until resume. Touched by the transport's goroutine only.
	blocked bool
	// woken is a blocked client's reply, left by wake for resume.
	wakeMu  sync.Mutex
	woken   []byte
	isWoken bool

	// turnDone is handed to a busy script's hook with a busy turn (see
	// Server.acquire) and signalled when the turn is over; one per
	// connection, so taking the lock allocates nothing.
	turnDone chan struct{}
}

// transport is what a connection's transport does besides moving bytes.
type transport interface {
	kill()             // close the connection, from any goroutine (CLIENT KILL)
	interrupt()        // wake an idle reader so it sees the server closing
	localAddr() string // for CLIENT LIST and CLIENT KILL LADDR
	socketFD() int     // for CLIENT LIST; -1 when none
	woke()             // have the transport's goroutine call resume soon; never blocks
}

// Reply buffers larger than this are dropped once written rather than kept
// for the connection's next replies.
const keepReplyBytes = 64 << 10

func newConn(s *Server, tr transport) *conn {
	cn := &conn{}
	cn.init(s, tr)
	return cn
}

func (cn *conn) init(s *Server, tr transport) {
	cn.srv, cn.tr, cn.turnDone = s, tr, make(chan struct{})
	cn.parser.srv = s
}

// readBuf returns where the next read goes: scratch while no partial
// request is held (the requests are then parsed in place and nothing is
// copied), else the free part of the input buffer, grown towards the rest
// of a large bulk when its length is known, but geometrically, so
// announcing a large bulk does not reserve it all at once.
func (cn *conn) readBuf(scratch []byte) []byte {
	if len(cn.in) == 0 {
		return scratch[:cap(scratch)]
	}
	want := min(max(cn.parser.need(len(cn.in)), 16<<10), max(cap(cn.in), 16<<10))
	if cap(cn.in)-len(cn.in) < want/2 {
		grown := make([]byte, len(cn.in), len(cn.in)+want)
		copy(grown, cn.in)
		cn.in = grown
	}
	return cn.in[len(cn.in):cap(cn.in)]
}

// received runs the complete requests among the n bytes read into buf (as
// returned by readBuf) and keeps a partial request in the input buffer.
// inHook is set when the script's hook calls it on the goroutine that holds
// the execution lock for the script (pollBusy). It returns false when the
// client must be closed now, without a word, as Redis closes a client over
// client-query-buffer-limit (the replies before still go out).
func (cn *conn) received(buf []byte, n int, inHook bool) bool {
	var data []byte
	if len(cn.in) == 0 {
		data = buf[:n]
	} else {
		cn.in = cn.in[:len(cn.in)+n]
		data = cn.in
	}
	used := cn.process(data, inHook)
	rest := data[used:]
	switch {
	case cn.client.closing:
		cn.in = nil
	case int64(len(rest)) > cn.srv.cfg.QueryBufferLimit:
		cn.srv.log.Warn("closing client that reached max query buffer length", "addr", cn.client.addr)
		cn.in = nil
		return false
	case len(cn.in) == 0:
		if len(rest) > 0 {
			cn.in = make([]byte, len(rest), len(rest)+min(max(cn.parser.need(len(rest)), 4<<10), 64<<10))
			copy(cn.in, rest)
		}
	case len(rest) == 0:
		cn.in = nil
	default:
		cn.in = cn.in[:copy(cn.in, rest)]
	}
	return true
}

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
	for off < len(data) && !c.closing && !cn.blocked {
		st, used, args, msg := cn.parser.next(data[off:], c.authed)
		if st == parseIncomplete {
			break
		}
		off += used
		switch st {
		case parseSkip:
			continue
		case parseError:
			cn.out = redcon.AppendError(cn.out, msg)
			c.closing = true
			s.log.Info("protocol error", "addr", c.addr, "err", msg)
			continue
		}
		if h == holdNone {
			h = s.acquire(cn.turnDone)
			if h == holdLock {
				s.running = cn
			}
		}
		if h == holdLock {
			s.execute(c, args)
			cn.blocked = c.isBlocked()
		} else {
			s.answerBusy(c, args)
		}
	}
	if h == holdLock {
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
	cn.wakeMu.Unlock()
	cn.tr.woke()
}

// resume runs on the transport's goroutine once wake has been called: the
// reply goes out after every earlier one, and the input that arrived while
// the client was blocked runs. woken is false if there was no reply to
// take; keep as received's.
func (cn *conn) resume(inHook bool) (woken, keep bool) {
	cn.wakeMu.Lock()
	reply, woken := cn.woken, cn.isWoken
	cn.woken, cn.isWoken = nil, false
	cn.wakeMu.Unlock()
	if !woken {
		return false, true
	}
	cn.out = append(cn.out, reply...)
	cn.blocked = false
	return true, cn.received(nil, 0, inHook)
}

// flushed drops the written part of the output buffer (written bytes of
// it), keeping its memory for the next replies unless it grew large.
func (cn *conn) flushed(written int) {
	rest := cn.out[written:]
	switch {
	case len(rest) == 0 && cap(cn.out) > keepReplyBytes:
		cn.out = nil
	case len(rest) == 0:
		cn.out = cn.out[:0]
	case written > 0:
		cn.out = cn.out[:copy(cn.out, rest)]
	}
}
