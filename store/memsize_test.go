package store

import (
	"slices"
	"testing"

	"github.com/floodgate/floodgate/internal/redistest"
)

// TestAllocSize checks the accounting's size classes against the running
// allocator: a slice grown from nil gets its class's capacity (less the
// header the allocator keeps in an object with pointers past 512 bytes).
func TestAllocSize(t *testing.T) {
	t.Parallel()
	redistest.SkipUnderRace(t) // and it is the production allocator it checks against

	sizes := func(max int) (ns []int) { // every small size, and large ones about page bounds
		for n := 1; n <= max; n++ {
			if n <= smallSizeMax+8 || n%8192 <= 8 || n%8192 >= 8184 {
				ns = append(ns, n)
			}
		}
		return ns
	}
	for _, n := range sizes(3 * smallSizeMax) {
		if got, want := allocSize(n), cap(slices.Grow([]byte(nil), n)); got != want {
			t.Fatalf("allocSize(%d) = %d, the allocator gives %d", n, got, want)
		}
	}
	for _, n := range sizes(3 * smallSizeMax) {
		if n%8 != 0 {
			continue
		}
		k := n / 8
		got := allocSizeScan(8 * k)
		want := 8 * cap(slices.Grow([]*Entry(nil), k))
		if 8*k > 512 && 8*k <= smallSizeMax-8 {
			want += 8 // the header, inside the allocation
		}
		if got != want {
			t.Fatalf("allocSizeScan(%d) = %d, the allocator gives %d", 8*k, got, want)
		}
	}
}
