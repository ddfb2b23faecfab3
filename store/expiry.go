package store

// expiryHeap is a 4-ary min-heap of the keys that have a TTL. It holds each
// key's expiry beside its entry: the entry keeps only its position
// (heapIdx), so a key without a TTL carries no expiry field at all, and
// DB.ExpireAt reads the slot. The heap's size is exactly the number of keys
// with a TTL.
//
// The heap is ordered by each slot's due time, which is at most the key's
// expiry: a TTL that moves later only rewrites the slot's expiry, in place,
// and the key keeps its place until its old due time comes, when active
// expiry (Store.ActiveExpire) finds it not yet expired and sorts it down to
// its real expiry then. A limiter sets the deadline of its counter on every
// decision (INCREX EX, CL.THROTTLE, SET EX), always later than the last:
// sorting the key down to the bottom each time read and wrote a slot and
// an entry per level (8 levels for 100,000 keys), 0.3-0.5 µs of a 2.4 µs
// INCREX EX at -P 16 (BENCHMARKS.md). Sorted lazily, a key is moved once
// per TTL instead of once per write, as Redis's expires dict costs O(1).
// A TTL that moves earlier than the due time, or a new one, is sorted up at
// once, so the top's due time is never later than any key's expiry.
//
// With the times in the slot a sift reads its four children's due times
// from the heap's own array instead of through four entry pointers (the
// sift-down of active expiry was 2.3-2.6% of the CPU of a CL.THROTTLE on
// random keys, BENCHMARKS.md).
type expiryHeap []expirySlot

type expirySlot struct {
	e   *Entry
	due int64 // the heap's order: at or earlier (unix ms)
	at  int64 // e's expiry, unix ms
}

const expiryArity = 4

func (h expiryHeap) set(i int, s expirySlot) {
	h[i] = s
	s.e.heapIdx = int32(i)
}

func (h *expiryHeap) push(e *Entry, at int64) {
	*h = append(*h, expirySlot{})
	h.up(len(*h)-1, expirySlot{e, at, at})
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

// update gives the key at i the expiry at. A later expiry stays where it
// is, due at its old time (see expiryHeap); an earlier one than that is
// sorted up now.
func (h expiryHeap) update(i int, at int64) {
	if at >= h[i].due {
		h[i].at = at
		return
	}
	h.up(i, expirySlot{h[i].e, at, at})
}

// resort makes the top, whose due time has come but whose expiry has not,
// due at its expiry and sorts it down to its place.
func (h expiryHeap) resort() {
	s := h[0]
	s.due = s.at
	h.down(0, s)
}

// fix puts s in the hole at i and moves it down or up to its place.
func (h expiryHeap) fix(i int, s expirySlot) {
	if i > 0 && s.due < h[(i-1)/expiryArity].due {
		h.up(i, s)
		return
	}
	h.down(i, s)
}

// up moves s from the hole at i towards the root.
func (h expiryHeap) up(i int, s expirySlot) {
	for i > 0 {
		p := (i - 1) / expiryArity
		if s.due >= h[p].due {
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
			if h[c].due < h[m].due {
				m = c
			}
		}
		if h[m].due >= s.due {
			break
		}
		h.set(i, h[m])
		i = m
	}
	h.set(i, s)
}
