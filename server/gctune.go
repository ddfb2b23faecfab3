package server

import (
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// The Go runtime lets the heap grow to twice its live size before
// collecting (GOGC=100), and keeps that much from the system: a server
// holding a million small keys would have an RSS of about twice what they
// take. Redis's allocator keeps only a little fragmentation over what is
// live. Once the live heap is large, the server bounds the garbage
// headroom to an eighth of it plus gcHeadroom, adjusted from the cron as
// the heap changes; a small heap keeps GOGC=100, where more collections
// would cost CPU and save little. A GOGC set at startup is left alone.
//
// The headroom serves a server that allocates; one that has gone quiet
// keeps it from the system for nothing (the runtime's scavenger returns
// only what is past 110% of the heap goal). As jemalloc purges the dirty
// pages Redis freed once they have gone unused, the cron collects and
// returns the free heap once the heap has been quiet for heapQuietPeriod
// (purgeIdleHeap): 1M stream entries kept about 9 MB over their 30 MB
// afterwards, 0.3 MB after the purge.

// gcHeadroom is the fixed part of the heap's growth between collections.
const gcHeadroom = 8 << 20

// minGCPercent bounds how often a huge heap is collected.
const minGCPercent = 10

// startGCPercent is the GC percent the process started with (GOGC).
var startGCPercent = func() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}()

// The runtime's figures the cron reads, in heapSample's order.
var heapMetrics = []metrics.Sample{
	{Name: "/gc/heap/live:bytes"},
	{Name: "/gc/heap/allocs:bytes"},
	{Name: "/memory/classes/heap/objects:bytes"},
	{Name: "/memory/classes/heap/free:bytes"},
}

// heapSample is the heap as the runtime reports it.
type heapSample struct {
	live    uint64 // marked live by the last collection
	allocs  uint64 // allocated since the process started
	objects uint64 // in objects, the garbage since the last collection too
	free    uint64 // free pages not yet returned to the system
}

// readHeap reads the runtime's figures (ok false if it has none).
func readHeap() (h heapSample, ok bool) {
	metrics.Read(heapMetrics)
	for _, m := range heapMetrics {
		if m.Value.Kind() != metrics.KindUint64 {
			return h, false
		}
	}
	return heapSample{heapMetrics[0].Value.Uint64(), heapMetrics[1].Value.Uint64(),
		heapMetrics[2].Value.Uint64(), heapMetrics[3].Value.Uint64()}, true
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
	if startGCPercent != 100 {
		return
	}
	p := gcPercentFor(h.live)
	if p != s.gcPercent {
		debug.SetGCPercent(p)
		s.gcPercent = p
	}
}

// gcPercentFor is the GC percent that lets a live heap of live bytes grow
// by an eighth plus gcHeadroom, rounded down to a multiple of 5 so that a
// slowly changing heap does not reset the pacer at every tick.
func gcPercentFor(live uint64) int {
	if live == 0 {
		return 100
	}
	p := int((live/8 + gcHeadroom) * 100 / live)
	return max(min(p/5*5, 100), minGCPercent)
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
	if !s.heapPurge.due(h, now, s.nextPurge.Load()) || !s.returningMemory.CompareAndSwap(false, true) {
		return
	}
	go func() {
		began := time.Now()
		debug.FreeOSMemory()
		s.nextPurge.Store(time.Now().Add(purgeSpacing * time.Since(began)).UnixNano())
		s.returningMemory.Store(false)
	}()
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
