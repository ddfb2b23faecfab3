package server

// The AOF rewrite (BGREWRITEAOF, the automatic rewrite, turning the AOF
// on): a new base written from a point-in-time snapshot of the keyspace
// while clients go on, and the manifest switched over to it.

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"time"

	"github.com/floodgate/floodgate/aof"
	"github.com/floodgate/floodgate/rdb"
	"github.com/floodgate/floodgate/store"
)

// Redis's replies to BGREWRITEAOF.
const (
	msgRewriteStarted    = "Background append only file rewriting started"
	msgRewriteScheduled  = "Background append only file rewriting scheduled"
	errRewriteInProgress = "ERR Background append only file rewriting already in progress"
	errRewriteFailed     = "ERR Can't execute an AOF background rewriting. Please check the server logs for more information."
)

// errRewriteScheduled: a rewrite cannot start now (a BGSAVE holds the
// snapshot) and will start once it can.
var errRewriteScheduled = errors.New(msgRewriteScheduled)

// rewriteJob is one base being written: the snapshot it reads and how it
// writes it, all taken under the execution lock when the rewrite starts.
type rewriteJob struct {
	srv     *Server
	sn      *store.Snapshot
	tmp     string // the temp file's path, renamed into place by the caller
	rdbBase bool   // aof-use-rdb-preamble: the base is an RDB
	opts    rdb.Options
	stamp   bool // aof-timestamp-enabled: a base of commands starts with #TS
	gen     int  // aof.rewriteGen at the start: a rewrite the AOF was turned off under is dropped
	// scripts are the script bodies a base of commands starts with
	// (persist-scripts); an RDB base has them in opts.Aux.
	scripts []string
	// functions are the libraries' codes a base of commands starts with,
	// as FUNCTION LOAD commands (rewriteFunctions); an RDB base has them
	// in opts.Functions.
	functions []string
}

// newRewriteJob opens a snapshot for a base written to tmp (in the AOF
// directory); the caller holds the execution lock. This is the whole
// pause a rewrite costs: BeginSnapshot is O(databases), where the rewrite
// used to deep-copy the keyspace (BENCHMARKS.md).
func (s *Server) newRewriteJob(tmp string) *rewriteJob {
	a := &s.aof
	begin := time.Now()
	j := &rewriteJob{srv: s, sn: s.store.BeginSnapshot(), tmp: s.aofPath(tmp), rdbBase: s.rdbPreamble(),
		stamp: a.cfg.Timestamps, gen: a.rewriteGen}
	if !j.rdbBase {
		j.scripts = s.scriptBodies()
		j.functions = s.functionCodes()
	}
	s.snapshotBegun(begin)
	if j.rdbBase {
		j.opts = s.rdbOptions()
		for i := range j.opts.Aux {
			if j.opts.Aux[i].Key == "aof-base" {
				j.opts.Aux[i].Value = "1" // as Redis marks an AOF's base
			}
		}
	}
	return j
}

// step runs one step of the snapshot's walk under the execution lock, as
// BGSAVE's saver does; it gives up when the server stops or the AOF was
// turned off.
func (j *rewriteJob) step(step func()) bool {
	s := j.srv
	select {
	case s.lock <- struct{}{}:
	case <-s.stop:
		return false
	}
	live := s.aof.rewriteGen == j.gen
	if live {
		step()
	}
	<-s.lock
	// Yield between steps, so the scheduler's 10 ms preemption of a
	// goroutine that runs on and on falls outside the lock.
	runtime.Gosched()
	return live
}

// write writes the base at j.tmp, fsynced, and returns its size. It runs
// without the lock, but for the steps of the walk.
func (j *rewriteJob) write() (int64, error) {
	s := j.srv
	f, err := os.OpenFile(j.tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		s.log.Warn("Opening the temp file for AOF rewrite in rewriteAppendOnlyFile(): " + err.Error())
		return 0, err
	}
	var n int64
	switch {
	case j.rdbBase:
		if err = rdb.SaveSnapshot(f, j.sn, j.opts, j.step, nil); err == nil {
			var st os.FileInfo
			if st, err = f.Stat(); err == nil {
				n = st.Size()
			}
		}
	default:
		if j.stamp {
			// As Redis's rewriteAppendOnlyFileRio (an RDB base has none).
			var m int
			m, err = f.Write(aof.AppendTimestamp(nil, time.Now().Unix()))
			n = int64(m)
		}
		if err == nil && len(j.functions) > 0 {
			var m int
			m, err = f.Write(appendFunctionLoads(nil, j.functions))
			n += int64(m)
		}
		if err == nil && len(j.scripts) > 0 {
			var m int
			m, err = f.Write(appendScriptLoads(nil, j.scripts))
			n += int64(m)
		}
		if err == nil {
			var m int64
			m, err = aof.SaveSnapshot(f, j.sn, j.step)
			n += m
		}
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(j.tmp)
		if !errors.Is(err, rdb.ErrAborted) && !errors.Is(err, aof.ErrAborted) {
			s.log.Warn("Write error writing append only file on disk: " + err.Error())
		}
		return 0, err
	}
	return n, nil
}

// startRewrite begins a background rewrite, under the execution lock: it
// opens a snapshot and, with the AOF on, a new incr file for the commands
// that follow (Redis 7.0 does the same, so no rewrite buffer is needed),
// then writes the base on another goroutine. While a BGSAVE holds the
// snapshot it is scheduled instead (errRewriteScheduled), as Redis
// schedules a rewrite while another child runs.
func (s *Server) startRewrite() error {
	a := &s.aof
	if a.rewriting {
		return errors.New(errRewriteInProgress)
	}
	if s.persist.bgsave != nil {
		a.rewriteScheduled = true
		return errRewriteScheduled
	}
	if err := s.loadManifestLate(); err != nil {
		return err
	}
	if err := os.MkdirAll(s.aofDir(), 0o755); err != nil {
		s.log.Warn(fmt.Sprintf("Can't open or create append-only dir %s: %v", s.aofDir(), err))
		return err
	}
	// Turning the AOF on opened an incr file already (waitRewrite): the
	// manifest lists it once the base is written.
	if a.on.Load() && !a.waitRewrite {
		if err := s.openNewIncr(); err != nil {
			return err
		}
	}
	a.waitRewrite = false
	a.rewriteScheduled = false
	job := s.newRewriteJob(fmt.Sprintf("temp-rewriteaof-bg-%d.aof", os.Getpid()))
	a.rewriting = true
	s.childChanged()
	a.rewriteStarted = time.Now()
	s.log.Info("Background append only file rewriting started")
	s.stopped.Add(1)
	go func() {
		defer s.stopped.Done()
		size, err := job.write()
		s.lock <- struct{}{}
		s.persist.lastAOFCOW = job.sn.KeptBytes()
		job.sn.End()
		s.finishRewrite(job.gen, job.tmp, size, job.rdbBase, err)
		<-s.lock
	}()
	return nil
}

// startScheduledRewrite starts a rewrite scheduled while a BGSAVE ran, once
// none does (Redis's serverCron); the caller holds the execution lock.
func (s *Server) startScheduledRewrite() {
	a := &s.aof
	if !a.rewriteScheduled || a.rewriting || s.persist.bgsave != nil {
		return
	}
	if err := s.startRewrite(); err != nil {
		a.rewriteScheduled = false
		s.log.Warn("scheduled AOF rewrite failed to start", "err", err)
	}
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
		if a.policy.Load() == fsyncAlways {
			// The feed's replies have not gone out: on disk first.
			s.aofWriteLocked(true)
			old.Close()
		} else {
			// Written now, fsynced and closed in the background, as Redis's
			// bio close job: not on the execution lock's time.
			s.aofWriteLocked(false)
			s.stopped.Add(1)
			go func() {
				defer s.stopped.Done()
				if err := old.Sync(); err != nil {
					s.log.Warn("Fail to fsync the AOF file: " + errnoText(err))
				}
				old.Close()
			}()
		}
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
	s.childChanged()
	elapsed := time.Since(a.rewriteStarted)
	a.lastRewriteSec = int64(elapsed / time.Second)
	if err == nil && gen != a.rewriteGen {
		err = errors.New("AOF turned off during the rewrite")
	}
	if err == nil {
		m := a.manifest.Clone()
		name := m.NewBase(a.cfg.Filename, rdbBase)
		renamed := time.Now()
		err = os.Rename(tmp, s.aofPath(name))
		s.latencySince("aof-rename", renamed)
		if err == nil {
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

// loadManifestLate reads the manifest if Start did not (LazyAOFManifest,
// or a server that serves Dial only), before the AOF is turned on or
// rewritten.
func (s *Server) loadManifestLate() error {
	if s.aof.manifest != nil {
		return nil
	}
	m, err := s.readManifest()
	if err == nil {
		s.aof.manifest = m
	}
	return err
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
		s.stopAppendOnly()
		a.cfg.Enabled = false
		return nil
	}
	if err := s.startAppendOnly(); err != nil {
		return err
	}
	a.cfg.Enabled = true
	return nil
}

// stopAppendOnly is Redis's stopAppendOnly: what is buffered is written
// and fsynced, the incr file closed, and a running rewrite abandoned.
// appendonly keeps its setting (a replica's full sync stops the AOF for
// the load and restarts it after).
func (s *Server) stopAppendOnly() {
	a := &s.aof
	a.mu.Lock()
	s.aofWriteLocked(true)
	if a.file != nil {
		a.file.Close()
		a.file = nil
	}
	a.on.Store(false)
	a.mu.Unlock()
	a.rewriteGen++
}

// startAppendOnly is Redis's startAppendOnly: a new incr file logs from
// now on, and a rewrite writes the base.
func (s *Server) startAppendOnly() error {
	a := &s.aof
	if a.rewriting {
		return errors.New(errRewriteInProgress)
	}
	if err := s.loadManifestLate(); err != nil {
		return err
	}
	if err := os.MkdirAll(s.aofDir(), 0o755); err != nil {
		s.log.Warn(fmt.Sprintf("Can't open or create append-only dir %s: %v", s.aofDir(), err))
		return err
	}
	if err := s.openNewIncr(); err != nil {
		return err
	}
	a.on.Store(true)
	a.waitRewrite = true
	s.startAOFCron()
	if err := s.startRewrite(); err != nil && err != errRewriteScheduled {
		return err
	}
	return nil
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

// cmdBGRewriteAOF starts a background rewrite, or schedules it inside
// EXEC or while a BGSAVE runs, as Redis's bgrewriteaofCommand.
func cmdBGRewriteAOF(c *Client, args [][]byte) {
	s := c.srv
	a := &s.aof
	err := errRewriteScheduled
	if !c.inExec || a.rewriting {
		err = s.startRewrite()
	}
	switch {
	case err == nil:
		c.w.Status(msgRewriteStarted)
	case err == errRewriteScheduled:
		a.rewriteScheduled = true
		a.rewriteFails = 0 // a rewrite asked for runs at once, whatever failed before
		s.startAOFCron()   // which starts it, the AOF on or not
		c.w.Status(msgRewriteScheduled)
	case err.Error() == errRewriteInProgress:
		c.w.Error(errRewriteInProgress)
	default:
		c.w.Error(errRewriteFailed)
	}
}
