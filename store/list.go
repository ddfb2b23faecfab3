package store

import (
	"bytes"
	"encoding/binary"
	"slices"

	"github.com/floodgate/floodgate/internal/listpack"
)

// List is a list value kept as Redis 7.0 keeps one, a quicklist: a deque of
// nodes whose boundaries follow quicklist.c's rules exactly (a node takes
// an element while _quicklistNodeAllowInsert agrees, LINSERT splits a full
// node and merges its neighbours, deletions never merge), since DUMP and
// the RDB write a list node by node and clients compare those bytes. Each
// node is one byte buffer packing its elements as [uvarint length][bytes]
// (a listpack without the back-length: 1 byte of overhead per short
// element where Redis spends 2), and remembers the size the node has as a
// Redis listpack, which the rules read. Buffers grow to Go's next
// allocation size class rather than doubling, so a list costs about what
// its bytes do.
//
// Pushes and pops at either end are O(1) (bounded by a node's size); index
// based access walks the nodes from the nearer end, as Redis does.
// Elements passed to callbacks alias internal memory and are valid only
// until the list is next modified; popped elements are copies.
type List struct {
	ring   []listChunk // the nodes are ring[lo:hi], head first
	lo, hi int
	n      int
	// fill and depth are the list-max-listpack-size and
	// list-compress-depth the list was created with (Encodings.NewList).
	fill  int16
	depth uint16
	// headSz and tailSz are the head and tail nodes' sizes as Redis
	// listpacks (lpBytes), which pushes check. Inner nodes' sizes are
	// computed when needed (LINSERT, merges): keeping them would grow
	// every node header past 32 bytes, 16 more bytes for a small list.
	headSz, tailSz int32
	// tailMark-1 is the index of an element of the tail node that starts
	// at tailMarkOff in its buffer (0: none), a little before its end, so
	// that RPOP walks from there rather than from the node's start: the
	// nodes Redis's layout asks for hold hundreds of elements.
	tailMark, tailMarkOff uint16
}

// tailMarkStride is how far before the tail element the mark is set.
const tailMarkStride = 32

// listChunk is one quicklist node: a run of elements in buf[off:]. buf has
// room before off for pushes at the head and room past len(buf) for
// pushes at the tail.
type listChunk struct {
	buf []byte
	off int32
	n   uint16 // at most 32768 elements (64 KB of 2-byte entries)
	// lzf: Redis would hold the node LZF-compressed (list-compress-depth),
	// which DUMP shows; recompress: Redis decompressed it for a change and
	// compresses it again afterwards (quicklistNode.recompress).
	lzf, recompress bool
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

// Clone implements Value: the copy has the same nodes, as quicklistDup.
func (l *List) Clone() Value {
	c := &List{n: l.n, fill: l.fill, depth: l.depth}
	chunks := l.chunks()
	c.ring = make([]listChunk, len(chunks))
	for i, ch := range chunks {
		c.ring[i] = ch
		c.ring[i].buf, c.ring[i].off = slices.Clone(ch.buf[ch.off:]), 0
	}
	c.hi = len(chunks)
	c.headSz, c.tailSz = l.headSz, l.tailSz // buffers start at 0 in the copy: no tail mark
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

// PushBack appends vals at the tail, in order, as quicklistPushTail does
// each.
func (l *List) PushBack(vals ...[]byte) {
	for len(vals) > 0 {
		var ch *listChunk
		if l.lo < l.hi {
			ch = &l.ring[l.hi-1]
		}
		need, k, sz := l.fitting(ch, int(l.tailSz), vals)
		created := k == 0
		if created {
			l.addChunk(false)
			ch = &l.ring[l.hi-1]
			need, k, sz = elemSize(vals[0]), 1, listpack.HeaderSize+listpack.EntrySize(vals[0])
		}
		if cap(ch.buf)-len(ch.buf) < need {
			live := ch.buf[ch.off:]
			buf := make([]byte, len(live), l.grownSize(len(live)+need, cap(ch.buf)))
			copy(buf, live)
			ch.buf, ch.off = buf, 0
			l.tailMark = 0
		}
		for _, v := range vals[:k] {
			ch.buf = binary.AppendUvarint(ch.buf, uint64(len(v)))
			ch.buf = append(ch.buf, v...)
		}
		ch.n += uint16(k)
		l.setSize(l.hi-1, sz)
		l.n += k
		vals = vals[k:]
		if created {
			l.nodeInserted(l.hi-2, l.hi-1)
		}
	}
}

// PushFront inserts each of vals at the head in turn (LPUSH a b c leaves
// c first), as quicklistPushHead does.
func (l *List) PushFront(vals ...[]byte) {
	for len(vals) > 0 {
		var ch *listChunk
		if l.lo < l.hi {
			ch = &l.ring[l.lo]
		}
		need, k, sz := l.fitting(ch, int(l.headSz), vals)
		created := k == 0
		if created {
			l.addChunk(true)
			ch = &l.ring[l.lo]
			need, k, sz = elemSize(vals[0]), 1, listpack.HeaderSize+listpack.EntrySize(vals[0])
		}
		if l.hi-l.lo == 1 {
			l.tailMark = 0 // the tail's indexes shift
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
		ch.n += uint16(k)
		l.setSize(l.lo, sz)
		l.n += k
		vals = vals[k:]
		if created {
			l.nodeInserted(l.lo+1, l.lo)
		}
	}
}

// fitting returns how many of vals (k) node ch, of sz bytes as a
// listpack, takes in turn (none if ch is nil), the bytes they need in its
// buffer, and the node's listpack size with them, so that one RPUSH grows
// a node once.
func (l *List) fitting(ch *listChunk, sz int, vals [][]byte) (need, k, _ int) {
	if ch == nil {
		return 0, 0, 0
	}
	count := int(ch.n)
	for k < len(vals) && l.takes(sz, count, len(vals[k])) {
		need += elemSize(vals[k])
		sz += listpack.EntrySize(vals[k])
		count++
		k++
	}
	return need, k, sz
}

// grownSize is the new size of a chunk buffer that must hold n bytes. The
// only chunk of a small list grows to exactly n (rounded to a size class),
// as a listpack does, since many small lists are the common case; the end
// chunk of a longer list will most likely fill up, so it doubles (up to
// the node size limit) instead of being copied on every push.
func (l *List) grownSize(n, old int) int {
	size := sizeClass(n)
	if l.hi-l.lo > 1 {
		size = max(size, min(l.nodeLimit(), 2*old))
	}
	return size
}

// addChunk adds an empty chunk at the head or the tail. When that end of
// the ring is full, the ring is reallocated with a quarter of its chunks'
// count as room at that end: amortized O(1) per chunk, and a long list's
// ring stays within 25% of its size (a list of one chunk has a ring of one).
func (l *List) addChunk(head bool) {
	l.tailMark = 0
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
	if l.hi-l.lo == 1 {
		l.tailMark = 0 // the tail's indexes shift
	}
	v, end := next(ch.buf, int(ch.off))
	v = slices.Clone(v)
	if v == nil {
		v = []byte{}
	}
	ch.off = int32(end)
	l.dropped(l.lo, v)
	return v
}

// PopBack removes and returns the tail element, or nil if the list is
// empty.
func (l *List) PopBack() []byte {
	if l.n == 0 {
		return nil
	}
	ch := &l.ring[l.hi-1]
	at := l.tailOffset(ch)
	v, _ := next(ch.buf, at)
	v = slices.Clone(v)
	if v == nil {
		v = []byte{}
	}
	ch.buf = ch.buf[:at]
	l.dropped(l.hi-1, v)
	return v
}

// tailOffset returns the offset of the last element of ch, the tail
// node, walking from the mark, which it sets first if needed.
func (l *List) tailOffset(ch *listChunk) int {
	last := int(ch.n) - 1
	i, off := int(l.tailMark)-1, int(l.tailMarkOff)
	if i < 0 || i > last {
		i = max(0, last-tailMarkStride)
		off = offsetOf(ch, i)
		l.tailMark, l.tailMarkOff = 0, 0
		if off <= 1<<16-1 {
			l.tailMark, l.tailMarkOff = uint16(i+1), uint16(off)
		}
	}
	for ; i < last; i++ {
		_, off = next(ch.buf, off)
	}
	return off
}

// dropped accounts for v, just cut from node ci's buffer, and deletes the
// node if that emptied it (quicklistDelIndex).
func (l *List) dropped(ci int, v []byte) {
	ch := &l.ring[ci]
	ch.n--
	l.n--
	if ch.n == 0 {
		l.deleteNode(ci)
		return
	}
	l.setSize(ci, l.size(ci)-listpack.EntrySize(v))
}

// PopRange removes and returns up to count elements from one end, in the
// order they are popped, as LPOP/RPOP with a count and LMPOP do: Redis
// reads them with an iterator, then deletes them as one range.
func (l *List) PopRange(front bool, count int) [][]byte {
	count = min(count, l.n)
	if count <= 0 {
		return [][]byte{}
	}
	out := make([][]byte, 0, count)
	if front {
		l.Range(0, count-1, func(v []byte) bool {
			out = append(out, slices.Clone(v))
			return true
		})
	} else {
		l.Descend(func(_ int, v []byte) bool {
			out = append(out, slices.Clone(v))
			return len(out) < count
		})
	}
	for i, v := range out {
		if v == nil {
			out[i] = []byte{}
		}
	}
	start := 0
	if !front {
		start = l.n - count
	}
	l.touchRange(start, start+count-1, !front)
	if front {
		l.deleteRange(0, count)
	} else {
		l.deleteRange(-count, count)
	}
	return out
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
// was in range. The node keeps its place whatever its new size, as
// quicklistReplaceAtIndex keeps it.
func (l *List) Set(i int, v []byte) bool {
	if i < 0 {
		i += l.n
	}
	if i < 0 || i >= l.n {
		return false
	}
	ci, j := l.locate(i)
	l.decompressForUse(ci)
	elems := chunkElems(&l.ring[ci])
	elems[j] = v
	l.rewrite(ci, elems)
	l.touch(ci)
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

// packChunk returns a node holding elems in a new buffer.
func packChunk(elems [][]byte) listChunk {
	size := 0
	for _, v := range elems {
		size += elemSize(v)
	}
	buf := make([]byte, 0, sizeClass(size))
	for _, v := range elems {
		buf = binary.AppendUvarint(buf, uint64(len(v)))
		buf = append(buf, v...)
	}
	return listChunk{buf: buf, n: uint16(len(elems))}
}

// rewrite makes elems (which may alias the node) the contents of node ci,
// keeping its compression state.
func (l *List) rewrite(ci int, elems [][]byte) {
	l.tailMark = 0
	ch := &l.ring[ci]
	packed := packChunk(elems)
	packed.lzf, packed.recompress = ch.lzf, ch.recompress
	l.n += int(packed.n) - int(ch.n)
	*ch = packed
	if ci == l.lo || ci == l.hi-1 {
		l.setSize(ci, elemsSize(elems))
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
// and drops the rest; start > stop empties the list. As LTRIM, it deletes
// the range before start, then the one after stop.
func (l *List) Trim(start, stop int) {
	if start > stop || start >= l.n {
		*l = List{fill: l.fill, depth: l.depth}
		return
	}
	right := l.n - 1 - stop
	l.deleteRange(0, start)
	l.deleteRange(-right, right)
}

// Remove removes elements equal to v: the first count from the head
// (count > 0), the last -count from the tail (count < 0), or all (0). It
// returns how many it removed. As LREM, it empties nodes but never merges
// them.
func (l *List) Remove(v []byte, count int) int {
	removed := 0
	limit := abs(count)
	backward := count < 0
	ci := l.lo
	if backward {
		ci = l.hi - 1
	}
	for ci >= l.lo && ci < l.hi {
		l.decompressForUse(ci)
		elems := chunkElems(&l.ring[ci])
		kept := elems[:0:0]
		done := false
		for k := range elems {
			j := k
			if backward {
				j = len(elems) - 1 - k
			}
			if done || !bytes.Equal(elems[j], v) {
				kept = append(kept, elems[j])
				continue
			}
			removed++
			done = limit > 0 && removed == limit
		}
		if len(kept) < len(elems) {
			if backward {
				slices.Reverse(kept)
			}
			l.rewrite(ci, kept)
		}
		// The iterator moves on: Redis compresses the node it leaves, or,
		// when it deleted that node, the one it moved to.
		if l.ring[ci].n == 0 {
			ci = l.deleteNodeAt(ci)
			if backward {
				ci--
			}
			if done && ci >= l.lo && ci < l.hi {
				l.touch(ci)
			}
		} else {
			l.touch(ci)
			if backward {
				ci--
			} else {
				ci++
			}
		}
		if done {
			break
		}
	}
	return removed
}

// Insert inserts v before (or after) the first element equal to pivot and
// returns the new length, or -1 if there is no such element.
func (l *List) Insert(pivot, v []byte, after bool) int {
	for ci := l.lo; ci < l.hi; ci++ {
		l.decompressForUse(ci)
		for j, e := range chunkElems(&l.ring[ci]) {
			if bytes.Equal(e, pivot) {
				l.insertAt(ci, j, v, after)
				return l.n
			}
		}
		l.touch(ci)
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
