package server

import (
	"testing"
	"time"
)

// The GC percent bounds the garbage headroom of a large heap to an eighth
// of it plus gcHeadroom, and leaves a small heap at GOGC=100; the bytes
// long requests hold while they are read and run come on top.
func TestGCPercentFor(t *testing.T) {
	for _, tc := range []struct {
		live, transient uint64
		want            int
	}{
		{0, 0, 100},
		{1 << 20, 0, 100},
		{8 << 20, 0, 100},
		{16 << 20, 0, 60},         // 2 + 8 MB over 16
		{80 << 20, 0, 20},         // 10 + 8 MB over 80: 22.5, rounded down
		{1 << 30, 0, 10},          // 128 + 8 MB over 1 GB: 13.3
		{64 << 30, 0, 10},         // never below minGCPercent
		{80 << 20, 40 << 20, 70},  // 20, and 50 for 40 MB over 80
		{80 << 20, 80 << 20, 120}, // at most the live heap again
		{80 << 20, 200 << 20, 20}, // not for a request larger than the heap
		{8 << 20, 34 << 20, 100},  // nor on a small heap
	} {
		if got := gcPercentFor(tc.live, tc.transient); got != tc.want {
			t.Errorf("gcPercentFor(%d MB, %d MB) = %d, want %d", tc.live>>20, tc.transient>>20, got, tc.want)
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
