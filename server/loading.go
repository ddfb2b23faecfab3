package server

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// errLoading is Redis's shared.loadingerr: the reply to every command
// without the loading flag while the dataset loads.
const errLoading = "LOADING Redis is loading the dataset in memory"

// ErrShutdownWhileLoading is what Start returns when a SHUTDOWN or a
// signal (AbortLoading) ended the server while it loaded its data: nothing
// was saved, as Redis never saves a half-loaded dataset; the process
// exits 0, as Redis's does.
var ErrShutdownWhileLoading = errors.New("shut down while loading the dataset")

// defaultLoadingInterval is loading-process-events-interval-bytes' default.
const defaultLoadingInterval = 2 << 20

// loadingState is Redis's server.loading and its INFO figures. The server
// listens before it loads (Start), as Redis 7.0 does: the loader holds the
// execution lock and lets the waiting batches run every
// loading-process-events-interval-bytes of RDB (every 1024 AOF commands),
// as Redis's processEventsWhileBlocked; meanwhile only the commands with
// the loading flag run, the rest get LOADING (dispatch), and nothing in
// the background (expiry, save points, clients cron) touches the
// half-loaded keyspace.
type loadingState struct {
	active atomic.Bool // loading; set before the first client can connect
	abort  atomic.Bool // AbortLoading: a signal asked for a shutdown
	// held says StartAddr holds the execution lock for the loader, which
	// takes it over (takeLoadLock); touched by StartAddr's goroutine only.
	held bool

	// Guarded by lock.
	startTime   int64 // unix seconds
	totalBytes  int64 // the files' size
	rdbUsedMem  int64 // the RDB's used-mem aux field
	loadedBytes int64 // read so far, as of the last serving of clients
	fileBase    int64 // the size of the AOF files loaded before this one
	lastOffset  int64 // the offset at the last RDB key
	commands    int64 // AOF commands read from this file

	// The two hidden settings, guarded by lock (the loader reads them as
	// it goes, CONFIG SET may change them while it serves clients).
	keyDelay int64 // key-load-delay: microseconds slept per key, negative: 1 µs one time in -n
	interval int64 // loading-process-events-interval-bytes; 0: its default
}

// loadingParams are the two hidden settings of loading, which Redis's
// tests use to make a load slow enough to watch.
var loadingParams = map[string]floodgateParam{
	"key-load-delay": {effect: effectApplied,
		get: func(s *Server) string { return strconv.FormatInt(s.loading.keyDelay, 10) },
		apply: func(s *Server, v string) string {
			s.loading.keyDelay, _ = strconv.ParseInt(v, 10, 64)
			return ""
		}},
	"loading-process-events-interval-bytes": {effect: effectApplied,
		get: func(s *Server) string { return strconv.FormatInt(s.loadingInterval(), 10) },
		apply: func(s *Server, v string) string {
			s.loading.interval, _ = strconv.ParseInt(v, 10, 64)
			return ""
		}},
}

// denyLoadingParams are the parameters CONFIG SET refuses with LOADING
// while the dataset loads (Redis's DENY_LOADING_CONFIG).
var denyLoadingParams = map[string]bool{"appendonly": true, "dir": true, "repl-diskless-load": true}

func (s *Server) loadingInterval() int64 {
	if s.loading.interval == 0 {
		return defaultLoadingInterval
	}
	return s.loading.interval
}

// startLoading marks the start of a load, as Redis's startLoading. The
// caller holds the execution lock, or no client can connect yet.
func (s *Server) startLoading() {
	l := &s.loading
	l.startTime = time.Now().Unix()
	l.totalBytes, l.rdbUsedMem, l.loadedBytes, l.fileBase, l.lastOffset, l.commands = 0, 0, 0, 0, 0, 0
	l.active.Store(true)
}

// holdForLoad takes the execution lock as a load is marked, before any
// client can connect, and keeps it for the loader. In Redis clients are
// served only from inside the load, so none sees loading:1 before the
// file's size and header are known: without the hold, a client that
// connected before the loader took the lock ran its commands then.
func (s *Server) holdForLoad() {
	s.lock <- struct{}{}
	s.loading.held = true
}

// takeLoadLock takes the execution lock for the loader: the hold, if
// StartAddr has it (a release and a new take would let a waiting client in
// first), else a fresh one.
func (s *Server) takeLoadLock() {
	if s.loading.held {
		s.loading.held = false
		return
	}
	s.lock <- struct{}{}
}

// releaseLoadHold gives the hold up if the loader did not take it over (no
// file to load, or an error before it).
func (s *Server) releaseLoadHold() {
	if s.loading.held {
		s.loading.held = false
		<-s.lock
	}
}

// stopLoading ends the load; the caller holds the execution lock.
func (s *Server) stopLoading() { s.loading.active.Store(false) }

// AbortLoading asks a load in progress to stop and the server to shut
// down without saving, as Redis does on a SIGTERM while it loads (the
// binary calls it on a signal received during Start). It reports whether a
// load was in progress; if none was, the caller shuts down the ordinary
// way once Start returns.
func (s *Server) AbortLoading() bool {
	s.loading.abort.Store(true)
	return s.loading.active.Load()
}

// serveWhileLoading lets the batches waiting for the execution lock run,
// as Redis's processEventsWhileBlocked: the loader, which holds the lock,
// hands it over (a Go channel gives the slot to the senders already
// waiting, in order) and takes it back after them. It returns
// ErrShutdownWhileLoading once the server is closing (SHUTDOWN) or a
// signal asked for a shutdown.
func (s *Server) serveWhileLoading() error {
	if s.debug.loadingInCommand {
		return nil // DEBUG LOADAOF's batch keeps the lock
	}
	<-s.lock
	// Let the transports read what is ready and queue for the lock. One
	// round is enough: 20 clients connecting at once during a load
	// (key-load-delay 50000) were all answered in one turn, 737-790 ms as
	// against 737-747 ms with four rounds and Redis's 674 ms.
	runtime.Gosched()
	s.lock <- struct{}{}
	if s.closed.Load() {
		return ErrShutdownWhileLoading
	}
	if s.loading.abort.Load() {
		// Redis's whileBlockedCron: prepareForShutdown(SHUTDOWN_NOSAVE).
		// NOW too: the load ends and the process exits at once, with no
		// wait for replicas to run in.
		s.prepareShutdown(shutdownNoSave | shutdownNow)
		return ErrShutdownWhileLoading
	}
	return nil
}

// keyLoadDelay sleeps key-load-delay after a key, as Redis's debugDelay:
// a negative -n sleeps a microsecond one time in n.
func (s *Server) keyLoadDelay() {
	us := s.loading.keyDelay
	if us < 0 {
		us = boolInt(rand.Int64N(-us) == 0)
	}
	if us > 0 {
		time.Sleep(time.Duration(us) * time.Microsecond)
	}
}

// rdbProgress is rdb.Load's Progress: after every key, key-load-delay, and
// the clients served each time the offset passes a multiple of
// loading-process-events-interval-bytes (Redis's rdbLoadProgressCallback).
func (s *Server) rdbProgress(offset int64) error {
	l := &s.loading
	if l.keyDelay != 0 {
		s.keyLoadDelay()
	}
	iv := s.loadingInterval()
	crossed := offset/iv > l.lastOffset/iv
	l.lastOffset = offset
	if !crossed {
		return nil
	}
	l.loadedBytes = l.fileBase + offset
	return s.serveWhileLoading()
}

// rdbAux logs the RDB's auxiliary fields as Redis's loader does, and
// keeps used-mem for INFO's loading_rdb_used_mem.
func (s *Server) rdbAux(key, value string) {
	n, _ := strconv.ParseInt(value, 10, 64) // strtoll's 0 for what is not a number
	switch {
	case strings.EqualFold(key, "lua"):
		s.loadScriptAux(key, value)
	case strings.HasPrefix(key, "%"):
		s.log.Info(fmt.Sprintf("RDB '%s': %s", key, value))
	case strings.EqualFold(key, "redis-ver"):
		s.log.Info("Loading RDB produced by version " + value)
	case strings.EqualFold(key, "ctime"):
		s.log.Info(fmt.Sprintf("RDB age %d seconds", max(time.Now().Unix()-n, 0)))
	case strings.EqualFold(key, "used-mem"):
		s.log.Info(fmt.Sprintf("RDB memory usage when created %.2f Mb", float64(n)/(1024*1024)))
		s.loading.rdbUsedMem = n
	case strings.EqualFold(key, "aof-preamble") && n != 0:
		s.log.Info("RDB has an AOF tail")
	case strings.EqualFold(key, "aof-base") && n != 0:
		s.log.Info("RDB is base AOF")
	}
}

// aofProgress is aof.Loader's Progress, called before each command is
// read: key-load-delay after every command, and the clients served every
// 1024 commands, the first before any (Redis's loadSingleAppendOnlyFile).
func (s *Server) aofProgress(offset int64) error {
	l := &s.loading
	if l.commands > 0 && l.keyDelay != 0 {
		s.keyLoadDelay()
	}
	l.commands++
	if (l.commands-1)%1024 != 0 {
		return nil
	}
	l.loadedBytes = l.fileBase + offset
	return s.serveWhileLoading()
}

// denyLoading reports whether cmd is refused while the dataset loads: it
// lacks the loading flag, or it is an EXEC of a command that does
// (processCommand's is_denyloading_command).
func denyLoading(c *Client, cmd *Command) bool {
	if !cmd.Flags.Has(FlagLoading) {
		return true
	}
	if cmd.Name == "exec" && c.multi != nil {
		for _, q := range c.multi.cmds {
			if !q.Flags.Has(FlagLoading) {
				return true
			}
		}
	}
	return false
}

// infoLoading writes INFO persistence's loading fields, which Redis 7.0
// adds after the AOF's while it loads (genRedisInfoString).
func (s *Server) infoLoading(b *infoBuilder) {
	if !s.loading.active.Load() {
		return
	}
	l := &s.loading
	perc, remaining := 0.0, int64(1)
	switch {
	case l.totalBytes > 0:
		perc = float64(l.loadedBytes) / float64(l.totalBytes) * 100
		remaining = l.totalBytes - l.loadedBytes
	case l.rdbUsedMem > 0:
		// used-mem is only a (bad) estimate of the file's size: never 100%.
		perc = min(float64(l.loadedBytes)/float64(l.rdbUsedMem)*100, 99.99)
		remaining = max(l.rdbUsedMem-l.loadedBytes, 1)
	}
	eta := int64(1) // Redis's figure when no second has passed yet
	if elapsed := time.Now().Unix() - l.startTime; elapsed != 0 {
		eta = elapsed * remaining / (l.loadedBytes + 1)
	}
	b.int("loading_start_time", l.startTime)
	b.int("loading_total_bytes", l.totalBytes)
	b.int("loading_rdb_used_mem", l.rdbUsedMem)
	b.int("loading_loaded_bytes", l.loadedBytes)
	b.str("loading_loaded_perc", fmt.Sprintf("%.2f", perc))
	b.int("loading_eta_seconds", eta)
}
