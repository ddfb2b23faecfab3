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
	"time"

	"github.com/floodgate/floodgate/aof"
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

// Redis's replies to BGREWRITEAOF.
const (
	msgRewriteStarted    = "Background append only file rewriting started"
	errRewriteInProgress = "ERR Background append only file rewriting already in progress"
)

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
	cfg            AOFConfig
	manifest       *aof.Manifest
	prop           propagation
	rewriting      bool
	rewriteStarted time.Time
	rewriteGen     int // bumped when AOF is turned off: a rewrite in flight is dropped
	lastRewriteSec int64
	lastRewriteOK  bool
	rewrites       int64
	rewriteFails   int64
	baseSize       int64
	cronStarted    bool

	mu          sync.Mutex // guards what follows
	feed        aof.Feed
	file        *os.File
	currentSize int64
	unsynced    bool  // written since the last fsync
	writeErr    error // the last write's error, nil once a write succeeds
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
		"spop":         propagateKeyState,
		"cl.throttle":  propagateKeyState,
	}
}

var (
	cmdDEL       = []byte("DEL")
	cmdSET       = []byte("SET")
	cmdPEXPIREAT = []byte("PEXPIREAT")
	cmdPERSIST   = []byte("PERSIST")
	argPXAT      = []byte("PXAT")
	argKEEPTTL   = []byte("KEEPTTL")
)

// propagateExpiry logs EXPIRE and its kin as PEXPIREAT with the absolute
// time (a DEL when the key is gone, a PERSIST when GETEX removed the TTL),
// as Redis's expireGenericCommand and getexCommand.
func propagateExpiry(s *Server, c *Client, args [][]byte) {
	key := args[1]
	db := c.db.Index()
	switch e := c.db.Entry(key); {
	case e == nil:
		s.propagate(db, cmdDEL, key)
	case e.ExpireAt() == 0:
		s.propagate(db, cmdPERSIST, key)
	default:
		s.propagate(db, cmdPEXPIREAT, key, strconv.AppendInt(nil, e.ExpireAt(), 10))
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
	s.propagate(db, cmdSET, key, value, argPXAT, strconv.AppendInt(nil, e.ExpireAt(), 10))
}

// propagateSet logs SET with EX, PX or EXAT as SET key value PXAT <ms>, as
// Redis 7.0's setGenericCommand; other SETs go as they came.
func propagateSet(s *Server, c *Client, args [][]byte) {
	for _, a := range args[3:] {
		if eqFold(a, "ex") || eqFold(a, "px") || eqFold(a, "exat") {
			s.propagateSetPXAT(c, args[1], args[2])
			return
		}
	}
	s.propagate(c.db.Index(), args...)
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
// effect depends on chance or on the time it ran (SPOP's random members,
// CL.THROTTLE's decision): a string as SET key value [PXAT ms], anything
// else as DEL and the commands a rewrite would write.
func propagateKeyState(s *Server, c *Client, args [][]byte) {
	s.propagateState(c.db, args[1])
}

// propagateTouched logs the state of each key once.
func (s *Server) propagateTouched(keys []store.TouchedKey) {
	for i, tk := range keys {
		seen := false
		for _, prev := range keys[:i] {
			seen = seen || prev == tk
		}
		if !seen {
			s.propagateState(s.store.DB(tk.DB), []byte(tk.Key))
		}
	}
}

func (s *Server) propagateState(sdb *store.DB, key []byte) {
	db := sdb.Index()
	e := sdb.Entry(key)
	if e == nil {
		s.propagate(db, cmdDEL, key)
		return
	}
	if str, ok := e.Value.(*store.String); ok {
		if e.ExpireAt() != 0 {
			s.propagate(db, cmdSET, key, str.Bytes(), argPXAT, strconv.AppendInt(nil, e.ExpireAt(), 10))
		} else {
			s.propagate(db, cmdSET, key, str.Bytes())
		}
		return
	}
	s.propagate(db, cmdDEL, key)
	p := &s.aof.prop
	p.buf = aof.AppendValue(p.buf, e.Key(), e.Value, e.ExpireAt())
	p.ops = append(p.ops, propOp{db: db, end: len(p.buf)})
}

func valueOf[T store.Value](e *store.Entry) (T, bool) {
	var zero T
	if e == nil {
		return zero, false
	}
	v, ok := e.Value.(T)
	return v, ok
}

// expiredKey logs the deletion of a key whose time had passed (the store's
// OnExpire), as Redis's deleteExpiredKeyAndPropagate.
func (s *Server) expiredKey(db int, key string) {
	if s.aof.on.Load() {
		s.propagate(db, cmdDEL, []byte(key))
	}
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

// aofWriteLocked writes the feed out; a.mu is held.
func (s *Server) aofWriteLocked(sync bool) {
	a := &s.aof
	if a.file == nil {
		return
	}
	if len(a.feed.Buf) > 0 {
		n, err := a.file.Write(a.feed.Buf)
		a.currentSize += int64(n)
		if err != nil {
			if a.writeErr == nil {
				s.log.Warn("Error writing to the AOF file: " + err.Error())
			}
			a.writeErr = err
			a.feed.Buf = append(a.feed.Buf[:0], a.feed.Buf[n:]...) // retried on the next flush
			return
		}
		if a.writeErr != nil {
			s.log.Warn("AOF write error looks solved, Redis can write again.")
			a.writeErr = nil
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
			s.log.Warn("Fail to fsync the AOF file: " + err.Error())
			a.writeErr = err
			return
		}
		a.unsynced = false
	}
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
			if err := f.Sync(); err != nil && !errors.Is(err, os.ErrClosed) {
				s.log.Warn("Fail to fsync the AOF file: " + err.Error())
			}
		}
		s.lock <- struct{}{}
		s.store.Refresh()
		s.maybeAutoRewrite()
		<-s.lock
	}
}

// maybeAutoRewrite starts a rewrite once the AOF has grown by
// auto-aof-rewrite-percentage over its size after the last rewrite (and is
// at least auto-aof-rewrite-min-size), as Redis's serverCron.
func (s *Server) maybeAutoRewrite() {
	a := &s.aof
	if !a.on.Load() || a.rewriting || a.cfg.RewritePercentage <= 0 {
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
	a.lastRewriteSec = -1
	a.lastRewriteOK = true
}

// startAOF runs before the server serves anyone: it reads the manifest
// and, with appendonly yes, loads the files and opens the incr file to
// append to (Redis's loadDataFromDisk and aofOpenIfNeededOnServerStart).
// An error means the server must not start, as Redis exits.
func (s *Server) startAOF() error {
	a := &s.aof
	s.store.OnExpire = s.expiredKey
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
	if err := os.MkdirAll(s.aofDir(), 0o755); err != nil {
		s.log.Warn(fmt.Sprintf("Can't open or create append-only dir %s: %v", s.aofDir(), err))
		return err
	}
	m = a.manifest
	if m.Base == nil && len(m.Incrs) == 0 {
		snap := s.snapshot()
		rdbBase := s.rdbPreamble() && rdbEncodes(snap)
		name := m.NewBase(a.cfg.Filename, rdbBase)
		tmp := s.aofPath(fmt.Sprintf("temp-rewriteaof-%d.aof", os.Getpid()))
		size, err := s.writeBase(tmp, snap, rdbBase)
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
	if err := s.persistManifest(m); err != nil {
		f.Close()
		return err
	}
	if created {
		s.log.Info("Creating AOF incr file " + name + " on server start")
	} else {
		s.log.Info("Opening AOF incr file " + name + " on server start")
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
	s.lock <- struct{}{}
	defer func() { <-s.lock }()
	c := s.replayClient()
	for i, fi := range files {
		last := i == len(files)-1
		start := time.Now()
		size, err := s.loadFile(c, fi.Name, last)
		if err != nil {
			return err
		}
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
	loader := aof.Loader{Apply: func(args [][]byte) error {
		if ok := s.replay(c, args); !ok {
			unknown = args[0]
			return errAOFLoad
		}
		return nil
	}, LoadRDB: func(r *bufio.Reader) error {
		s.log.Info("Reading RDB base file on AOF loading...")
		_, err := rdb.Load(r, s.store, rdb.LoadOptions{Now: s.store.Now()})
		return err
	}}
	res := loader.Load(f)
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
	c.resp = &respWriter{cn: &conn{}, proto: 2}
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
	c.resp.cn.out = c.resp.cn.out[:0]
	return true
}

// snapshot copies the keyspace for a rewrite: the live keys with deep
// copies of their values, so the rewrite can write them while clients go
// on changing the originals. It runs under the execution lock.
func (s *Server) snapshot() []aof.DB {
	dbs := make([]aof.DB, 0, s.store.Databases())
	for i := range s.store.Databases() {
		db := s.store.DB(i)
		if db.Len() == 0 {
			continue
		}
		snap := aof.DB{Index: i, Entries: make([]aof.Entry, 0, db.Len())}
		db.Each(func(e *store.Entry) {
			snap.Entries = append(snap.Entries, aof.Entry{Key: e.Key(), Value: e.Value.Clone(), ExpireAt: e.ExpireAt()})
		})
		dbs = append(dbs, snap)
	}
	return dbs
}

// writeBase writes a base file at tmp, fsynced, for the caller to rename
// into place, and returns its size.
func (s *Server) writeBase(tmp string, dbs []aof.DB, rdbBase bool) (int64, error) {
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		s.log.Warn("Opening the temp file for AOF rewrite in rewriteAppendOnlyFile(): " + err.Error())
		return 0, err
	}
	var n int64
	if rdbBase {
		n, err = s.writeRDBBase(f, dbs)
	} else {
		n, err = aof.WriteCommands(f, dbs)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(tmp)
		s.log.Warn("Write error writing append only file on disk: " + err.Error())
		return 0, err
	}
	return n, nil
}

// rdbEncodes reports whether package rdb can write every value of snap:
// it has no list encoding yet, so a keyspace with lists gets a base of
// commands whatever aof-use-rdb-preamble says.
func rdbEncodes(snap []aof.DB) bool {
	for _, db := range snap {
		for _, e := range db.Entries {
			if _, isList := e.Value.(*store.List); isList {
				return false
			}
		}
	}
	return true
}

// writeRDBBase writes dbs as an RDB with Redis's aux fields, aof-base 1
// as Redis marks an AOF's base, and returns its size.
func (s *Server) writeRDBBase(f *os.File, dbs []aof.DB) (int64, error) {
	opts := s.rdbOptions()
	for i := range opts.Aux {
		if opts.Aux[i].Key == "aof-base" {
			opts.Aux[i].Value = "1"
		}
	}
	w := rdb.NewWriter(f, opts)
	for _, db := range dbs {
		expires := 0
		for _, e := range db.Entries {
			if e.ExpireAt != 0 {
				expires++
			}
		}
		w.SelectDB(db.Index, len(db.Entries), expires)
		for _, e := range db.Entries {
			if err := w.Key(e.Key, e.Value, e.ExpireAt); err != nil {
				return 0, err
			}
		}
	}
	if err := w.Close(); err != nil {
		return 0, err
	}
	st, err := f.Stat()
	if err != nil {
		return 0, err
	}
	return st.Size(), nil
}

// startRewrite begins a background rewrite, under the execution lock: it
// takes a snapshot and, with the AOF on, opens a new incr file for the
// commands that follow (Redis 7.0 does the same, so no rewrite buffer is
// needed), then writes the base on another goroutine.
func (s *Server) startRewrite() error { return s.rewrite(s.aof.on.Load()) }

// rewrite is startRewrite, opening a new incr file or not (turning the AOF
// on has opened one already).
func (s *Server) rewrite(newIncr bool) error {
	a := &s.aof
	if a.rewriting {
		return errors.New(errRewriteInProgress)
	}
	if err := os.MkdirAll(s.aofDir(), 0o755); err != nil {
		s.log.Warn(fmt.Sprintf("Can't open or create append-only dir %s: %v", s.aofDir(), err))
		return err
	}
	if newIncr {
		if err := s.openNewIncr(); err != nil {
			return err
		}
	}
	snap := s.snapshot()
	rdbBase := s.rdbPreamble() && rdbEncodes(snap)
	a.rewriting = true
	a.rewriteStarted = time.Now()
	gen := a.rewriteGen
	s.log.Info("Background append only file rewriting started")
	s.stopped.Add(1)
	go func() {
		defer s.stopped.Done()
		tmp := s.aofPath(fmt.Sprintf("temp-rewriteaof-bg-%d.aof", os.Getpid()))
		size, err := s.writeBase(tmp, snap, rdbBase)
		s.lock <- struct{}{}
		s.finishRewrite(gen, tmp, size, rdbBase, err)
		<-s.lock
	}()
	return nil
}

// openNewIncr switches logging to a new incr file: the feed so far goes
// to the old one, which is fsynced and closed.
func (s *Server) openNewIncr() error {
	a := &s.aof
	m := a.manifest.Clone()
	name := m.NewIncr(a.cfg.Filename)
	f, err := os.OpenFile(s.aofPath(name), os.O_WRONLY|os.O_APPEND|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		s.log.Warn(fmt.Sprintf("Can't open the append-only file %s: %v", name, err))
		return err
	}
	if a.file != nil { // not when AOF is being turned on: the manifest waits for the base
		if err := s.persistManifest(m); err != nil {
			f.Close()
			return err
		}
	}
	a.mu.Lock()
	old := a.file
	if old != nil {
		s.aofWriteLocked(true)
		old.Close()
	}
	a.file = f
	a.feed.Reselect()
	a.mu.Unlock()
	a.manifest = m
	s.log.Info("Creating AOF incr file " + name + " on background rewrite")
	return nil
}

// finishRewrite adopts a written base, under the execution lock, as
// Redis's backgroundRewriteDoneHandler: the base takes the next base name,
// the incr files it covers become history, the manifest is persisted and
// the history deleted.
func (s *Server) finishRewrite(gen int, tmp string, size int64, rdbBase bool, err error) {
	a := &s.aof
	a.rewriting = false
	elapsed := time.Since(a.rewriteStarted)
	a.lastRewriteSec = int64(elapsed / time.Second)
	if err == nil && gen != a.rewriteGen {
		err = errors.New("AOF turned off during the rewrite")
	}
	if err == nil {
		m := a.manifest.Clone()
		name := m.NewBase(a.cfg.Filename, rdbBase)
		if err = os.Rename(tmp, s.aofPath(name)); err == nil {
			if a.on.Load() {
				m.RewrittenIncrsToHistory()
			} else {
				for _, fi := range m.Incrs {
					fi.Type = aof.TypeHistory
					m.History = append(m.History, fi)
				}
				m.Incrs = nil
			}
			err = s.persistManifest(m)
		}
		if err == nil {
			a.manifest = m
			for _, h := range m.History {
				s.log.Info("Removing the history file " + h.Name + " in the background")
				os.Remove(s.aofPath(h.Name))
			}
			m.History = nil
			s.persistManifest(m)
			a.mu.Lock()
			var incr int64
			if a.file != nil {
				if st, err := a.file.Stat(); err == nil {
					incr = st.Size()
				}
			}
			a.currentSize = size + incr
			a.baseSize = a.currentSize
			a.mu.Unlock()
		}
	}
	if err != nil {
		os.Remove(tmp)
		a.lastRewriteOK = false
		a.rewriteFails++
		s.log.Warn("Background AOF rewrite failed: " + err.Error())
		return
	}
	a.lastRewriteOK = true
	a.rewrites++
	a.rewriteFails = 0
	s.log.Info("Background AOF rewrite terminated with success")
	s.log.Info("Background AOF rewrite finished successfully")
}

// setAppendOnly turns the AOF on or off at run time (CONFIG SET
// appendonly), under the execution lock. Turning it on logs from now into
// a new incr file and starts a rewrite for the base, as Redis's
// startAppendOnly; the manifest lists them once the base is written.
func (s *Server) setAppendOnly(on bool) error {
	a := &s.aof
	if on == a.on.Load() {
		return nil
	}
	if !on {
		a.mu.Lock()
		s.aofWriteLocked(true)
		if a.file != nil {
			a.file.Close()
			a.file = nil
		}
		a.on.Store(false)
		a.mu.Unlock()
		a.rewriteGen++
		a.cfg.Enabled = false
		return nil
	}
	if a.rewriting {
		return errors.New(errRewriteInProgress)
	}
	if err := os.MkdirAll(s.aofDir(), 0o755); err != nil {
		s.log.Warn(fmt.Sprintf("Can't open or create append-only dir %s: %v", s.aofDir(), err))
		return err
	}
	if err := s.openNewIncr(); err != nil {
		return err
	}
	a.on.Store(true)
	a.cfg.Enabled = true
	s.startAOFCron()
	return s.rewrite(false)
}

// closeAOF writes and fsyncs what is left, at shutdown.
func (s *Server) closeAOF() {
	a := &s.aof
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.file != nil {
		s.aofWriteLocked(true)
		a.file.Close()
		a.file = nil
	}
}

// cmdBGRewriteAOF starts a background rewrite.
func cmdBGRewriteAOF(c *Client, args [][]byte) {
	if err := c.srv.startRewrite(); err != nil {
		msg := err.Error()
		if msg != errRewriteInProgress {
			msg = "ERR Can't execute an AOF background rewriting. Please check the server logs for more information."
		}
		c.w.Error(msg)
		return
	}
	c.w.Status(msgRewriteStarted)
}

// infoAOF writes the AOF fields of INFO persistence, as Redis 7.0.
func (s *Server) infoAOF(b *infoBuilder) {
	a := &s.aof
	on := a.on.Load()
	b.int("aof_enabled", boolInt(on))
	b.int("aof_rewrite_in_progress", boolInt(a.rewriting))
	b.int("aof_rewrite_scheduled", 0)
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
	writeOK := a.writeErr == nil
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
