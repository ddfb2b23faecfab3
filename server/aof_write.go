package server

// Writing the AOF: the feed written out before replies go (Redis's
// flushAppendOnlyFile), fsync under appendfsync, the failures that make
// writes refused, and the cron that fsyncs every second and starts an
// automatic rewrite.

import (
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"
)

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
		start := time.Now()
		n, err := a.file.Write(a.feed.Buf)
		s.aofWriteLatency(start)
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
		start := time.Now()
		if err := a.file.Sync(); err != nil {
			s.aofFsyncFailed(err)
			return
		}
		if a.policy.Load() == fsyncAlways {
			s.latencySince("aof-fsync-always", start)
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
			a.fsyncing.Store(true)
			err := f.Sync()
			a.fsyncing.Store(false)
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

// aofWriteLatency is flushAppendOnlyFile's latency events for a write
// that began at start: by what it may have waited on (an fsync running
// on the cron's goroutine, a background save or rewrite walking its
// snapshot, or nothing), and aof-write for every write.
func (s *Server) aofWriteLatency(start time.Time) {
	if s.latencyMon.threshold.Load() == 0 {
		return
	}
	ms := time.Since(start).Milliseconds()
	switch {
	case s.aof.fsyncing.Load():
		s.latencyEvent("aof-write-pending-fsync", ms)
	case s.activeChild.Load():
		s.latencyEvent("aof-write-active-child", ms)
	default:
		s.latencyEvent("aof-write-alone", ms)
	}
	s.latencyEvent("aof-write", ms)
}

// childChanged records whether a background save or AOF rewrite (Redis's
// child process) is running, for goroutines outside the execution lock;
// the caller holds it.
func (s *Server) childChanged() { s.activeChild.Store(s.persist.bgsave != nil || s.aof.rewriting) }
