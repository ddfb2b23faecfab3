package server

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/floodgate/floodgate/rdb"
	"github.com/floodgate/floodgate/store"
)

// persistence is the RDB side of the server (Redis's rdb.c and the save
// parts of server.c): settings, save points, and the background save.
// Guarded by the execution lock.
type persistence struct {
	compression, checksum bool // rdbcompression, rdbchecksum
	// skipChecksum is DEBUG SET-SKIP-CHECKSUM-VALIDATION: RDB loads and
	// RESTORE check no checksum (Redis's skip_checksum_validation).
	skipChecksum      atomic.Bool
	stopWritesOnError bool // stop-writes-on-bgsave-error
	points            []savePoint

	lastSave     time.Time // LASTSAVE: the last successful save (or the start)
	dirtyAtSave  int64     // store.Dirty() when the last successful save began
	saves        int64     // rdb_saves
	bgsave       *bgsave   // the background save running, if any
	scheduled    bool      // BGSAVE SCHEDULE is waiting for the running one
	lastBgsaveOK bool
	lastTry      time.Time     // when the last background save began
	lastDuration time.Duration // of the last background save; -1: none yet
	loaded       rdb.LoadInfo  // what the load at start found
	// lastBegin is how long the last BGSAVE stopped the server to begin
	// (BeginSnapshot): what fork's time is to Redis, so INFO reports it as
	// latest_fork_usec. lastMaxHold is its longest step under the lock.
	lastBegin, lastMaxHold time.Duration
	forkRate               float64       // stat_fork_rate: GB of used memory a second of lastBegin
	lastHeld               time.Duration // its steps under the lock together
	lastSteps              int
	// forks counts the snapshots begun (BGSAVE, AOF rewrite, replication
	// sync): Redis's total_forks, as lastBegin is its latest_fork_usec.
	forks int64
	// lastRDBCOW and lastAOFCOW are what the last save's and the last AOF
	// rewrite's snapshots kept (store's KeptBytes): rdb_last_cow_size and
	// aof_last_cow_size.
	lastRDBCOW, lastAOFCOW int64
}

// savePoint is "save <seconds> <changes>": save after seconds when at least
// changes writes happened.
type savePoint struct{ seconds, changes int64 }

// bgsave is a background save in progress.
type bgsave struct {
	started   time.Time
	dirty     int64 // store.Dirty() at the start
	processed int64 // keys written so far (current_save_keys_processed)
	total     int64
	abort     bool          // set under the lock: the saver stops and removes its file
	maxHold   time.Duration // the longest step under the lock, for the benchmark
	held      time.Duration // all steps under the lock together
	steps     int
	// replication: the save is a full resync's (startReplicationSync);
	// diskless: its RDB goes to memory, not dbfilename.
	replication, diskless bool
}

// bgsaveRetryDelay is how long after a failed background save the save
// points wait before trying again (Redis's CONFIG_BGSAVE_RETRY_DELAY).
const bgsaveRetryDelay = 5 * time.Second

func (p *persistence) init(cfg *Config, started time.Time) error {
	p.compression, p.checksum, p.stopWritesOnError = true, true, true
	p.lastSave, p.lastBgsaveOK, p.lastDuration = started, true, -1
	points, err := parseSavePoints(cfg.Save)
	p.points = points
	return err
}

// parseSavePoints reads "<seconds> <changes> ..." as Redis's CONFIG SET
// save does: pairs split on single spaces, seconds at least 1, changes at
// least 0; "" means none.
func parseSavePoints(v string) ([]savePoint, error) {
	if v == "" {
		return nil, nil
	}
	fields := strings.Split(v, " ")
	if len(fields)%2 != 0 {
		return nil, errInvalidSave
	}
	var points []savePoint
	for i := 0; i < len(fields); i += 2 {
		sec, err1 := strconv.ParseInt(fields[i], 10, 64)
		ch, err2 := strconv.ParseInt(fields[i+1], 10, 64)
		if err1 != nil || err2 != nil || sec < 1 || ch < 0 {
			return nil, errInvalidSave
		}
		points = append(points, savePoint{sec, ch})
	}
	return points, nil
}

var errInvalidSave = errors.New("Invalid save parameters")

func formatSavePoints(points []savePoint) string {
	var parts []string
	for _, p := range points {
		parts = append(parts, strconv.FormatInt(p.seconds, 10), strconv.FormatInt(p.changes, 10))
	}
	return strings.Join(parts, " ")
}

// rdbPath is where the RDB file lives: dir/dbfilename.
// skipChecksum is whether an RDB load ignores the file's checksum:
// rdbchecksum no, or DEBUG SET-SKIP-CHECKSUM-VALIDATION 1.
func (s *Server) skipChecksum() bool { return !s.persist.checksum || s.persist.skipChecksum.Load() }

func (s *Server) rdbPath() string { return filepath.Join(s.cfg.Dir, s.cfg.DBFilename) }

func (s *Server) rdbOptions() rdb.Options {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	opts := rdb.Options{
		Compress: s.persist.compression,
		Checksum: s.persist.checksum,
		Aux: []rdb.Aux{
			{Key: "redis-ver", Value: Version},
			{Key: "redis-bits", Value: strconv.Itoa(strconv.IntSize)},
			{Key: "ctime", Value: strconv.FormatInt(time.Now().Unix(), 10)},
			{Key: "used-mem", Value: strconv.FormatUint(m.HeapAlloc, 10)},
			{Key: "aof-base", Value: "0"},
		},
	}
	opts.Aux = append(opts.Aux, s.scriptAux()...)
	opts.Functions = s.functionCodes()
	return opts
}

// rdbSaveOptions is rdbOptions for an RDB of the dataset (SAVE, BGSAVE,
// SHUTDOWN, a full resync), which also carries the replication history
// (rdbPopulateSaveInfo); an AOF's base does not.
func (s *Server) rdbSaveOptions() rdb.Options {
	opts := s.rdbOptions()
	opts.Aux = append(opts.Aux, s.replSaveInfo()...)
	return opts
}

// LoadRDB loads dir/dbfilename into the keyspace, as Redis does at start
// (Start does it when Config.LoadRDB is set). Clients are answered LOADING
// meanwhile. A missing file is no error; a corrupt or truncated one is, and
// nothing of it is kept: the caller must refuse to start, as Redis does.
func (s *Server) LoadRDB() error {
	s.Do(s.startLoading)
	err := s.loadRDB()
	s.Do(s.stopLoading)
	return err
}

// rdbExists reports whether there is an RDB file to load.
func (s *Server) rdbExists() bool {
	_, err := os.Stat(s.rdbPath())
	return !errors.Is(err, os.ErrNotExist)
}

// loadRDB is LoadRDB while loading is marked: the execution lock is held
// but for the turns clients get every loading-process-events-interval-bytes.
func (s *Server) loadRDB() error {
	f, err := os.Open(s.rdbPath())
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("Fatal error loading the DB: %v. Exiting.", err)
	}
	defer f.Close()
	start := time.Now()
	// No garbage collection while loading: nearly everything the load
	// allocates is kept, so each cycle would mark the whole keyspace loaded
	// so far for nothing (the heap doubling from a few MB to its final size
	// is a dozen cycles; half of the load's time on 1,000,000 keys, and all
	// of one core's). Redis has no collector to pause. A GOMEMLIMIT still
	// applies; the collector starts again once the keys are in.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	var loadErr error
	s.takeLoadLock() // Do, but taking over StartAddr's hold
	s.doLocked(func() {
		if st, err := f.Stat(); err == nil {
			s.loading.totalBytes = st.Size()
		}
		opts := rdb.LoadOptions{Now: s.store.Now(), SkipChecksum: s.skipChecksum(),
			Progress: s.rdbProgress, Aux: s.rdbAux, Function: s.loadFunctionCode}
		var expired []expiredKey
		if s.repl.configuredMaster.Load() {
			// A replica keeps keys past their time: its master deletes them.
			opts.Now = 0
			s.store.HoldExpired = true
		} else {
			opts.Expired = func(db int, key []byte) { expired = append(expired, expiredKey{db, bytes.Clone(key)}) }
		}
		info, err := rdb.Load(f, s.store, opts)
		if err != nil {
			s.store.FlushAll() // never serve part of a file
			s.flushFunctions()
			loadErr = err
			return
		}
		s.persist.loaded = info
		s.persist.dirtyAtSave = s.store.Dirty()
		s.restoreReplication(info.Aux, expired)
	})
	if loadErr != nil {
		return loadErr // its text is Redis's log line: short read, checksum, corruption
	}
	s.log.Info(fmt.Sprintf("Done loading RDB, keys loaded: %d, keys expired: %d.", s.persist.loaded.Keys, s.persist.loaded.Expired))
	s.log.Info(fmt.Sprintf("DB loaded from disk: %.3f seconds", time.Since(start).Seconds()))
	return nil
}

// saveRDB writes the whole keyspace to dir/dbfilename now (SAVE, SHUTDOWN):
// the caller holds the execution lock, so it is consistent by itself.
func (s *Server) saveRDB() error {
	err := writeFileAtomic(s.cfg.Dir, fmt.Sprintf("temp-%d.rdb", os.Getpid()), s.cfg.DBFilename, func(w io.Writer) error {
		return rdb.Save(w, s.store, s.rdbSaveOptions())
	})
	if err != nil {
		s.log.Warn(err.Error())
		return err
	}
	s.log.Info("DB saved on disk")
	s.persist.lastSave = time.Now()
	s.persist.dirtyAtSave = s.store.Dirty()
	s.persist.saves++
	return nil
}

// writeFileAtomic writes name in dir through the temp file tmp, synced and
// renamed over the old one, as Redis does, so a crash never leaves a
// half-written file under the real name. Its errors are Redis's log lines.
func writeFileAtomic(dir, tmp, name string, write func(io.Writer) error) error {
	path := filepath.Join(dir, tmp)
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("Failed opening the temp RDB file %s (in server root dir %s) for saving: %s", tmp, serverRootDir(dir), strerror(err))
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	err = write(bw)
	if err == nil {
		err = bw.Flush()
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		if errors.Is(err, rdb.ErrAborted) {
			return err
		}
		return fmt.Errorf("Write error saving DB on disk: %s", strerror(err))
	}
	if err := os.Rename(path, filepath.Join(dir, name)); err != nil {
		os.Remove(path)
		return fmt.Errorf("Error moving temp DB file %s on the final destination %s (in server root dir %s): %s", tmp, name, serverRootDir(dir), strerror(err))
	}
	return nil
}

// serverRootDir is what Redis's messages call the server root dir: its
// working directory, which is dir, or "unknown" once dir is gone (getcwd
// fails).
func serverRootDir(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "unknown"
	}
	if _, err := os.Stat(abs); err != nil {
		return "unknown"
	}
	return abs
}

// strerror gives an error's system text as C's strerror does: Go's errno
// texts are glibc's with the first letter lowered.
func strerror(err error) string {
	var errno syscall.Errno
	if !errors.As(err, &errno) {
		return err.Error()
	}
	text := errno.Error()
	if text != "" && text[0] >= 'a' && text[0] <= 'z' {
		text = string(text[0]-'a'+'A') + text[1:]
	}
	return text
}

// startBgsave begins a background save; the caller holds the execution
// lock. The pause is BeginSnapshot's, O(databases); the saver then takes
// keys in steps of about 10 µs under the lock and encodes and writes them
// without it (rdb.SaveSnapshot).
func (s *Server) startBgsave() error {
	if s.persist.bgsave != nil {
		return errBgsaveInProgress
	}
	if s.aof.rewriting { // the AOF rewrite holds the one snapshot
		return errChildActive
	}
	b := &bgsave{started: time.Now(), dirty: s.store.Dirty()}
	for i := range s.store.Databases() {
		b.total += int64(s.store.DB(i).Len())
	}
	begin := time.Now()
	sn := s.store.BeginSnapshot()
	s.snapshotBegun(begin)
	s.persist.bgsave = b
	s.childChanged()
	s.persist.lastTry = b.started
	opts := s.rdbSaveOptions()
	// Redis names its child; floodgate saves in its own process, so the
	// pid is the server's.
	s.log.Info("Background saving started by pid " + strconv.Itoa(os.Getpid()))
	s.stopped.Add(1)
	go s.runBgsave(b, sn, opts)
	return nil
}

// snapshotBegun records a snapshot begun at begin for a background save
// of any kind: the pause that stands for Redis's fork in latest_fork_usec,
// total_forks and the latency monitor's "fork" event.
func (s *Server) snapshotBegun(begin time.Time) {
	s.persist.lastBegin = time.Since(begin)
	// stat_fork_rate, in GB a second, which LATENCY DOCTOR grades.
	if us := s.persist.lastBegin.Microseconds(); us > 0 {
		s.persist.forkRate = float64(s.usedMemory()) * 1e6 / float64(us) / (1 << 30)
	}
	s.persist.forks++
	s.latencySince("fork", begin)
}

var (
	errBgsaveInProgress = errors.New("ERR Background save already in progress")
	errChildActive      = errors.New("ERR Another child process is active (AOF?): can't BGSAVE right now. Use BGSAVE SCHEDULE in order to schedule a BGSAVE whenever possible.")
)

func (s *Server) runBgsave(b *bgsave, sn *store.Snapshot, opts rdb.Options) {
	defer s.stopped.Done()
	defer saverProcs()()
	// The saver keeps a thread of its own: a goroutine that took over the
	// thread it ran on after a hand-over of the lock would inherit its
	// standing with the OS scheduler, that of a thread that used a core
	// flat out, and be preempted first on a busy machine.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	// Redis's child writes temp-<its pid>.rdb; a SAVE or SHUTDOWN while
	// this one is abandoned must not write into the same file.
	err := writeFileAtomic(s.cfg.Dir, fmt.Sprintf("temp-%d-bg.rdb", os.Getpid()), s.cfg.DBFilename, func(out io.Writer) error {
		return s.saveSnapshotSteps(out, b, sn, opts)
	})
	// What Redis's child logs before it exits.
	if err != nil {
		s.log.Warn(err.Error())
	} else {
		s.log.Info("DB saved on disk")
	}
	s.lock <- struct{}{}
	defer func() { <-s.lock }()
	s.endBgsave(b, sn, err, true)
	s.startReplicationSync() // replicas that waited for this save to end
}

// saveSnapshotSteps writes the snapshot as an RDB to out, taking keys in
// short holds of the execution lock.
func (s *Server) saveSnapshotSteps(out io.Writer, b *bgsave, sn *store.Snapshot, opts rdb.Options) error {
	return rdb.SaveSnapshot(out, sn, opts, func(step func()) bool {
		select {
		case s.lock <- struct{}{}:
		case <-s.stop:
			return false
		}
		if b.abort {
			<-s.lock
			return false
		}
		start := time.Now()
		step()
		took := time.Since(start)
		b.maxHold, b.held, b.steps = max(b.maxHold, took), b.held+took, b.steps+1
		<-s.lock
		return true
	}, &b.processed)
}

// endBgsave records a background save's end, with the lock held; toDisk
// says it wrote dbfilename (a diskless replication sync does not count as
// a save, as in Redis).
func (s *Server) endBgsave(b *bgsave, sn *store.Snapshot, err error, toDisk bool) {
	s.persist.lastRDBCOW = sn.KeptBytes()
	sn.End()
	s.persist.bgsave = nil
	s.childChanged()
	s.persist.lastDuration = time.Since(b.started)
	s.persist.lastMaxHold, s.persist.lastHeld, s.persist.lastSteps = b.maxHold, b.held, b.steps
	if !toDisk {
		return
	}
	if err != nil {
		s.persist.lastBgsaveOK = false
		s.log.Warn("Background saving error") // the reason logged before, as by Redis's child
		return
	}
	s.persist.lastBgsaveOK = true
	s.persist.lastSave = time.Now()
	s.persist.dirtyAtSave = b.dirty
	s.persist.saves++
	s.log.Info("Background saving terminated with success")
}

// saverProcs gives the background saver a processor of its own while it
// runs, as Redis's forked child gets a CPU of its own, and returns what
// gives it back. With GOMAXPROCS 1 (io-threads 1, the default) the saver
// and the event loop would share one: the loop's sockets are polled only
// when no goroutine is runnable or every 10 ms by the runtime's monitor,
// so a client's INCR waited for the saver's 10 ms time slice (p99 3.5 ms,
// p999 14 ms during a BGSAVE of 1,000,000 keys; BENCHMARKS.md).
func saverProcs() (restore func()) {
	n := runtime.GOMAXPROCS(0)
	if n >= 2 {
		return func() {}
	}
	runtime.GOMAXPROCS(2)
	return func() { runtime.GOMAXPROCS(n) }
}

// saveCron starts a background save when a save point is reached or a
// scheduled BGSAVE can run; expiryCron calls it each run, as Redis's
// serverCron does both.
func (s *Server) saveCron() {
	s.lock <- struct{}{}
	defer func() { <-s.lock }()
	if s.persist.bgsave == nil && !s.aof.rewriting && (s.persist.scheduled || s.savePointReached(time.Now())) {
		s.persist.scheduled = false
		s.store.Refresh()
		s.startBgsave()
	}
}

func (s *Server) savePointReached(now time.Time) bool {
	p := &s.persist
	changes := s.store.Dirty() - p.dirtyAtSave
	for _, sp := range p.points {
		if changes >= sp.changes && now.Sub(p.lastSave) > time.Duration(sp.seconds)*time.Second &&
			(p.lastBgsaveOK || now.Sub(p.lastTry) > bgsaveRetryDelay) {
			s.log.Info(fmt.Sprintf("%d changes in %d seconds. Saving...", sp.changes, sp.seconds))
			return true
		}
	}
	return false
}

// writesRefused reports Redis's MISCONF condition: the last background
// save failed, save points are set and stop-writes-on-bgsave-error is on.
func (s *Server) writesRefused() bool {
	p := &s.persist
	return p.stopWritesOnError && len(p.points) > 0 && !p.lastBgsaveOK
}

// CheckSave reports whether v is a valid save setting (Config.Save).
func CheckSave(v string) error {
	_, err := parseSavePoints(v)
	return err
}
