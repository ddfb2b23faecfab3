package server

import "testing"

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
