package server

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"time"
)

// The Go runtime lets the heap grow to twice its live size before
// collecting (GOGC=100), and keeps that much from the system: a server
// holding a million small keys would have an RSS of about twice what they
// take. Redis's allocator keeps only a little fragmentation over what is
// live. Once the live heap is large, the server bounds the garbage
// headroom to an eighth of it plus gcHeadroom, or plus the collection's
// work if that is less, adjusted from the cron as the heap changes; a
// small heap keeps GOGC=100, where more collections would cost CPU and
// save little. A GOGC set at startup is left alone.
//
// The fixed part spaces the collections of a heap whose every collection
// costs about the same; a collection's cost is the scannable heap, stacks
// and globals it reads (scanWork), not the heap's size: stream nodes and
// string values are pointer-free bytes, never read, only their objects
// marked and their spans swept. A heap of 1M stream entries, 28 MB live,
// has 2.8 MB of work and gets a headroom of 5.6 MB (20%) where it got
// 11.3 MB (40%); 1M string keys, 55 MB live and 51 MB to scan, keep their
// 25%. The eighth stays: sized from the work too (a 100 MB heap of 1 KB
// values got 9% instead of 20%), the collections it added cost SET of 1 KB
// values 13% more CPU for 10% less RSS (one run, load 6-8).
//
// The headroom serves a server that allocates; one that has gone quiet
// keeps it from the system for nothing (the runtime's scavenger returns
// only what is past 110% of the heap goal). As jemalloc purges the dirty
// pages Redis freed once they have gone unused, the cron collects and
// returns the free heap once the heap has been quiet for heapQuietPeriod
// (purgeIdleHeap): 1M stream entries kept about 9 MB over their 30 MB
// afterwards, 0.3 MB after the purge.
//
// A long request being read sets a goal of its own until it has run
// (holdTransient): the live heap it found and that heap's headroom, plus
// its bytes (its buffers and arguments) and one and a half times as much
// again for what a command that stores its arguments adds (SADD, HSET and
// MSET of 1M arguments add 0.8, 0.9 and 1.25 times their request: at
// twice, MSET still ran one collection of 85 MB just before it ended).
// Its bytes are live until it has run, so a collection they trigger frees
// nothing of them, and each one marks the whole keyspace: a 1M-argument
// DEL of 500,000 keys ran 5 collections of a 100 MB heap, half of its
// CPU, where Redis frees as it goes. The goal is a number of bytes, not a percent: a
// collection during the command resets the percent from the heap it
// found (collected, run after each collection while a hold is on), where
// a percent sized for the heap at the request's start, applied to one
// that had taken in the request, let the heap grow far past it. Once the
// request has run, its bytes are garbage; if they are more than the
// heap's headroom the next allocation starts a collection (drain), so
// that the next request reuses them rather than new pages: a DEL after a
// 1M-argument MSET peaked 25 MB higher without it.

// gcHeadroom is the fixed part of the heap's growth between collections.
const gcHeadroom = 8 << 20

// minGCPercent bounds how often a huge heap is collected.
const minGCPercent = 10

// noscanShare is what a byte of a pointer-free object costs a collection,
// as a share of a scanned byte's cost: its bytes are never read, only its
// object marked and its span swept. An estimate, not a measurement: it
// only decides whether such a heap's work reaches gcHeadroom.
const noscanShare = 32

// startGCPercent is the GC percent the process started with (GOGC).
var startGCPercent = func() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}()

// The runtime's figures the cron reads, in heapSample's order.
var heapMetricNames = [...]string{
	"/gc/heap/live:bytes",
	"/gc/heap/allocs:bytes",
	"/memory/classes/heap/objects:bytes",
	"/memory/classes/heap/free:bytes",
	"/gc/scan/heap:bytes",
	"/gc/scan/stack:bytes",
	"/gc/scan/globals:bytes",
	"/gc/cycles/total:gc-cycles",
}

// heapSample is the heap as the runtime reports it.
type heapSample struct {
	live    uint64 // marked live by the last collection
	allocs  uint64 // allocated since the process started
	objects uint64 // in objects, the garbage since the last collection too
	free    uint64 // free pages not yet returned to the system
	// The scannable heap (as of the last collection, plus what was
	// allocated since), and the goroutine stacks and globals.
	scanHeap, scanStacks, scanGlobals uint64
	cycles                            uint64 // collections completed
}

// scanWork is a collection's work in scanned bytes: the scannable heap
// (no more than the live heap), stacks and globals, and the live heap's
// pointer-free bytes at noscanShare.
func (h heapSample) scanWork() uint64 {
	scan := min(h.scanHeap, h.live)
	return scan + h.scanStacks + h.scanGlobals + (h.live-scan)/noscanShare
}

// readHeap reads the runtime's figures (ok false if it has none), into
// samples of its own: the servers of one process read them at once.
func readHeap() (h heapSample, ok bool) {
	var m [len(heapMetricNames)]metrics.Sample
	for i, name := range heapMetricNames {
		m[i].Name = name
	}
	metrics.Read(m[:])
	for _, v := range m {
		if v.Value.Kind() != metrics.KindUint64 {
			return h, false
		}
	}
	return heapSample{m[0].Value.Uint64(), m[1].Value.Uint64(), m[2].Value.Uint64(), m[3].Value.Uint64(),
		m[4].Value.Uint64(), m[5].Value.Uint64(), m[6].Value.Uint64(), m[7].Value.Uint64()}, true
}

// gcTuner holds what the GC percent is set from; the cron, every
// connection's transport goroutine and the collection hook change it.
type gcTuner struct {
	mu        sync.Mutex
	percent   int    // the GC percent set last
	transient uint64 // bytes of long requests being read or run (holdTransient)
	work      uint64 // the collection's work (scanWork) at the cron's last reading
	base      uint64 // the live heap when the transient bytes went from none to some
	drain     bool   // collect at once: a long request's bytes have become garbage
	// drained is the bytes of long requests and query buffers that have
	// become garbage since collection drainedAt, which the heap's figures
	// may count as live (noteDrained).
	drained, drainedAt uint64
	hooked             bool // collected is armed for the next collection
	// atSeal: the drain's garbage is collected by the next long request,
	// before it is sealed (collectBeforeSeal), if it comes first.
	atSeal bool
}

// tuneGC sets the GC percent from the live heap the last collection
// measured, and returns an idle heap's headroom; the server's cron calls
// it.
func (s *Server) tuneGC() {
	h, ok := readHeap()
	if !ok {
		return
	}
	s.gc.mu.Lock()
	defer s.gc.mu.Unlock()
	drained := uint64(0)
	if h.cycles == s.gc.drainedAt {
		drained = s.gc.drained
	}
	s.purgeIdleHeap(h, drained, time.Now())
	s.gc.work = h.scanWork()
	s.gc.retune(h.live)
}

// holdTransient adds n bytes (taken back with a negative n) to what long
// requests being read or run hold, and retunes the GC for them.
func (s *Server) holdTransient(n int64) {
	g := &s.gc
	g.mu.Lock()
	defer g.mu.Unlock()
	h, ok := readHeap()
	if g.transient == 0 {
		g.base = h.live
	}
	g.transient = uint64(int64(g.transient) + n)
	if n < 0 && ok {
		g.noteDrained(h, uint64(-n))
	}
	if g.transient == 0 && uint64(-n) > headroomFor(h.live, g.work) {
		g.drain = true
		g.atSeal = ok && collectNow(h.objects, uint64(-n))
	}
	if (g.transient > 0 || g.drain) && !g.hooked {
		g.hooked = true
		afterGC(g.collected)
	}
	if ok {
		g.retune(h.live)
	}
}

// noteGarbage tells the idle-heap purge of n bytes become garbage (a
// query buffer dropped), which the heap's figures may count as live.
func (s *Server) noteGarbage(n uint64) {
	if h, ok := readHeap(); ok {
		s.gc.mu.Lock()
		s.gc.noteDrained(h, n)
		s.gc.mu.Unlock()
	}
}

// noteDrained adds n bytes to drained, which counts from the collection
// before heap h.
func (g *gcTuner) noteDrained(h heapSample, n uint64) {
	if h.cycles != g.drainedAt {
		g.drained, g.drainedAt = 0, h.cycles
	}
	g.drained += n
}

// collectBeforeSeal collects a drain's garbage, if it is still there and
// collectNow said so, before a long request's first part is sealed: left
// to the drain's percent, the collection ran while that request was read,
// whose parts and arguments took new pages where the garbage was not yet
// swept (with the arguments made early, resp.Parser.Seal: a 1M-argument
// DEL right after a 1M-argument MSET peaked at 121-122 MB, 102.3-103.5
// collected first, Redis's 101.5). Collected at the end of the request
// that left the garbage instead, a lone MSET paid for it: 570 ms of CPU
// against 500 (Redis 695; DEL then 182 against 238, Redis 338; load 3).
func (s *Server) collectBeforeSeal() {
	g := &s.gc
	g.mu.Lock()
	now := g.atSeal && g.drain
	g.atSeal = false
	g.mu.Unlock()
	if now {
		runtime.GC()
	}
}

// collectBeforeBulk collects before a buffer of n bytes is made for a big
// bulk, which is then held until its request has run (conn.ReadBuf), when
// the heap is small next to it: the garbage there is would stay until
// then (SET of 200 MB peaked 2 MB over Redis's 212), and such a
// collection costs a fraction of reading the bulk.
func (s *Server) collectBeforeBulk(n int) {
	if h, ok := readHeap(); ok && startGCPercent >= 0 && h.objects <= uint64(n)/4 {
		runtime.GC()
	}
}

// collectNow reports whether a drain of garbage bytes, in a heap whose
// objects (live or not yet collected) take objects bytes, is collected by
// the next long request before it is sealed (collectBeforeSeal): only
// while the heap is at most four times the garbage, since the connection
// waits for the collection, whose cost is the heap's, a few times the
// request's own; a larger heap is collected in the background.
func collectNow(objects, garbage uint64) bool { return objects <= 4*garbage }

// collected retunes after a collection (afterGC) and says whether to be
// called after the next one too: while a hold is on or a drain pending.
func (g *gcTuner) collected() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	h, ok := readHeap()
	if g.drain && g.transient > 0 {
		// A hold begun during the drain found a heap of garbage: it
		// starts from what this collection left instead.
		g.base = h.live
	}
	g.drain, g.atSeal = false, false
	if ok {
		g.retune(h.live)
	}
	g.hooked = g.transient > 0
	return g.hooked
}

// gcSentinel is an object whose cleanup tells afterGC that a collection
// ran; it holds a pointer so that it is not a tiny allocation, which may
// share a block with live objects and never be cleaned up.
type gcSentinel struct{ _ *byte }

// afterGC calls f after the next collection (once its sweep reaches the
// sentinel), and after each one after that while f returns true.
func afterGC(f func() bool) {
	runtime.AddCleanup(new(gcSentinel), func(f func() bool) {
		if f() {
			afterGC(f)
		}
	}, f)
}

// retune sets the GC percent for a live heap of live bytes and the
// transient bytes held.
func (g *gcTuner) retune(live uint64) {
	if startGCPercent != 100 {
		return
	}
	p := gcPercentFor(live, g.work)
	switch {
	case g.drain:
		// Until collected runs, also for a request that came since: a
		// collection soon, and not one after another before collected
		// sets the percent back.
		p = minGCPercent
	case g.transient > 0:
		p = max(p, holdPercent(live, g.base, g.work, g.transient))
	}
	if p != g.percent {
		debug.SetGCPercent(p)
		g.percent = p
	}
}

// gcPercentFor is the GC percent that lets a live heap of live bytes,
// whose collection's work is work bytes (scanWork; 0: unknown, all of the
// heap), grow by an eighth plus gcHeadroom or the work if less, rounded
// down to a multiple of 5 so that a slowly changing heap does not reset
// the pacer at every tick.
func gcPercentFor(live, work uint64) int {
	if live == 0 {
		live = 1 << 20 // before the first collection
	}
	if work == 0 {
		work = live
	}
	p := int((live/8 + min(work, gcHeadroom)) * 100 / live)
	return max(min(p/5*5, 100), minGCPercent)
}

// headroomFor is the garbage gcPercentFor lets a live heap of live bytes
// grow by.
func headroomFor(live, work uint64) uint64 {
	return max(live, 1<<20) * uint64(gcPercentFor(live, work)) / 100
}

// holdPercent is the GC percent that puts the goal of a live heap of live
// bytes where a hold of transient bytes, begun on a live heap of base
// bytes, sets it: base and its headroom, plus 2.5 times the transient
// bytes (see the comment at the top); 0 once the heap is past it.
func holdPercent(live, base, work, transient uint64) int {
	live = max(live, 1<<20)
	goal := base + headroomFor(base, work) + transient*5/2
	if goal <= live {
		return 0
	}
	return int((goal - live) * 100 / live)
}

const (
	// heapQuietPeriod is how long the heap must have been quiet before
	// its headroom goes back to the system.
	heapQuietPeriod = time.Second
	// heapQuietRate is the allocation rate, bytes a second, below which
	// the heap counts as quiet: an idle server's own cron allocates a few
	// KB a second; a busy one serving reads allocates nothing and is
	// quiet too, its heap not growing.
	heapQuietRate = 1 << 20
	// minPurge is the least garbage and free heap worth a collection.
	minPurge = 2 << 20
	// purgeSpacing spaces the purges by this many times the last one's
	// duration, bounding their cost to about 2% of a core for a heap
	// that goes quiet again and again (a full collection of a large heap
	// takes a while).
	purgeSpacing = 50
)

// heapPurge is purgeIdleHeap's state.
type heapPurge struct {
	allocs     uint64    // heapSample.allocs at the last tick
	tick       time.Time // the last tick
	quietSince time.Time // since when the heap has allocated below heapQuietRate
}

// purgeIdleHeap returns the free heap to the system (a collection, then
// the free pages, as MEMORY PURGE) once it is due; drained is the long
// requests' bytes and query buffers become garbage since the last
// collection.
func (s *Server) purgeIdleHeap(h heapSample, drained uint64, now time.Time) {
	if startGCPercent < 0 {
		return // GOGC=off: no collection unless asked
	}
	if s.heapPurge.due(h, drained, now, s.nextPurge.Load()) {
		s.returnMemory()
	}
}

// due follows the heap from tick to tick and reports whether a purge is
// due: the heap has been quiet for heapQuietPeriod, it is past next (unix
// ns) and its garbage and free pages are worth it (purgeWorth). The
// garbage is what was allocated since the last collection, or the bytes
// of long requests and query buffers dropped since (drained) if more: a
// request read while a collection ran has its bytes in that collection's
// live heap (ten 20 MB RPUSH values: 420 MB live, 200 MB of it the query
// buffer's, kept from the system with the server idle, where Redis had
// given them back as the command ended).
func (p *heapPurge) due(h heapSample, drained uint64, now time.Time, next int64) bool {
	if p.tick.IsZero() || float64(h.allocs-p.allocs) > heapQuietRate*now.Sub(p.tick).Seconds() {
		p.quietSince = now
	}
	p.allocs, p.tick = h.allocs, now
	if now.Sub(p.quietSince) < heapQuietPeriod || now.UnixNano() < next {
		return false
	}
	garbage := max(h.objects-min(h.live, h.objects), min(drained, h.objects))
	return h.free+garbage >= purgeWorth(h.live)
}

// purgeWorth is the least garbage and free heap a purge must give back for
// a live heap of live bytes: minPurge, or a sixteenth of a large heap,
// whose collection costs more.
func purgeWorth(live uint64) uint64 { return max(minPurge, live/16) }
