package server

import "testing"

// The GC percent bounds the garbage headroom of a large heap to an eighth
// of it plus gcHeadroom, and leaves a small heap at GOGC=100.
func TestGCPercentFor(t *testing.T) {
	for _, tc := range []struct {
		live uint64
		want int
	}{
		{0, 100},
		{1 << 20, 100},
		{8 << 20, 100},
		{16 << 20, 60}, // 2 + 8 MB over 16
		{80 << 20, 20}, // 10 + 8 MB over 80: 22.5, rounded down
		{1 << 30, 10},  // 128 + 8 MB over 1 GB: 13.3
		{64 << 30, 10}, // never below minGCPercent
	} {
		if got := gcPercentFor(tc.live); got != tc.want {
			t.Errorf("gcPercentFor(%d MB) = %d, want %d", tc.live>>20, got, tc.want)
		}
	}
}
