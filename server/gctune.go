package server

import (
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
// A long request being read adds its own bytes to the headroom
// (holdTransient) until it has run, if it is no larger than the live heap:
// its buffers and arguments are live until then, so a collection they
// trigger frees nothing of them, and each one marks the whole keyspace. A
// 1M-argument DEL of 500,000 keys ran 5 collections of a 100 MB heap, half
// of its CPU, where Redis frees as it goes; the headroom it adds is memory
// the request holds anyway.

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
		m[4].Value.Uint64(), m[5].Value.Uint64(), m[6].Value.Uint64()}, true
}

// gcTuner holds what the GC percent is set from; the cron and every
// connection's transport goroutine change it.
type gcTuner struct {
	mu        sync.Mutex
	percent   int    // the GC percent set last
	transient uint64 // bytes of long requests being read or run (holdTransient)
	work      uint64 // the collection's work (scanWork) at the cron's last reading
}

// tuneGC sets the GC percent from the live heap the last collection
// measured, and returns an idle heap's headroom; the server's cron calls
// it.
func (s *Server) tuneGC() {
	h, ok := readHeap()
	if !ok {
		return
	}
	s.purgeIdleHeap(h, time.Now())
	s.gc.mu.Lock()
	defer s.gc.mu.Unlock()
	s.gc.work = h.scanWork()
	s.gc.retune(h.live)
}

// holdTransient adds n bytes (taken back with a negative n) to what long
// requests being read or run hold, and retunes the GC for them.
func (s *Server) holdTransient(n int64) {
	s.gc.mu.Lock()
	defer s.gc.mu.Unlock()
	s.gc.transient = uint64(int64(s.gc.transient) + n)
	if h, ok := readHeap(); ok {
		s.gc.retune(h.live)
	}
}

// retune sets the GC percent for a live heap of live bytes and the
// transient bytes held.
func (g *gcTuner) retune(live uint64) {
	if startGCPercent != 100 {
		return
	}
	p := gcPercentFor(live, g.work, g.transient)
	if p != g.percent {
		debug.SetGCPercent(p)
		g.percent = p
	}
}

// gcPercentFor is the GC percent that lets a live heap of live bytes,
// whose collection's work is work bytes (scanWork; 0: unknown, all of the
// heap), grow by an eighth plus gcHeadroom or the work if less, rounded
// down to a multiple of 5 so that a slowly changing heap does not reset
// the pacer at every tick, and by the transient bytes of long requests on
// top when they are no more than the live heap.
func gcPercentFor(live, work, transient uint64) int {
	if live == 0 {
		live = 1 << 20 // before the first collection
	}
	if work == 0 {
		work = live
	}
	p := int((live/8 + min(work, gcHeadroom)) * 100 / live)
	p = max(min(p/5*5, 100), minGCPercent)
	// Only for requests no larger than the live heap: a collection during
	// the command counts the request's bytes in the live heap too, and a
	// percent sized for them on a small heap (where collections are cheap)
	// let a 1M-member SADD's garbage grow by 30 MB.
	if transient > live {
		return p
	}
	return p + int(transient*100/live)/5*5
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
// the free pages, as MEMORY PURGE) once it is due.
func (s *Server) purgeIdleHeap(h heapSample, now time.Time) {
	if startGCPercent < 0 {
		return // GOGC=off: no collection unless asked
	}
	if s.heapPurge.due(h, now, s.nextPurge.Load()) {
		s.returnMemory()
	}
}

// due follows the heap from tick to tick and reports whether a purge is
// due: the heap has been quiet for heapQuietPeriod, it is past next (unix
// ns) and its garbage and free pages are worth it (purgeWorth).
func (p *heapPurge) due(h heapSample, now time.Time, next int64) bool {
	if p.tick.IsZero() || float64(h.allocs-p.allocs) > heapQuietRate*now.Sub(p.tick).Seconds() {
		p.quietSince = now
	}
	p.allocs, p.tick = h.allocs, now
	if now.Sub(p.quietSince) < heapQuietPeriod || now.UnixNano() < next {
		return false
	}
	return h.free+h.objects-min(h.live, h.objects) >= purgeWorth(h.live)
}

// purgeWorth is the least garbage and free heap a purge must give back for
// a live heap of live bytes: minPurge, or a sixteenth of a large heap,
// whose collection costs more.
func purgeWorth(live uint64) uint64 { return max(minPurge, live/16) }
