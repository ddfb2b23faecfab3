package server

// The AOF's fields of INFO persistence.

import "time"

// infoAOF writes the AOF fields of INFO persistence, as Redis 7.0.
func (s *Server) infoAOF(b *infoBuilder) {
	a := &s.aof
	// Redis's aof_state is on from the start when appendonly is, so also
	// while the AOF loads; not while a replica loads its master's RDB,
	// which stops the AOF.
	on := a.on.Load() || (a.cfg.Enabled && s.loading.active.Load() && !a.stoppedForSync)
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
	b.int("aof_last_cow_size", s.persist.lastAOFCOW)
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
