package server

import "time"

// ReplyError is an error reply of Call: the text Redis sends, without
// the leading '-' ("WRONGTYPE Operation against a key ...").
type ReplyError string

func (e ReplyError) Error() string { return string(e) }

// Call runs one command on database db, with the execution lock held, as
// a client's command runs: the same table entry and handler, so its effects
// and errors are the command's own. It is the test double's direct API
// (package servertest builds its helpers on it), and is not a client: it
// needs no AUTH, is not counted (CommandCount, INFO commandstats, the slow
// log), is not written to the AOF, and never blocks (a blocking command
// answers as it would in a script).
//
// The reply is nil (a null), a string (status or bulk), an int64, a
// float64 (a double), or a []any (an array, a set, or a map as its
// key/value pairs, as RESP2 sends them); an error reply is err, a
// ReplyError.
func (s *Server) Call(db int, args ...string) (reply any, err error) {
	if len(args) == 0 {
		return nil, ReplyError("ERR empty command")
	}
	if db < 0 || db >= s.store.Databases() {
		return nil, ReplyError(errDBIndex)
	}
	argv := make([][]byte, len(args))
	for i, a := range args {
		argv[i] = []byte(a)
	}
	w := &valueWriter{}
	s.Do(func() { s.callDirect(db, argv, w) })
	if w.err != "" {
		return nil, ReplyError(w.err)
	}
	return w.value(), nil
}

// callDirect is Call's command, with the lock held: what invoke does for a
// client, but the accounting.
func (s *Server) callDirect(db int, args [][]byte, w *valueWriter) {
	c := &Client{srv: s, authed: true, db: s.store.DB(db), created: time.Now(), w: w}
	cmd, r := check(c, args, false) // the table's checks, as for a client
	if r != nil {
		w.Error(r.msg)
		return
	}
	c.lastCmd, c.cmd = cmd.Name, cmd
	defer func() {
		if r := recover(); r != nil {
			w.Error("ERR internal error while running '" + cmd.Name + "'")
		}
	}()
	if cmd.Flags&(FlagWrite|FlagMayReplicate) != 0 && s.store.Snapshotting() {
		preWrite(c, cmd, args) // a BGSAVE in progress keeps what it saves
	}
	cmd.Handler(c, args)
}

// valueWriter is the Writer of Call: it builds the reply as Go values. Its
// first error reply is the call's error.
type valueWriter struct {
	err   string
	root  []any
	stack []*pending
}

// pending is an aggregate whose elements are still being written.
type pending struct {
	elems []any
	left  int
}

func (w *valueWriter) put(v any) {
	for {
		if len(w.stack) == 0 {
			w.root = append(w.root, v)
			return
		}
		top := w.stack[len(w.stack)-1]
		top.elems = append(top.elems, v)
		if top.left--; top.left > 0 {
			return
		}
		w.stack = w.stack[:len(w.stack)-1]
		v = top.elems // complete: an element of the one below
	}
}

func (w *valueWriter) open(n int) {
	if n <= 0 {
		w.put([]any{})
		return
	}
	w.stack = append(w.stack, &pending{elems: make([]any, 0, n), left: n})
}

// value is the first complete reply.
func (w *valueWriter) value() any {
	if len(w.root) == 0 {
		return nil
	}
	return w.root[0]
}

func (w *valueWriter) Status(s string) { w.put(s) }
func (w *valueWriter) Error(msg string) {
	if w.err == "" && len(w.stack) == 0 {
		w.err = msg
	}
	w.put(ReplyError(msg))
}
func (w *valueWriter) Int(n int64)                       { w.put(n) }
func (w *valueWriter) Bulk(b []byte)                     { w.put(string(b)) }
func (w *valueWriter) BulkString(s string)               { w.put(s) }
func (w *valueWriter) Null()                             { w.put(nil) }
func (w *valueWriter) NullArray()                        { w.put(nil) }
func (w *valueWriter) Array(n int)                       { w.open(n) }
func (w *valueWriter) Double(f float64)                  { w.put(f) }
func (w *valueWriter) Map(n int)                         { w.open(2 * n) }
func (w *valueWriter) Set(n int)                         { w.open(n) }
func (w *valueWriter) Verbatim(s string)                 { w.put(s) }
func (w *valueWriter) Proto() int                        { return 2 }
func (w *valueWriter) Bool(v bool)                       { w.put(int64(boolInt(v))) }
func (w *valueWriter) BigNumber(s string)                { w.put(s) }
func (w *valueWriter) VerbatimFormat(_ string, s string) { w.put(s) }
