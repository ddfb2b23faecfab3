package redistest

import (
	"slices"
	"sync/atomic"
	"time"
)

// LatencyProbe runs a request back to back on its own goroutine and
// records when each started and how long it took: what the persistence
// benchmarks read the pause and the percentiles of a background save or
// rewrite from.
type LatencyProbe struct {
	stop    atomic.Bool
	done    chan struct{}
	samples []latencySample
}

type latencySample struct {
	at  time.Time
	lat time.Duration
}

// StartLatencyProbe calls request(0), request(1), ... until Stop.
func StartLatencyProbe(request func(i int)) *LatencyProbe {
	p := &LatencyProbe{done: make(chan struct{}), samples: make([]latencySample, 0, 1<<20)}
	go func() {
		defer close(p.done)
		for i := 0; !p.stop.Load(); i++ {
			start := time.Now()
			request(i)
			p.samples = append(p.samples, latencySample{start, time.Since(start)})
		}
	}()
	return p
}

// Stop ends the probe and waits for its last request.
func (p *LatencyProbe) Stop() {
	p.stop.Store(true)
	<-p.done
}

// Split returns, sorted, the latencies of the requests started before
// from and of those started in [from, to). Call it after Stop.
func (p *LatencyProbe) Split(from, to time.Time) (before, during []time.Duration) {
	for _, s := range p.samples {
		switch {
		case s.at.Before(from):
			before = append(before, s.lat)
		case s.at.Before(to):
			during = append(during, s.lat)
		}
	}
	slices.Sort(before)
	slices.Sort(during)
	return before, during
}

// Percentile is the p-th fraction (0..1) of sorted latencies, in
// microseconds; 0 for none.
func Percentile(sorted []time.Duration, p float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	return float64(sorted[int(float64(len(sorted)-1)*p)].Microseconds())
}
