package server

import (
	"runtime"
	"runtime/debug"
	"testing"
	"time"

	"github.com/floodgate/floodgate/internal/redistest"
)

// The GC percent bounds the garbage headroom of a large heap to an eighth
// of it plus gcHeadroom, or plus the collection's work if less, and leaves
// a small heap at GOGC=100.
func TestGCPercentFor(t *testing.T) {
	const mb = 1 << 20
	for _, tc := range []struct {
		live, work uint64 // MB
		want       int
	}{
		{0, 0, 100},
		{1, 0, 100},
		{8, 8, 100},
		{16, 0, 60},      // work unknown, all of the heap: 2 + 8 MB over 16
		{16, 16, 60},     // the same
		{80, 80, 20},     // 10 + 8 MB over 80: 22.5, rounded down
		{1024, 1024, 10}, // 128 + 8 MB over 1 GB: 13.3
		{64 << 10, 64 << 10, 10},
		{64 << 10, 1, 10}, // never below minGCPercent
		{4, 2, 60},        // a small heap of little work: 0.5 + 2 MB over 4
		{28, 3, 20},       // stream nodes: 3.5 + 3 MB over 28, 23
		{300, 16, 15},     // 37.5 + 8 MB over 300: the work caps only the fixed part
	} {
		if got := gcPercentFor(tc.live*mb, tc.work*mb); got != tc.want {
			t.Errorf("gcPercentFor(%d MB, %d MB of work) = %d, want %d", tc.live, tc.work, got, tc.want)
		}
	}
}

// A collection's work is the scannable heap, no more than the live heap,
// with the stacks and globals, and the pointer-free rest at noscanShare.
func TestScanWork(t *testing.T) {
	const mb = 1 << 20
	for _, tc := range []struct {
		h    heapSample
		want uint64
	}{
		{heapSample{live: 28 * mb, scanHeap: 1 * mb, scanGlobals: mb / 2}, 1*mb + mb/2 + 27*mb/noscanShare},
		{heapSample{live: 50 * mb, scanHeap: 60 * mb, scanStacks: mb}, 51 * mb}, // allocated since the collection
		{heapSample{}, 0},
	} {
		if got := tc.h.scanWork(); got != tc.want {
			t.Errorf("scanWork(%+v) = %d, want %d", tc.h, got, tc.want)
		}
	}
}

// While long requests are held, the goal is the heap they found, its
// headroom and 2.5 times their bytes, whatever the heap has grown to since.
func TestHoldPercent(t *testing.T) {
	for _, tc := range []struct {
		live, base, transient uint64
		want                  int
	}{
		{3 << 20, 3 << 20, 40 << 20, 3433},  // 3 + 3 + 100 MB over 3
		{0, 0, 40 << 20, 10000},             // 0 + 1 + 100 MB over a first 1 MB
		{53 << 20, 3 << 20, 40 << 20, 100},  // 106 MB over 53: the request is in the heap now
		{106 << 20, 3 << 20, 40 << 20, 0},   // at the goal
		{150 << 20, 3 << 20, 40 << 20, 0},   // past it: the heap's own percent then
		{80 << 20, 80 << 20, 40 << 20, 145}, // 80 + 16 (its 20%) + 100 MB over 80
	} {
		if got := holdPercent(tc.live, tc.base, 0, tc.transient); got != tc.want {
			t.Errorf("holdPercent(%d MB, %d MB, %d MB) = %d, want %d", tc.live>>20, tc.base>>20, tc.transient>>20, got, tc.want)
		}
	}
}

// A collection during a hold sets the percent anew from the heap it
// found, and one after the hold's bytes became garbage ends the drain.
func TestHoldRetunesAfterCollection(t *testing.T) {
	if startGCPercent != 100 {
		t.Skip("GOGC is set: the tuner leaves the GC alone")
	}
	defer debug.SetGCPercent(100)
	var srv Server
	g := &srv.gc
	// wantPercent is what the tuner must set for the heap the last
	// collection measured.
	wantPercent := func() int {
		h, _ := readHeap()
		if g.transient == 0 {
			return gcPercentFor(h.live, g.work)
		}
		return max(gcPercentFor(h.live, g.work), holdPercent(h.live, g.base, g.work, g.transient))
	}
	// collect runs a collection and waits until what holds after it.
	collect := func(what string, holds func() bool) {
		t.Helper()
		runtime.GC()
		redistest.Eventually(t, what, func() bool {
			g.mu.Lock()
			defer g.mu.Unlock()
			return holds()
		})
	}
	// A hold is only a count: this one is larger than any test heap's
	// headroom, so that its end is a drain.
	const hold = 256 << 20
	srv.holdTransient(hold)
	g.mu.Lock()
	before := g.percent
	g.mu.Unlock()
	ballast := make([]byte, 32<<20)
	// While the hold is on the hook follows every collection, so the
	// percent catches up with whatever heap the last one measured.
	collect("the percent set again after a collection during the hold", func() bool {
		return g.hooked && g.percent == wantPercent()
	})
	if g.percent == before {
		t.Fatalf("the percent is still %d with %d MB more live", before, len(ballast)>>20)
	}
	runtime.KeepAlive(ballast)
	srv.holdTransient(-hold)
	if !g.atSeal {
		t.Fatal("the end of a hold larger than the heap: not to be collected before the next seal")
	}
	if g.percent != minGCPercent || !g.drain {
		t.Fatalf("after the hold: percent %d, drain %v; want %d, a drain", g.percent, g.drain, minGCPercent)
	}
	// The drain's hook is the last: other collections may follow, so the
	// percent is the heap's own for the one it saw.
	collect("the drain ended by a collection", func() bool { return !g.drain && !g.hooked })
	if h, _ := readHeap(); g.percent == minGCPercent && gcPercentFor(h.live, g.work) != minGCPercent {
		t.Fatalf("the percent stayed at the drain's %d", g.percent)
	}
}

// An idle heap's headroom goes back to the system once the heap has been
// quiet for heapQuietPeriod and the garbage and free pages are worth a
// collection, not while it allocates, nor before the last purge's spacing.
func TestHeapPurgeDue(t *testing.T) {
	const mb = 1 << 20
	t0 := time.Unix(1000, 0)
	tick := 100 * time.Millisecond
	// heap is a sample with the given live, garbage and free MB, allocs
	// bytes allocated so far.
	heap := func(live, garbage, free, allocs uint64) heapSample {
		return heapSample{live: live * mb, allocs: allocs, objects: (live + garbage) * mb, free: free * mb}
	}
	for _, tc := range []struct {
		name    string
		rate    uint64 // bytes allocated a tick
		heap    heapSample
		drained uint64        // MB of long requests drained since the last collection
		next    time.Duration // after t0, before which no purge
		ticks   int           // the first tick (from 0) a purge is due at, -1 never
	}{
		{"quiet, 9 MB back of a 30 MB heap", 0, heap(30, 1, 8, 0), 0, 0, 10},
		{"a few KB a tick is quiet", 4 << 10, heap(30, 1, 8, 0), 0, 0, 10},
		{"allocating 1 MB a tick", mb, heap(30, 1, 8, 0), 0, 0, -1},
		{"too little to give back", 0, heap(30, 0, 1, 0), 0, 0, -1},
		{"a sixteenth of a large heap", 0, heap(1024, 10, 50, 0), 0, 0, -1},
		{"past a sixteenth of a large heap", 0, heap(1024, 14, 50, 0), 0, 0, 10},
		{"spaced after the last purge", 0, heap(30, 1, 8, 0), 0, 2 * time.Second, 20},
		// A request's bytes live at the last collection, garbage now.
		{"a drained request counted live", 0, heap(420, 0, 0, 0), 200, 0, 10},
		{"a drained request's bytes in the garbage too", 0, heap(220, 200, 0, 0), 200, 0, 10},
		{"a small drain of a large heap", 0, heap(420, 0, 0, 0), 20, 0, -1},
	} {
		var p heapPurge
		got := -1
		for i := 0; i <= 30; i++ {
			h := tc.heap
			h.allocs = uint64(i) * tc.rate
			if p.due(h, tc.drained*mb, t0.Add(time.Duration(i)*tick), t0.Add(tc.next).UnixNano()) {
				got = i
				break
			}
		}
		if got != tc.ticks {
			t.Errorf("%s: due at tick %d, want %d", tc.name, got, tc.ticks)
		}
	}
}

// A drain is collected before the next long request is sealed while the heap is at most four times its
// garbage.
func TestCollectNow(t *testing.T) {
	const mb = 1 << 20
	for _, tc := range []struct {
		objects, garbage uint64
		want             bool
	}{
		{83 * mb, 34 * mb, true},   // after a 1M-argument MSET
		{136 * mb, 34 * mb, true},  // four times
		{137 * mb, 34 * mb, false}, // more: the background collects
		{1 << 30, 200 * mb, false},
	} {
		if got := collectNow(tc.objects, tc.garbage); got != tc.want {
			t.Errorf("collectNow(%d MB, %d MB) = %v, want %v", tc.objects/mb, tc.garbage/mb, got, tc.want)
		}
	}
}

// The next long request collects a pending drain's garbage before its
// first seal, once.
func TestCollectBeforeSeal(t *testing.T) {
	var srv Server
	g := &srv.gc
	g.drain, g.atSeal = true, true
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	srv.collectBeforeSeal()
	runtime.ReadMemStats(&after)
	if after.NumGC == before.NumGC {
		t.Fatal("no collection before the seal")
	}
	if g.atSeal {
		t.Fatal("still to be collected at the next seal")
	}
}
