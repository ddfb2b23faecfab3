package store

// expiryHeap is a binary min-heap of entries ordered by expireAt. Each entry
// records its own index, so changing or removing a TTL is O(log n) and the
// heap never holds stale entries: its size is exactly the number of keys
// with a TTL.
type expiryHeap []*Entry

func (h expiryHeap) less(i, j int) bool { return h[i].expireAt < h[j].expireAt }

func (h expiryHeap) swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].heapIdx = int32(i)
	h[j].heapIdx = int32(j)
}

func (h *expiryHeap) push(e *Entry) {
	e.heapIdx = int32(len(*h))
	*h = append(*h, e)
	h.up(len(*h) - 1)
}

func (h *expiryHeap) remove(i int) {
	old := *h
	n := len(old) - 1
	removed := old[i]
	if i != n {
		old.swap(i, n)
	}
	old[n] = nil
	*h = old[:n]
	removed.heapIdx = -1
	if i != n {
		if !h.down(i) {
			h.up(i)
		}
	}
	// Release the backing array after a mass expiry.
	if cap(*h) > 1024 && len(*h) < cap(*h)/4 {
		*h = append(expiryHeap(nil), (*h)...)
	}
}

func (h expiryHeap) fix(i int) {
	if !h.down(i) {
		h.up(i)
	}
}

func (h expiryHeap) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !h.less(i, p) {
			return
		}
		h.swap(i, p)
		i = p
	}
}

func (h expiryHeap) down(i int) bool {
	start := i
	n := len(h)
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && h.less(r, l) {
			m = r
		}
		if !h.less(m, i) {
			break
		}
		h.swap(i, m)
		i = m
	}
	return i > start
}
