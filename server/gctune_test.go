package server

import (
	"testing"
	"time"
)

// The GC percent bounds the garbage headroom of a large heap to an eighth
// of it plus gcHeadroom, or plus the collection's work if less, and leaves
// a small heap at GOGC=100; the bytes long requests hold while they are
// read and run come on top.
func TestGCPercentFor(t *testing.T) {
	const mb = 1 << 20
	for _, tc := range []struct {
		live, work, transient uint64 // MB
		want                  int
	}{
		{0, 0, 0, 100},
		{1, 0, 0, 100},
		{8, 8, 0, 100},
		{16, 0, 0, 60},      // work unknown, all of the heap: 2 + 8 MB over 16
		{16, 16, 0, 60},     // the same
		{80, 80, 0, 20},     // 10 + 8 MB over 80: 22.5, rounded down
		{1024, 1024, 0, 10}, // 128 + 8 MB over 1 GB: 13.3
		{64 << 10, 64 << 10, 0, 10},
		{64 << 10, 1, 0, 10}, // never below minGCPercent
		{4, 2, 0, 60},        // a small heap of little work: 0.5 + 2 MB over 4
		{28, 3, 0, 20},       // stream nodes: 3.5 + 3 MB over 28, 23
		{300, 16, 0, 15},     // 37.5 + 8 MB over 300: the work caps only the fixed part
		{80, 80, 40, 70},     // 20, and 50 for 40 MB over 80
		{80, 80, 80, 120},    // at most the live heap again
		{80, 80, 200, 20},    // not for a request larger than the heap
		{8, 8, 34, 100},      // nor on a small heap
		{28, 3, 14, 70},      // little work: 20, and 50 for 14 MB over 28
	} {
		if got := gcPercentFor(tc.live*mb, tc.work*mb, tc.transient*mb); got != tc.want {
			t.Errorf("gcPercentFor(%d MB, %d MB of work, %d MB) = %d, want %d", tc.live, tc.work, tc.transient, got, tc.want)
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
		name  string
		rate  uint64 // bytes allocated a tick
		heap  heapSample
		next  time.Duration // after t0, before which no purge
		ticks int           // the first tick (from 0) a purge is due at, -1 never
	}{
		{"quiet, 9 MB back of a 30 MB heap", 0, heap(30, 1, 8, 0), 0, 10},
		{"a few KB a tick is quiet", 4 << 10, heap(30, 1, 8, 0), 0, 10},
		{"allocating 1 MB a tick", mb, heap(30, 1, 8, 0), 0, -1},
		{"too little to give back", 0, heap(30, 0, 1, 0), 0, -1},
		{"a sixteenth of a large heap", 0, heap(1024, 10, 50, 0), 0, -1},
		{"past a sixteenth of a large heap", 0, heap(1024, 14, 50, 0), 0, 10},
		{"spaced after the last purge", 0, heap(30, 1, 8, 0), 2 * time.Second, 20},
	} {
		var p heapPurge
		got := -1
		for i := 0; i <= 30; i++ {
			h := tc.heap
			h.allocs = uint64(i) * tc.rate
			if p.due(h, t0.Add(time.Duration(i)*tick), t0.Add(tc.next).UnixNano()) {
				got = i
				break
			}
		}
		if got != tc.ticks {
			t.Errorf("%s: due at tick %d, want %d", tc.name, got, tc.ticks)
		}
	}
}
