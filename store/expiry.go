package store

// expiryHeap is a 4-ary min-heap of entries ordered by expireAt. Each entry
// records its own index, so changing or removing a TTL is O(log n) and the
// heap never holds stale entries: its size is exactly the number of keys
// with a TTL.
//
// A node has four children, so a sift passes half as many levels as in a
// binary heap: ordering reads each entry's expireAt through its pointer, a
// cache miss per level with 100,000 keys that expire (the sift-down of
// active expiry was 2.3% of the CPU of a CL.THROTTLE on random keys,
// BENCHMARKS.md). A slot holds only the pointer: keeping the expiry beside
// it too would save those misses but cost 8 more bytes a key, which put a
// rate-limit counter above Redis's memory.
type expiryHeap []*Entry

const expiryArity = 4

func (h expiryHeap) set(i int, e *Entry) {
	h[i] = e
	e.heapIdx = int32(i)
}

func (h *expiryHeap) push(e *Entry) {
	*h = append(*h, nil)
	h.up(len(*h)-1, e)
}

func (h *expiryHeap) remove(i int) {
	old := *h
	n := len(old) - 1
	removed := old[i]
	last := old[n]
	old[n] = nil
	*h = old[:n]
	removed.heapIdx = -1
	if i != n {
		h.fix(i, last)
	}
	// Release the backing array after a mass expiry.
	if cap(*h) > 1024 && len(*h) < cap(*h)/4 {
		*h = append(expiryHeap(nil), (*h)...)
	}
}

// update re-sorts the entry at i after its expireAt changed.
func (h expiryHeap) update(i int) { h.fix(i, h[i]) }

// fix puts e in the hole at i and moves it down or up to its place.
func (h expiryHeap) fix(i int, e *Entry) {
	if i > 0 && e.expireAt < h[(i-1)/expiryArity].expireAt {
		h.up(i, e)
		return
	}
	h.down(i, e)
}

// up moves e from the hole at i towards the root.
func (h expiryHeap) up(i int, e *Entry) {
	for i > 0 {
		p := (i - 1) / expiryArity
		if e.expireAt >= h[p].expireAt {
			break
		}
		h.set(i, h[p])
		i = p
	}
	h.set(i, e)
}

// down moves e from the hole at i towards the leaves.
func (h expiryHeap) down(i int, e *Entry) {
	n := len(h)
	for {
		first := expiryArity*i + 1
		if first >= n {
			break
		}
		m := first
		for c := first + 1; c < min(first+expiryArity, n); c++ {
			if h[c].expireAt < h[m].expireAt {
				m = c
			}
		}
		if h[m].expireAt >= e.expireAt {
			break
		}
		h.set(i, h[m])
		i = m
	}
	h.set(i, e)
}
