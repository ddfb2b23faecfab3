package store

// expiryHeap is a 4-ary min-heap of entries ordered by expiry. Each entry
// records its own index, so changing or removing a TTL is O(log n) and the
// heap never holds stale entries: its size is exactly the number of keys
// with a TTL.
//
// A slot keeps the expiry beside the entry, so ordering reads only the
// heap's own array, and a node has four children, so a sift moves half as
// many entries as in a binary heap (each move writes the entry's heapIdx).
// With 100,000 keys that expire, comparing through the entry pointer cost a
// cache miss per level: the sift-down of active expiry was 2.3% of the CPU
// of a CL.THROTTLE on random keys (perf, BENCHMARKS.md).
type expiryHeap []expirySlot

type expirySlot struct {
	at int64 // the entry's expireAt
	e  *Entry
}

const expiryArity = 4

func (h expiryHeap) set(i int, s expirySlot) {
	h[i] = s
	s.e.heapIdx = int32(i)
}

func (h *expiryHeap) push(e *Entry) {
	*h = append(*h, expirySlot{})
	h.up(len(*h)-1, expirySlot{e.expireAt, e})
}

func (h *expiryHeap) remove(i int) {
	old := *h
	n := len(old) - 1
	removed := old[i].e
	last := old[n]
	old[n] = expirySlot{}
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
func (h expiryHeap) update(i int) {
	e := h[i].e
	h.fix(i, expirySlot{e.expireAt, e})
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
