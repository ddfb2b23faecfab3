package store

import "testing"

// TestExpiryHeapAvgTTL follows the mean TTL through pushes, an expiry
// moved later and one moved earlier, and removals.
func TestExpiryHeapAvgTTL(t *testing.T) {
	var h expiryHeap
	a, b, c := &Entry{heapIdx: -1}, &Entry{heapIdx: -1}, &Entry{heapIdx: -1}
	const now = 1_700_000_000_000
	check := func(step string, want int64) {
		t.Helper()
		if got := h.avgTTL(now); got != want {
			t.Errorf("%s: avgTTL %d, want %d", step, got, want)
		}
	}
	check("empty", 0)
	h.push(a, now+1000)
	h.push(b, now+3000)
	check("two keys", 2000)
	h.update(int(a.heapIdx), now+5000) // later: stays in place
	check("a later", 4000)
	h.update(int(b.heapIdx), now+1000) // earlier: sorted up
	check("b earlier", 3000)
	h.push(c, now-3000) // already past: counts as 0 only in the mean
	check("c past", 1000)
	h.remove(int(a.heapIdx))
	check("a removed", 0) // mean of +1000 and -3000 is past
	h.remove(int(c.heapIdx))
	check("c removed", 1000)
	h.remove(int(b.heapIdx))
	check("empty again", 0)
	h.push(a, now+7000) // a new base
	check("refilled", 7000)
}
