package server

import (
	"sync/atomic"
	"time"
)

// Instantaneous metrics, as Redis's trackInstantaneousMetric: every
// sample (each active-expiry tick, 100 ms by default) records how fast a
// counter grew since the previous one, and INFO reports the mean of the
// last 16 samples.

const statsSamples = 16 // STATS_METRIC_SAMPLES

type instMetric struct {
	lastTime  time.Time
	lastValue int64
	samples   [statsSamples]int64
	idx       int
}

// track records value's growth rate per second since the last sample.
func (m *instMetric) track(now time.Time, value int64) {
	if !m.lastTime.IsZero() {
		if ms := now.Sub(m.lastTime).Milliseconds(); ms > 0 {
			m.samples[m.idx] = (value - m.lastValue) * 1000 / ms
			m.idx = (m.idx + 1) % statsSamples
		}
	}
	m.lastTime, m.lastValue = now, value
}

func (m *instMetric) mean() int64 {
	var sum int64
	for _, v := range m.samples {
		sum += v
	}
	return sum / statsSamples
}

// netStats counts the bytes clients sent and were sent; transports add to
// them outside the execution lock.
type netStats struct {
	in, out       atomic.Int64
	reads, writes atomic.Int64
}

// instStats are the sampled metrics; guarded by the execution lock.
type instStats struct {
	ops, netIn, netOut instMetric
}

// noSamples is the metrics of a server not sampled yet.
var noSamples instStats

// samples returns the sampled metrics, for reading.
func (s *Server) samples() *instStats {
	if s.inst == nil {
		return &noSamples
	}
	return s.inst
}

// sampleStats takes one sample of each metric; called with the lock held.
func (s *Server) sampleStats(now time.Time) {
	if s.inst == nil {
		s.inst = new(instStats)
	}
	s.inst.ops.track(now, s.processed)
	s.inst.netIn.track(now, s.net.in.Load())
	s.inst.netOut.track(now, s.net.out.Load())
}

// resetStats clears what CONFIG RESETSTAT clears, in resetServerStats'
// order, then the command table's and the error table's counts, then
// floodgate's own counters. Gauges (connected clients, keys, memory) and
// the clients cron's peaks stay, as in Redis. Called with the lock held.
func (s *Server) resetStats(now time.Time) {
	s.processed = 0
	s.totalConns.Store(0)
	s.expired = 0
	s.expireCycle = 0
	s.memory.evicted = 0
	s.memory.exceededTotal, s.memory.exceededSince = 0, time.Time{}
	s.clientEvict.evicted.Store(0)
	s.store.ResetLookups()
	s.persist.lastBegin = 0 // stat_fork_time: the last BGSAVE's pause
	s.persist.forks = 0
	s.rejectedConns.Store(0)
	s.repl.syncFull, s.repl.syncPartialOK, s.repl.syncPartialErr = 0, 0, 0
	s.net.reads.Store(0)
	s.net.writes.Store(0)
	// Each rate starts again from 0 now, as Redis sets last_sample_time.
	s.inst = new(instStats)
	for _, m := range []*instMetric{&s.inst.ops, &s.inst.netIn, &s.inst.netOut} {
		m.lastTime = now
	}
	s.aof.rewrites = 0
	s.persist.saves = 0
	s.aof.rewriteFails = 0
	s.net.in.Store(0)
	s.net.out.Store(0)
	s.errorStats.reset() // total_error_replies and errorstats
	for i := range s.stats {
		s.stats[i] = cmdStat{} // commandstats and latencystats
	}
	// Redis 7.2's ACL denial counters, reset there by resetServerStats.
	s.acl.deniedAuth, s.acl.deniedCmd, s.acl.deniedKey, s.acl.deniedChannel = 0, 0, 0, 0
	s.memory.evictedBy = [len(s.memory.evictedBy)]int64{}
	s.scripting.busyScripts.Store(0)
	s.limiter.reset()
	s.replyBufShrinks.Store(0)
	s.replyBufExpands.Store(0)
}
