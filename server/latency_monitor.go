package server

import (
	"math"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// The latency monitor, as Redis 7.0's latency.c: with
// latency-monitor-threshold N (ms, 0 off), every event that took N ms or
// more (a command, an expiry or eviction cycle, a fork-equivalent, an AOF
// write or fsync) is kept per event name as one sample per second, the
// slowest of that second, the last latencyHistoryLen seconds that had one,
// and the worst ever. LATENCY LATEST, HISTORY, GRAPH, DOCTOR and RESET
// read it; so do the metrics (redis_latency_spike_*). Its own mutex, not
// the execution lock, guards it: AOF writes and fsyncs and the background
// saver raise events outside the lock.

// latencyHistoryLen is LATENCY_TS_LEN.
const latencyHistoryLen = 160

type latencySample struct {
	time    int64 // unix seconds; 0: an empty slot
	latency int64 // ms
}

// latencySeries is latency.c's latencyTimeSeries.
type latencySeries struct {
	idx     int // the next slot
	max     int64
	samples [latencyHistoryLen]latencySample
}

// latest is the sample added last.
func (ts *latencySeries) latest() latencySample {
	return ts.samples[(ts.idx+latencyHistoryLen-1)%latencyHistoryLen]
}

// each visits the samples oldest first.
func (ts *latencySeries) each(visit func(latencySample)) {
	for j := range latencyHistoryLen {
		if sm := ts.samples[(ts.idx+j)%latencyHistoryLen]; sm.time != 0 {
			visit(sm)
		}
	}
}

type latencyMonitor struct {
	threshold atomic.Int64 // ms; read on every command, so not under mu

	mu     sync.Mutex
	events map[string]*latencySeries
	order  []string // event names as first raised, for LATEST and DOCTOR
}

var latencyMonitorThreshold = floodgateParam{effect: effectApplied, apply: func(s *Server, v string) string {
	ms, _ := strconv.ParseInt(v, 10, 64)
	s.latencyMon.threshold.Store(ms)
	if s.store != nil { // Init applies it again once the store exists
		s.store.OnDeleteTime = nil
		if ms > 0 {
			s.store.OnDeleteTime = s.deleteLatency
		}
	}
	return ""
}}

// latencyEvent is latencyAddSampleIfNeeded: event took ms. Safe from any
// goroutine.
func (s *Server) latencyEvent(event string, ms int64) {
	if m := &s.latencyMon; ms >= m.threshold.Load() && m.threshold.Load() > 0 {
		m.mu.Lock()
		m.add(event, ms, s.store.Clock().Now().Unix())
		m.mu.Unlock()
	}
}

// latencySince is latencyEndMonitor and latencyAddSampleIfNeeded for
// work that began at start.
func (s *Server) latencySince(event string, start time.Time) {
	if s.latencyMon.threshold.Load() > 0 {
		s.latencyEvent(event, time.Since(start).Milliseconds())
	}
}

// deleteLatency is the store's OnDeleteTime while the monitor is on: one
// key's deletion by expiry (expire-del) or eviction (eviction-del), the
// part Redis times in deleteExpiredKeyAndPropagate and performEvictions.
func (s *Server) deleteLatency(evicted bool, took time.Duration) {
	event := "expire-del"
	if evicted {
		event = "eviction-del"
	}
	s.latencyEvent(event, took.Milliseconds())
}

// add is latencyAddSample: one sample per second, the second's worst.
func (m *latencyMonitor) add(event string, ms, now int64) {
	ts := m.events[event]
	if ts == nil {
		if m.events == nil {
			m.events = map[string]*latencySeries{}
		}
		ts = &latencySeries{}
		m.events[event] = ts
		m.order = append(m.order, event)
	}
	ts.max = max(ts.max, ms)
	prev := &ts.samples[(ts.idx+latencyHistoryLen-1)%latencyHistoryLen]
	if prev.time == now {
		prev.latency = max(prev.latency, ms)
		return
	}
	ts.samples[ts.idx] = latencySample{now, ms}
	ts.idx = (ts.idx + 1) % latencyHistoryLen
}

// reset forgets the events named as latencyResetEvent does (any case), or
// all of them, and says how many it forgot.
func (m *latencyMonitor) reset(names [][]byte) int64 {
	var n int64
	kept := m.order[:0]
	for _, event := range m.order {
		drop := len(names) == 0
		for _, name := range names {
			drop = drop || strings.EqualFold(event, string(name))
		}
		if drop {
			delete(m.events, event)
			n++
		} else {
			kept = append(kept, event)
		}
	}
	m.order = kept
	return n
}

func cmdLatencyLatest(c *Client, _ [][]byte) {
	m := &c.srv.latencyMon
	m.mu.Lock()
	defer m.mu.Unlock()
	c.w.Array(len(m.order))
	for _, event := range m.order {
		ts := m.events[event]
		last := ts.latest()
		c.w.Array(4)
		c.w.BulkString(event)
		c.w.Int(last.time)
		c.w.Int(last.latency)
		c.w.Int(ts.max)
	}
}

// cmdLatencyHistory answers an event's samples, oldest first; the name
// is matched exactly, as Redis's dict of events does.
func cmdLatencyHistory(c *Client, args [][]byte) {
	m := &c.srv.latencyMon
	m.mu.Lock()
	defer m.mu.Unlock()
	ts := m.events[string(args[2])]
	if ts == nil {
		c.w.Array(0)
		return
	}
	var samples []latencySample
	ts.each(func(sm latencySample) { samples = append(samples, sm) })
	c.w.Array(len(samples))
	for _, sm := range samples {
		c.w.Array(2)
		c.w.Int(sm.time)
		c.w.Int(sm.latency)
	}
}

func cmdLatencyReset(c *Client, args [][]byte) {
	m := &c.srv.latencyMon
	m.mu.Lock()
	defer m.mu.Unlock()
	c.w.Int(m.reset(args[2:]))
}

// latencyGraphColumns is LATENCY_GRAPH_COLS.
const latencyGraphColumns = 80

// cmdLatencyGraph draws an event's samples as latencyCommandGenSparkeline:
// a header, a rule and a filled sparkline four rows high, each sample
// labelled with how long ago it was, written downwards.
func cmdLatencyGraph(c *Client, args [][]byte) {
	m := &c.srv.latencyMon
	m.mu.Lock()
	defer m.mu.Unlock()
	ts := m.events[string(args[2])]
	if ts == nil {
		c.w.Error("ERR No samples available for event '" + string(args[2]) + "'")
		return
	}
	now := c.srv.store.Clock().Now().Unix()
	var values []float64
	var labels []string
	low, high := int64(0), int64(0)
	ts.each(func(sm latencySample) {
		if len(values) == 0 {
			low, high = sm.latency, sm.latency
		}
		low, high = min(low, sm.latency), max(high, sm.latency)
		values = append(values, float64(sm.latency))
		labels = append(labels, agoLabel(now-sm.time))
	})
	var b strings.Builder
	b.WriteString(string(args[2]) + " - high " + strconv.FormatInt(high, 10) + " ms, low " + strconv.FormatInt(low, 10) +
		" ms (all time high " + strconv.FormatInt(ts.max, 10) + " ms)\n")
	b.WriteString(strings.Repeat("-", latencyGraphColumns) + "\n")
	sparkline(&b, values, labels, latencyGraphColumns, 4)
	c.w.Verbatim(b.String())
}

// agoLabel is a sample's label: seconds, minutes, hours or days ago.
func agoLabel(elapsed int64) string {
	switch {
	case elapsed < 60:
		return strconv.FormatInt(elapsed, 10) + "s"
	case elapsed < 3600:
		return strconv.FormatInt(elapsed/60, 10) + "m"
	case elapsed < 3600*24:
		return strconv.FormatInt(elapsed/3600, 10) + "h"
	}
	return strconv.FormatInt(elapsed/(3600*24), 10) + "d"
}

// sparkline renders values as sparkline.c's sparklineRender with
// SPARKLINE_FILL: columns values a block, rows rows of "_o#" (or '|'
// under them) scaled from the lowest to the highest value, then, if any
// value has a label, a blank line and each label written downwards under
// its value.
func sparkline(b *strings.Builder, values []float64, labels []string, columns, rows int) {
	const fill = "_o#"
	lo, hi := 0.0, 0.0
	for i, v := range values {
		if i == 0 {
			lo, hi = v, v
		}
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	relmax := hi - lo
	if relmax == 0 {
		relmax = 1
	}
	steps := len(fill) * rows
	labelled := false // sparkline.c's seq->labels: any label not empty
	for _, l := range labels {
		labelled = labelled || l != ""
	}
	for start := 0; start < len(values); start += columns {
		if start != 0 {
			b.WriteByte('\n')
		}
		n := min(columns, len(values)-start)
		line := make([]byte, n)
		for row := 0; ; row++ {
			more := false
			for j := range line {
				line[j] = ' '
			}
			for j := range n {
				i := start + j
				if row < rows {
					// (int)(relval*steps)/relmax, truncated again on
					// assignment, as the C does.
					step := int(float64(int((values[i]-lo)*float64(steps))) / relmax)
					step = min(max(step, 0), steps-1)
					more = true
					if ch := step - (rows-row-1)*len(fill); ch >= 0 && ch < len(fill) {
						line[j] = fill[ch]
					} else if ch >= len(fill) {
						line[j] = '|'
					}
					continue
				}
				if row == rows && labelled { // the blank line above the labels
					more = true
					break
				}
				if k := row - rows - 1; k >= 0 && k < len(labels[i]) {
					more = true
					line[j] = labels[i][k]
				}
			}
			if !more {
				break
			}
			b.Write(line)
			b.WriteByte('\n')
		}
	}
}

// cmdLatencyDoctor answers latency.c's report when the monitor is off or
// has seen nothing, and its list of events otherwise (the advice that
// follows it in Redis is not written).
func cmdLatencyDoctor(c *Client, _ [][]byte) {
	m := &c.srv.latencyMon
	m.mu.Lock()
	defer m.mu.Unlock()
	switch {
	case m.threshold.Load() == 0 && len(m.order) == 0:
		c.w.Verbatim(latencyDoctorOff)
		return
	case len(m.order) == 0:
		c.w.Verbatim(latencyDoctorNothing)
		return
	}
	var b strings.Builder
	b.WriteString("Dave, I have observed latency spikes in this Redis instance. You don't mind talking about it, do you Dave?\n\n")
	for i, event := range m.order {
		ts := m.events[event]
		var n, sum, oldest int64
		ts.each(func(sm latencySample) {
			n++
			sum += sm.latency
			if oldest == 0 || sm.time < oldest {
				oldest = sm.time
			}
		})
		var avg, mad int64
		period := 0.0
		if n > 0 {
			avg = sum / n
			ts.each(func(sm latencySample) { mad += abs64(sm.latency - avg) })
			mad /= n
			elapsed := max(c.srv.store.Clock().Now().Unix()-oldest, 1) // latency.c's period, at least 1
			period = float64(elapsed) / float64(n)
		}
		b.WriteString(strconv.Itoa(i+1) + ". " + event + ": " + strconv.FormatInt(n, 10) + " latency spikes (average " +
			strconv.FormatInt(avg, 10) + "ms, mean deviation " + strconv.FormatInt(mad, 10) + "ms, period " +
			strconv.FormatFloat(period, 'f', 2, 64) + " sec). Worst all time event " + strconv.FormatInt(ts.max, 10) + "ms.\n")
	}
	c.w.Verbatim(b.String())
}

func abs64(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

const (
	latencyDoctorOff     = "I'm sorry, Dave, I can't do that. Latency monitoring is disabled in this Redis instance. You may use \"CONFIG SET latency-monitor-threshold <milliseconds>.\" in order to enable it. If we weren't in a deep space mission I'd suggest to take a look at https://redis.io/topics/latency-monitor.\n"
	latencyDoctorNothing = "Dave, no latency spike was observed during the lifetime of this Redis instance, not in the slightest bit. I honestly think you ought to sit down calmly, take a stress pill, and think things over.\n"
)
