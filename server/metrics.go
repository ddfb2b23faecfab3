package server

import (
	"net"
	"strconv"
	"sync"

	"github.com/floodgate/floodgate/metrics"
	"github.com/floodgate/floodgate/store"
)

// The Prometheus endpoint (package metrics): metrics-addr, floodgate's own
// parameter, off ("") by default, serves /metrics and /healthz there. The
// endpoint reads one snapshot per scrape, gathered here under the
// execution lock as INFO gathers its text, and formats it outside.

// metricsEndpoint is the listening endpoint; its mutex, not the execution
// lock, guards it: Start and Close run without the lock.
type metricsEndpoint struct {
	mu      sync.Mutex
	addr    string // metrics-addr as set
	ep      *metrics.Endpoint
	started bool // Start has run: setting the address now listens
}

// metricsAddr is the metrics-addr parameter (one of ownParams).
var metricsAddr = &configParam{
	name: "metrics-addr", kind: kindString, def: "", effect: effectApplied,
	parse: parseMetricsAddr,
	get: func(s *Server) string {
		s.metrics.mu.Lock()
		defer s.metrics.mu.Unlock()
		return s.metrics.addr
	},
	apply: func(s *Server, v string) string {
		if err := s.setMetricsAddr(v); err != nil {
			s.log.Warn("Could not listen for metrics on " + v + ": " + err.Error())
			return "Unable to listen on this address. Check server logs."
		}
		return ""
	},
}

// parseMetricsAddr accepts "" (off) or host:port with a numeric port.
func parseMetricsAddr(v string) (string, string) {
	if v == "" {
		return v, ""
	}
	_, port, err := net.SplitHostPort(v)
	if n, perr := strconv.Atoi(port); err != nil || perr != nil || n < 0 || n > 65535 {
		return "", "argument must be empty or host:port"
	}
	return v, ""
}

// setMetricsAddr moves the endpoint to addr ("" closes it). The new
// address is bound before the old is let go, so a failed move leaves the
// endpoint where it was.
func (s *Server) setMetricsAddr(addr string) error {
	m := &s.metrics
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.started || addr == m.addr {
		m.addr = addr
		return nil
	}
	var ep *metrics.Endpoint
	if addr != "" {
		var err error
		if ep, err = metrics.Listen(addr, metricsSource{s}); err != nil {
			return err
		}
	}
	if m.ep != nil {
		m.ep.Close()
	}
	m.addr, m.ep = addr, ep
	return nil
}

// startMetrics listens on the configured address, once (StartAddr).
func (s *Server) startMetrics() error {
	m := &s.metrics
	m.mu.Lock()
	defer m.mu.Unlock()
	m.started = true
	if m.addr == "" || m.ep != nil {
		return nil
	}
	ep, err := metrics.Listen(m.addr, metricsSource{s})
	if err != nil {
		return err
	}
	m.ep = ep
	return nil
}

// stopMetrics closes the endpoint (Close).
func (s *Server) stopMetrics() {
	m := &s.metrics
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.ep != nil {
		m.ep.Close()
		m.ep = nil
	}
	m.started = false
}

// MetricsAddr is the address the metrics endpoint listens on, "" when it
// does not (metrics-addr's port 0 picks one: this tells which).
func (s *Server) MetricsAddr() string {
	s.metrics.mu.Lock()
	defer s.metrics.mu.Unlock()
	if s.metrics.ep == nil {
		return ""
	}
	return s.metrics.ep.Addr()
}

// metricsSource is the server as the endpoint reads it.
type metricsSource struct{ s *Server }

// Health is 503's reasons: loading the dataset, or shutting down.
func (m metricsSource) Health() (bool, string) {
	switch {
	case m.s.loading.active.Load():
		return false, "loading"
	case m.s.closed.Load():
		return false, "shutting down"
	}
	return true, "ok"
}

// scriptKinds are the script commands floodgate_script_* count.
var scriptKinds = []string{"eval", "evalsha", "eval_ro", "evalsha_ro", "fcall", "fcall_ro"}

// Snapshot gathers, under the execution lock, what INFO all prints and
// the few figures redis_exporter reads with other commands, plus
// floodgate's own. Taken as a client's batch takes the lock: while a
// script is busy, in one of the turns its hook hands out, so a scrape is
// answered then too, with the script paused.
func (m metricsSource) Snapshot() *metrics.Snapshot {
	s := m.s
	done := make(chan struct{})
	h := s.acquire(done)
	defer s.releaseHold(h, done)
	return s.metricsSnapshot()
}

// metricsSnapshot is a scrape's work under the lock: INFO all's text and
// copies of the counts, nothing formatted that INFO does not format
// (BenchmarkLockHold compares it with INFO's).
func (s *Server) metricsSnapshot() *metrics.Snapshot {
	var b infoBuilder
	for _, sec := range infoSections {
		b.section(s, sec)
	}
	snap := &metrics.Snapshot{
		Info:   b.String(),
		Config: make(map[string]string, 4),
		Busy:   s.scripting.busy.Load(),
	}
	for _, name := range []string{"databases", "maxclients", "maxmemory", "io-threads"} {
		snap.Config[name] = s.configValue(name)
	}
	if sl := &s.slowlog; len(sl.entries) > 0 {
		last := sl.entries[len(sl.entries)-1]
		snap.Slowlog = metrics.Slowlog{Len: int64(len(sl.entries)), LastID: last.id, LastMicros: last.micros}
	}
	s.latencyMon.mu.Lock()
	for _, event := range s.latencyMon.order { // LATENCY LATEST's rows
		ts := s.latencyMon.events[event]
		last := ts.latest()
		snap.Latency = append(snap.Latency, metrics.LatencyEvent{Name: event, Time: last.time, LatestMsec: last.latency, MaxMsec: ts.max})
	}
	s.latencyMon.mu.Unlock()
	snap.Limiter = s.limiter.snapshot()
	for _, kind := range scriptKinds {
		cmd := commandTable.lookup([]byte(kind))
		if cmd == nil || cmd.Handler == nil {
			continue
		}
		st := *s.stat(cmd.id)
		sc := metrics.ScriptStats{Kind: kind, Calls: st.calls}
		if st.hist != nil {
			sc.Durations = st.hist.buckets(metrics.ScriptBuckets, st.usec)
		}
		snap.Scripts = append(snap.Scripts, sc)
	}
	snap.BusyScripts = s.scripting.busyScripts.Load()
	policy := s.store.Eviction().Policy
	snap.Evicted = map[string]int64{policy.String(): 0}
	for p, n := range s.memory.evictedBy {
		if n > 0 {
			snap.Evicted[store.Policy(p).String()] = n
		}
	}
	return snap
}

// buckets turns a latency histogram into Prometheus's cumulative buckets
// (bounds in seconds), with usec as the sum. An HDR entry counts towards
// a bucket when its lowest value is within it: the durations recorded are
// whole microseconds, and below 131 µs an entry spans less than one, so
// the bounds are exact there and within the histogram's 1% above.
func (h *hdrHistogram) buckets(bounds []float64, usec int64) *metrics.Histogram {
	out := &metrics.Histogram{Count: uint64(h.total), Sum: float64(usec) / 1e6, Buckets: make(map[float64]uint64, len(bounds))}
	var cum uint64
	b := 0
	for i, n := range h.counts {
		if cum == uint64(h.total) {
			break // every bound left holds them all
		}
		for b < len(bounds) && float64(hdrValueAtIndex(i)) > bounds[b]*1e9 {
			out.Buckets[bounds[b]] = cum
			b++
		}
		if b == len(bounds) {
			break
		}
		cum += uint64(n)
	}
	for ; b < len(bounds); b++ {
		out.Buckets[bounds[b]] = cum
	}
	return out
}

// limiterCommandNames label floodgate_limiter_decisions_total.
var limiterCommandNames = [limiterCommands]string{"cl.throttle", "gcra", "increx"}

// snapshot copies the decisions for the metrics: one entry per command
// and prefix that decided anything.
func (ls *limiterStats) snapshot() metrics.Limiter {
	l := ls.read()
	out := metrics.Limiter{Prefixes: len(l.prefixes), PrefixesMax: limiterMaxPrefixes,
		Decisions: make([]metrics.LimiterDecisions, 0, len(l.prefixes))}
	for p, byCmd := range l.prefixes {
		for cmd, c := range byCmd {
			if c.allowed+c.limited > 0 {
				out.Decisions = append(out.Decisions, metrics.LimiterDecisions{
					Command: limiterCommandNames[cmd], Prefix: p, Allowed: c.allowed, Limited: c.limited})
			}
		}
	}
	for cmd, c := range l.other {
		out.Untracked = append(out.Untracked, metrics.LimiterDecisions{
			Command: limiterCommandNames[cmd], Allowed: c.allowed, Limited: c.limited})
	}
	return out
}
