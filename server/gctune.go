package server

import (
	"runtime/debug"
	"runtime/metrics"
)

// The Go runtime lets the heap grow to twice its live size before
// collecting (GOGC=100), and keeps that much from the system: a server
// holding a million small keys would have an RSS of about twice what they
// take. Redis's allocator keeps only a little fragmentation over what is
// live. Once the live heap is large, the server bounds the garbage
// headroom to an eighth of it plus gcHeadroom, adjusted from the cron as
// the heap changes; a small heap keeps GOGC=100, where more collections
// would cost CPU and save little. A GOGC set at startup is left alone.

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

var liveHeap = []metrics.Sample{{Name: "/gc/heap/live:bytes"}}

// tuneGC sets the GC percent from the live heap the last collection
// measured; the server's cron calls it.
func (s *Server) tuneGC() {
	if startGCPercent != 100 {
		return
	}
	metrics.Read(liveHeap)
	if liveHeap[0].Value.Kind() != metrics.KindUint64 {
		return
	}
	p := gcPercentFor(liveHeap[0].Value.Uint64())
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
