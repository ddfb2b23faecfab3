package server

import (
	"fmt"
	"strings"
	"time"

	"github.com/floodgate/floodgate/store"
)

// Client is one connection's state (or a script's, or a test's). Handlers
// read and write the keyspace through db and reply through w.
type Client struct {
	srv  *Server
	id   int64
	conn *conn // nil for script and in-process clients
	w    Writer
	resp *respWriter // the connection's own writer, when w is redirected
	db   *store.DB

	name       string
	libName    string
	libVersion string
	addr       string
	created    time.Time
	lastCmd    string
	cmd        *Command // the command running now
	authed     bool
	noEvict    bool
	closing    bool // QUIT: close once the reply is out

	multi *multiState // non-nil between MULTI and EXEC/DISCARD
	watch watchState

	// inScript is set on the client a script's redis.call runs as.
	inScript bool
	// inExec is set while EXEC runs the client's queue: blocking commands
	// then answer at once.
	inExec bool

	// blockedOn is the client's wait in a blocking command (blocking.go);
	// guarded by the execution lock.
	blockedOn *waiter
}

// multiState is a MULTI block being queued.
type multiState struct {
	queued [][][]byte
	cmds   []*Command
	failed bool // a command was rejected while queueing: EXEC answers EXECABORT
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
		c.resp.proto = proto
	}
}

// protocol is the connection's RESP version, as CLIENT LIST reports it.
func (c *Client) protocol() int {
	if c.resp != nil {
		return c.resp.proto
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

// unknownCommand answers Redis's error for a command name it does not know:
// the name, then up to the first 128 bytes of each argument, quoted.
func unknownCommandError(args [][]byte) string {
	var b strings.Builder
	b.WriteString("ERR unknown command '")
	b.WriteString(truncate(args[0], 128))
	b.WriteString("', with args beginning with: ")
	for _, a := range args[1:] {
		if b.Len() > 4096 {
			break
		}
		b.WriteString("'")
		b.WriteString(truncate(a, 128))
		b.WriteString("' ")
	}
	return sanitizeError(b.String())
}

func truncate(b []byte, n int) string {
	if len(b) > n {
		b = b[:n]
	}
	return string(b)
}

// sanitizeError replaces newlines, which would break the protocol, with
// spaces, as Redis does for error replies that quote user input.
func sanitizeError(s string) string {
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
