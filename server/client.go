package server

import (
	"bytes"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/floodgate/floodgate/internal/acl"
	"github.com/floodgate/floodgate/internal/resp"
	"github.com/floodgate/floodgate/store"
)

// Client is one connection's state (or a script's, or a test's). Handlers
// read and write the keyspace through db and reply through w.
type Client struct {
	srv  *Server
	id   int64
	conn *conn // nil for script and in-process clients
	w    Writer
	resp *resp.Writer // the connection's own writer, when w is redirected
	db   *store.DB

	name    string
	addr    string
	created time.Time
	lastCmd string
	cmd     *Command // the command running now
	authed  bool
	user    *acl.User // the ACL user; nil for the server's own clients
	// lastArgv0 is the command's name as sent, for the object of an
	// auth failure's ACL LOG entry (AUTH, HELLO).
	lastArgv0 string
	noEvict   bool
	closing   bool // QUIT: close once the reply is out

	// memReported is the memory this client last added to the clients'
	// sum, and queuedMem that of its MULTI queue and watched keys
	// (client_eviction.go).
	memReported, queuedMem atomic.Int64

	// CLIENT REPLY: replyOff drops every reply until ON; replySkipNext,
	// set by SKIP, becomes replySkip for the next command, whose reply is
	// dropped (Redis's CLIENT_REPLY_OFF, _SKIP_NEXT and _SKIP).
	replyOff, replySkipNext, replySkip bool

	multi *multiState // non-nil between MULTI and EXEC/DISCARD
	watch watchState

	// inScript is set on the client a script's redis.call runs as.
	inScript bool
	// inExec is set while EXEC runs the client's queue: blocking commands
	// then answer at once.
	inExec bool

	// pubsub is the client's subscriptions (pubsub.go), nil before its
	// first; guarded by the execution lock.
	pubsub *clientSubs
	// tracking is the client's CLIENT TRACKING state (tracking.go), nil
	// before its first CLIENT TRACKING on; guarded by the execution lock.
	tracking *clientTracking
	// monitor is set while the client is in MONITOR mode
	// (cmd_monitor.go); guarded by the execution lock.
	monitor bool

	// blockedOn is the client's wait in a blocking command (blocking.go);
	// guarded by the execution lock.
	blockedOn *waiter
	// postponed: the command just dispatched waits for a CLIENT PAUSE to
	// end (pause.go); the connection keeps it unread until then.
	postponed bool

	// propArgs, when set, is what the running command is logged as
	// instead of its arguments, and propNone says it is not logged at all
	// (what it changed went out through alsoPropagate): Redis's
	// rewriteClientCommandVector and preventCommandPropagation; propForce
	// logs it even if it changed nothing (forceCommandPropagation: FLUSHALL
	// of an empty keyspace). Set only while the AOF is on; reset around
	// every command (invoke).
	propArgs  [][]byte
	propNone  bool
	propForce bool

	// replica is the client's replica link once it sent REPLCONF or
	// SYNC (replication.go); woff is the replication offset after its
	// last command, which WAIT waits for (Redis's c->woff).
	replica *replicaLink
	woff    int64

	// replyScratch holds a reply's text formatted on the fly (a stream
	// ID) until the writer copies it: a buffer on the stack escapes to the
	// heap through the Writer interface.
	replyScratch [48]byte
}

// multiState is a MULTI block being queued.
type multiState struct {
	queued [][][]byte
	cmds   []*Command
	failed bool // a command was rejected while queueing: EXEC answers EXECABORT
	// flags is the union of the queued commands' flags, as they were when
	// queued (a function replaced later keeps its old flags here), and
	// notStale that one of them was not flagged stale (mstate.cmd_flags and
	// cmd_inv_flags).
	flags    Flags
	notStale bool
	mem      int64 // the queued arguments' bytes, with a pointer each (mstate.argv_len_sums)
}

// watchState is the set of keys a client WATCHes.
type watchState struct {
	keys  []watchedKey
	dirty bool
}

type watchedKey struct {
	db  *store.DB
	key string
}

// setProto switches the connection between RESP2 and RESP3 (HELLO, RESET).
func (c *Client) setProto(proto int) {
	if c.resp != nil {
		c.resp.SetProto(proto)
	}
}

// protocol is the connection's RESP version, as CLIENT LIST reports it.
func (c *Client) protocol() int {
	if c.resp != nil {
		return c.resp.Proto()
	}
	return 2
}

// DB returns the client's selected database.
func (c *Client) DB() *store.DB { return c.db }

// errorf writes a formatted error reply.
func (c *Client) errorf(format string, args ...any) {
	c.w.Error(fmt.Sprintf(format, args...))
}

// wrongArity answers Redis's arity error for cmd.
func (c *Client) wrongArity(cmd *Command) {
	c.w.Error(arityError(cmd))
}

// errorEndingWith is an error message whose last part is an argument:
// Redis trims CR and LF from the ends of the formatted message before it
// turns the rest into spaces.
func errorEndingWith(msg string, arg []byte) string {
	return sanitizeError(msg + strings.TrimRight(truncate(arg, len(arg)), "\r\n"))
}

// unknownCommandError is Redis's processCommand error for a command name
// it does not know: the name, then each argument quoted while the list
// stays under 128 bytes, every one printed with C's "%.*s" (so cut at a
// NUL byte).
func unknownCommandError(args [][]byte) string {
	var list strings.Builder
	for _, a := range args[1:] {
		if list.Len() >= 128 {
			break
		}
		n := 128 - list.Len()
		list.WriteString("'")
		list.WriteString(truncate(a, n))
		list.WriteString("' ")
	}
	return sanitizeError("ERR unknown command '" + truncate(args[0], 128) + "', with args beginning with: " + list.String())
}

// truncate is an argument as C's "%.<n>s" prints it: at most n bytes, and
// nothing from its first NUL on.
func truncate(b []byte, n int) string {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	if len(b) > n {
		b = b[:n]
	}
	return string(b)
}

// sanitizeError is an argument printed into an error as Redis's
// addReplyErrorFormat prints "%s": up to its first NUL, with CR and LF as
// spaces.
func sanitizeError(s string) string {
	if i := strings.IndexByte(s, 0); i >= 0 {
		s = s[:i]
	}
	if strings.ContainsAny(s, "\r\n") {
		s = strings.NewReplacer("\r", " ", "\n", " ").Replace(s)
	}
	return s
}

// unwatchAll forgets every watched key.
func (c *Client) unwatchAll() {
	for _, wk := range c.watch.keys {
		wk.db.Unwatch(wk.key, &c.watch.dirty)
	}
	c.watch.keys = nil
	c.watch.dirty = false
}

// replied moves CLIENT REPLY SKIP on once a command's reply is done (or
// dropped), as Redis's resetClient does: the skip ends, and a SKIP just
// given takes effect for the next command.
func (c *Client) replied() {
	if !c.replySkip && !c.replySkipNext {
		return
	}
	c.replySkip, c.replySkipNext = c.replySkipNext, false
	c.syncMute()
}

// syncMute tells the connection whether its replies are dropped.
func (c *Client) syncMute() {
	if c.conn != nil {
		c.conn.reply.Muted = c.replyOff || c.replySkip
	}
}
