package store

// expiryHeap is a 4-ary min-heap of the keys that have a TTL, ordered by
// their expiry. It holds each key's expiry beside its entry: the entry
// keeps only its position (heapIdx), so a key without a TTL carries no
// expiry field at all, and DB.ExpireAt reads the slot. Changing or removing
// a TTL is O(log n), and the heap never holds stale slots: its size is
// exactly the number of keys with a TTL.
//
// With the expiry in the slot a sift reads its four children's expiries
// from one cache line instead of through four entry pointers (the
// sift-down of active expiry was 2.3-2.6% of the CPU of a CL.THROTTLE on
// random keys, BENCHMARKS.md); the 8 bytes the slot grows by are the 8 the
// entry no longer has, which put keys of up to 14 bytes in a 48-byte entry.
type expiryHeap []expirySlot

type expirySlot struct {
	e  *Entry
	at int64 // e's expiry, unix ms
}

const expiryArity = 4

func (h expiryHeap) set(i int, s expirySlot) {
	h[i] = s
	s.e.heapIdx = int32(i)
}

func (h *expiryHeap) push(e *Entry, at int64) {
	*h = append(*h, expirySlot{})
	h.up(len(*h)-1, expirySlot{e, at})
}

func (h *expiryHeap) remove(i int) {
	old := *h
	n := len(old) - 1
	removed := old[i]
	last := old[n]
	old[n] = expirySlot{}
	*h = old[:n]
	removed.e.heapIdx = -1
	if i != n {
		h.fix(i, last)
	}
	// Release the backing array after a mass expiry.
	if cap(*h) > 1024 && len(*h) < cap(*h)/4 {
		*h = append(expiryHeap(nil), (*h)...)
	}
}

// update gives the key at i the expiry at and re-sorts it.
func (h expiryHeap) update(i int, at int64) {
	s := h[i]
	s.at = at
	h.fix(i, s)
}

// fix puts s in the hole at i and moves it down or up to its place.
func (h expiryHeap) fix(i int, s expirySlot) {
	if i > 0 && s.at < h[(i-1)/expiryArity].at {
		h.up(i, s)
		return
	}
	h.down(i, s)
}

// up moves s from the hole at i towards the root.
func (h expiryHeap) up(i int, s expirySlot) {
	for i > 0 {
		p := (i - 1) / expiryArity
		if s.at >= h[p].at {
			break
		}
		h.set(i, h[p])
		i = p
	}
	h.set(i, s)
}

// down moves s from the hole at i towards the leaves.
func (h expiryHeap) down(i int, s expirySlot) {
	n := len(h)
	for {
		first := expiryArity*i + 1
		if first >= n {
			break
		}
		m := first
		for c := first + 1; c < min(first+expiryArity, n); c++ {
			if h[c].at < h[m].at {
				m = c
			}
		}
		if h[m].at >= s.at {
			break
		}
		h.set(i, h[m])
		i = m
	}
	h.set(i, s)
}
