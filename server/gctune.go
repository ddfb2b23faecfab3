package server

import (
	"runtime/debug"
	"runtime/metrics"
	"sync"
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
// A long request being read adds its own bytes to the headroom
// (holdTransient) until it has run, if it is no larger than the live
// heap: its buffers and
// arguments are live until then, so a collection they trigger frees
// nothing of them, and each one marks the whole keyspace. A 1M-argument DEL of 500,000 keys
// ran 5 collections of a 100 MB heap, half of its CPU, where Redis frees
// as it goes; the headroom it adds is memory the request holds anyway.

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

// gcTuner holds what the GC percent is set from; the cron and every
// connection's transport goroutine change it.
type gcTuner struct {
	mu        sync.Mutex
	percent   int    // the GC percent set last
	transient uint64 // bytes of long requests being read or run (holdTransient)
}

// tuneGC sets the GC percent from the live heap the last collection
// measured; the server's cron calls it.
func (s *Server) tuneGC() {
	s.gc.mu.Lock()
	defer s.gc.mu.Unlock()
	s.gc.retune()
}

// holdTransient adds n bytes (taken back with a negative n) to what long
// requests being read or run hold, and retunes the GC for them.
func (s *Server) holdTransient(n int64) {
	s.gc.mu.Lock()
	defer s.gc.mu.Unlock()
	s.gc.transient = uint64(int64(s.gc.transient) + n)
	s.gc.retune()
}

func (g *gcTuner) retune() {
	if startGCPercent != 100 {
		return
	}
	metrics.Read(liveHeap)
	if liveHeap[0].Value.Kind() != metrics.KindUint64 {
		return
	}
	p := gcPercentFor(liveHeap[0].Value.Uint64(), g.transient)
	if p != g.percent {
		debug.SetGCPercent(p)
		g.percent = p
	}
}

// gcPercentFor is the GC percent that lets a live heap of live bytes grow
// by an eighth plus gcHeadroom, rounded down to a multiple of 5 so that a
// slowly changing heap does not reset the pacer at every tick, and by the
// transient bytes of long requests on top when they are no more than
// the live heap.
func gcPercentFor(live, transient uint64) int {
	if live == 0 {
		live = 1 << 20 // before the first collection
	}
	p := int((live/8 + gcHeadroom) * 100 / live)
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
