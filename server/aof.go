package server

// The append-only file (Redis 7.0's multi-part AOF): loading it at start,
// logging what commands change, writing and fsyncing it, rewriting it.
// The formats are package aof's; the aof*.go files are the glue that needs
// the server: the execution lock, the command table, the transports. This
// one holds the configuration, the state and the start; aof_propagate.go
// what commands log, aof_write.go the writing and fsyncing, aof_misconf.go
// the refusal of writes, aof_manifest.go the files, aof_load.go the
// loading, aof_rewrite.go the rewrite, aof_info.go INFO's fields.
//
// Concurrency: the keyspace side (manifest, propagation, rewrite state) is
// guarded by the execution lock. The feed and the open incr file are
// guarded by aofState.mu, which the transports take to write the feed out
// before they send a round's replies (Redis's beforeSleep), and the cron
// goroutine takes to write and fsync it every second.

import (
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/floodgate/floodgate/aof"
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
	// fsyncing: the cron's background fsync is running (Redis's
	// sync_in_progress), for the aof-write-pending-fsync event.
	fsyncing atomic.Bool
	// rewriteScheduled: BGREWRITEAOF came while a BGSAVE held the snapshot
	// (or inside EXEC); the cron starts it when it can.
	rewriteScheduled bool
	// waitRewrite: the AOF was turned on and its incr file opened; the
	// rewrite that writes its base must not open another (Redis's
	// AOF_WAIT_REWRITE).
	waitRewrite bool
	// stoppedForSync: a replica's full sync stopped the AOF for its load
	// (replica.go); guarded by the execution lock.
	stoppedForSync bool
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
