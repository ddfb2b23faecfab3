package store

import "unsafe"

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
//
// The slots are kept in pages of expiryPage slots rather than one array, so
// the heap grows without copying itself: append's regrowth (1.25× past
// 256 entries) copied the whole array again and again, 7% of the CPU of an
// INCREX EX that creates its keys (redis-benchmark on random keys), and at
// ten million keys one copy of 240 MB would stall a command for tens of
// milliseconds where Redis's expires dict rehashes incrementally. The
// first page grows by append, so a database with a few TTLs holds a small
// array; the others are whole pages.
type expiryHeap struct {
	pages [][]expirySlot
	n     int
	// sum is the expiries' total less base each (base: the first
	// expiry pushed into the empty heap), kept small so that it cannot
	// overflow: INFO keyspace's avg_ttl.
	sum, base int64
}

type expirySlot struct {
	e   *Entry
	due int64 // the heap's order: at or earlier (unix ms)
	at  int64 // e's expiry, unix ms
}

const (
	expiryArity     = 4
	expiryPageShift = 10
	expiryPage      = 1 << expiryPageShift // slots a page: 24 KB
)

// len returns the number of keys with a TTL.
func (h *expiryHeap) len() int { return h.n }

// slot returns the slot at i (0 <= i < len).
func (h *expiryHeap) slot(i int) *expirySlot {
	return &h.pages[i>>expiryPageShift][i&(expiryPage-1)]
}

func (h *expiryHeap) set(i int, s expirySlot) {
	*h.slot(i) = s
	s.e.heapIdx = int32(i)
}

func (h *expiryHeap) push(e *Entry, at int64) {
	switch p := h.n >> expiryPageShift; {
	case p == 0:
		if len(h.pages) == 0 {
			h.pages = append(h.pages, nil)
		}
		h.pages[0] = append(h.pages[0], expirySlot{})
	case p == len(h.pages):
		h.pages = append(h.pages, make([]expirySlot, expiryPage))
	}
	if h.n == 0 {
		h.sum, h.base = 0, at
	}
	h.sum += at - h.base
	h.n++
	h.up(h.n-1, expirySlot{e, at, at})
}

// avgTTL is the keys' mean time to live at now, in milliseconds: what
// Redis's avg_ttl estimates from the keys its expiry cycle samples.
func (h *expiryHeap) avgTTL(now int64) int64 {
	if h.n == 0 {
		return 0
	}
	return max(h.base+h.sum/int64(h.n)-now, 0)
}

func (h *expiryHeap) remove(i int) {
	n := h.n - 1
	removed := *h.slot(i)
	h.sum -= removed.at - h.base
	last := *h.slot(n)
	*h.slot(n) = expirySlot{}
	h.n = n
	if n < expiryPage {
		h.pages[0] = h.pages[0][:n]
	}
	removed.e.heapIdx = -1
	if i != n {
		h.fix(i, last)
	}
	h.release()
}

// release gives back what a mass expiry left empty: pages past the one in
// use and a spare, and most of the first page's array.
func (h *expiryHeap) release() {
	if keep := h.n>>expiryPageShift + 2; len(h.pages) > keep {
		clear(h.pages[keep:])
		h.pages = h.pages[:keep]
	}
	if len(h.pages) > 0 {
		if first := h.pages[0]; cap(first) > 1024 && len(first) < cap(first)/4 {
			h.pages[0] = append([]expirySlot(nil), first...)
		}
	}
}

// bytes is what the heap's arrays take, for the accounting.
func (h *expiryHeap) bytes() int {
	if len(h.pages) == 0 {
		return 0
	}
	n := allocSizeScan(int(unsafe.Sizeof(expirySlot{})) * cap(h.pages[0]))
	n += (len(h.pages) - 1) * allocSizeScan(int(unsafe.Sizeof(expirySlot{}))*expiryPage)
	return n + allocSizeScan(int(unsafe.Sizeof([]expirySlot{}))*cap(h.pages))
}

// update gives the key at i the expiry at. A later expiry stays where it
// is, due at its old time (see expiryHeap); an earlier one than that is
// sorted up now.
func (h *expiryHeap) update(i int, at int64) {
	s := h.slot(i)
	h.sum += at - s.at
	if at >= s.due {
		s.at = at
		return
	}
	h.up(i, expirySlot{s.e, at, at})
}

// resort makes the top, whose due time has come but whose expiry has not,
// due at its expiry and sorts it down to its place.
func (h *expiryHeap) resort() {
	s := *h.slot(0)
	s.due = s.at
	h.down(0, s)
}

// fix puts s in the hole at i and moves it down or up to its place.
func (h *expiryHeap) fix(i int, s expirySlot) {
	if i > 0 && s.due < h.slot((i-1)/expiryArity).due {
		h.up(i, s)
		return
	}
	h.down(i, s)
}

// up moves s from the hole at i towards the root.
func (h *expiryHeap) up(i int, s expirySlot) {
	for i > 0 {
		p := (i - 1) / expiryArity
		parent := h.slot(p)
		if s.due >= parent.due {
			break
		}
		h.set(i, *parent)
		i = p
	}
	h.set(i, s)
}

// down moves s from the hole at i towards the leaves.
func (h *expiryHeap) down(i int, s expirySlot) {
	n := h.n
	for {
		first := expiryArity*i + 1
		if first >= n {
			break
		}
		m, least := first, h.slot(first)
		for c := first + 1; c < min(first+expiryArity, n); c++ {
			if child := h.slot(c); child.due < least.due {
				m, least = c, child
			}
		}
		if least.due >= s.due {
			break
		}
		h.set(i, *least)
		i = m
	}
	h.set(i, s)
}
