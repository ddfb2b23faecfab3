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

// sampleStats takes one sample of each metric; called with the lock held.
func (s *Server) sampleStats(now time.Time) {
	s.inst.ops.track(now, s.processed)
	s.inst.netIn.track(now, s.net.in.Load())
	s.inst.netOut.track(now, s.net.out.Load())
}
