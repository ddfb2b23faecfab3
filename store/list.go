package store

import (
	"bytes"
	"encoding/binary"
	"slices"
)

// listChunkMax is the size a chunk grows to before a new one is started.
// Small enough that the linear passes inside a chunk (RPOP finding the new
// last element, LINDEX) stay cheap, large enough that the per-chunk
// overhead (32 bytes) is ~2% of the elements it holds.
const listChunkMax = 2048

// List is a list value. Like Redis's quicklist, it is a deque of chunks,
// each one byte buffer packing its elements as [uvarint length][bytes] (a
// listpack without the back-length: 1 byte of overhead per short element
// where Redis spends 2). Buffers grow to Go's next allocation size class
// rather than doubling, so a list costs about what its bytes do.
//
// Pushes and pops at either end are O(1) (bounded by a chunk's size); index
// based access walks the chunks from the nearer end, as Redis does.
// Elements passed to callbacks alias internal memory and are valid only
// until the list is next modified; popped elements are copies.
type List struct {
	ring   []listChunk // the chunks are ring[lo:hi], head first
	lo, hi int
	n      int
	// fill and depth are the list-max-listpack-size and
	// list-compress-depth the list was created with (Encodings.NewList):
	// they decide how DUMP and the RDB split it into quicklist nodes.
	fill  int16
	depth uint16
}

// listChunk is a run of elements in buf[off:]. buf has room before off for
// pushes at the head and room past len(buf) for pushes at the tail.
type listChunk struct {
	buf []byte
	off int32
	n   int32
}

// NewList returns an empty list with Redis's default node options.
func NewList() *List { return DefaultEncodings.NewList() }

// NodeOptions returns the quicklist fill and compress depth the list was
// created with.
func (l *List) NodeOptions() (fill, depth int) { return int(l.fill), int(l.depth) }

// Kind implements Value.
func (*List) Kind() Kind { return KindList }

// Encoding implements Value: Redis 7.0 reports every list as a quicklist.
func (*List) Encoding() string { return "quicklist" }

// Clone implements Value.
func (l *List) Clone() Value {
	c := &List{n: l.n, fill: l.fill, depth: l.depth}
	chunks := l.chunks()
	c.ring = make([]listChunk, len(chunks))
	for i, ch := range chunks {
		c.ring[i] = listChunk{buf: slices.Clone(ch.buf[ch.off:]), n: ch.n}
	}
	c.hi = len(chunks)
	return c
}

// Len returns the number of elements.
func (l *List) Len() int { return l.n }

func (l *List) chunks() []listChunk { return l.ring[l.lo:l.hi] }

func elemSize(v []byte) int {
	n := 1
	for x := len(v); x >= 0x80; x >>= 7 {
		n++
	}
	return n + len(v)
}

// next decodes the element at off in buf and returns it and the offset of
// the element after it.
func next(buf []byte, off int) ([]byte, int) {
	n, w := binary.Uvarint(buf[off:])
	start := off + w
	end := start + int(n)
	return buf[start:end:end], end
}

// sizeClass rounds n up to Go's allocation size class (allocSize), and a
// request for nothing up to the smallest class: a buffer of that capacity
// costs the same memory as one of n bytes. It never rounds below the
// runtime's classes (TestAllocSize), which the intset's in-place growth
// relies on.
func sizeClass(n int) int { return allocSize(max(n, 1)) }

// PushBack appends vals at the tail, in order.
func (l *List) PushBack(vals ...[]byte) {
	for len(vals) > 0 {
		ch := l.tailChunk()
		need, k := fitting(ch, vals)
		if k == 0 {
			l.addChunk(false)
			continue
		}
		if cap(ch.buf)-len(ch.buf) < need {
			live := ch.buf[ch.off:]
			buf := make([]byte, len(live), l.grownSize(len(live)+need, cap(ch.buf)))
			copy(buf, live)
			ch.buf, ch.off = buf, 0
		}
		for _, v := range vals[:k] {
			ch.buf = binary.AppendUvarint(ch.buf, uint64(len(v)))
			ch.buf = append(ch.buf, v...)
		}
		ch.n += int32(k)
		l.n += k
		vals = vals[k:]
	}
}

// PushFront inserts each of vals at the head in turn (LPUSH a b c leaves
// c first).
func (l *List) PushFront(vals ...[]byte) {
	for len(vals) > 0 {
		ch := l.headChunk()
		need, k := fitting(ch, vals)
		if k == 0 {
			l.addChunk(true)
			continue
		}
		if int(ch.off) < need {
			live := ch.buf[ch.off:]
			size := l.grownSize(len(live)+need, len(ch.buf))
			buf := make([]byte, size)
			copy(buf[size-len(live):], live)
			ch.buf, ch.off = buf, int32(size-len(live))
		}
		for _, v := range vals[:k] {
			ch.off -= int32(elemSize(v))
			at := int(ch.off) + binary.PutUvarint(ch.buf[ch.off:], uint64(len(v)))
			copy(ch.buf[at:], v)
		}
		ch.n += int32(k)
		l.n += k
		vals = vals[k:]
	}
}

// fitting returns how many of vals (k) fit in ch, at least one if ch is
// empty, and the bytes they take, so that one RPUSH grows a chunk once.
func fitting(ch *listChunk, vals [][]byte) (need, k int) {
	room := listChunkMax - (len(ch.buf) - int(ch.off))
	for k < len(vals) && (need+elemSize(vals[k]) <= room || ch.n == 0 && k == 0) {
		need += elemSize(vals[k])
		k++
	}
	return need, k
}

// grownSize is the new size of a chunk buffer that must hold n bytes. The
// only chunk of a small list grows to exactly n (rounded to a size class),
// as a listpack does, since many small lists are the common case; the end
// chunk of a longer list will most likely fill up, so it doubles instead of
// being copied on every push.
func (l *List) grownSize(n, old int) int {
	size := sizeClass(n)
	if l.hi-l.lo > 1 {
		size = max(size, min(listChunkMax, 2*old))
	}
	return size
}

func (l *List) headChunk() *listChunk {
	if l.lo == l.hi {
		l.addChunk(true)
	}
	return &l.ring[l.lo]
}

func (l *List) tailChunk() *listChunk {
	if l.lo == l.hi {
		l.addChunk(false)
	}
	return &l.ring[l.hi-1]
}

// addChunk adds an empty chunk at the head or the tail. When that end of
// the ring is full, the ring is reallocated with a quarter of its chunks'
// count as room at that end: amortized O(1) per chunk, and a long list's
// ring stays within 25% of its size (a list of one chunk has a ring of one).
func (l *List) addChunk(head bool) {
	if head && l.lo == 0 || !head && l.hi == len(l.ring) {
		count := l.hi - l.lo
		slack := count/4 + 1
		ring := make([]listChunk, count+slack)
		lo := 0
		if head {
			lo = slack
		}
		copy(ring[lo:], l.ring[l.lo:l.hi])
		l.ring, l.lo, l.hi = ring, lo, lo+count
	}
	if head {
		l.lo--
		l.ring[l.lo] = listChunk{}
	} else {
		l.ring[l.hi] = listChunk{}
		l.hi++
	}
}

// dropChunk forgets the empty chunk at the head or the tail.
func (l *List) dropChunk(head bool) {
	if head {
		l.ring[l.lo] = listChunk{}
		l.lo++
	} else {
		l.hi--
		l.ring[l.hi] = listChunk{}
	}
	if l.lo == l.hi {
		l.ring, l.lo, l.hi = nil, 0, 0
	}
}

// Push inserts vals at the head (front) or the tail, in turn.
func (l *List) Push(front bool, vals ...[]byte) {
	if front {
		l.PushFront(vals...)
	} else {
		l.PushBack(vals...)
	}
}

// Pop removes and returns the head (front) or the tail element, or nil if
// the list is empty.
func (l *List) Pop(front bool) []byte {
	if front {
		return l.PopFront()
	}
	return l.PopBack()
}

// PopFront removes and returns the head element, or nil if the list is
// empty.
func (l *List) PopFront() []byte {
	if l.n == 0 {
		return nil
	}
	ch := &l.ring[l.lo]
	v, end := next(ch.buf, int(ch.off))
	v = slices.Clone(v)
	if v == nil {
		v = []byte{}
	}
	ch.off = int32(end)
	ch.n--
	l.n--
	if ch.n == 0 {
		l.dropChunk(true)
	}
	return v
}

// PopBack removes and returns the tail element, or nil if the list is
// empty.
func (l *List) PopBack() []byte {
	if l.n == 0 {
		return nil
	}
	ch := &l.ring[l.hi-1]
	at := offsetOf(ch, int(ch.n)-1)
	v, _ := next(ch.buf, at)
	v = slices.Clone(v)
	if v == nil {
		v = []byte{}
	}
	ch.buf = ch.buf[:at]
	ch.n--
	l.n--
	if ch.n == 0 {
		l.dropChunk(false)
	}
	return v
}

// offsetOf returns the offset in ch.buf of the chunk's i-th element.
func offsetOf(ch *listChunk, i int) int {
	off := int(ch.off)
	for ; i > 0; i-- {
		_, off = next(ch.buf, off)
	}
	return off
}

// locate returns the chunk holding element i (0 <= i < Len) and i's index
// within it, walking from the nearer end.
func (l *List) locate(i int) (ci, j int) {
	if i < l.n/2 {
		for ci = l.lo; ; ci++ {
			if n := int(l.ring[ci].n); i < n {
				return ci, i
			} else {
				i -= n
			}
		}
	}
	back := l.n - 1 - i
	for ci = l.hi - 1; ; ci-- {
		if n := int(l.ring[ci].n); back < n {
			return ci, n - 1 - back
		} else {
			back -= n
		}
	}
}

// Index returns element i (negative: from the tail), or false if out of
// range.
func (l *List) Index(i int) ([]byte, bool) {
	if i < 0 {
		i += l.n
	}
	if i < 0 || i >= l.n {
		return nil, false
	}
	ci, j := l.locate(i)
	ch := &l.ring[ci]
	v, _ := next(ch.buf, offsetOf(ch, j))
	return v, true
}

// Set replaces element i (negative: from the tail) and reports whether it
// was in range.
func (l *List) Set(i int, v []byte) bool {
	if i < 0 {
		i += l.n
	}
	if i < 0 || i >= l.n {
		return false
	}
	ci, j := l.locate(i)
	elems := chunkElems(&l.ring[ci])
	elems[j] = v
	l.replaceChunk(ci, elems)
	return true
}

// chunkElems returns the chunk's elements (aliasing its buffer).
func chunkElems(ch *listChunk) [][]byte {
	out := make([][]byte, 0, ch.n)
	off := int(ch.off)
	for range ch.n {
		var v []byte
		v, off = next(ch.buf, off)
		out = append(out, v)
	}
	return out
}

// replaceChunk replaces chunk ci with elems, packed into as many chunks as
// they need (none if elems is empty).
func (l *List) replaceChunk(ci int, elems [][]byte) {
	var repl []listChunk
	for len(elems) > 0 {
		size, k := 0, 0
		for k < len(elems) && (size+elemSize(elems[k]) <= listChunkMax || k == 0) {
			size += elemSize(elems[k])
			k++
		}
		buf := make([]byte, 0, sizeClass(size))
		for _, v := range elems[:k] {
			buf = binary.AppendUvarint(buf, uint64(len(v)))
			buf = append(buf, v...)
		}
		repl = append(repl, listChunk{buf: buf, n: int32(k)})
		elems = elems[k:]
	}
	l.n -= int(l.ring[ci].n)
	for _, ch := range repl {
		l.n += int(ch.n)
	}
	chunks := slices.Replace(slices.Clone(l.chunks()), ci-l.lo, ci-l.lo+1, repl...)
	l.ring, l.lo, l.hi = chunks, 0, len(chunks)
	if l.hi == 0 {
		l.ring = nil
	}
}

// Range calls fn for elements start..stop (inclusive, 0 <= start <= stop <
// Len), head to tail, until fn returns false.
func (l *List) Range(start, stop int, fn func(v []byte) bool) {
	if start > stop || start >= l.n {
		return
	}
	ci, j := l.locate(start)
	left := stop - start + 1
	for ; ci < l.hi; ci++ {
		ch := &l.ring[ci]
		off := offsetOf(ch, j)
		for ; j < int(ch.n); j++ {
			var v []byte
			v, off = next(ch.buf, off)
			if !fn(v) {
				return
			}
			if left--; left == 0 {
				return
			}
		}
		j = 0
	}
}

// Descend calls fn for every element from the tail to the head with its
// index, until fn returns false.
func (l *List) Descend(fn func(i int, v []byte) bool) {
	i := l.n - 1
	for ci := l.hi - 1; ci >= l.lo; ci-- {
		elems := chunkElems(&l.ring[ci])
		for j := len(elems) - 1; j >= 0; j-- {
			if !fn(i, elems[j]) {
				return
			}
			i--
		}
	}
}

// Trim keeps elements start..stop (inclusive, 0 <= start <= stop < Len)
// and drops the rest; start > stop empties the list.
func (l *List) Trim(start, stop int) {
	if start > stop || start >= l.n {
		*l = List{fill: l.fill, depth: l.depth}
		return
	}
	l.dropBack(l.n - 1 - stop)
	l.dropFront(start)
}

func (l *List) dropFront(k int) {
	for k > 0 {
		ch := &l.ring[l.lo]
		if int(ch.n) <= k {
			k -= int(ch.n)
			l.n -= int(ch.n)
			ch.n = 0
			l.dropChunk(true)
			continue
		}
		ch.off = int32(offsetOf(ch, k))
		ch.n -= int32(k)
		l.n -= k
		return
	}
}

func (l *List) dropBack(k int) {
	for k > 0 {
		ch := &l.ring[l.hi-1]
		if int(ch.n) <= k {
			k -= int(ch.n)
			l.n -= int(ch.n)
			ch.n = 0
			l.dropChunk(false)
			continue
		}
		ch.buf = ch.buf[:offsetOf(ch, int(ch.n)-k)]
		ch.n -= int32(k)
		l.n -= k
		return
	}
}

// Remove removes elements equal to v: the first count from the head
// (count > 0), the last -count from the tail (count < 0), or all (0). It
// returns how many it removed.
func (l *List) Remove(v []byte, count int) int {
	removed := 0
	drop := map[int]bool{}
	if count < 0 {
		l.Descend(func(i int, e []byte) bool {
			if bytes.Equal(e, v) {
				drop[i] = true
				removed++
			}
			return removed < -count
		})
	} else {
		i := 0
		l.Range(0, l.n-1, func(e []byte) bool {
			if bytes.Equal(e, v) {
				drop[i] = true
				removed++
			}
			i++
			return count == 0 || removed < count
		})
	}
	if removed == 0 {
		return 0
	}
	l.filter(func(i int) bool { return !drop[i] })
	return removed
}

// filter rebuilds the list with the elements whose index keep accepts.
func (l *List) filter(keep func(i int) bool) {
	var kept List
	i := 0
	l.Range(0, l.n-1, func(e []byte) bool {
		if keep(i) {
			kept.PushBack(e)
		}
		i++
		return true
	})
	*l = kept
}

// Insert inserts v before (or after) the first element equal to pivot and
// returns the new length, or -1 if there is no such element.
func (l *List) Insert(pivot, v []byte, after bool) int {
	for ci := l.lo; ci < l.hi; ci++ {
		elems := chunkElems(&l.ring[ci])
		for j, e := range elems {
			if !bytes.Equal(e, pivot) {
				continue
			}
			if after {
				j++
			}
			l.replaceChunk(ci, slices.Insert(elems, j, v))
			return l.n
		}
	}
	return -1
}

// Pos returns the indexes of the elements equal to v, as LPOS: skipping the
// first rank-1 matches (rank < 0: searching from the tail), at most count
// of them (0: all), looking at no more than maxLen elements (0: all).
func (l *List) Pos(v []byte, rank, count, maxLen int) []int {
	var out []int
	seen, skip := 0, 0
	match := func(i int, e []byte) bool {
		if maxLen > 0 && seen >= maxLen {
			return false
		}
		seen++
		if bytes.Equal(e, v) {
			if skip++; skip >= abs(rank) {
				out = append(out, i)
				if count > 0 && len(out) >= count {
					return false
				}
			}
		}
		return true
	}
	if rank < 0 {
		l.Descend(match)
		return out
	}
	i := 0
	l.Range(0, l.n-1, func(e []byte) bool {
		ok := match(i, e)
		i++
		return ok
	})
	return out
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
