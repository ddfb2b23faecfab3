package server

// The append-only file (Redis 7.0's multi-part AOF): loading it at start,
// logging what commands change, writing and fsyncing it, rewriting it.
// The formats are package aof's; this file is the glue that needs the
// server: the execution lock, the command table, the transports.
//
// Concurrency: the keyspace side (manifest, propagation, rewrite state) is
// guarded by the execution lock. The feed and the open incr file are
// guarded by aofState.mu, which the transports take to write the feed out
// before they send a round's replies (Redis's beforeSleep), and the cron
// goroutine takes to write and fsync it every second.

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/floodgate/floodgate/aof"
	"github.com/floodgate/floodgate/internal/resp"
	"github.com/floodgate/floodgate/luaengine"
	"github.com/floodgate/floodgate/rdb"
	"github.com/floodgate/floodgate/store"
)

// AOFConfig configures the append-only file. Its zero value is Redis's
// defaults with appendonly no.
type AOFConfig struct {
	Enabled  bool   // appendonly
	Filename string // appendfilename: "appendonly.aof"
	Dirname  string // appenddirname: "appendonlydir", inside Config.Dir
	Fsync    string // appendfsync: "always", "everysec" (default) or "no"
	// RefuseTruncated is aof-load-truncated no: a file that ends inside a
	// command stops the server instead of being loaded up to there.
	RefuseTruncated bool
	// NoRDBPreamble is aof-use-rdb-preamble no: the base is commands.
	NoRDBPreamble bool
	// Timestamps is aof-timestamp-enabled: "#TS:<unix>" annotations
	// before the commands of each new second, and at the top of a base of
	// commands.
	Timestamps bool
	// RewritePercentage is auto-aof-rewrite-percentage: 0 means 100,
	// negative turns the automatic rewrite off.
	RewritePercentage int
	// RewriteMinSize is auto-aof-rewrite-min-size: 0 means 64 MB.
	RewriteMinSize int64
}

func (c *AOFConfig) setDefaults() {
	if c.Filename == "" {
		c.Filename = "appendonly.aof"
	}
	if c.Dirname == "" {
		c.Dirname = "appendonlydir"
	}
	if c.Fsync == "" {
		c.Fsync = "everysec"
	}
	if c.RewritePercentage == 0 {
		c.RewritePercentage = 100
	}
	if c.RewritePercentage < 0 {
		c.RewritePercentage = 0
	}
	if c.RewriteMinSize == 0 {
		c.RewriteMinSize = 64 << 20
	}
}

// appendfsync policies.
const (
	fsyncNo int32 = iota
	fsyncEverysec
	fsyncAlways
)

var fsyncPolicies = map[string]int32{"no": fsyncNo, "everysec": fsyncEverysec, "always": fsyncAlways}

// aofState is the append-only file's state (Redis's server.aof_*).
type aofState struct {
	// on: commands are logged (appendonly yes, an incr file open). Read
	// without the lock by the transports, written under both locks.
	on     atomic.Bool
	policy atomic.Int32 // appendfsync

	// Guarded by the execution lock.
	cfg       AOFConfig
	manifest  *aof.Manifest
	prop      propagation
	rewriting bool
	// rewriteScheduled: BGREWRITEAOF came while a BGSAVE held the snapshot
	// (or inside EXEC); the cron starts it when it can.
	rewriteScheduled bool
	// waitRewrite: the AOF was turned on and its incr file opened; the
	// rewrite that writes its base must not open another (Redis's
	// AOF_WAIT_REWRITE).
	waitRewrite    bool
	rewriteStarted time.Time
	rewriteGen     int // bumped when AOF is turned off: a rewrite in flight is dropped
	lastRewriteSec int64
	lastRewriteOK  bool
	rewrites       int64
	rewriteFails   int64
	baseSize       int64
	cronStarted    bool

	// failing is set while writeErr or fsyncErr is: write commands are
	// refused with MISCONF (Redis's writeCommandsDeniedByDiskError). Read
	// by dispatch without a.mu.
	failing atomic.Bool
	// exit ends the process, as Redis exits when a write or an fsync fails
	// under appendfsync always (a reply must not go out); os.Exit, which
	// tests replace.
	exit func(code int)

	mu          sync.Mutex // guards what follows
	feed        aof.Feed
	file        aofFile
	currentSize int64
	unsynced    bool  // written since the last fsync
	writeErr    error // the last write's error, nil once a write succeeds
	fsyncErr    error // the last fsync's error, nil once an fsync succeeds
}

// aofFile is the open incr file: an *os.File, or in tests one that fails
// as a full disk does.
type aofFile interface {
	Write(b []byte) (int, error)
	Sync() error
	Stat() (os.FileInfo, error)
	Truncate(size int64) error
	Close() error
}

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

// propagatePending moves the queued commands to the feed, in MULTI/EXEC
// when there are several and wrap is set.
func (s *Server) propagatePending(wrap bool) {
	p := &s.aof.prop
	if len(p.ops) == 0 {
		return
	}
	a := &s.aof
	a.mu.Lock()
	if a.cfg.Timestamps {
		a.feed.Timestamp(s.store.Now() / 1000)
	}
	wrap = wrap && len(p.ops) > 1
	if wrap {
		a.feed.Select(p.ops[0].db)
		a.feed.Buf = aof.AppendCommand(a.feed.Buf, []byte("MULTI"))
	}
	start := 0
	for _, op := range p.ops {
		a.feed.Select(op.db)
		a.feed.Buf = append(a.feed.Buf, p.buf[start:op.end]...)
		start = op.end
	}
	if wrap {
		a.feed.Buf = aof.AppendCommand(a.feed.Buf, []byte("EXEC"))
	}
	a.mu.Unlock()
	p.buf, p.ops = p.buf[:0], p.ops[:0]
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
	if c.srv.aof.on.Load() {
		c.propArgs = args
	}
}

// forceLog logs the running command even if it changed nothing, as
// Redis's forceCommandPropagation.
func (c *Client) forceLog() {
	if c.srv.aof.on.Load() {
		c.propForce = true
	}
}

// alsoLog queues a command for the AOF beside the running one, which is
// then not logged itself (Redis's alsoPropagate and
// preventCommandPropagation): SPOP with a count logs one SREM a member.
func (c *Client) alsoLog(args ...[]byte) {
	if c.srv.aof.on.Load() {
		c.srv.propagate(c.db.Index(), args...)
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
	if s.aof.on.Load() {
		s.propagate(db, s.deletion("lazyfree-lazy-expire"), []byte(key))
	}
}

// evictedKey logs a key maxmemory evicted as DEL, as Redis's
// performEvictions; the caller moves the DELs to the feed unwrapped.
func (s *Server) evictedKey(db int, key string) {
	s.propagate(db, s.deletion("lazyfree-lazy-eviction"), []byte(key))
}

// aofFlush writes the feed to the incr file, and fsyncs it under
// appendfsync always: the transports call it before sending replies, so a
// reply to a write is never sent before the write is in the file (on disk,
// with always), as Redis's beforeSleep.
func (s *Server) aofFlush() {
	if !s.aof.on.Load() {
		return
	}
	a := &s.aof
	a.mu.Lock()
	if len(a.feed.Buf) > 0 {
		s.aofWriteLocked(a.policy.Load() == fsyncAlways)
	}
	a.mu.Unlock()
}

// aofWriteLocked writes the feed out; a.mu is held. A write that fails
// keeps the feed for the next attempt (a short write is cut off the file
// first, so the file never ends inside a command), and write commands are
// refused until a write succeeds, as Redis's flushAppendOnlyFile; under
// appendfsync always the process exits instead, as Redis does.
func (s *Server) aofWriteLocked(sync bool) {
	a := &s.aof
	if a.file == nil {
		return
	}
	if len(a.feed.Buf) > 0 {
		n, err := a.file.Write(a.feed.Buf)
		if err != nil {
			s.aofWriteFailed(n, err)
			return
		}
		a.currentSize += int64(n)
		if a.writeErr != nil {
			s.log.Warn("AOF write error looks solved, Redis can write again.")
			a.writeErr = nil
			a.failing.Store(a.fsyncErr != nil)
		}
		a.unsynced = true
		if cap(a.feed.Buf) > 4<<20 {
			a.feed.Buf = nil // a burst's buffer is not kept
		} else {
			a.feed.Buf = a.feed.Buf[:0]
		}
	}
	if sync && a.unsynced {
		if err := a.file.Sync(); err != nil {
			s.aofFsyncFailed(err)
			return
		}
		s.aofFsynced()
		a.unsynced = false
	}
}

// aofWriteFailed handles a write of the feed that wrote n bytes and failed.
func (s *Server) aofWriteFailed(n int, err error) {
	a := &s.aof
	if n > 0 {
		err = syscall.ENOSPC // as Redis, whatever cut the write short
		s.log.Warn(fmt.Sprintf("Short write while writing to the AOF file: (nwritten=%d, expected=%d)", n, len(a.feed.Buf)))
		if st, serr := a.file.Stat(); serr == nil {
			if terr := a.file.Truncate(st.Size() - int64(n)); terr == nil {
				n = 0
			} else {
				s.log.Warn("Could not remove short write from the append-only file.  Redis may refuse to load the AOF the next time it starts.  ftruncate: " + errnoText(terr))
			}
		}
	} else if a.writeErr == nil {
		s.log.Warn("Error writing to the AOF file: " + errnoText(err))
	}
	if a.policy.Load() == fsyncAlways {
		s.log.Warn("Can't recover from AOF write error when the AOF fsync policy is 'always'. Exiting...")
		a.exit(1)
	}
	a.writeErr = err
	a.failing.Store(true)
	a.currentSize += int64(n)
	a.feed.Buf = append(a.feed.Buf[:0], a.feed.Buf[n:]...) // the rest is written on the next attempt
}

// aofFsyncFailed records a failed fsync; a.mu is held. Under always the
// process exits, as Redis's.
func (s *Server) aofFsyncFailed(err error) {
	a := &s.aof
	if a.policy.Load() == fsyncAlways {
		s.log.Warn(fmt.Sprintf("Can't persist AOF for fsync error when the AOF fsync policy is 'always': %s. Exiting...", errnoText(err)))
		a.exit(1)
	}
	if a.fsyncErr == nil {
		s.log.Warn("Fail to fsync the AOF file: " + errnoText(err))
	}
	a.fsyncErr = err
	a.failing.Store(true)
}

// aofFsynced clears an fsync error once an fsync succeeds; a.mu is held.
func (s *Server) aofFsynced() {
	a := &s.aof
	if a.fsyncErr != nil {
		a.fsyncErr = nil
		a.failing.Store(a.writeErr != nil)
	}
}

// aofError is the MISCONF error write commands get while the AOF cannot
// be written or fsynced (Redis's writeCommandsGetDiskErrorMessage), or ""
// when it can.
func (s *Server) aofError() string {
	a := &s.aof
	if !a.failing.Load() || !a.on.Load() {
		return ""
	}
	a.mu.Lock()
	err := a.writeErr
	if err == nil {
		err = a.fsyncErr
	}
	a.mu.Unlock()
	if err == nil {
		return ""
	}
	return "MISCONF Errors writing to the AOF file: " + errnoText(err)
}

// aofCron runs every second while the AOF is on: it writes the feed (for
// commands that no transport flushes, such as active expiry's DELs),
// fsyncs under everysec outside the feed's lock, so the event loop is
// never held up by the disk, and starts an automatic rewrite when the file
// has grown enough.
func (s *Server) aofCron() {
	defer s.stopped.Done()
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
		}
		a := &s.aof
		a.mu.Lock()
		s.aofWriteLocked(false)
		f, unsynced := a.file, a.unsynced
		policy := a.policy.Load()
		if policy == fsyncEverysec && unsynced {
			a.unsynced = false
		}
		a.mu.Unlock()
		if f != nil && policy == fsyncEverysec && unsynced {
			// As Redis's background fsync: a failure refuses writes until
			// an fsync succeeds.
			err := f.Sync()
			a.mu.Lock()
			switch {
			case err == nil:
				s.aofFsynced()
			case !errors.Is(err, os.ErrClosed):
				a.unsynced = true
				s.aofFsyncFailed(err)
			}
			a.mu.Unlock()
		}
		s.lock <- struct{}{}
		s.store.Refresh()
		s.startScheduledRewrite()
		s.maybeAutoRewrite()
		<-s.lock
	}
}

// maybeAutoRewrite starts a rewrite once the AOF has grown by
// auto-aof-rewrite-percentage over its size after the last rewrite (and is
// at least auto-aof-rewrite-min-size), as Redis's serverCron.
func (s *Server) maybeAutoRewrite() {
	a := &s.aof
	if !a.on.Load() || a.rewriting || s.persist.bgsave != nil || a.cfg.RewritePercentage <= 0 {
		return
	}
	a.mu.Lock()
	size := a.currentSize
	a.mu.Unlock()
	if size < a.cfg.RewriteMinSize {
		return
	}
	base := max(a.baseSize, 1)
	growth := (size*100)/base - 100
	if growth >= int64(a.cfg.RewritePercentage) {
		s.log.Info(fmt.Sprintf("Starting automatic rewriting of AOF on %d%% growth", growth))
		if err := s.startRewrite(); err != nil {
			s.log.Warn("automatic AOF rewrite failed to start", "err", err)
		}
	}
}

// aofDir is where the AOF's files live: appenddirname inside dir.
func (s *Server) aofDir() string { return filepath.Join(s.cfg.Dir, s.aof.cfg.Dirname) }

func (s *Server) aofPath(name string) string { return filepath.Join(s.aofDir(), name) }

// persistManifest writes m atomically: a temp file, fsynced, renamed over
// the manifest, and the directory fsynced, as Redis's persistAofManifest.
func (s *Server) persistManifest(m *aof.Manifest) error {
	name := aof.ManifestName(s.aof.cfg.Filename)
	tmp := s.aofPath(aof.TempPrefix + name)
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		s.log.Warn(fmt.Sprintf("Can't open the AOF manifest file %s: %v", tmp, err))
		return err
	}
	if _, err = f.Write(m.Marshal()); err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, s.aofPath(name))
	}
	if err != nil {
		s.log.Warn(fmt.Sprintf("Error trying to write the AOF manifest file %s: %v", name, err))
		return err
	}
	return syncDir(s.aofDir())
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// readManifest loads the manifest if the directory and the file exist
// (an empty manifest otherwise), as Redis's aofLoadManifestFromDisk.
func (s *Server) readManifest() (*aof.Manifest, error) {
	data, err := os.ReadFile(s.aofPath(aof.ManifestName(s.aof.cfg.Filename)))
	if errors.Is(err, os.ErrNotExist) {
		return &aof.Manifest{}, nil
	}
	if err != nil {
		s.log.Warn(fmt.Sprintf("Fatal error: can't open the AOF manifest file %s for reading: %v", s.aofPath(aof.ManifestName(s.aof.cfg.Filename)), err))
		return nil, err
	}
	m, err := aof.ParseManifest(data)
	if err != nil {
		var me *aof.ManifestError
		s.log.Warn("*** FATAL AOF MANIFEST FILE ERROR ***")
		if errors.As(err, &me) && me.Line > 0 {
			s.log.Warn(fmt.Sprintf("Reading the manifest file, at line %d", me.Line))
			s.log.Warn(fmt.Sprintf(">>> '%s'", me.Text))
		}
		s.log.Warn(err.Error())
		return nil, err
	}
	return m, nil
}

// initAOF takes the AOF's configuration, at New.
func (s *Server) initAOF() {
	a := &s.aof
	a.cfg = s.cfg.AOF
	a.policy.Store(fsyncPolicies[a.cfg.Fsync])
	a.exit = os.Exit
	a.lastRewriteSec = -1
	a.lastRewriteOK = true
}

// startAOF runs before the server serves anyone: it reads the manifest
// and, with appendonly yes, loads the files and opens the incr file to
// append to (Redis's loadDataFromDisk and aofOpenIfNeededOnServerStart).
// An error means the server must not start, as Redis exits.
func (s *Server) startAOF() error {
	a := &s.aof
	m, err := s.readManifest()
	if err != nil {
		return err
	}
	a.manifest = m
	if !a.cfg.Enabled {
		return nil
	}
	if err := s.upgradeOldAOF(); err != nil {
		return err
	}
	if err := s.loadAOF(); err != nil {
		return err
	}
	if s.closed.Load() { // a SHUTDOWN after the last turn of the load: open nothing
		return ErrShutdownWhileLoading
	}
	if err := os.MkdirAll(s.aofDir(), 0o755); err != nil {
		s.log.Warn(fmt.Sprintf("Can't open or create append-only dir %s: %v", s.aofDir(), err))
		return err
	}
	m = a.manifest
	baseCreated := m.Base == nil && len(m.Incrs) == 0
	if baseCreated {
		s.lock <- struct{}{}
		job := s.newRewriteJob(fmt.Sprintf("temp-rewriteaof-%d.aof", os.Getpid()))
		<-s.lock
		name := m.NewBase(a.cfg.Filename, job.rdbBase)
		size, err := job.write()
		s.lock <- struct{}{}
		job.sn.End()
		<-s.lock
		tmp := job.tmp
		if err == nil {
			err = os.Rename(tmp, s.aofPath(name))
		}
		if err != nil {
			return err
		}
		a.baseSize = size
		a.currentSize = size
		s.log.Info("Creating AOF base file " + name + " on server start")
	}
	created := len(m.Incrs) == 0
	var name string
	if created {
		name = m.NewIncr(a.cfg.Filename)
	} else {
		name = m.Incrs[len(m.Incrs)-1].Name
	}
	f, err := os.OpenFile(s.aofPath(name), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		s.log.Warn(fmt.Sprintf("Can't open the append-only file %s: %v", name, err))
		return err
	}
	// Only a manifest that changed is written, as Redis's persistAofManifest
	// (am->dirty): a restart on a full disk must not fail for a file it
	// has no need to rewrite.
	if baseCreated || created {
		if err := s.persistManifest(m); err != nil {
			f.Close()
			return err
		}
	}
	if created {
		s.log.Info("Creating AOF incr file " + name + " on server start")
	} else {
		s.log.Info("Opening AOF incr file " + name + " on server start")
	}
	if len(m.History) > 0 { // left by a rewrite cut short: Redis's aofDelHistoryFiles at start
		for _, h := range m.History {
			s.log.Info("Removing the history file " + h.Name + " in the background")
			os.Remove(s.aofPath(h.Name))
		}
		m.History = nil
		s.persistManifest(m) // as Redis, a failure is logged and the start goes on
	}
	a.mu.Lock()
	a.file = f
	a.feed.Reselect()
	a.mu.Unlock()
	a.on.Store(true)
	s.startAOFCron()
	return nil
}

func (s *Server) startAOFCron() {
	if s.aof.cronStarted {
		return
	}
	s.aof.cronStarted = true
	s.stopped.Add(1)
	go s.aofCron()
}

// rdbPreamble reports whether a base is written as an RDB
// (aof-use-rdb-preamble, yes by default as in Redis 7.0).
func (s *Server) rdbPreamble() bool { return !s.aof.cfg.NoRDBPreamble }

// upgradeOldAOF adopts a Redis 6-style single appendonly.aof in dir as the
// base of a new manifest, as Redis 7.0's aofUpgradePrepare: when there is
// no AOF directory, or its manifest lists nothing (or only that base, not
// yet moved).
func (s *Server) upgradeOldAOF() error {
	a := &s.aof
	old := filepath.Join(s.cfg.Dir, a.cfg.Filename)
	if _, err := os.Stat(old); err != nil {
		return nil
	}
	m := a.manifest
	_, dirErr := os.Stat(s.aofDir())
	_, movedErr := os.Stat(s.aofPath(a.cfg.Filename))
	if !(dirErr != nil || (m.Base == nil && len(m.Incrs) == 0) ||
		(m.Base != nil && len(m.Incrs) == 0 && m.Base.Name == a.cfg.Filename && movedErr != nil)) {
		return nil
	}
	if err := os.MkdirAll(s.aofDir(), 0o755); err != nil {
		s.log.Warn(fmt.Sprintf("Can't open or create append-only dir %s: %v", s.aofDir(), err))
		return err
	}
	nm := &aof.Manifest{Base: &aof.FileInfo{Name: a.cfg.Filename, Seq: 1, Type: aof.TypeBase}, BaseSeq: 1}
	if err := s.persistManifest(nm); err != nil {
		return err
	}
	if err := os.Rename(old, s.aofPath(a.cfg.Filename)); err != nil {
		s.log.Warn(fmt.Sprintf("Error trying to rename the existing AOF to old AOF file: %v", err))
		return err
	}
	a.manifest = nm
	s.log.Info(fmt.Sprintf("Successfully migrated an old-style AOF file (%s) into the AOF directory (%s).", a.cfg.Filename, a.cfg.Dirname))
	return nil
}

// errAOFLoad stops the server: the reason has been logged in Redis's words.
var errAOFLoad = errors.New("the append only file could not be loaded (see the log)")

// loadAOF replays the base and the incr files in order, as Redis's
// loadAppendOnlyFiles: a file that ends inside a command is loaded up to
// its last complete command and truncated there if it is the last file and
// aof-load-truncated is yes; anything else wrong stops the server.
func (s *Server) loadAOF() error {
	defer s.releaseLoadHold() // nothing to load: startAOF takes the lock itself next
	a := &s.aof
	m := a.manifest
	var files []aof.FileInfo
	if m.Base != nil {
		files = append(files, *m.Base)
	}
	files = append(files, m.Incrs...)
	if len(files) == 0 {
		return nil
	}
	var total int64
	for _, fi := range files {
		st, err := os.Stat(s.aofPath(fi.Name))
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				s.log.Warn(fmt.Sprintf("The append log file %s doesn't exist: %s", fi.Name, "No such file or directory"))
			} else {
				s.log.Warn(fmt.Sprintf("Unable to obtain the AOF file %s length. stat: %v", fi.Name, err))
			}
			return errAOFLoad
		}
		total += st.Size()
	}
	if total == 0 {
		return nil
	}
	s.takeLoadLock()
	defer func() { <-s.lock }()
	s.loading.totalBytes = total
	c := s.replayClient()
	for i, fi := range files {
		last := i == len(files)-1
		start := time.Now()
		size, err := s.loadFile(c, fi.Name, last)
		if err != nil {
			return err
		}
		s.loading.fileBase += size
		if fi.Type == aof.TypeBase {
			a.baseSize = size
		}
		kind := "incr"
		if fi.Type == aof.TypeBase {
			kind = "base"
		}
		s.log.Info(fmt.Sprintf("DB loaded from %s file %s: %.3f seconds", kind, fi.Name, time.Since(start).Seconds()))
	}
	st := int64(0)
	for _, fi := range files {
		if info, err := os.Stat(s.aofPath(fi.Name)); err == nil {
			st += info.Size()
		}
	}
	a.currentSize = st
	return nil
}

// loadFile replays one file and returns its size after loading (less than
// before if its tail was cut).
func (s *Server) loadFile(c *Client, name string, last bool) (int64, error) {
	path := s.aofPath(name)
	f, err := os.Open(path)
	if err != nil {
		s.log.Warn(fmt.Sprintf("Fatal error: can't open the append log file %s for reading: %v", name, err))
		return 0, errAOFLoad
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return 0, err
	}
	if st.Size() == 0 {
		return 0, nil
	}
	var unknown []byte
	s.loading.commands, s.loading.lastOffset = 0, 0
	loader := aof.Loader{Progress: s.aofProgress, Apply: func(args [][]byte) error {
		if ok := s.replay(c, args); !ok {
			unknown = args[0]
			return errAOFLoad
		}
		return nil
	}, LoadRDB: func(r *bufio.Reader) error {
		s.log.Info("Reading RDB base file on AOF loading...")
		_, err := rdb.Load(r, s.store, rdb.LoadOptions{Now: s.store.Now(), Progress: s.rdbProgress, Aux: s.rdbAux})
		return err
	}}
	res := loader.Load(f)
	if errors.Is(res.Err, ErrShutdownWhileLoading) {
		return 0, res.Err
	}
	if res.RevertedMulti {
		s.log.Warn("Revert incomplete MULTI/EXEC transaction in AOF file " + name)
	}
	switch res.Status {
	case aof.Loaded:
		return st.Size(), nil
	case aof.BadFormat:
		s.log.Warn(fmt.Sprintf("Bad file format reading the append only file %s: make a backup of your AOF file, then use ./redis-check-aof --fix <filename.manifest>", name))
		return 0, errAOFLoad
	case aof.Failed:
		switch {
		case unknown != nil:
			s.log.Warn(fmt.Sprintf("Unknown command '%s' reading the append only file %s", unknown, name))
		case res.RDB:
			s.log.Warn(fmt.Sprintf("Error reading the RDB base file %s, AOF loading aborted", name), "err", res.Err)
		default:
			s.log.Warn(fmt.Sprintf("Unrecoverable error reading the append only file %s: %v", name, res.Err))
		}
		return 0, errAOFLoad
	}
	// Truncated.
	if !s.aof.cfg.RefuseTruncated {
		s.log.Warn(fmt.Sprintf("!!! Warning: short read while loading the AOF file %s!!!", name))
		s.log.Warn(fmt.Sprintf("!!! Truncating the AOF %s at offset %d !!!", name, res.ValidUpTo))
		if err := os.Truncate(path, res.ValidUpTo); err != nil {
			s.log.Warn(fmt.Sprintf("Error truncating the AOF file %s: %v", name, err))
		} else {
			s.log.Warn(fmt.Sprintf("AOF %s loaded anyway because aof-load-truncated is enabled", name))
			if !last {
				s.log.Warn("Fatal error: the truncated file is not the last file")
				return 0, errAOFLoad
			}
			return res.ValidUpTo, nil
		}
	}
	s.log.Warn(fmt.Sprintf("Unexpected end of file reading the append only file %s. You can: "+
		"1) Make a backup of your AOF file, then use ./redis-check-aof --fix <filename.manifest>. "+
		"2) Alternatively you can set the 'aof-load-truncated' configuration option to yes and restart the server.", name))
	return 0, errAOFLoad
}

// replayClient is the fake client loaded commands run as; its replies are
// dropped.
func (s *Server) replayClient() *Client {
	c := &Client{srv: s, authed: true, db: s.store.DB(0), created: time.Now()}
	c.resp = resp.NewWriter(&resp.Buffer{}, nil)
	c.w = c.resp
	return c
}

// replay runs one loaded command through the command table, as Redis runs
// it on its AOF client. It reports false for a command floodgate does not
// know, which stops the load.
func (s *Server) replay(c *Client, args [][]byte) bool {
	cmd, r := check(c, args, false)
	if r != nil {
		return r.cmd != nil // a bad arity is answered with an error, as in Redis
	}
	s.store.Refresh()
	s.invoke(c, cmd, args)
	out := c.resp.Out()
	out.B = out.B[:0]
	return true
}

// infoAOF writes the AOF fields of INFO persistence, as Redis 7.0.
func (s *Server) infoAOF(b *infoBuilder) {
	a := &s.aof
	// Redis's aof_state is on from the start when appendonly is, so also
	// while the AOF loads.
	on := a.on.Load() || (a.cfg.Enabled && s.loading.active.Load())
	b.int("aof_enabled", boolInt(on))
	b.int("aof_rewrite_in_progress", boolInt(a.rewriting))
	b.int("aof_rewrite_scheduled", boolInt(a.rewriteScheduled))
	b.int("aof_last_rewrite_time_sec", a.lastRewriteSec)
	cur := int64(-1)
	if a.rewriting {
		cur = int64(time.Since(a.rewriteStarted) / time.Second)
	}
	b.int("aof_current_rewrite_time_sec", cur)
	b.str("aof_last_bgrewrite_status", okErr(a.lastRewriteOK))
	b.int("aof_rewrites", a.rewrites)
	b.int("aof_rewrites_consecutive_failures", a.rewriteFails)
	a.mu.Lock()
	writeOK := a.writeErr == nil && a.fsyncErr == nil
	size, buffered := a.currentSize, len(a.feed.Buf)
	a.mu.Unlock()
	b.str("aof_last_write_status", okErr(writeOK))
	b.int("aof_last_cow_size", 0)
	b.int("module_fork_in_progress", 0)
	b.int("module_fork_last_cow_size", 0)
	if on {
		b.int("aof_current_size", size)
		b.int("aof_base_size", a.baseSize)
		b.int("aof_pending_rewrite", 0)
		b.int("aof_buffer_length", int64(buffered))
		b.int("aof_pending_bio_fsync", 0)
		b.int("aof_delayed_fsync", 0)
	}
}

func boolInt(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

func okErr(ok bool) string {
	if ok {
		return "ok"
	}
	return "err"
}

// diskError is the MISCONF error write commands get when the last
// background save failed or the AOF cannot be written, or "" (Redis's
// writeCommandsDeniedByDiskError and writeCommandsGetDiskErrorMessage).
func (s *Server) diskError() string {
	if s.writesRefused() {
		return errMisconf
	}
	return s.aofError()
}

// isWrite reports whether a command counts as a write for MISCONF, as
// processCommand's is_write_command: flagged write, or EXEC of a
// transaction holding one, or EVAL/EVALSHA of a script whose shebang does
// not say no-writes (a script without one is judged per redis.call).
func isWrite(c *Client, cmd *Command, args [][]byte) bool {
	switch cmd.Name {
	case "exec":
		if c.multi == nil {
			return false
		}
		for _, q := range c.multi.cmds {
			if q.Flags.Has(FlagWrite) {
				return true
			}
		}
		return false
	case "eval", "evalsha":
		flags := scriptFlags(c, cmd, args)
		return flags&luaengine.FlagShebang != 0 && flags&luaengine.FlagNoWrites == 0
	}
	return cmd.Flags.Has(FlagWrite)
}
