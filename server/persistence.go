package server

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/floodgate/floodgate/rdb"
	"github.com/floodgate/floodgate/store"
)

// persistence is the RDB side of the server (Redis's rdb.c and the save
// parts of server.c): settings, save points, and the background save.
// Guarded by the execution lock.
type persistence struct {
	compression, checksum bool // rdbcompression, rdbchecksum
	stopWritesOnError     bool // stop-writes-on-bgsave-error
	points                []savePoint

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
func (s *Server) rdbPath() string { return filepath.Join(s.cfg.Dir, s.cfg.DBFilename) }

func (s *Server) rdbOptions() rdb.Options {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return rdb.Options{
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
}

// LoadRDB loads dir/dbfilename into the keyspace, as Redis does at start
// (cmd/floodgate calls it before Start). A missing file is no error; a
// corrupt or truncated one is, and nothing of it is kept: the caller must
// refuse to start, as Redis does.
func (s *Server) LoadRDB() error {
	f, err := os.Open(s.rdbPath())
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("Fatal error loading the DB: %v. Exiting.", err)
	}
	defer f.Close()
	start := time.Now()
	var loadErr error
	s.Do(func() {
		info, err := rdb.Load(f, s.store, rdb.LoadOptions{Now: s.store.Now(), SkipChecksum: !s.persist.checksum})
		if err != nil {
			s.store.FlushAll() // never serve part of a file
			loadErr = err
			return
		}
		s.persist.loaded = info
		s.persist.dirtyAtSave = s.store.Dirty()
	})
	if loadErr != nil {
		return loadErr // its text is Redis's log line: short read, checksum, corruption
	}
	s.log.Info("DB loaded from disk", "seconds", fmt.Sprintf("%.3f", time.Since(start).Seconds()),
		"keys", s.persist.loaded.Keys, "expired", s.persist.loaded.Expired)
	return nil
}

// saveRDB writes the whole keyspace to dir/dbfilename now (SAVE, SHUTDOWN):
// the caller holds the execution lock, so it is consistent by itself.
func (s *Server) saveRDB() error {
	start := time.Now()
	err := writeFileAtomic(s.cfg.Dir, s.cfg.DBFilename, func(w io.Writer) error {
		return rdb.Save(w, s.store, s.rdbOptions())
	})
	if err != nil {
		s.log.Warn("Failed saving the DB", "err", err)
		return err
	}
	s.log.Info("DB saved on disk", "seconds", fmt.Sprintf("%.3f", time.Since(start).Seconds()))
	s.persist.lastSave = time.Now()
	s.persist.dirtyAtSave = s.store.Dirty()
	s.persist.saves++
	return nil
}

// writeFileAtomic writes name in dir through a temp file, synced and
// renamed over the old one, as Redis does (temp-<pid>.rdb), so a crash
// never leaves a half-written file under the real name.
func writeFileAtomic(dir, name string, write func(io.Writer) error) error {
	tmp := filepath.Join(dir, fmt.Sprintf("temp-%d-%d.rdb", os.Getpid(), time.Now().UnixNano()))
	f, err := os.Create(tmp)
	if err != nil {
		return fmt.Errorf("Failed opening the temp RDB file %s (in server root dir %s) for saving: %w", filepath.Base(tmp), dir, err)
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
	if err == nil {
		err = os.Rename(tmp, filepath.Join(dir, name))
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

// startBgsave begins a background save; the caller holds the execution
// lock. The pause is BeginSnapshot's, O(databases); the saver then encodes
// saveStep keys per hold of the lock and writes them out without it.
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
	s.persist.lastBegin = time.Since(begin)
	s.persist.bgsave = b
	s.persist.lastTry = b.started
	opts := s.rdbOptions()
	s.log.Info("Background saving started")
	s.stopped.Add(1)
	go s.runBgsave(b, sn, opts)
	return nil
}

var (
	errBgsaveInProgress = errors.New("ERR Background save already in progress")
	errChildActive      = errors.New("ERR Another child process is active (AOF?): can't BGSAVE right now. Use BGSAVE SCHEDULE in order to schedule a BGSAVE whenever possible.")
)

func (s *Server) runBgsave(b *bgsave, sn *store.Snapshot, opts rdb.Options) {
	defer s.stopped.Done()
	err := writeFileAtomic(s.cfg.Dir, s.cfg.DBFilename, func(out io.Writer) error {
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
			b.maxHold = max(b.maxHold, time.Since(start))
			<-s.lock
			// Yield between steps, so the scheduler's 10 ms preemption of a
			// goroutine that runs on and on falls outside the lock.
			runtime.Gosched()
			return true
		}, &b.processed)
	})
	s.lock <- struct{}{}
	defer func() { <-s.lock }()
	sn.End()
	s.persist.bgsave = nil
	s.persist.lastDuration = time.Since(b.started)
	s.persist.lastMaxHold = b.maxHold
	if err != nil {
		s.persist.lastBgsaveOK = false
		s.log.Warn("Background saving error", "err", err)
		return
	}
	s.persist.lastBgsaveOK = true
	s.persist.lastSave = time.Now()
	s.persist.dirtyAtSave = b.dirty
	s.persist.saves++
	s.log.Info("Background saving terminated with success")
}

// saveCron starts a background save when a save point is reached or a
// scheduled BGSAVE can run; expiryLoop calls it each tick, as Redis's
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

// shutdownSave is SHUTDOWN's save (and the binary's on SIGTERM): with save
// points set or SAVE given, and not NOSAVE, a running background save is
// abandoned and the keyspace saved in the foreground. The caller holds the
// execution lock.
func (s *Server) shutdownSave(save, noSave bool) error {
	if b := s.persist.bgsave; b != nil {
		s.log.Warn("There is a child saving an .rdb. Killing it!")
		b.abort = true
	}
	if noSave || (!save && len(s.persist.points) == 0) {
		return nil
	}
	s.log.Info("Saving the final RDB snapshot before exiting.")
	if err := s.saveRDB(); err != nil {
		s.log.Warn("Error trying to save the DB, can't exit.")
		return err
	}
	return nil
}

// SaveOnShutdown saves as Redis does when it gets SIGTERM: only if save
// points are set. cmd/floodgate calls it before Close.
func (s *Server) SaveOnShutdown() error {
	var err error
	s.Do(func() { err = s.shutdownSave(false, false) })
	return err
}

// CheckSave reports whether v is a valid save setting (Config.Save).
func CheckSave(v string) error {
	_, err := parseSavePoints(v)
	return err
}
