package server

import (
	"fmt"
	"math"
	"os"
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

// cmdLatencyDoctor is latency.c's createLatencyReport: each event's
// statistics with the remarks of its class, then the advice those classes
// (and transparent huge pages in the process) call for.
func cmdLatencyDoctor(c *Client, _ [][]byte) {
	c.w.Verbatim(c.srv.latencyReport())
}

// latencyAdvice is createLatencyReport's advise_* flags, in the order its
// advice paragraphs are written.
type latencyAdvice struct {
	betterVM, slowlogEnabled, slowlogTuning, slowlogInspect, scheduler, localDisk, ssd,
	dataWriteback, diskContention, noAppendfsync, relaxFsync, writeLoadInfo, hz,
	largeObjects, massEviction, disableTHP bool
}

// latencyReport writes the report; the caller holds the execution lock.
func (s *Server) latencyReport() string {
	m := &s.latencyMon
	m.mu.Lock()
	defer m.mu.Unlock()
	threshold := m.threshold.Load()
	if threshold == 0 && len(m.order) == 0 {
		return latencyDoctorOff
	}
	var b strings.Builder
	var adv latencyAdvice
	advices := 0
	now := s.store.Clock().Now().Unix()
	for i, event := range m.order {
		ts := m.events[event]
		if i == 0 {
			b.WriteString("Dave, I have observed latency spikes in this Redis instance. You don't mind talking about it, do you Dave?\n\n")
		}
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
			elapsed := now - oldest
			if elapsed == 0 {
				elapsed = 1
			}
			period = float64(elapsed) / float64(n)
		}
		fmt.Fprintf(&b, "%d. %s: %d latency spikes (average %dms, mean deviation %dms, period %.2f sec). Worst all time event %dms.",
			i+1, event, n, avg, mad, period, ts.max)
		switch strings.ToLower(event) {
		case "fork":
			rate := s.persist.forkRate
			quality := "excellent"
			switch {
			case rate < 10:
				quality, adv.betterVM = "terrible", true
				advices++
			case rate < 25:
				quality, adv.betterVM = "poor", true
				advices++
			case rate < 100:
				quality = "good"
			}
			fmt.Fprintf(&b, " Fork rate is %.2f GB/sec (%s).", rate, quality)
		case "command":
			if sl := s.slowlog.slower; sl < 0 {
				adv.slowlogEnabled = true
				advices++
			} else if sl/1000 > threshold {
				adv.slowlogTuning = true
				advices++
			}
			adv.slowlogInspect, adv.largeObjects = true, true
			advices += 2
		case "fast-command":
			adv.scheduler = true
			advices++
		case "aof-write-pending-fsync":
			adv.localDisk, adv.diskContention, adv.ssd, adv.dataWriteback = true, true, true, true
			advices += 4
		case "aof-write-active-child":
			adv.noAppendfsync, adv.dataWriteback, adv.ssd = true, true, true
			advices += 3
		case "aof-write-alone":
			adv.localDisk, adv.dataWriteback, adv.ssd = true, true, true
			advices += 3
		case "aof-fsync-always":
			adv.relaxFsync = true
			advices++
		case "aof-fstat", "rdb-unlink-temp-file":
			adv.diskContention, adv.localDisk = true, true
			advices += 2
		case "aof-rewrite-diff-write", "aof-rename":
			adv.writeLoadInfo, adv.dataWriteback, adv.ssd, adv.localDisk = true, true, true, true
			advices += 4
		case "expire-cycle":
			adv.hz, adv.largeObjects = true, true
			advices += 2
		case "eviction-del":
			adv.largeObjects = true
			advices++
		case "eviction-cycle":
			adv.massEviction = true
			advices++
		}
		b.WriteByte('\n')
	}
	if anonHugePages() > 0 {
		adv.disableTHP = true
		advices++
	}
	switch {
	case len(m.order) == 0 && advices == 0:
		b.WriteString(latencyDoctorNothing)
	case advices == 0:
		b.WriteString("\nWhile there are latency events logged, I'm not able to suggest any easy fix. Please use the Redis community to get some help, providing this report in your help request.\n")
	default:
		b.WriteString("\nI have a few advices for you:\n\n")
		s.writeLatencyAdvice(&b, &adv, threshold)
	}
	return b.String()
}

// writeLatencyAdvice writes the paragraphs adv calls for, in Redis's order
// and words.
func (s *Server) writeLatencyAdvice(b *strings.Builder, adv *latencyAdvice, threshold int64) {
	add := func(on bool, text string) {
		if on {
			b.WriteString(text)
		}
	}
	add(adv.betterVM, "- If you are using a virtual machine, consider upgrading it with a faster one using a hypervisior that provides less latency during fork() calls. Xen is known to have poor fork() performance. Even in the context of the same VM provider, certain kinds of instances can execute fork faster than others.\n")
	add(adv.slowlogEnabled, fmt.Sprintf("- There are latency issues with potentially slow commands you are using. Try to enable the Slow Log Redis feature using the command 'CONFIG SET slowlog-log-slower-than %d'. If the Slow log is disabled Redis is not able to log slow commands execution for you.\n", threshold*1000))
	add(adv.slowlogTuning, fmt.Sprintf("- Your current Slow Log configuration only logs events that are slower than your configured latency monitor threshold. Please use 'CONFIG SET slowlog-log-slower-than %d'.\n", threshold*1000))
	add(adv.slowlogInspect, "- Check your Slow Log to understand what are the commands you are running which are too slow to execute. Please check https://redis.io/commands/slowlog for more information.\n")
	add(adv.scheduler, "- The system is slow to execute Redis code paths not containing system calls. This usually means the system does not provide Redis CPU time to run for long periods. You should try to:\n"+
		"  1) Lower the system load.\n"+
		"  2) Use a computer / VM just for Redis if you are running other software in the same system.\n"+
		"  3) Check if you have a \"noisy neighbour\" problem.\n"+
		"  4) Check with 'redis-cli --intrinsic-latency 100' what is the intrinsic latency in your system.\n"+
		"  5) Check if the problem is allocator-related by recompiling Redis with MALLOC=libc, if you are using Jemalloc. However this may create fragmentation problems.\n")
	add(adv.localDisk, "- It is strongly advised to use local disks for persistence, especially if you are using AOF. Remote disks provided by platform-as-a-service providers are known to be slow.\n")
	add(adv.ssd, "- SSD disks are able to reduce fsync latency, and total time needed for snapshotting and AOF log rewriting (resulting in smaller memory usage). With extremely high write load SSD disks can be a good option. However Redis should perform reasonably with high load using normal disks. Use this advice as a last resort.\n")
	add(adv.dataWriteback, "- Mounting ext3/4 filesystems with data=writeback can provide a performance boost compared to data=ordered, however this mode of operation provides less guarantees, and sometimes it can happen that after a hard crash the AOF file will have a half-written command at the end and will require to be repaired before Redis restarts.\n")
	add(adv.diskContention, "- Try to lower the disk contention. This is often caused by other disk intensive processes running in the same computer (including other Redis instances).\n")
	add(adv.noAppendfsync, "- Assuming from the point of view of data safety this is viable in your environment, you could try to enable the 'no-appendfsync-on-rewrite' option, so that fsync will not be performed while there is a child rewriting the AOF file or producing an RDB file (the moment where there is high disk contention).\n")
	add(adv.relaxFsync && s.aof.policy.Load() == fsyncAlways, "- Your fsync policy is set to 'always'. It is very hard to get good performances with such a setup, if possible try to relax the fsync policy to 'onesec'.\n")
	add(adv.writeLoadInfo, "- Latency during the AOF atomic rename operation or when the final difference is flushed to the AOF file at the end of the rewrite, sometimes is caused by very high write load, causing the AOF buffer to get very large. If possible try to send less commands to accomplish the same work, or use Lua scripts to group multiple operations into a single EVALSHA call.\n")
	add(adv.hz && s.cronHz.Load() < 100, "- In order to make the Redis keys expiring process more incremental, try to set the 'hz' configuration parameter to 100 using 'CONFIG SET hz 100'.\n")
	add(adv.largeObjects, "- Deleting, expiring or evicting (because of maxmemory policy) large objects is a blocking operation. If you have very large objects that are often deleted, expired, or evicted, try to fragment those objects into multiple smaller objects.\n")
	add(adv.massEviction, "- Sudden changes to the 'maxmemory' setting via 'CONFIG SET', or allocation of large objects via sets or sorted sets intersections, STORE option of SORT, Redis Cluster large keys migrations (RESTORE command), may create sudden memory pressure forcing the server to block trying to evict keys. \n")
	add(adv.disableTHP, "- I detected a non zero amount of anonymous huge pages used by your process. This creates very serious latency events in different conditions, especially when Redis is persisting on disk. To disable THP support use the command 'echo never > /sys/kernel/mm/transparent_hugepage/enabled', make sure to also add it into /etc/rc.local so that the command will be executed again after a reboot. Note that even if you have already disabled THP, you still need to restart the Redis process to get rid of the huge pages already created.\n")
}

// anonHugePages is THPGetAnonHugePagesSize: the process's AnonHugePages
// bytes, from /proc/self/smaps_rollup (the sum Redis adds up from smaps);
// 0 where there is none.
func anonHugePages() int64 {
	data, err := os.ReadFile("/proc/self/smaps_rollup")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "AnonHugePages:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb * 1024
		}
	}
	return 0
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
