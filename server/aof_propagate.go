package server

// Propagation: what a command logs to the AOF, as Redis's
// alsoPropagate and the rewrites of its commands' propagate calls (a
// relative expiry logged as PEXPIREAT, SET's EX as PXAT, a pop as the pop
// of what it popped...).

import (
	"strconv"

	"github.com/floodgate/floodgate/aof"
	"github.com/floodgate/floodgate/store"
)

// propagation collects the commands a command (with everything it ran:
// a script's redis.call, an EXEC's queue) changed the keyspace with, to
// log them once it is over, as Redis's alsoPropagate and
// propagatePendingCommands: several are wrapped in MULTI/EXEC so a replay
// applies them together.
type propagation struct {
	depth int
	buf   []byte   // the commands, encoded
	ops   []propOp // where each ends in buf, and its database
}

type propOp struct{ db, end int }

// propagate queues one command run against database db for the AOF.
func (s *Server) propagate(db int, args ...[]byte) {
	p := &s.aof.prop
	p.buf = aof.AppendCommand(p.buf, args...)
	p.ops = append(p.ops, propOp{db: db, end: len(p.buf)})
}

// propagatePending moves the queued commands to the AOF's feed and the
// replication stream, in MULTI/EXEC when there are several and wrap is
// set, each with a SELECT where the database changes.
func (s *Server) propagatePending(wrap bool) {
	p := &s.aof.prop
	if len(p.ops) == 0 {
		return
	}
	wrap = wrap && len(p.ops) > 1
	if a := &s.aof; a.on.Load() {
		a.mu.Lock()
		if a.cfg.Timestamps {
			a.feed.Timestamp(s.store.Now() / 1000)
		}
		p.appendTo(&a.feed, wrap)
		a.mu.Unlock()
	}
	if r := &s.repl; r.active.Load() && r.master == nil { // a replica proxies its master's stream instead
		p.appendTo(&r.feed, wrap)
		s.replicationFeed(r.feed.Buf)
		r.feed.Buf = r.feed.Buf[:0]
	}
	p.buf, p.ops = p.buf[:0], p.ops[:0]
}

func (p *propagation) appendTo(feed *aof.Feed, wrap bool) {
	if wrap {
		feed.Select(p.ops[0].db)
		feed.Buf = aof.AppendCommand(feed.Buf, []byte("MULTI"))
	}
	start := 0
	for _, op := range p.ops {
		feed.Select(op.db)
		feed.Buf = append(feed.Buf, p.buf[start:op.end]...)
		start = op.end
	}
	if wrap {
		feed.Buf = aof.AppendCommand(feed.Buf, []byte("EXEC"))
	}
}

// propagated logs a command that changed the keyspace: as it came, or
// rewritten where replaying it would not give the same result (a relative
// TTL, a random pick, a float increment, a rate-limit decision taken at
// another time). Commands that run others (EXEC, EVAL) are logged through
// what they ran, as Redis 7.0's effects replication.
func (s *Server) propagated(c *Client, cmd *Command, args [][]byte) {
	switch {
	case c.propNone:
		return
	case c.propArgs != nil:
		s.propagate(c.db.Index(), c.propArgs...)
		return
	}
	if rewrite := propagateRewrites[cmd.Name]; rewrite != nil {
		rewrite(s, c, args)
		return
	}
	switch cmd.Name {
	case "exec", "eval", "evalsha", "eval_ro", "evalsha_ro", "fcall", "fcall_ro", "multi":
		return
	}
	s.propagate(c.db.Index(), args...)
}

// logAs sets what the running command is logged as, for a handler that
// knows it better than the table below could (Redis's
// rewriteClientCommandVector): a pop that a replay would pick otherwise,
// a blocking command as the pop it did. args must stay valid until the
// command is over.
func (c *Client) logAs(args ...[]byte) {
	if c.srv.propagating() {
		c.propArgs = args
	}
}

// forceLog logs the running command even if it changed nothing, as
// Redis's forceCommandPropagation.
func (c *Client) forceLog() {
	if c.srv.propagating() {
		c.propForce = true
	}
}

// alsoLog queues a command for the AOF beside the running one, which is
// then not logged itself (Redis's alsoPropagate and
// preventCommandPropagation): SPOP with a count logs one SREM a member.
func (c *Client) alsoLog(args ...[]byte) {
	if c.srv.propagating() {
		c.srv.propagate(c.db.Index(), args...)
		c.propNone = true
	}
}

// logNone keeps the running command out of the AOF, whatever it changed,
// for one that queues what it did with alsoLog, if anything (Redis's
// preventCommandPropagation): XREADGROUP, XCLAIM.
func (c *Client) logNone() {
	if c.srv.propagating() {
		c.propNone = true
	}
}

// Command names of logged rewrites, as Redis's shared objects spell them
// (its shared.left and shared.right are lower case).
var (
	cmdSREM      = []byte("SREM")
	cmdLPOP      = []byte("LPOP")
	cmdRPOP      = []byte("RPOP")
	cmdLMOVE     = []byte("LMOVE")
	cmdRPOPLPUSH = []byte("RPOPLPUSH")
	cmdZPOPMIN   = []byte("ZPOPMIN")
	cmdZPOPMAX   = []byte("ZPOPMAX")
	argLeft      = []byte("left")
	argRight     = []byte("right")
	argABSTTL    = []byte("ABSTTL")
)

// logAsPop logs a list or sorted-set pop as the non-blocking command that
// pops the same (Redis's blockingPopGenericCommand, serveClientBlockedOnList,
// genericZpopCommand): name key, or name key n when a count was given.
func (c *Client) logAsPop(name, key []byte, n int64) {
	if n < 0 {
		c.logAs(name, key)
		return
	}
	c.logAs(name, key, strconv.AppendInt(nil, n, 10))
}

// listEnd is LEFT or RIGHT as Redis logs a served BLMOVE.
func listEnd(front bool) []byte {
	if front {
		return argLeft
	}
	return argRight
}

// propagateRewrites are the commands logged otherwise than as they came,
// each reading the key's state after the command.
var propagateRewrites map[string]func(s *Server, c *Client, args [][]byte)

func init() {
	propagateRewrites = map[string]func(s *Server, c *Client, args [][]byte){
		"expire":       propagateExpiry,
		"pexpire":      propagateExpiry,
		"expireat":     propagateExpiry,
		"pexpireat":    propagateExpiry,
		"getex":        propagateExpiry,
		"setex":        propagateSetWithTTL,
		"psetex":       propagateSetWithTTL,
		"set":          propagateSet,
		"incrbyfloat":  propagateIncrByFloat,
		"hincrbyfloat": propagateHIncrByFloat,
		"restore":      propagateRestore,
		"getset":       propagateGetSet,
		"getdel":       propagateGetDel,
		"cl.throttle":  propagateKeyState,
		"increx":       propagateKeyState,
		"gcra":         propagateKeyState,
	}
}

var (
	cmdDEL       = []byte("DEL")
	cmdUNLINK    = []byte("UNLINK")
	cmdSET       = []byte("SET")
	cmdPEXPIREAT = []byte("PEXPIREAT")
	cmdPERSIST   = []byte("PERSIST")
	argPXAT      = []byte("PXAT")
	argKEEPTTL   = []byte("KEEPTTL")
)

// propagateExpiry logs EXPIRE and its kin as PEXPIREAT with the absolute
// time, keeping EXPIRE's NX|XX|GT|LT (a DEL when the key is gone, a PERSIST
// when GETEX removed the TTL), as Redis's expireGenericCommand and
// getexCommand; PEXPIREAT goes as it came.
func propagateExpiry(s *Server, c *Client, args [][]byte) {
	key := args[1]
	db := c.db.Index()
	switch e := c.db.Entry(key); {
	case e == nil:
		s.propagate(db, s.deletion("lazyfree-lazy-expire"), key)
	case c.db.ExpireAt(e) == 0:
		s.propagate(db, cmdPERSIST, key)
	case eqFold(args[0], "pexpireat"):
		s.propagate(db, args...)
	case eqFold(args[0], "getex"):
		s.propagate(db, cmdPEXPIREAT, key, strconv.AppendInt(nil, c.db.ExpireAt(e), 10))
	default:
		out := append([][]byte{cmdPEXPIREAT, key, strconv.AppendInt(nil, c.db.ExpireAt(e), 10)}, args[3:]...)
		s.propagate(db, out...)
	}
}

// propagateSetWithTTL logs SETEX/PSETEX as SET key value PXAT <ms>.
func propagateSetWithTTL(s *Server, c *Client, args [][]byte) {
	s.propagateSetPXAT(c, args[1], args[3])
}

func (s *Server) propagateSetPXAT(c *Client, key, value []byte) {
	db := c.db.Index()
	e := c.db.Entry(key)
	if e == nil {
		s.propagate(db, cmdDEL, key)
		return
	}
	s.propagate(db, cmdSET, key, value, argPXAT, strconv.AppendInt(nil, c.db.ExpireAt(e), 10))
}

// propagateSet logs SET with EX, PX, EXAT or PXAT as SET key value PXAT
// <ms>, and other SETs without their GET, as Redis 7.0's setGenericCommand.
func propagateSet(s *Server, c *Client, args [][]byte) {
	get := false
	for _, a := range args[3:] {
		if eqFold(a, "ex") || eqFold(a, "px") || eqFold(a, "exat") || eqFold(a, "pxat") {
			s.propagateSetPXAT(c, args[1], args[2])
			return
		}
		get = get || eqFold(a, "get")
	}
	if get {
		out := make([][]byte, 0, len(args)-1)
		for i, a := range args {
			if i < 3 || !eqFold(a, "get") {
				out = append(out, a)
			}
		}
		args = out
	}
	s.propagate(c.db.Index(), args...)
}

// propagateGetSet logs GETSET as SET key value, as Redis's getsetCommand.
func propagateGetSet(s *Server, c *Client, args [][]byte) {
	s.propagate(c.db.Index(), cmdSET, args[1], args[2])
}

// propagateGetDel logs GETDEL as DEL key (UNLINK with
// lazyfree-lazy-user-del yes), as Redis's getdelCommand.
func propagateGetDel(s *Server, c *Client, args [][]byte) {
	s.propagate(c.db.Index(), s.deletion("lazyfree-lazy-user-del"), args[1])
}

// deletion is how a deletion is logged: UNLINK where the lazyfree
// parameter that governs it says yes, else DEL, as Redis's
// propagateDeletion (floodgate frees nothing lazily; only the log follows
// the setting).
func (s *Server) deletion(lazyParam string) []byte {
	if s.configValue(lazyParam) == "yes" {
		return cmdUNLINK
	}
	return cmdDEL
}

// propagateRestore logs a relative TTL as the absolute one with ABSTTL
// added, and a REPLACE whose TTL had already passed as DEL, as Redis's
// restoreCommand.
func propagateRestore(s *Server, c *Client, args [][]byte) {
	key := args[1]
	db := c.db.Index()
	e := c.db.Entry(key)
	if e == nil {
		s.propagate(db, cmdDEL, key)
		return
	}
	absolute := false
	for _, a := range args[4:] {
		absolute = absolute || eqFold(a, "absttl")
	}
	if c.db.ExpireAt(e) == 0 || absolute {
		s.propagate(db, args...)
		return
	}
	out := append(append([][]byte{}, args...), argABSTTL)
	out[2] = strconv.AppendInt(nil, c.db.ExpireAt(e), 10)
	s.propagate(db, out...)
}

// propagateIncrByFloat logs the result, SET key value KEEPTTL, as Redis
// does: a float increment replayed need not round the same way.
func propagateIncrByFloat(s *Server, c *Client, args [][]byte) {
	e := c.db.Entry(args[1])
	if str, ok := valueOf[*store.String](e); ok {
		s.propagate(c.db.Index(), cmdSET, args[1], str.Bytes(), argKEEPTTL)
	}
}

// propagateHIncrByFloat logs HSET key field <result>.
func propagateHIncrByFloat(s *Server, c *Client, args [][]byte) {
	e := c.db.Entry(args[1])
	if h, ok := valueOf[*store.Hash](e); ok {
		if v, ok := h.Get(args[2]); ok {
			s.propagate(c.db.Index(), []byte("HSET"), args[1], args[2], []byte(v))
		}
	}
}

// propagateKeyState logs the key's whole state after a command whose
// effect depends on the time it ran (CL.THROTTLE's decision): a string as
// SET key value [PXAT ms], anything else as DEL and the commands a rewrite
// would write.
func propagateKeyState(s *Server, c *Client, args [][]byte) {
	s.propagateState(c.db, args[1])
}

func (s *Server) propagateState(sdb *store.DB, key []byte) {
	db := sdb.Index()
	e := sdb.Entry(key)
	if e == nil {
		s.propagate(db, cmdDEL, key)
		return
	}
	if str, ok := e.Value().(*store.String); ok {
		if sdb.ExpireAt(e) != 0 {
			s.propagate(db, cmdSET, key, str.Bytes(), argPXAT, strconv.AppendInt(nil, sdb.ExpireAt(e), 10))
		} else {
			s.propagate(db, cmdSET, key, str.Bytes())
		}
		return
	}
	s.propagate(db, cmdDEL, key)
	p := &s.aof.prop
	p.buf = aof.AppendValue(p.buf, e.Key(), e.Value(), sdb.ExpireAt(e))
	p.ops = append(p.ops, propOp{db: db, end: len(p.buf)})
}

func valueOf[T store.Value](e *store.Entry) (T, bool) {
	var zero T
	if e == nil {
		return zero, false
	}
	v, ok := e.Value().(T)
	return v, ok
}

// expiredKey logs the deletion of a key whose time had passed (the store's
// OnExpire), as Redis's deleteExpiredKeyAndPropagate.
func (s *Server) expiredKey(db int, key string) {
	s.expired++ // expired_keys: lazy and active expiry alike, as Redis's stat_expiredkeys
	if s.propagating() {
		s.propagate(db, s.deletion("lazyfree-lazy-expire"), []byte(key))
	}
	if s.notifyFlags&notifyExpired != 0 {
		s.notifyKeyspaceEvent(notifyExpired, "expired", []byte(key), db)
	}
}

// evictedKey logs a key maxmemory evicted as DEL, as Redis's
// performEvictions; the caller moves the DELs to the feed unwrapped.
func (s *Server) evictedKey(db int, key string) {
	if s.aof.on.Load() {
		s.propagate(db, s.deletion("lazyfree-lazy-eviction"), []byte(key))
	}
	if s.notifyFlags&notifyEvicted != 0 {
		s.notifyKeyspaceEvent(notifyEvicted, "evicted", []byte(key), db)
	}
}
